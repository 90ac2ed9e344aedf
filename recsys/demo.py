"""The demo: train on the generated demo data (offline), evaluate every method, write a report.

``recsys demo`` is a thin face over :func:`run_demo`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import atomic_open, json_default


@dataclass
class Demo:
    """What the demo wrote and measured."""

    model: Path
    evaluation_file: Path
    report: Path
    evaluation_page: Path
    evaluation: dict


def run_demo(out: str | Path, users: int = 20, progress=None) -> Demo:
    """Train on the demo data, evaluate every method (200 bootstrap resamples), save the model,
    the evaluation (JSON and an HTML page) and one report page for each of the ``users`` most
    active users, with an index that links the evaluation."""
    from ingest.datasets import DataSource

    from .evaluation import Protocol, evaluate
    from .model import ProfileRecommender
    from .present.evaluation_report import write_evaluation
    from .present.report import write_all
    from .provenance import provenance
    from .store import fingerprint, save

    say = progress or (lambda message: None)
    out = Path(out)
    data = DataSource(dataset="demo", split="random:0.2:0").load(evaluating=True)
    say(f"demo data: {len(data.train):,} training and {len(data.test):,} test ratings; attributes {data.kinds}")
    res = evaluate(data.train, data.test, data.attributes, data.items, protocol=Protocol(n_boot=200), progress=progress)
    model = ProfileRecommender().fit(data.train, data.attributes, data.items, progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    stamp = provenance(dataset="demo", split=data.split, attribute_kinds=data.kinds,
                       data_fingerprint=fingerprint(data.train, data.attributes))  # fmt: skip
    save(model, out / "model", stamp)
    evaluation = {"dataset": "demo", "split": data.split, **res, **provenance()}
    with atomic_open(out / "evaluation.json") as f:
        json.dump(evaluation, f, default=json_default, indent=1)
    counts = model.profiles_.ratings.lengths
    top = model.profiles_.users[np.argsort(-counts, kind="stable")[: max(1, users)]]
    page = write_evaluation(evaluation, out / "report" / "evaluation.html")
    index = write_all(model, out / "report", top.tolist(), 10, str(out / "model"), progress=progress,
                      links=[("How every method compares: the evaluation", "evaluation.html")])  # fmt: skip
    return Demo(out / "model", out / "evaluation.json", index, page, evaluation)
