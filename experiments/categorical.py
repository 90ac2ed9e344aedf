"""Categorical data (Zoo, Soybean small/large, House Votes 84): HBLCoClust (--runs seeds),
exact InClose (one run, same minO/minF) and scikit-learn's SpectralCoclustering (k = classes),
beside the paper's tables.

Usage: python -m experiments.categorical [--out DIR] [--runs 30] [--datasets zoo,...]
"""

from __future__ import annotations

import time

from .common import PAPER_PARAMS, run_inclose, run_spectral, run_suite, stats_table, suite_args, write_results

DATASETS = ["zoo", "soybean-small", "soybean-large", "house-votes-84"]


def main(argv=None) -> None:
    started = time.perf_counter()
    args = suite_args(__doc__, DATASETS, 30, argv)

    def baselines(name, rel):
        min_o, min_f = PAPER_PARAMS[name][:2]
        return {"inclose": run_inclose(rel, min_o, min_f), "spectral": run_spectral(rel, len(set(rel.labels)))}

    results, params, per_run, _ = run_suite(args, baselines)
    table = (
        f"# Categorical data sets\n\nOurs: HBLCoClust ({args.variant} variant) mean ± std over {args.runs} seeds "
        f"(0..{args.runs - 1}); InClose one run; SpectralCoclustering seed 0. Paper rows from its tables.\n\n"
        + stats_table(results, args.names)
    )
    payload = {**results, "_params": params, "_seeds": list(range(args.runs)), "_per_run": per_run}
    write_results(args.out, "categorical", payload, table, started, seeds=list(range(args.runs)))
    print(table)


if __name__ == "__main__":
    main()
