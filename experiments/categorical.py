"""Categorical data (Zoo, Soybean small/large, House Votes 84): HBLCoClust (--runs seeds),
exact InClose (one run, same minO/minF) and scikit-learn's SpectralCoclustering (k = classes),
beside the paper's tables.

Usage: python -m experiments.categorical [--out DIR] [--runs 30] [--datasets zoo,...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ingest.benchmarks import read_benchmark

from .common import (
    PAPER_PARAMS,
    RESULTS,
    data_home,
    hbl_params,
    log,
    run_hbl,
    run_inclose,
    run_spectral,
    stats_table,
    write_results,
)

DATASETS = ["zoo", "soybean-small", "soybean-large", "house-votes-84"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--runs", type=int, default=30)
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
    results, params, per_run = {}, {}, {}
    for name in names:
        rel = read_benchmark(name, data_home(args.data))
        p = hbl_params(name, args.variant, **({"n_bands": args.n_bands} if args.n_bands else {}))
        params[name] = p
        log(f"{name}: {rel.matrix.shape[0]} objects × {rel.matrix.shape[1]} features, {rel.n_relations} relations")
        hbl, runs = run_hbl(rel, p, args.runs)
        min_o, min_f = PAPER_PARAMS[name][:2]
        results[name] = {
            "hblcoclust": hbl,
            "inclose": run_inclose(rel, min_o, min_f),
            "spectral": run_spectral(rel, len(set(rel.labels))),
        }
        per_run[name] = runs
    table = (
        "# Categorical data sets\n\nOurs: HBLCoClust mean ± std over "
        + str(args.runs)
        + " seeds (0.."
        + str(args.runs - 1)
        + "); InClose one run; SpectralCoclustering seed 0. Paper rows from its tables.\n\n"
        + stats_table(results, names)
    )
    write_results(
        args.out,
        "categorical",
        {**results, "_params": params, "_seeds": list(range(args.runs)), "_per_run": per_run},
        table,
    )
    print(table)


if __name__ == "__main__":
    main()
