"""The confirmation: the design, frozen, run once on data it was never tuned on (protocol:
``docs/confirmation.md``; written, committed and tagged before the run).

Each data set is evaluated by ``recsys evaluate --grid full`` in a child process — every method's
setting chosen by the same search on the training ratings alone, lists and like/dislike, the
product's ablations and controls, the blends given to EASE and iALS, intervals over users — and
its result written to ``results/confirmation/<name>.json`` (a data set already there is not run
again: each is run once).  ``results/confirmation.md`` is rendered from the files present.

Usage: python -m experiments.confirm [--datasets NAME,...] [--out DIR] [--render]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import RESULTS, chosen, datasets_parser, log, runs_in
from .runner import data_home

ROOT = Path(__file__).resolve().parent.parent
# seeds never used by the design (it was tuned on u1..u5 and on splits and generators of seed 0)
ML_SPLITS = {f"ml-100k-random-{s}": ("ml-100k", f"random:0.2:{s}") for s in (7001, 7002, 7003)}
DATASETS = {
    **{name: {"dataset": d, "split": split, "top_cast": 3} for name, (d, split) in ML_SPLITS.items()},
    "ml-latest-small-random-7001": {"dataset": "ml-latest-small", "split": "random:0.2:7001"},
    # a content shape of its own: fewer readers and items than the content test bed, tastes that also
    # choose what is rated, a director per ten items, three quarters likes
    "content-new-shape-9001": {
        "shape": {"n_users": 900, "n_items": 2_500, "n_ratings": 70_000, "content": 0.6, "n_directors": 250}
        | {"selection": 0.5, "like_share": 0.75, "seed": 9001},
        "split": "random:0.2:9001",
    },
}
RANKERS = ("ease", "ials", "rp3beta", "itemknn", "bpr", "popularity")
BLENDS = ("item_model_blend", "ease_blend", "ials_blend")


def command(spec: dict, work: Path) -> list[str]:
    """The ``recsys evaluate`` command of one data set."""
    cmd = [
        sys.executable,
        "-m",
        "recsys.cli",
        "evaluate",
        "--grid",
        "full",
        "--split",
        spec["split"],
        "--format",
        "json",
        "--quiet",
    ]
    if "shape" in spec:
        sys.path.insert(0, str(ROOT))
        from benchmarks.synthetic_ratings import Shape, write

        ratings, items = write(Shape(**spec["shape"]), work)
        return [*cmd, "--ratings", str(ratings), "--items", str(items)]
    cmd += ["--dataset", spec["dataset"]]
    return [*cmd, "--top-cast", str(spec["top_cast"])] if "top_cast" in spec else cmd


def run_one(name: str, out: Path, home: Path) -> Path:
    """Evaluate data set ``name`` once; its JSON in ``out``."""
    path = out / f"{name}.json"
    if path.exists():
        log(f"{name}: already run ({path}); not run again")
        return path
    spec = DATASETS[name]
    with tempfile.TemporaryDirectory() as tmp:
        cmd = command(spec, Path(tmp))
        log(f"{name}: {' '.join(cmd[2:])}")
        t = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "RECSYS_DATA": str(home)})
    if done.returncode:
        raise SystemExit(f"{name}: recsys evaluate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"name": name, "spec": spec, "seconds": time.perf_counter() - t, "evaluation": result}
    path.write_text(json.dumps(payload, indent=1))
    return path


def markdown(runs: dict) -> str:
    """The confirmation's figures, every data set run so far, whatever they show."""
    lines = ["# The confirmation: the frozen design on data it never saw", ""]
    if runs:
        first = next(iter(runs.values()))["evaluation"]
        lines += [
            f"Commit `{first.get('commit', '?')}`; protocol: `docs/confirmation.md`. Every figure is on the "
            "test ratings of each data set; intervals are 95 %, users resampled.",
            "",
        ]
    for name, run in runs.items():
        ev = run["evaluation"]
        lines += [
            f"## {name} ({ev['n_test']:,} test ratings, {ev['like_share_test']:.1%} likes; "
            f"{run['seconds'] / 60:.0f} min)",
            "",
        ]
        lines += _list_rows(ev) + [""] + _auc_rows(ev) + [""]
    pooled = _pooled(runs)
    if pooled:
        lines += [
            "## The three MovieLens 100K splits together",
            "",
            "Profile minus each, NDCG@10 on the mean of the splits (users resampled within each split):",
            "",
            "| versus | difference | 95 % interval |",
            "|---|---|---|",
        ]
        lines += [
            f"| {m} | {c['diff']:+.4f} | [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}] |" for m, c in pooled.items()
        ]
    return "\n".join(lines) + "\n"


def _cell(diff: float, ci: list) -> str:
    return f"{diff:+.4f} [{ci[0]:+.4f}, {ci[1]:+.4f}]"


def _list_rows(ev: dict) -> list[str]:
    t = ev.get("topn", {})
    ci = t.get("ci", {}).get("versus", {})
    figures = {m: r["ndcg@10"] for m, r in t.get("methods", {}).items()}
    figures.update({m: r["ndcg@10"] for m, r in t.get("controls", {}).items() if m in BLENDS})
    rows = ["| top-10 list | NDCG@10 | profile − it [95 %] |", "|---|---|---|"]
    for m in sorted(figures, key=lambda m: -figures[m]):
        c = ci.get(m)
        rows.append(f"| {m} | {figures[m]:.4f} | {_cell(c['diff'], c['diff_ci']) if c else ''} |")
    return rows


def _auc_rows(ev: dict) -> list[str]:
    ci = ev.get("ci", {}).get("versus", {})
    auc = {m: r["auc_full"] for m, r in ev.get("methods", {}).items() if r.get("auc_full") is not None}
    rows = ["| like/dislike | AUC | profile − it [95 %] |", "|---|---|---|"]
    for m in sorted(auc, key=lambda m: -auc[m]):
        c = ci.get(m)
        rows.append(f"| {m} | {auc[m]:.4f} | {_cell(c['auc_diff'], c['auc_diff_ci']) if c else ''} |")
    return rows


def _pooled(runs: dict) -> dict:
    from recsys.evaluation.intervals import pooled_paired_means

    per = [runs[n]["evaluation"]["topn"].get("per_user_ndcg") for n in ML_SPLITS if n in runs]
    if len(per) < 2 or not all(p and "profile" in p for p in per):
        return {}
    per = [{m: np.asarray(v) for m, v in p.items()} for p in per]
    return pooled_paired_means(per, "profile", 1000, seed=0)["versus"]


def render(out: Path) -> Path:
    path = out.parent / "confirmation.md"
    path.write_text(markdown(runs_in(out, DATASETS)))
    return path


def main(argv=None) -> None:
    ap = datasets_parser(__doc__, DATASETS, RESULTS / "confirmation", "confirmation.md")
    args = ap.parse_args(argv)
    names = chosen(args.datasets, DATASETS)
    if not args.render:
        for name in names:
            run_one(name, args.out, data_home(args.data))
    print(render(args.out).read_text())


if __name__ == "__main__":
    main()
