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


def user_weights(rng, groups: np.ndarray, b: int) -> np.ndarray:
    """``b`` resamples of the users: each row gives every rating its user's draw count (all of a
    user's ratings go in or out together)."""
    n_users = int(groups.max()) + 1 if len(groups) else 0
    draws = rng.multinomial(n_users, np.full(n_users, 1.0 / max(n_users, 1)), size=b).astype(np.float64)
    return draws[:, groups]


def _interval(values: np.ndarray) -> list[float]:
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


def paired_bootstrap(
    y, scores: dict, reference: str, groups, n_boot: int = 1000, seed: int = 0, chunk: int = 100
) -> dict:
    """95 % paired bootstrap intervals of ``reference - other`` for AUC and balanced accuracy.

    ``scores[m] = (score, prediction)`` on the test ratings (uncovered scores filled, uncovered
    predictions wrong); ``groups[t]`` is the user (0..n-1) of test rating ``t``.  Every resample
    draws users with replacement, each with all of its ratings — ratings of one user are not
    independent — and the same draw serves both methods.
    """
    y = np.asarray(y, dtype=bool)
    groups = np.asarray(groups, dtype=np.int64)
    rng = np.random.default_rng(seed)
    others = [m for m in scores if m != reference]
    diffs = {m: {"auc": [], "ba": []} for m in others}
    ref_s, ref_p = scores[reference]
    for lo in range(0, n_boot, chunk):
        W = user_weights(rng, groups, min(chunk, n_boot - lo))
        auc_ref = weighted_auc(y, ref_s, W)
        ba_ref = weighted_balanced_accuracy(y, ref_p, W)
        for m in others:
            s, p = scores[m]
            diffs[m]["auc"].append(auc_ref - weighted_auc(y, s, W))
            diffs[m]["ba"].append(ba_ref - weighted_balanced_accuracy(y, p, W))
    out = {"reference": reference, "unit": "user", "resamples": n_boot, "seed": seed, "level": 0.95, "versus": {}}
    ones = np.ones((1, len(y)))
    for m in others:
        s, p = scores[m]
        out["versus"][m] = {
            "auc_diff": float(weighted_auc(y, ref_s, ones)[0] - weighted_auc(y, s, ones)[0]),
            "auc_diff_ci": _interval(np.concatenate(diffs[m]["auc"])),
            "balanced_accuracy_diff": float(
                weighted_balanced_accuracy(y, ref_p, ones)[0] - weighted_balanced_accuracy(y, p, ones)[0]
            ),
            "balanced_accuracy_diff_ci": _interval(np.concatenate(diffs[m]["ba"])),
        }
    return out


def paired_bootstrap_means(values: dict, reference: str, n_boot: int = 1000, seed: int = 0) -> dict:
    """95 % paired bootstrap intervals of ``mean(reference) - mean(other)`` for per-user values
    (``values[m][j]``: method ``m``'s figure for user ``j``, e.g. NDCG@10), resampling users."""
    rng = np.random.default_rng(seed)
    ref = np.asarray(values[reference], dtype=np.float64)
    n = len(ref)
    out = {"reference": reference, "unit": "user", "resamples": n_boot, "seed": seed, "level": 0.95, "versus": {}}
    if n == 0:
        return out
    draws = rng.integers(0, n, size=(n_boot, n))
    for m, v in values.items():
        if m == reference:
            continue
        d = ref - np.asarray(v, dtype=np.float64)
        out["versus"][m] = {"diff": float(d.mean()), "diff_ci": _interval(d[draws].mean(axis=1))}
    return out


def pooled_paired_means(per_fold: list[dict], reference: str, n_boot: int = 1000, seed: int = 0) -> dict:
    """95 % paired bootstrap interval of the difference of the *mean over folds* of per-user values
    (``per_fold[f][m][j]``: method ``m``'s figure for user ``j`` of fold ``f``): every resample draws
    each fold's users with replacement (within the fold: a fold's users are its own test set), takes
    each fold's mean difference and averages the folds — the question a table of five-fold means
    asks, which per-fold intervals do not answer.  Methods missing from a fold are left out."""
    rng = np.random.default_rng(seed)
    out = {
        "reference": reference,
        "unit": "user within fold",
        "folds": len(per_fold),
        "resamples": n_boot,
        "seed": seed,
        "level": 0.95,
        "versus": {},
    }
    if not per_fold:
        return out
    others = [m for m in per_fold[0] if m != reference and all(m in f and reference in f for f in per_fold)]
    sums = {m: np.zeros(n_boot) for m in others}
    means = {m: 0.0 for m in others}
    for fold in per_fold:
        ref = np.asarray(fold[reference], dtype=np.float64)
        draws = rng.integers(0, len(ref), size=(n_boot, len(ref))) if len(ref) else np.zeros((n_boot, 0), int)
        for m in others:
            d = ref - np.asarray(fold[m], dtype=np.float64)
            means[m] += d.mean() / len(per_fold) if len(d) else 0.0
            sums[m] += (d[draws].mean(axis=1) if len(d) else 0.0) / len(per_fold)
    for m in others:
        out["versus"][m] = {"diff": float(means[m]), "diff_ci": _interval(sums[m])}
    return out
