"""Evaluation of like/dislike predictions: coverage, accuracy, balanced accuracy, dislike
recall/precision and ROC-AUC, on the covered subset and on the full test set.

Conventions (stated once, used everywhere):

* a rating is a *like* iff it is above the threshold (2);
* ``*_full`` metrics count every test rating; a rating a method does not cover counts as
  wrong — as if the method had predicted the other class;
* ``auc_full`` ranks all test ratings by the method's score; uncovered ratings get the mean
  score of the covered ones (no information);
* ``accuracy_on_paper_covered`` is the accuracy on the ratings that ``profile_paper`` covers —
  the comparison the paper reports (83.14 % / 79.68 % / 69.32 % there).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .baselines import NaiveBayes, fit_svd
from .model import LIKE, ProfileRecommender, with_mode

METHODS = ("profile_paper", "profile", "profile+svd", "svd", "naive_bayes", "majority")


def roc_auc(y: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half), by ranks."""
    y = np.asarray(y, dtype=bool)
    n_pos, n_neg = y.sum(), (~y).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = pd.Series(score).rank(method="average").to_numpy()
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def metrics(
    y: np.ndarray, like: np.ndarray, covered: np.ndarray, score: np.ndarray, paper_covered: np.ndarray | None = None
) -> dict:
    """The metrics of one method: ``like`` are its predictions, valid where ``covered``."""
    y = np.asarray(y, dtype=bool)
    like = np.asarray(like, dtype=bool)
    covered = np.asarray(covered, dtype=bool)
    full = np.where(covered, like, ~y)
    dis_true, dis_pred = ~y, ~full
    s = np.asarray(score, dtype=np.float64)
    fill = np.nanmean(s[covered]) if covered.any() else 0.0
    s = np.where(covered & np.isfinite(s), s, fill)
    out = {
        "n": int(len(y)),
        "coverage": float(covered.mean()),
        "accuracy_covered": float((like[covered] == y[covered]).mean()) if covered.any() else float("nan"),
        "majority_covered": float(y[covered].mean()) if covered.any() else float("nan"),
        "accuracy_full": float((full == y).mean()),
        "balanced_accuracy_full": float(0.5 * (full[y].mean() + (~full[~y]).mean())),
        "dislike_recall_full": float((dis_pred & dis_true).sum() / max(dis_true.sum(), 1)),
        "dislike_precision_full": float((dis_pred & dis_true).sum() / max(dis_pred.sum(), 1)),
        "auc_full": roc_auc(y, s),
    }
    if paper_covered is not None:
        pc = np.asarray(paper_covered, dtype=bool) & covered
        out["accuracy_on_paper_covered"] = float((like[pc] == y[pc]).mean()) if pc.any() else float("nan")
    return out


def evaluate(
    train: pd.DataFrame,
    test: pd.DataFrame,
    attributes: pd.DataFrame,
    threshold: float = 2.0,
    random_state: int = 0,
    progress=None,
    model: ProfileRecommender | None = None,
) -> dict:
    """Fit every method on ``train`` and score it on ``test``; returns ``{method: metrics}``
    plus the fitted profile model's counts and timings."""
    say = progress or (lambda msg: None)
    t0 = time.perf_counter()
    y = test["rating"].to_numpy() > threshold
    users, items = test["user"].to_numpy(), test["item"].to_numpy()
    if model is None:
        model = ProfileRecommender(mode="scored", threshold=threshold, random_state=random_state)
        model.fit(train, attributes, progress=say)
    say("predicting")
    paper = with_mode(model, "paper").predict_many(users, items)
    scored = model.predict_many(users, items)
    paper_cov = paper["covered"].to_numpy()
    results = {}
    results["profile_paper"] = metrics(
        y, paper["label"] == LIKE, paper_cov, paper["jaccard_like"] - paper["jaccard_dislike"], paper_cov
    )
    results["profile"] = metrics(y, scored["label"] == LIKE, scored["covered"], scored["score"], paper_cov)
    say("SVD")
    svd = fit_svd(train, random_state=random_state)
    est, _ = svd.predict(users, items)
    results["svd"] = metrics(y, est > threshold, np.ones(len(y), bool), est, paper_cov)
    # profile+svd: the profile's prediction where it covers, SVD elsewhere
    cov = scored["covered"].to_numpy()
    fb_like = np.where(cov, scored["label"] == LIKE, est > threshold)
    # a common score scale: the profile's like-probability, SVD's rating mapped by its rank
    svd_rank = pd.Series(est).rank(pct=True).to_numpy()
    fb_score = np.where(cov, scored["score"].to_numpy(), svd_rank)
    results["profile+svd"] = metrics(y, fb_like, np.ones(len(y), bool), fb_score, paper_cov)
    results["profile+svd"]["fallback_share"] = float((~cov).mean())
    say("Naive Bayes")
    nb = NaiveBayes().fit(train, model.core_.item_attrs, model.core_.items, threshold)
    p, known = nb.predict_proba(users, items)
    results["naive_bayes"] = metrics(y, np.nan_to_num(p, nan=0.0) >= 0.5, known, p, paper_cov)
    results["majority"] = metrics(y, np.ones(len(y), bool), np.ones(len(y), bool), np.zeros(len(y)), paper_cov)
    return {
        "methods": results,
        "relations": model.relations_summary_,
        "model": {
            **model.core_.counts,
            "weights": getattr(model, "weights_", None),
            "decision_threshold": getattr(model, "decision_threshold_", None),
            "fit_seconds": model.timings_.get("total"),
        },
        "seconds": time.perf_counter() - t0,
    }
