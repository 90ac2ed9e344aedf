"""The recommender against the size of its data: train time, peak memory, model size, accuracy.

For each size (default 100 k and 1 M ratings; ``--sizes 100000,1000000,5000000,25000000`` for the
whole curve) MovieLens-shaped ratings are generated (:mod:`benchmarks.synthetic_ratings`, seeded),
10 % of them held out at random, and ``recsys train --ratings … --items … --split random:0.1:0``
is run as a child process: its wall time, its peak resident memory (the kernel's count for that
process, ``wait4``), the seconds of each training phase (from its progress lines) and the size of
the model directory it writes.  Then the held-out ratings are scored: the like/dislike AUC and
the top-10 NDCG (a held-out rating ≥ 4 is relevant; every unrated movie is a candidate) of the
model, beside ItemKNN (k 200) and — where its dense items × items inverse fits — EASE (λ 400),
both on the likes, settings fixed (they are what the five-fold protocol picks most often on
MovieLens 100K), not tuned per size; and EASE with its λ grown by the recommender's own scaling
rule (``ease_scaled``: 400 × the mean like count of a liked movie / 40).

Usage: python benchmarks/bench_recsys_scale.py [--sizes 100000,1000000] [--json FILE] [--keep DIR]
       [--train-args "--scaling off"] [--plot PNG]

``--json`` adds the runs to the file (a run of the same size and train arguments replaces the
one there; each run carries its own commit stamp), so sizes measured at different times share one
file; ``--plot`` draws time and peak memory against ratings from every run in that file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic_ratings import Shape, write  # noqa: E402

SPLIT = "random:0.1:0"
EASE_MAX_ITEMS = 20_000  # 8 × items² bytes for the inverse, twice: 6.4 GB at 20,000
PHASE = re.compile(r"^\[\s*([\d.]+)s\] (.*)$")


def train(ratings: Path, items: Path, out: Path, extra: tuple[str, ...] = ()) -> dict:
    """Run ``recsys train`` (with the ``extra`` arguments) as a child process; its wall time, peak
    memory, phases and model size."""
    cmd = [sys.executable, "-m", "recsys.cli", "train", "--ratings", str(ratings), "--items", str(items),
           "--split", SPLIT, "-o", str(out), *extra]  # fmt: skip
    log = out.with_suffix(".log")
    start = time.perf_counter()
    with open(log, "w") as f:
        child = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "200"})
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    text = log.read_text()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"recsys train failed:\n{text[-2000:]}")
    marks = [(float(m.group(1)), m.group(2)) for m in map(PHASE.match, text.splitlines()) if m]
    total = re.search(r"trained in ([\d.]+) s", text)
    ends = [t for t, _ in marks[1:]] + [float(total.group(1)) if total else seconds]
    phases: dict[str, float] = {}
    for (t, name), end in zip(marks, ends):
        key = re.sub(r"\d[\d,]* ", "", name.split(":")[0])  # "co-clustering the like relation (…)" → one key
        key = re.sub(r" \(.*\)", "", key)
        phases[key] = phases.get(key, 0.0) + end - t
    size = sum(p.stat().st_size for p in out.iterdir())
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024, "model_mb": size / 2**20, "phases": phases}


def accuracy(ratings_csv: Path, model_dir: Path) -> dict:
    """Held-out AUC and NDCG@10 of the model, ItemKNN and EASE (where it fits)."""
    import pandas as pd

    from ingest.splits import split_ratings
    from recsys.evaluation.anchors import EASE, ItemKNN
    from recsys.evaluation.methods import ProfileMethod, Training
    from recsys.evaluation.metrics import fill_uncovered, roc_auc
    from recsys.evaluation.ranking import RankingTask, catalogue_of, ndcg_per_user, top_lists
    from recsys.model.recommender import scaled_item_penalty
    from recsys.store import load

    ratings = pd.read_csv(ratings_csv)
    fit, test = split_ratings(ratings, SPLIT)
    profile = ProfileMethod()
    profile.model = load(model_dir)
    scores = profile.score(test["user"].to_numpy(), test["item"].to_numpy())
    task = RankingTask.of(fit, test, catalogue_of(fit))
    out = {"auc": {"profile": roc_auc(test["rating"].to_numpy() > 2, fill_uncovered(scores.score, scores.covered))},
           "ndcg@10": {}, "users_listed": len(task)}  # fmt: skip
    methods = {"profile": profile, "itemknn": ItemKNN(k=200, input="likes")}
    if len(task.catalogue) <= EASE_MAX_ITEMS:
        methods["ease"] = EASE(lamb=400, input="likes")
        # EASE under the recommender's scaling rule for its penalty (the same training data)
        methods["ease_scaled"] = EASE(lamb=scaled_item_penalty(fit, 400.0), input="likes")
    for name, method in methods.items():
        start = time.perf_counter()
        if name != "profile":
            method.fit(Training(fit))
        out["ndcg@10"][name] = float(ndcg_per_user(top_lists(method, task), task.relevant).mean())
        out.setdefault("score_seconds", {})[name] = time.perf_counter() - start
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="ratings per run, comma separated ('': only --plot)")
    parser.add_argument("--json", help="write the figures here (stamped with the commit)")
    parser.add_argument("--keep", help="keep the data and models here (data already there is reused)")
    parser.add_argument("--train-args", default="", help="more arguments of recsys train, e.g. '--scaling off'")
    parser.add_argument("--plot", help="draw time and memory against ratings from the --json file into this PNG")
    args = parser.parse_args(argv)
    if args.plot and not args.json:
        parser.error("--plot draws the runs of the --json file: give --json too")
    if args.sizes == "":  # only plot
        if not args.plot:
            parser.error("--sizes '' measures nothing: give --plot")
        plot(json.loads(Path(args.json).read_text())["runs"], Path(args.plot))
        return
    from recsys.provenance import provenance

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="recsys-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            shape = Shape.like_movielens(n)
            data = work / f"data-{n}"
            start = time.perf_counter()
            ratings_csv, items_csv = data / "ratings.csv", data / "items.csv"
            if not (args.keep and ratings_csv.exists() and items_csv.exists()):  # seeded: the same data
                ratings_csv, items_csv = write(shape, data)
            generated = time.perf_counter() - start
            row = {"ratings": n, "users": shape.n_users, "items": shape.n_items, "generate_seconds": generated,
                   "train_args": args.train_args}  # fmt: skip
            row.update(train(ratings_csv, items_csv, work / f"model-{n}", tuple(shlex.split(args.train_args))))
            row.update(accuracy(ratings_csv, work / f"model-{n}"))
            row["provenance"] = provenance()
            rows.append(row)
            print(_line(row), flush=True)
            if args.json:  # after every size: a long run killed later keeps what it measured
                _merge(Path(args.json), row)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.plot:
        plot(json.loads(Path(args.json).read_text())["runs"], Path(args.plot))


def _merge(path: Path, row: dict) -> None:
    """Add ``row`` to the runs of ``path`` (replacing a run of the same size and train arguments)."""
    runs = json.loads(path.read_text())["runs"] if path.exists() else []
    same = (row["ratings"], row["train_args"])
    runs = [r for r in runs if (r["ratings"], r.get("train_args", "")) != same] + [row]
    runs.sort(key=lambda r: (r.get("train_args", ""), r["ratings"]))
    path.write_text(json.dumps({"runs": runs}, indent=1, default=float))


def plot(runs: list[dict], path: Path) -> None:
    """Train time and peak memory against ratings, one line per train arguments, log-log, with a
    line of slope 1 (linear growth) through the 1 M point (else the first) for reference."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for args in sorted({r.get("train_args", "") for r in runs}):
        sel = sorted((r for r in runs if r.get("train_args", "") == args), key=lambda r: r["ratings"])
        x = [r["ratings"] for r in sel]
        label = f"recsys train {args}".strip() if args else "recsys train (default: scaling auto)"
        for ax, key, scale in ((axes[0], "seconds", 1.0), (axes[1], "peak_mb", 1 / 1024)):
            y = [r[key] * scale for r in sel]
            ax.plot(x, y, "o-", label=label)
            if args == "" and len(x) > 1:  # from 1 M on where measured: below it fixed costs dominate
                a = next((t for t, n in enumerate(x) if n >= 1_000_000), 0)
                ax.plot([x[a], x[-1]], [y[a], y[a] * x[-1] / x[a]], "k:", lw=1,
                        label=f"linear from {x[a]:,} ratings")  # fmt: skip
    for ax, ylabel in ((axes[0], "training time (s)"), (axes[1], "peak memory (GB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ratings (MovieLens-shaped synthetic)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("recsys train against data size (2 cores, 24 GB)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _line(row: dict) -> str:
    per_million = row["seconds"] / (row["ratings"] / 1e6)
    phases = ", ".join(f"{k} {v:.1f}" for k, v in sorted(row["phases"].items(), key=lambda kv: -kv[1])[:5])
    ndcg = ", ".join(f"{k} {v:.4f}" for k, v in row["ndcg@10"].items())
    return (f"{row['ratings']:>11,} ratings ({row['users']:,} × {row['items']:,}): train {row['seconds']:.1f} s "
            f"({per_million:.0f} s per million), peak {row['peak_mb']:,.0f} MB, model {row['model_mb']:.0f} MB; "
            f"AUC {row['auc']['profile']:.4f}; NDCG@10 {ndcg}\n    slowest phases (s): {phases}")  # fmt: skip


if __name__ == "__main__":
    main()
