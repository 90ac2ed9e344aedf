"""Paired bootstrap intervals of the difference between two methods on the same test ratings."""

from __future__ import annotations

import numpy as np


def weighted_auc(y: np.ndarray, s: np.ndarray, W: np.ndarray) -> np.ndarray:
    """AUC under each row of case weights ``W`` (resample counts), ties counted half."""
    order = np.argsort(s, kind="mergesort")
    ss, yy, Ws = s[order], y[order], W[:, order]
    starts = np.r_[0, np.flatnonzero(np.diff(ss) != 0) + 1]
    pos = Ws * yy
    neg = Ws * ~yy
    pos_g = np.add.reduceat(pos, starts, axis=1)
    neg_g = np.add.reduceat(neg, starts, axis=1)
    neg_below = np.cumsum(neg_g, axis=1) - neg_g
    num = (pos_g * (neg_below + 0.5 * neg_g)).sum(axis=1)
    return num / (pos.sum(axis=1) * neg.sum(axis=1))


def weighted_balanced_accuracy(y: np.ndarray, pred: np.ndarray, W: np.ndarray) -> np.ndarray:
    tpr = (W * (y & pred)).sum(axis=1) / (W * y).sum(axis=1)
    tnr = (W * (~y & ~pred)).sum(axis=1) / (W * ~y).sum(axis=1)
    return 0.5 * (tpr + tnr)


def paired_bootstrap(y, scores: dict, reference: str, n_boot: int = 1000, seed: int = 0, chunk: int = 100) -> dict:
    """95 % paired bootstrap intervals of ``reference - other`` for AUC and balanced accuracy.

    ``scores[m] = (score, prediction)`` on the test ratings (uncovered scores filled, uncovered
    predictions wrong).  Every resample draws test ratings with replacement, the same draw for
    both methods.
    """
    y = np.asarray(y, dtype=bool)
    rng = np.random.default_rng(seed)
    others = [m for m in scores if m != reference]
    diffs = {m: {"auc": [], "ba": []} for m in others}
    ref_s, ref_p = scores[reference]
    for lo in range(0, n_boot, chunk):
        b = min(chunk, n_boot - lo)
        W = rng.multinomial(len(y), np.full(len(y), 1.0 / len(y)), size=b).astype(np.float64)
        auc_ref = weighted_auc(y, ref_s, W)
        ba_ref = weighted_balanced_accuracy(y, ref_p, W)
        for m in others:
            s, p = scores[m]
            diffs[m]["auc"].append(auc_ref - weighted_auc(y, s, W))
            diffs[m]["ba"].append(ba_ref - weighted_balanced_accuracy(y, p, W))
    out = {"reference": reference, "resamples": n_boot, "seed": seed, "level": 0.95, "versus": {}}
    ones = np.ones((1, len(y)))
    for m in others:
        auc = np.concatenate(diffs[m]["auc"])
        ba = np.concatenate(diffs[m]["ba"])
        s, p = scores[m]
        out["versus"][m] = {
            "auc_diff": float(weighted_auc(y, ref_s, ones)[0] - weighted_auc(y, s, ones)[0]),
            "auc_diff_ci": [float(np.percentile(auc, 2.5)), float(np.percentile(auc, 97.5))],
            "balanced_accuracy_diff": float(
                weighted_balanced_accuracy(y, ref_p, ones)[0] - weighted_balanced_accuracy(y, p, ones)[0]
            ),
            "balanced_accuracy_diff_ci": [float(np.percentile(ba, 2.5)), float(np.percentile(ba, 97.5))],
        }
    return out
