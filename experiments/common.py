"""Shared pieces of the experiment scripts: the paper's parameters and numbers, running the
methods, and writing results."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from coclust import HBLCoClust, metrics
from coclust.inclose import ConceptBudgetExceeded, inclose

RESULTS = Path(__file__).parent / "results"
STATS = ("n_coclusters", "objects_covered", "features_covered", "mean_size", "purity", "nmi", "pmi", "seconds")

# Table "Parameters used for HBLCoClust" (minO, minF, nhashes, nkeys, thr, spthr)
PAPER_PARAMS = {
    "zoo": (4, 6, 1000, 2, 0.0, 1.0),
    "soybean-small": (4, 8, 1000, 2, 0.1, 0.8),
    "soybean-large": (4, 10, 1000, 2, 0.0, 0.8),
    "house-votes-84": (10, 10, 1000, 3, 0.4, 0.8),
    "classic3": (50, 4, 2000, 3, 0.2, 0.5),
    "multi5": (5, 5, 1000, 3, 0.95, 0.5),
    "multi10": (5, 5, 2000, 3, 0.95, 0.5),
    "movielens": (2, 2, 5000, 4, 0.0, 0.8),
}

# The paper's tables (statsCat, resultsCat, statsText, resultsText): # co-clusters, objects, features, size,
# purity, NMI, PMI.  Feature coverage of Soybean S is printed as 57.78 / 70.83 in the paper (a percentage
# or a count); it is copied as printed.
PAPER_RESULTS = {
    "zoo": {
        "hblcoclust": (27.07, 1.00, 0.80, 83.07, 0.88, 0.29, 0.18),
        "inclose": (67, 0.81, 0.75, 114, 0.93, 0.19, 0.21),
        "spectral": (7, 1.00, None, None, 0.90, 0.92, None),
    },
    "soybean-small": {
        "hblcoclust": (13.80, 1.00, 57.78, 83.13, 0.89, 0.40, 0.25),
        "inclose": (225, 1.00, 70.83, 121, 0.59, 0.09, -0.26),
        "spectral": (4, 1.00, None, None, 1.00, 1.00, None),
    },
    "soybean-large": {
        "hblcoclust": (42.40, 1.00, 0.74, 205.73, 0.73, 0.26, 0.15),
        "inclose": (6470, 0.98, 0.93, 109, 0.50, 0.07, 0.13),
        "spectral": (19, 1.00, None, None, 0.67, 0.78, None),
    },
    "house-votes-84": {
        "hblcoclust": (23.30, 1.00, 0.85, 1173.80, 0.91, 0.29, 0.43),
        "inclose": (124371, 0.95, 1.00, 225, 0.93, 0.10, 0.26),
        "spectral": (2, 1.00, None, None, 0.87, 0.47, None),
    },
    "classic3": {
        "hblcoclust": (219.20, 1.00, 0.60, 2807.23, 0.86, 0.14, 0.20),
        "spectral": (3, 1.00, None, None, 0.86, 0.73, None),
    },
    "multi5": {
        "hblcoclust": (1054.97, 1.00, 0.18, 1051.23, 0.91, 0.18, 0.37),
        "spectral": (5, 1.00, None, None, 0.59, 0.53, None),
    },
    "multi10": {
        "hblcoclust": (2819.33, 1.00, 0.16, 661.00, 0.82, 0.14, 0.33),
        "spectral": (10, 1.00, None, None, 0.57, 0.55, None),
    },
}
PAPER_KEYS = ("n_coclusters", "objects_covered", "features_covered", "mean_size", "purity", "nmi", "pmi")


def data_home(arg: Path | None) -> Path:
    return Path(arg or os.environ.get("RECSYS_DATA", Path.home() / "recsys_data"))


# What the author's code did beyond the six steps (lshbicCategorical.py, lib/): buckets of at least 3
# objects, a region skipped when all its objects and features were seen, uncovered objects assigned.
AUTHOR_CODE = dict(min_bucket=3, skip_covered=True, assign_uncovered=True)


def hbl_params(name: str, variant: str = "author", **override) -> dict:
    """The paper's parameters for ``name``; ``variant="author"`` adds what the author's code did."""
    min_o, min_f, nhashes, nkeys, thr, spthr = PAPER_PARAMS[name]
    p = dict(
        n_bands=nhashes, band_size=nkeys, min_rows=min_o, min_cols=min_f, max_feature_freq=1.0 - thr, min_density=spthr
    )
    if variant == "author":
        p.update(AUTHOR_CODE)
    elif variant != "steps":
        raise ValueError(f"variant must be 'author' or 'steps', got {variant!r}")
    p.update(override)
    return p


def score(cc, X, labels, seconds) -> dict:
    s = metrics.summary(cc, X, labels)
    s["seconds"] = seconds
    return {k: (float(v) if v is not None else None) for k, v in s.items()}


def run_hbl(rel, params: dict, runs: int, seed0: int = 0) -> tuple[dict, list]:
    """Mean and std of every statistic over ``runs`` seeds, and the per-run figures."""
    per_run = []
    for r in range(runs):
        t = time.perf_counter()
        model = HBLCoClust(random_state=seed0 + r, **params).fit(rel.matrix)
        per_run.append(score(model.coclusters_, rel.matrix, rel.labels, time.perf_counter() - t))
    return aggregate(per_run), per_run


def aggregate(per_run: list[dict]) -> dict:
    out = {}
    for k in STATS:
        v = np.array([r[k] for r in per_run], dtype=float)
        out[k] = float(np.nanmean(v)) if np.isfinite(v).any() else None
        out[f"{k}_std"] = float(np.nanstd(v)) if np.isfinite(v).any() else None
    out["runs"] = len(per_run)
    return out


def run_inclose(rel, min_rows: int, min_cols: int, max_concepts: int = 2_000_000) -> dict:
    t = time.perf_counter()
    try:
        cc = inclose(rel.matrix, min_rows=min_rows, min_cols=min_cols, max_concepts=max_concepts)
    except ConceptBudgetExceeded as exc:
        return {"error": str(exc), "seconds": time.perf_counter() - t}
    return score(cc, rel.matrix, rel.labels, time.perf_counter() - t)


def run_spectral(rel, k: int, seed: int = 0) -> dict:
    """scikit-learn's SpectralCoclustering with ``k`` clusters (empty rows/columns set aside)."""
    from sklearn.cluster import SpectralCoclustering

    X = rel.matrix.astype(np.float64)
    rows = np.flatnonzero(np.diff(X.tocsr().indptr) > 0)
    cols = np.flatnonzero(np.diff(X.tocsc().indptr) > 0)
    t = time.perf_counter()
    model = SpectralCoclustering(n_clusters=k, random_state=seed).fit(X[rows][:, cols])
    cc = []
    for i in range(k):
        r, c = model.get_indices(i)
        if len(r):
            cc.append((rows[r], cols[c]))
    return score(cc, rel.matrix, rel.labels, time.perf_counter() - t)


def suite_args(doc: str, datasets: list[str], runs: int, argv=None):
    """The command line shared by the categorical and text scripts."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--datasets", default=",".join(datasets))
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--n-bands", type=int, default=None, help="override nhashes (smoke tests)")
    ap.add_argument(
        "--variant", default="author", choices=["author", "steps"],
        help="author: as the author's code (buckets >= 3, covered regions skipped, uncovered objects assigned); "
        "steps: the paper's six steps only",
    )  # fmt: skip
    args = ap.parse_args(argv)
    args.names = [d for d in args.datasets.split(",") if d]
    return args


def run_suite(args, extra_methods) -> tuple[dict, dict, dict, dict]:
    """HBLCoClust over ``args.runs`` seeds on every data set, plus ``extra_methods(name, rel)``.

    Returns ``(results, params, per_run, relations)``.
    """
    from ingest.benchmarks import read_benchmark

    results, params, per_run, rels = {}, {}, {}, {}
    for name in args.names:
        rel = read_benchmark(name, data_home(args.data))
        p = hbl_params(name, args.variant, **({"n_bands": args.n_bands} if args.n_bands else {}))
        log(f"{name}: {rel.matrix.shape[0]} objects × {rel.matrix.shape[1]} features, {rel.n_relations} relations")
        hbl, runs = run_hbl(rel, p, args.runs)
        results[name] = {"hblcoclust": hbl, **extra_methods(name, rel)}
        params[name], per_run[name], rels[name] = p, runs, rel
    return results, params, per_run, rels


def write_results(out: Path, name: str, payload: dict, table: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(payload, indent=2))
    (out / f"{name}.md").write_text(table)


def fmt(v, std=None) -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "—"
    s = f"{v:,.2f}" if abs(v) >= 100 else f"{v:.3f}"
    return s + (f" ± {std:.2f}" if std is not None and std > 0 else "")


def stats_table(results: dict, datasets: list[str]) -> str:
    """Our figures beside the paper's, one block per data set."""
    lines = []
    head = "| method | source | " + " | ".join(STATS) + " |"
    for name in datasets:
        lines += [f"### {name}", "", head, "|---|---|" + "---|" * len(STATS)]
        for method, r in results[name].items():
            if "error" in r:
                lines.append(f"| {method} | ours | not run: {r['error']} |" + " |" * (len(STATS) - 1))
            else:
                lines.append(
                    f"| {method} | ours | " + " | ".join(fmt(r.get(k), r.get(f"{k}_std")) for k in STATS) + " |"
                )
            paper = PAPER_RESULTS.get(name, {}).get(method)
            if paper:
                cells = [fmt(v) for v in paper] + ["—"]
                lines.append(f"| {method} | paper | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
