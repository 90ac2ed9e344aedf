"""Text data (Classic3, Multi5, Multi10): HBLCoClust (--runs seeds) and SpectralCoclustering
(k = classes) beside the paper's tables, plus the Multi5 topic table (the terms of the purest
co-cluster of each class).  Exact InClose is not run on text, as in the paper (its concept
count is far beyond any budget at minO = minF = 5).

Usage: python -m experiments.text [--out DIR] [--runs 5] [--datasets classic3,multi5,multi10]
"""

from __future__ import annotations

import time

import numpy as np

from coclust import HBLCoClust

from .common import run_spectral, run_suite, stats_table, suite_args, write_results

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
    started = time.perf_counter()
    args = suite_args(__doc__, DATASETS, 5, argv)
    results, params, per_run, rels = run_suite(
        args, lambda name, rel: {"spectral": run_spectral(rel, len(set(rel.labels)))}
    )
    topic_table = topics(rels["multi5"], params["multi5"]) if "multi5" in rels else None
    table = (
        f"# Text data sets\n\nOurs: HBLCoClust ({args.variant} variant) mean ± std over {args.runs} seeds; "
        "SpectralCoclustering seed 0; InClose not run (as in the paper). Paper rows from its tables.\n\n"
        + stats_table(results, args.names)
    )
    if topic_table:
        table += "\n## Multi5 topics: terms of the purest co-cluster of each class\n\n"
        table += "| class | purity | documents | terms |\n|---|---|---|---|\n"
        for cls, tp in topic_table.items():
            more = " …" if tp["n_terms"] > len(tp["terms"]) else ""
            table += f"| {cls} | {tp['purity']:.2f} | {tp['documents']} | {', '.join(tp['terms'])}{more} |\n"
    payload = {
        **results,
        "_params": params,
        "_seeds": list(range(args.runs)),
        "_per_run": per_run,
        "_topics": topic_table,
    }
    write_results(args.out, "text", payload, table, started, seeds=list(range(args.runs)))
    print(table)


if __name__ == "__main__":
    main()
