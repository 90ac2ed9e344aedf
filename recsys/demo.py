"""The demo: train on the generated demo data (offline), evaluate every method, write a report.

``recsys demo`` is a thin face over :func:`run_demo`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import atomic_open, json_default


@dataclass
class Demo:
    """What the demo wrote and measured."""

    model: Path
    evaluation_file: Path
    evaluation_text: Path
    report: Path
    evaluation_page: Path
    evaluation: dict


STEPS = 4


def run_demo(out: str | Path, users: int = 20, progress=None) -> Demo:
    """Train on the demo data, evaluate every method (200 bootstrap resamples), save the model,
    the evaluation (JSON, text and an HTML page) and one report page for each of the ``users`` most
    active users, with an index that links the evaluation.

    ``progress`` is called with the messages of the work; its ``step`` method, when it has one,
    with the :data:`STEPS` steps of the demo (else ``progress`` takes those too)."""
    from ingest.datasets import DataSource

    from .evaluation import Protocol, evaluate
    from .evaluation.summary import text_lines
    from .model import ProfileRecommender
    from .present.evaluation_report import write_evaluation
    from .present.report import write_all
    from .provenance import provenance
    from .store import fingerprint, save

    t0 = time.perf_counter()
    say = progress or (lambda message: None)
    step = getattr(progress, "step", say)
    out = Path(out)
    data = DataSource(dataset="demo", split="random:0.2:0").load(evaluating=True)
    people, movies = data.train["user"].nunique(), data.train["item"].nunique()
    step(
        f"demo data (generated): {people:,} people, {movies:,} movies, {len(data.train):,} training and "
        f"{len(data.test):,} test ratings; attributes {', '.join(data.kinds)}"
    )
    step("every method tuned and scored: like/dislike, top-10 lists, ablations, new people (about 40 s)")
    res = evaluate(data.train, data.test, data.attributes, data.items, protocol=Protocol(n_boot=200), progress=progress)
    step("the model on all training ratings")
    model = ProfileRecommender().fit(data.train, data.attributes, data.items, progress=progress)
    step(f"writing the model, the evaluation and {max(1, users)} people's report pages to {out}")
    out.mkdir(parents=True, exist_ok=True)
    stamp = provenance(
        dataset="demo",
        split=data.split,
        attribute_kinds=data.kinds,
        data_fingerprint=fingerprint(data.train, data.attributes),
    )
    save(model, out / "model", stamp)
    evaluation = {"dataset": "demo", "split": data.split, **res, **provenance()}
    with atomic_open(out / "evaluation.json") as f:
        json.dump(evaluation, f, default=json_default, indent=1)
    counts = model.profiles_.ratings.lengths
    top = model.profiles_.users[np.argsort(-counts, kind="stable")[: max(1, users)]]
    page = write_evaluation(evaluation, out / "report" / "evaluation.html")
    index = write_all(
        model,
        out / "report",
        top.tolist(),
        10,
        str(out / "model"),
        progress=progress,
        links=[("How every method compares: the evaluation", "evaluation.html")],
    )
    evaluation["demo_seconds"] = time.perf_counter() - t0
    with atomic_open(out / "evaluation.txt") as f:
        f.write("\n".join(text_lines(evaluation)) + "\n")
    return Demo(out / "model", out / "evaluation.json", out / "evaluation.txt", index, page, evaluation)
