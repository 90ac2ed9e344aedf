"""Text data (Classic3, Multi5, Multi10): HBLCoClust (--runs seeds) and SpectralCoclustering
(k = classes) beside the paper's tables, plus the Multi5 topic table (the terms of the purest
co-cluster of each class).  Exact InClose is not run on text, as in the paper (its concept
count is far beyond any budget at minO = minF = 5).

Usage: python -m experiments.text [--out DIR] [--runs 5] [--datasets classic3,multi5,multi10]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from coclust import HBLCoClust
from ingest.benchmarks import read_benchmark

from .common import RESULTS, data_home, hbl_params, log, run_hbl, run_spectral, stats_table, write_results

DATASETS = ["classic3", "multi5", "multi10"]


def topics(rel, params: dict, seed: int = 0, n_terms: int = 40) -> dict:
    """For each class, the feature set of the co-cluster of highest purity whose majority is that class."""
    model = HBLCoClust(random_state=seed, **params).fit(rel.matrix)
    labels = np.asarray(rel.labels)
    best = {}
    for rows, cols in model.coclusters_:
        vals, counts = np.unique(labels[rows], return_counts=True)
        cls, purity = vals[counts.argmax()], counts.max() / len(rows)
        key = (purity, len(rows))
        if cls not in best or key > best[cls][0]:
            best[cls] = (key, rows, cols)
    return {
        str(c): {
            "purity": float(k[0]),
            "documents": int(k[1]),
            "n_terms": int(len(cols)),
            "terms": [str(rel.features[j]) for j in cols[:n_terms]],
        }
        for c, (k, rows, cols) in sorted(best.items())
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--n-bands", type=int, default=None, help="override nhashes (smoke tests)")
    ap.add_argument(
        "--variant",
        default="author",
        choices=["author", "steps"],
        help="author: as the author's code (buckets >= 3, covered regions skipped, uncovered objects "
        "assigned); steps: the paper's six steps only",
    )
    args = ap.parse_args(argv)
    names = [d for d in args.datasets.split(",") if d]
    results, params, per_run, topic_table = {}, {}, {}, None
    for name in names:
        rel = read_benchmark(name, data_home(args.data))
        p = hbl_params(name, args.variant, **({"n_bands": args.n_bands} if args.n_bands else {}))
        params[name] = p
        log(f"{name}: {rel.matrix.shape[0]} documents × {rel.matrix.shape[1]} terms, {rel.n_relations} relations")
        hbl, runs = run_hbl(rel, p, args.runs)
        results[name] = {"hblcoclust": hbl, "spectral": run_spectral(rel, len(set(rel.labels)))}
        per_run[name] = runs
        if name == "multi5":
            topic_table = topics(rel, p)
    table = (
        "# Text data sets\n\nOurs: HBLCoClust mean ± std over " + str(args.runs) + " seeds; "
        "SpectralCoclustering seed 0; InClose not run (as in the paper). Paper rows from its tables.\n\n"
        + stats_table(results, names)
    )
    if topic_table:
        table += "\n## Multi5 topics: terms of the purest co-cluster of each class\n\n"
        table += "| class | purity | documents | terms |\n|---|---|---|---|\n"
        for cls, t in topic_table.items():
            more = " …" if t["n_terms"] > len(t["terms"]) else ""
            table += f"| {cls} | {t['purity']:.2f} | {t['documents']} | {', '.join(t['terms'])}{more} |\n"
    write_results(
        args.out,
        "text",
        {**results, "_params": params, "_seeds": list(range(args.runs)), "_per_run": per_run, "_topics": topic_table},
        table,
    )
    print(table)


if __name__ == "__main__":
    main()
