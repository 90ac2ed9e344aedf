"""Implicit feedback: the product on interactions without ratings, beside the list methods a
recommender engineer would pick, under the one protocol of ``recsys evaluate``.

MovieLens 100K's five folds and ml-latest-small (a random fifth held out) are read as interactions
— every rating one, the implicit-feedback literature's usual setting — and so is the play generator
of ``benchmarks/synthetic_ratings.py --plays`` (MovieLens-shaped tastes, heavy-tailed counts).
Each data set is one ``recsys evaluate --implicit`` in a child process: every method's setting
chosen by the same search on a held-out tenth of the training interactions, lists for the test
users (every held-out interaction relevant), the product's list controls (random and full support)
and the blends, intervals over users.  Results: ``results/implicit/<name>.json`` (a data set
already there is not run again) and ``results/implicit.md``, rendered from those files, with the
five folds' pooled paired intervals (users resampled within folds).

Usage: python -m experiments.implicit [--datasets NAME,...] [--grid small|full] [--out DIR] [--render]
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
FOLDS = ("u1", "u2", "u3", "u4", "u5")
DATASETS = {
    **{f"ml-100k-{f}": {"dataset": "ml-100k", "split": f, "top_cast": 3} for f in FOLDS},
    "ml-latest-small": {"dataset": "ml-latest-small", "split": "random:0.2:0"},
    # MovieLens-shaped tastes that choose what is played, 100,000 plays of 1,400 users
    "plays-100k": {"plays": {"n_ratings": 100_000, "structure": "movielens", "seed": 0}, "split": "random:0.2:0"},
}
RANKERS = ("profile", "ease", "ials", "bpr", "itemknn", "rp3beta", "popularity")
CONTROLS = ("random_support", "full_support", "item_model_blend", "ease_blend", "ials_blend")


def command(spec: dict, work: Path, grid: str) -> list[str]:
    """The ``recsys evaluate --implicit`` command of one data set (its plays written to ``work``)."""
    cmd = [sys.executable, "-m", "recsys.cli", "evaluate", "--implicit", "--grid", grid, "--split", spec["split"]]
    cmd += ["--format", "json", "--quiet"]
    if "plays" in spec:
        sys.path.insert(0, str(ROOT))
        from benchmarks.synthetic_ratings import STRUCTURES, Shape, write

        p = spec["plays"]
        shape = Shape.like_movielens(p["n_ratings"], seed=p["seed"], **STRUCTURES[p["structure"]])
        plays, items = write(shape, work, plays=True)
        return [*cmd, "--ratings", str(plays), "--items", str(items)]
    cmd += ["--dataset", spec["dataset"]]
    return [*cmd, "--top-cast", str(spec["top_cast"])] if "top_cast" in spec else cmd


def run(name: str, out: Path, home: Path, grid: str) -> Path:
    """Evaluate data set ``name`` (unless its file is there); its JSON in ``out``."""
    path = out / f"{name}.json"
    if path.exists():
        log(f"{name}: already run ({path})")
        return path
    with tempfile.TemporaryDirectory() as tmp:
        cmd = command(DATASETS[name], Path(tmp), grid)
        log(f"{name}: {' '.join(cmd[2:])}")
        started = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "RECSYS_DATA": str(home)})
    if done.returncode:
        raise SystemExit(f"{name}: recsys evaluate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    out.mkdir(parents=True, exist_ok=True)
    payload = {"name": name, "spec": DATASETS[name], "grid": grid, "seconds": time.perf_counter() - started}
    path.write_text(json.dumps({**payload, "evaluation": json.loads(done.stdout)}, indent=1))
    return path


def _interval(c: dict | None) -> str:
    return f"{c['diff']:+.4f} [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}]" if c else ""


def table(ev: dict) -> list[str]:
    """One data set's lists: NDCG@10, Recall@20 and the product minus each (95 %, users resampled)."""
    t = ev["topn"]
    ci = t.get("ci", {}).get("versus", {})
    rows = {**{m: t["methods"][m] for m in RANKERS if m in t["methods"]}}
    rows.update({m: t["controls"][m] for m in CONTROLS if m in t.get("controls", {})})
    out = ["| lists | NDCG@10 | Recall@20 | profile − it [95 %] | setting |", "|---|---|---|---|---|"]
    for m, r in sorted(rows.items(), key=lambda kv: -kv[1]["ndcg@10"]):
        kind = " (control)" if m in CONTROLS else ""
        recall = f"{r['recall@20']:.4f}" if "recall@20" in r else "—"
        setting = json.dumps(r.get("params"), default=str) if m in RANKERS else ""
        edges = [f"{a} {v['open_edge']}" for a, v in r.get("tuning", {}).get("axes", {}).items() if v.get("open_edge")]
        setting += f" (on an open edge: {', '.join(edges)})" if edges else ""
        out.append(f"| {m}{kind} | {r['ndcg@10']:.4f} | {recall} | {_interval(ci.get(m))} | {setting} |")
    return out


def pooled(runs: dict) -> dict:
    """The five folds' product − each, NDCG@10 on the mean of the folds (users resampled within folds)."""
    from recsys.evaluation.intervals import pooled_paired_means

    names = [f"ml-100k-{f}" for f in FOLDS]
    if not all(n in runs for n in names):
        return {}
    per = [{m: np.asarray(v) for m, v in runs[n]["evaluation"]["topn"]["per_user_ndcg"].items()} for n in names]
    return pooled_paired_means(per, "profile", 1000, seed=0)["versus"]


def _runs_by_grid_and_commit(runs: dict, short: bool = False) -> dict[tuple[str, str], list[str]]:
    """The data sets run on each (grid, commit), in the order of ``runs``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, r in runs.items():
        commit = r["evaluation"].get("commit", "?")
        groups.setdefault((r["grid"], commit[:7] if short else commit), []).append(name)
    return groups


def markdown(runs: dict) -> str:
    lines = ["# Implicit feedback: interactions in, explained lists out", ""]
    if runs:
        how = "; ".join(
            f"{', '.join(names)}: `recsys evaluate --implicit --grid {grid}` at commit `{commit}`"
            for (grid, commit), names in _runs_by_grid_and_commit(runs).items()
        )
        lines += [
            f"{how} (`python -m experiments.implicit`). Every rating is one interaction; every held-out "
            "interaction is relevant; each method's setting chosen on a held-out tenth of the training interactions.",
            "",
        ]
    both = pooled(runs)
    if both:
        lines += ["## MovieLens 100K, five folds together", "", "| profile − | NDCG@10 [95 %] |", "|---|---|"]
        lines += [f"| {m} | {_interval(c)} |" for m, c in both.items()] + [""]
    for name, r in runs.items():
        ev = r["evaluation"]
        lines += [f"## {name} ({ev['n_test']:,} held-out interactions; {r['seconds'] / 60:.1f} min)", ""]
        lines += table(ev) + [""]
    return "\n".join(lines) + "\n"


def _said(c: dict, what: str) -> str:
    """``above EASE (+0.0272 [+0.0236, +0.0304])``: the product against ``what``, by the pooled
    interval's rule (:func:`experiments.confirm.reading`)."""
    from .confirm import compared

    return f"{compared(c, what)} ({_interval(c).replace('-', '−')})"


def _data_sets(names: list[str]) -> str:
    """``MovieLens 100K's folds u1, u3, ml-latest-small``: data set names, the folds said once."""
    folds = [n.removeprefix("ml-100k-") for n in names if n.startswith("ml-100k-")]
    said = [f"MovieLens 100K's {'fold' if len(folds) == 1 else 'folds'} {', '.join(folds)}"] if folds else []
    return ", ".join(said + [n for n in names if not n.startswith("ml-100k-")])


def _count_choices(methods: dict) -> str:
    """What the methods that can read counts chose to do with them on the tuning part, with the
    best tuning NDCG@10 of the points without and with them (nothing when the data had no counts)."""
    if "confidence" not in methods.get("profile", {}).get("params", {}):
        return ""
    said = []
    for m, label, key, counted in (
        ("profile", "the product", "confidence", "log"),
        ("ease", "EASE", "input", "weighted"),
        ("itemknn", "ItemKNN", "input", "weighted"),
        ("ials", "iALS", "input", "weighted"),
    ):
        if m not in methods:
            continue
        x = methods[m]
        best = {False: -1.0, True: -1.0}
        for point, value in zip(x["grid"], x["tuning"]["values"], strict=False):
            with_counts = point.get(key) == counted
            best[with_counts] = max(best[with_counts], value)
        verb = "read" if x["params"].get(key) == counted else "left"
        said.append(f"{label} {verb} them ({best[False]:.4f} without, {best[True]:.4f} with)")
    return " Given the counts, each chose on the tuning part (its best NDCG@10 there): " + "; ".join(said) + "."


def readme_paragraph(runs: dict) -> str:
    """The README's figures on interactions, from the results files alone (a test compares them):
    MovieLens 100K's five folds pooled, then ml-latest-small and the play generator per data set."""
    names = [f"ml-100k-{f}" for f in FOLDS]
    labels = {"ease": "EASE", "ials": "iALS", "rp3beta": "RP3beta", "itemknn": "ItemKNN", "bpr": "BPR"}
    mean = {
        m: float(np.mean([runs[n]["evaluation"]["topn"]["methods"][m]["ndcg@10"] for n in names]))
        for m in ("profile", *labels)
    }
    both = pooled(runs)
    folds = _runs_by_grid_and_commit({n: runs[n] for n in names}, short=True)
    how = " and ".join(f"the {grid} grids of `recsys evaluate` at {commit}" for grid, commit in folds)
    text = (
        f"On MovieLens 100K read as interactions (five folds, every method on {how}; "
        "[experiments/results/implicit.md](experiments/results/implicit.md)) the lists' "
        "NDCG@10 "
        f"averages {mean['profile']:.4f} against " + ", ".join(f"{labels[m]}'s {mean[m]:.4f}" for m in labels) + ". "
        "On the pooled paired interval the product is " + "; ".join(_said(both[m], labels[m]) for m in labels) + "; "
        f"and {_said(both['random_support'], 'the same item model on random pairs')}."
    )
    for name, what in (("ml-latest-small", "On ml-latest-small"), ("plays-100k", "On 100,000 generated plays")):
        if name in runs:
            t = runs[name]["evaluation"]["topn"]
            ci = t["ci"]["versus"]
            run = runs[name]
            text += (
                f" {what} ({run['grid']} grids at {run['evaluation'].get('commit', '?')[:7]}) it scores "
                f"{t['methods']['profile']['ndcg@10']:.4f} against EASE's "
                f"{t['methods']['ease']['ndcg@10']:.4f}: {_said(ci['ease'], 'EASE')}, "
                f"{_said(ci['random_support'], 'random pairs')}." + _count_choices(t["methods"])
            )
    edges: dict[str, list[str]] = {}
    for name, r in runs.items():
        for m, x in r["evaluation"]["topn"]["methods"].items():
            if any(v.get("open_edge") for v in x.get("tuning", {}).get("axes", {}).values()):
                edges.setdefault(m, []).append(name)
    if edges:
        where = "; ".join(f"{m} ({_data_sets(edges[m])})" for m in sorted(edges))
        text += f" Settings left on open edges: {where}; the file names the axes."
    return text + "\n"


def main(argv=None) -> None:
    ap = datasets_parser(__doc__, DATASETS, RESULTS / "implicit", "implicit.md")
    ap.add_argument("--grid", default="small", choices=["small", "full"])
    args = ap.parse_args(argv)
    for name in [] if args.render else chosen(args.datasets, DATASETS):
        run(name, args.out, data_home(args.data), args.grid)
    # the Markdown of every data set run so far, whichever run this was
    results = args.out.parent / "implicit.md"
    results.write_text(markdown(runs_in(args.out, DATASETS)))
    print(results.read_text())


if __name__ == "__main__":
    main()
