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
    if runs:
        lines += ["## The protocol's questions", "", readme_section(runs)]
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


def _pooled(runs: dict, reference: str = "profile") -> dict:
    """``reference`` minus every other list on the mean of the MovieLens splits run (users
    resampled within each split)."""
    from recsys.evaluation.intervals import pooled_paired_means

    per = [runs[n]["evaluation"]["topn"].get("per_user_ndcg") for n in ML_SPLITS if n in runs]
    if len(per) < 2 or not all(p and reference in p for p in per):
        return {}
    per = [{m: np.asarray(v) for m, v in p.items()} for p in per]
    return pooled_paired_means(per, reference, 1000, seed=0)["versus"]


def reading(ci: list) -> str:
    """The protocol's word for a difference's 95 % interval: above when it lies above 0, below when
    below, level otherwise."""
    return "above" if ci[0] > 0 else "below" if ci[1] < 0 else "level"


def compared(c: dict, what: str) -> str:
    """``above EASE`` / ``below EASE`` / ``level with EASE``: the product against ``what`` by
    :func:`reading` of ``c``'s interval (``c``: a pooled difference, ``diff`` and ``diff_ci``)."""
    word = reading(c["diff_ci"])
    return f"{'level with' if word == 'level' else word} {what}"


def _said(c: dict | None, diff: str = "diff", ci: str = "diff_ci") -> str:
    return f"{c[diff]:+.4f} [{c[ci][0]:+.4f}, {c[ci][1]:+.4f}] {reading(c[ci])}" if c else "—"


def _beyond_blend(per_user: dict) -> dict:
    """The co-cluster item model + blend against EASE + blend and iALS + blend (paired, users)."""
    from recsys.evaluation.intervals import paired_bootstrap_means

    values = {m: np.asarray(per_user[m]) for m in ("item_model_blend", "ease_blend", "ials_blend") if m in per_user}
    if "item_model_blend" not in values:
        return {}
    return paired_bootstrap_means(values, "item_model_blend", 1000, seed=0)["versus"]


def readme_section(runs: dict) -> str:
    """The README's confirmation tables (``tests/test_results_in_docs.py`` checks that the README
    holds them as rendered here): the protocol's three questions, each difference with its
    interval and its word by :func:`reading`."""
    lists = [
        "| confirmation data | product NDCG@10 | product − EASE | product − iALS "
        "| item model + blend − EASE + blend | − iALS + blend |",
        "|---|---|---|---|---|---|",
    ]
    aucs = [
        "| confirmation data | product AUC | − attribute LR | − SVD | − KNNBaseline |",
        "|---|---|---|---|---|",
    ]
    for name, run in runs.items():
        ev = run["evaluation"]
        t = ev["topn"]
        versus, beyond = t["ci"]["versus"], _beyond_blend(t["per_user_ndcg"])
        lists.append(
            f"| {name} | {t['methods']['profile']['ndcg@10']:.4f} | {_said(versus.get('ease'))} "
            f"| {_said(versus.get('ials'))} | {_said(beyond.get('ease_blend'))} | {_said(beyond.get('ials_blend'))} |"
        )
        auc_versus = ev["ci"]["versus"]
        cells = [
            _said(auc_versus.get(m), "auc_diff", "auc_diff_ci") for m in ("attribute_logistic", "svd", "knn_baseline")
        ]
        aucs.append(f"| {name} | {ev['methods']['profile']['auc_full']:.4f} | " + " | ".join(cells) + " |")
    pooled, pooled_blend = _pooled(runs), _pooled(runs, "item_model_blend")
    if pooled:
        n = sum(name in runs for name in ML_SPLITS)
        lists.append(
            f"| the {n} MovieLens 100K splits' mean | | {_said(pooled.get('ease'))} | {_said(pooled.get('ials'))} "
            f"| {_said(pooled_blend.get('ease_blend'))} | {_said(pooled_blend.get('ials_blend'))} |"
        )
    return "\n".join(lists) + "\n\n" + "\n".join(aucs) + "\n"


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
