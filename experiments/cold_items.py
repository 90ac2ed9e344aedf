"""New items: movies nobody rated in training, scored from their attributes alone.

On each MovieLens 100K split (u1..u5) a seeded 10 % of the movies is held out entirely: their
ratings leave the training set, and their test ratings are the test.  The profile model, fitted
on the rest with the item attributes (genre, director, writer, cast), scores them through its
attribute evidence (:mod:`recsys.model.attributes`).  The attribute anchors: the per-user Naive
Bayes over the same attributes, and the attribute logistic regression (user, item, attribute and
user × attribute features; its ``C`` chosen the same way on the training ratings alone: a seeded
10 % of the training movies held out in turn, the best AUC on their ratings).  Read beside them:
how far the user's share of likes alone goes on the same ratings (the part of the AUC no
attribute carries), and the profile model without its attribute evidence, which cannot score
these items at all.  Intervals: the 95 %
paired bootstrap over users of profile minus each anchor.

Usage: python -m experiments.cold_items [--folds u1,u2,u3,u4,u5] [--share 0.1] [--seed 0] [--out DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from .common import RESULTS, log, write_results


def fold(name: str, share: float, seed: int, n_boot: int) -> dict:
    from ingest.datasets import DataSource
    from recsys.evaluation.methods import AttributeLogistic, NaiveBayes, Training
    from recsys.evaluation.metrics import roc_auc
    from recsys.model import ProfileRecommender
    from recsys.model.scoring import scored_terms

    data = DataSource(dataset="ml-100k", split=name).load(evaluating=True)
    movies = np.unique(np.concatenate([data.train["item"].to_numpy(), data.test["item"].to_numpy()]))
    rng = np.random.default_rng(seed)
    new = rng.choice(movies, int(round(share * len(movies))), replace=False)
    train = data.train[~data.train["item"].isin(new)]
    test = data.test[data.test["item"].isin(new)]
    y = test["rating"].to_numpy() > 2.0
    t = time.perf_counter()
    model = ProfileRecommender().fit(train, data.attributes, data.items)
    fit_s = time.perf_counter() - t
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    known_user = model.profiles_.user_index(test["user"].to_numpy()) >= 0
    nb = NaiveBayes(2.0).fit(Training(train, data.attributes, data.items)).score(test["user"], test["item"])
    c = tuned_c(train, data, share, seed + 1)
    lr = AttributeLogistic(2.0, seed, c).fit(Training(train, data.attributes, data.items))
    lr_scores = lr.score(test["user"], test["item"])
    without = model.with_evidence([g for g in model.evidence if g != "attributes"])
    q = without.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    fp = model.profiles_
    u, i = fp.user_index(test["user"].to_numpy()), fp.item_index(test["item"].to_numpy())
    ok = (u >= 0) & (i >= 0)
    user_share = scored_terms(model, u[ok], i[ok])["user_like_share"]
    diffs = _paired_differences(test, y, p, {"naive_bayes": nb, "attribute_logistic": lr_scores}, n_boot, seed)
    return {
        "new_movies": int(len(new)),
        "train_ratings": int(len(train)),
        "test_ratings": int(len(test)),
        "like_share": float(y.mean()),
        "known_users": float(known_user.mean()),
        "profile": {
            "coverage": float(p.covered.mean()),
            "auc": roc_auc(y[p.covered], p.score[p.covered]),
            "fit_seconds": fit_s,
        },
        "naive_bayes": {"coverage": float(nb.covered.mean()), "auc": roc_auc(y[nb.covered], nb.score[nb.covered])},
        "attribute_logistic": {
            "coverage": float(lr_scores.covered.mean()),
            "C": c,
            "auc": roc_auc(y[lr_scores.covered], lr_scores.score[lr_scores.covered]),
        },
        "profile_without_attributes": {"coverage": float(q.covered.mean())},
        "user_like_share_alone": {"auc": roc_auc(y[ok], user_share)},
        "profile_minus": diffs,
    }


def _paired_differences(test, y, p, others: dict, n_boot: int, seed: int) -> dict:
    """The profile model's AUC minus each other method's, on the pairs both score, users resampled."""
    from recsys.evaluation.intervals import paired_bootstrap

    diffs = {}
    for name, other in others.items():
        both = p.covered & other.covered  # the pairs both score (a user with no training rating: neither)
        users = np.unique(test["user"].to_numpy()[both], return_inverse=True)[1]
        scores = {
            "profile": (p.score[both], p.prediction[both] == "like"),
            name: (other.score[both], other.score[both] >= 0.5),
        }
        ci = paired_bootstrap(y[both], scores, "profile", users, n_boot, seed)["versus"][name]
        diffs[name] = {"auc_diff": ci["auc_diff"], "auc_diff_ci": ci["auc_diff_ci"], "pairs": int(both.sum())}
    return diffs


def tuned_c(train, data, share: float, seed: int) -> float:
    """The attribute logistic regression's ``C`` of the best AUC on a seeded ``share`` of the
    training movies held out of the training ratings (new items within the training data)."""
    from recsys.evaluation.grids import grid
    from recsys.evaluation.methods import AttributeLogistic, Training
    from recsys.evaluation.metrics import roc_auc

    movies = np.unique(train["item"].to_numpy())
    inner = np.random.default_rng(seed).choice(movies, int(round(share * len(movies))), replace=False)
    fit, tune = train[~train["item"].isin(inner)], train[train["item"].isin(inner)]
    y = tune["rating"].to_numpy() > 2.0
    best = (-1.0, None)
    for point in grid("attribute_logistic"):
        s = (
            AttributeLogistic(2.0, seed, **point)
            .fit(Training(fit, data.attributes, data.items))
            .score(tune["user"], tune["item"])
        )
        best = max(best, (roc_auc(y[s.covered], s.score[s.covered]), point["C"]))
    return float(best[1])


def table(results: dict, share: float) -> str:
    lines = [
        "# New items: movies held out of training, scored from their attributes alone",
        "",
        f"MovieLens 100K, {share:.0%} of the movies held out of each split (seeded); the test ratings of those "
        "movies only. AUC over the pairs each method covers; the intervals are profile minus each anchor on the "
        "pairs both cover, 95 % paired bootstrap over users.",
        "",
        "| split | new movies | test ratings | likes | profile AUC | Naive Bayes | attribute logistic (C) | "
        "profile − NB [95 %] | profile − attribute logistic [95 %] | user's like share alone | "
        "profile without attributes: coverage |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        ci = {
            m: f"{d['auc_diff']:+.4f} [{d['auc_diff_ci'][0]:+.4f}, {d['auc_diff_ci'][1]:+.4f}]"
            for m, d in r["profile_minus"].items()
        }
        lr = r["attribute_logistic"]
        lines.append(
            f"| {name} | {r['new_movies']} | {r['test_ratings']:,} | {r['like_share']:.1%} | "
            f"{r['profile']['auc']:.4f} | {r['naive_bayes']['auc']:.4f} | {lr['auc']:.4f} ({lr['C']:g}) | "
            f"{ci['naive_bayes']} | {ci['attribute_logistic']} | {r['user_like_share_alone']['auc']:.4f} | "
            f"{r['profile_without_attributes']['coverage']:.0%} |"
        )
    mean = lambda key: np.mean([r[key]["auc"] for r in results.values()])  # noqa: E731
    lines += [
        "",
        f"Mean over the splits: profile {mean('profile'):.4f}, Naive Bayes {mean('naive_bayes'):.4f}, "
        f"attribute logistic {mean('attribute_logistic'):.4f}, the user's like share alone "
        f"{mean('user_like_share_alone'):.4f}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", default="u1,u2,u3,u4,u5")
    parser.add_argument("--share", type=float, default=0.1, help="share of the movies held out (default 0.1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = {}
    for name in args.folds.split(","):
        log(f"{name}: holding out {args.share:.0%} of the movies")
        results[name] = fold(name, args.share, args.seed, args.bootstrap)
        r = results[name]
        log(
            f"  profile AUC {r['profile']['auc']:.4f}, Naive Bayes {r['naive_bayes']['auc']:.4f}, "
            f"attribute logistic {r['attribute_logistic']['auc']:.4f}"
        )
    payload = {"share": args.share, "seed": args.seed, "folds": results}
    write_results(args.out, "cold_items", payload, table(results, args.share), started)


if __name__ == "__main__":
    main()
