"""The like/dislike metrics of the protocol: AUC, the metrics at a cut-off, the tuned cut-off.
Conventions in :mod:`recsys.evaluation.protocol`; lists are measured in :mod:`recsys.evaluation.ranking`."""

from __future__ import annotations

import numpy as np

from ..model.logistic import best_balanced_threshold


def roc_auc(y: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half), by ranks.

    >>> roc_auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.5, 0.5]))
    0.875
    """
    y = np.asarray(y, dtype=bool)
    score = np.asarray(score, dtype=np.float64)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    s = score[order]
    ranks = np.empty(len(s))
    starts = np.r_[0, np.flatnonzero(np.diff(s) != 0) + 1]
    ends = np.r_[starts[1:], len(s)]
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def fill_uncovered(score: np.ndarray, covered: np.ndarray) -> np.ndarray:
    """Scores with the uncovered (or NaN) ones set to the mean of the covered ones."""
    s = np.asarray(score, dtype=np.float64)
    ok = np.asarray(covered, dtype=bool) & np.isfinite(s)
    fill = float(s[ok].mean()) if ok.any() else 0.0
    return np.where(ok, s, fill)


def metrics(y, like, covered, score) -> dict:
    """The metrics of one method: ``like`` are its predictions, valid where ``covered``."""
    y = np.asarray(y, dtype=bool)
    like = np.asarray(like, dtype=bool)
    covered = np.asarray(covered, dtype=bool)
    full = np.where(covered, like, ~y)
    dis_true, dis_pred = ~y, ~full
    out = {
        "n": int(len(y)),
        "coverage": float(covered.mean()),
        "accuracy_covered": float((like[covered] == y[covered]).mean()) if covered.any() else float("nan"),
        "majority_covered": float(y[covered].mean()) if covered.any() else float("nan"),
        "accuracy_full": float((full == y).mean()),
        "majority_accuracy_full": float(y.mean()),
        "balanced_accuracy_full": float(0.5 * (full[y].mean() + (~full[~y]).mean())),
        "dislike_recall_full": float((dis_pred & dis_true).sum() / max(dis_true.sum(), 1)),
        "dislike_precision_full": float((dis_pred & dis_true).sum() / max(dis_pred.sum(), 1)),
        "auc_full": roc_auc(y, fill_uncovered(score, covered)),
    }
    return out


def accuracy_on(y, like, where) -> float | None:
    """The accuracy of the predictions ``like`` on the ratings ``where`` says (``None`` on none):
    e.g. those the paper's rule covers, the comparison the paper reports."""
    return float((np.asarray(like)[where] == np.asarray(y)[where]).mean()) if where.any() else None


def tune_threshold(score, covered, y) -> float:
    """The cut-off with the best balanced accuracy on the covered ratings."""
    covered = np.asarray(covered, dtype=bool) & np.isfinite(score)
    if not covered.any():
        return float("nan")
    return float(best_balanced_threshold(np.asarray(score)[covered], np.asarray(y, dtype=bool)[covered]))
