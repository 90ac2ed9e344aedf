"""EASE fitted on the stars: the MovieLens lists' EASE row measured again after bfb43c5.

Before bfb43c5, EASE's fit read the pattern of its matrix whatever its input: the ``weighted``
input (every rating with its value) was the 0/1 fit scored with the stars, and the experiment
(``results/movielens.json``) chose it on u1, u4 and u5.  Here EASE, the product's lists and EASE
with the product's blend go through the experiment's protocol on each fold —
:func:`recsys.evaluation.evaluate`, full grids: each setting chosen on the tuning tenth of the
training ratings and extended past an open edge, refitted on all of them, the lists scored on the
test ratings; the blend chosen for EASE on the tuning tenth as the experiment chooses it.  The most
popular items' and the product's per-user NDCG@10 must equal the experiment's (the same users, the
same product: checked).  Product − EASE and product − (EASE + blend) are given per fold and on the
five-fold mean (users resampled within folds, as the experiment's pooled interval).

Usage: python -m experiments.ease_stars [--folds u1,u2,u3,u4,u5] [--out DIR] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from .common import RESULTS, log, write_results
from .runner import data_home


def measure_fold(split: str, home) -> dict:
    """EASE, EASE + the product's blend and the product's lists (and popularity: the alignment
    check) on ``split`` under the experiment's protocol."""
    from recsys.evaluation import Protocol, Setup

    from .movielens import evaluate_split

    rankers = ("popularity", "ease", "profile")
    setup = Setup(methods=(), rankers=rankers, blended=("ease",), list_controls={}, ablations={}, controls={})
    res = evaluate_split(split, home, Protocol(grid="full", n_boot=1000, strong=0.0), setup, tag=split)
    topn = res["topn"]
    return {
        "params": topn["methods"]["ease"]["params"],
        "tuning": topn["methods"]["ease"].get("tuning"),
        "ndcg@10": topn["methods"]["ease"]["ndcg@10"],
        "ease_blend": {k: topn["controls"]["ease_blend"][k] for k in ("ndcg@10", "blend")},
        "per_user_ndcg": {m: topn["per_user_ndcg"][m] for m in (*rankers, "ease_blend")},
    }


def compare(before: dict, now: dict, folds: list[str]) -> dict:
    """Per fold and pooled: product − EASE and product − (EASE + blend), before and now."""
    from recsys.evaluation.intervals import pooled_paired_means

    per_fold, out = [], {"folds": {}}
    for f in folds:
        topn = before["results"][f]["topn"]
        stored, measured = topn["per_user_ndcg"], now[f]["per_user_ndcg"]
        for m in ("popularity", "profile"):
            if not np.array_equal(np.asarray(stored[m]), np.asarray(measured[m])):
                raise SystemExit(f"{f}: {m}'s lists differ from the experiment's: not the same users or product")
        per_fold.append(
            {
                "profile": stored["profile"],
                "ease_before": stored["ease"],
                "ease": measured["ease"],
                "ease_blend_before": stored["ease_blend"],
                "ease_blend": measured["ease_blend"],
            }
        )
        out["folds"][f] = {
            "profile": topn["methods"]["profile"]["ndcg@10"],
            "ease_before": topn["methods"]["ease"]["ndcg@10"],
            "ease_params_before": topn["methods"]["ease"]["params"],
            "ease": now[f]["ndcg@10"],
            "ease_params": now[f]["params"],
            "ease_blend_before": topn["controls"]["ease_blend"]["ndcg@10"],
            "ease_blend": now[f]["ease_blend"]["ndcg@10"],
        }
    out["pooled"] = pooled_paired_means(per_fold, "profile", 1000, seed=0)["versus"]
    names = ("profile", "ease_before", "ease", "ease_blend_before", "ease_blend")
    out["means"] = {m: float(np.mean([out["folds"][f][m] for f in folds])) for m in names}
    return out


def markdown(cmp: dict, folds: list[str]) -> str:
    rows = [
        "# EASE fitted on the stars (MovieLens 100K lists, after bfb43c5)",
        "",
        "NDCG@10 on each fold's test ratings (test rating ≥ 4 relevant), every setting and blend chosen by the "
        "experiment's search; the product's lists are the experiment's (`movielens.json`, checked user for user).",
        "",
        "| fold | product | EASE before (its setting) | EASE now (its setting) | EASE + blend before | now |",
        "|---|---|---|---|---|---|",
    ]
    for f in folds:
        r = cmp["folds"][f]
        before, now = (json.dumps(r[k], sort_keys=True) for k in ("ease_params_before", "ease_params"))
        rows.append(
            f"| {f} | {r['profile']:.4f} | {r['ease_before']:.4f} `{before}` | {r['ease']:.4f} `{now}` "
            f"| {r['ease_blend_before']:.4f} | {r['ease_blend']:.4f} |"
        )
    m = cmp["means"]
    rows.append(
        f"| mean | {m['profile']:.4f} | {m['ease_before']:.4f} | {m['ease']:.4f} "
        f"| {m['ease_blend_before']:.4f} | {m['ease_blend']:.4f} |"
    )
    rows += ["", "Product − each on the five-fold mean, 95 % interval (users resampled within folds):", ""]
    labels = {
        "ease_before": "EASE before",
        "ease": "EASE now",
        "ease_blend_before": "EASE + blend before",
        "ease_blend": "EASE + blend now",
    }
    for name, label in labels.items():
        c = cmp["pooled"][name]
        rows.append(f"- {label}: {c['diff']:+.4f} [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}]")
    return "\n".join(rows) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folds", default="u1,u2,u3,u4,u5")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    folds = args.folds.split(",")
    home = data_home(args.data)
    before = json.loads((RESULTS / "movielens.json").read_text())
    now = {}
    for f in folds:
        log(f"{f}: EASE under the experiment's protocol")
        now[f] = measure_fold(f, home)
    cmp = compare(before, now, folds)
    write_results(
        args.out, "ease_stars", {"folds": folds, "now": now, "comparison": cmp}, markdown(cmp, folds), started
    )
    log(f"written {args.out / 'ease_stars.md'}")


if __name__ == "__main__":
    main()
