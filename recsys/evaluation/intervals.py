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


def user_draws(rng, n_users: int, b: int) -> np.ndarray:
    """``b`` resamples of ``n_users`` users: how many times each user is drawn, a row each."""
    return rng.multinomial(n_users, np.full(n_users, 1.0 / max(n_users, 1)), size=b).astype(np.float64)


def user_weights(rng, groups: np.ndarray, b: int) -> np.ndarray:
    """``b`` resamples of the users: each row gives every rating its user's draw count (all of a
    user's ratings go in or out together)."""
    n_users = int(groups.max()) + 1 if len(groups) else 0
    return user_draws(rng, n_users, b)[:, groups]


def _interval(values: np.ndarray) -> list[float]:
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


# the by-user form (UserPairs) holds a few arrays of (distinct scores × users) floats: past this
# many cells the ratings' form is used
BY_USER_CELLS = 20_000_000


class UserPairs:
    """One method's test scores summed by user, so that a resample's AUC and balanced accuracy
    cost a product of users × users instead of a pass over every rating: ``pairs[u, v]`` counts
    the (like of user ``u``, dislike of user ``v``) pairs the scores put in the right order, ties
    half; ``likes``/``dislikes`` each user's; ``right`` each user's likes and dislikes predicted
    so.  Every figure is a sum of whole and half counts times whole draws, exact in floats: the same
    numbers :func:`weighted_auc` and :func:`weighted_balanced_accuracy` give on the ratings."""

    def __init__(self, y: np.ndarray, s: np.ndarray, pred: np.ndarray, groups: np.ndarray, n_users: int):
        from scipy.sparse import coo_matrix

        order = np.argsort(s, kind="mergesort")
        ss, yy, uu = s[order], y[order], groups[order]
        starts = np.r_[0, np.flatnonzero(np.diff(ss) != 0) + 1]
        tie = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(ss)]))  # each rating's tie group
        # dislikes per (tie group, user); those strictly below a group, and half of those level with it
        below = np.zeros((len(starts), n_users))
        np.add.at(below, (tie[~yy], uu[~yy]), 1.0)
        level = below.copy()
        np.cumsum(below, axis=0, out=below)
        below -= level
        below += 0.5 * level
        likes_at = coo_matrix((np.ones(int(yy.sum())), (uu[yy], tie[yy])), shape=(n_users, len(starts))).tocsr()
        self.pairs = np.asarray(likes_at @ below)
        self.likes = np.bincount(groups[y], minlength=n_users).astype(np.float64)
        self.dislikes = np.bincount(groups[~y], minlength=n_users).astype(np.float64)
        self.right_likes = np.bincount(groups[y & pred], minlength=n_users).astype(np.float64)
        self.right_dislikes = np.bincount(groups[~y & ~pred], minlength=n_users).astype(np.float64)

    @staticmethod
    def fit(n_scores: int, n_users: int) -> bool:
        """Whether the by-user form of ``n_scores`` test scores of ``n_users`` users is small enough."""
        return n_scores * n_users <= BY_USER_CELLS

    def auc(self, draws: np.ndarray) -> np.ndarray:
        """The AUC under each row of ``draws`` (resample counts per user)."""
        return ((draws @ self.pairs) * draws).sum(axis=1) / ((draws @ self.likes) * (draws @ self.dislikes))

    def balanced_accuracy(self, draws: np.ndarray) -> np.ndarray:
        tpr = (draws @ self.right_likes) / (draws @ self.likes)
        tnr = (draws @ self.right_dislikes) / (draws @ self.dislikes)
        return 0.5 * (tpr + tnr)


def paired_bootstrap(
    y, scores: dict, reference: str, groups, n_boot: int = 1000, seed: int = 0, chunk: int = 100
) -> dict:
    """95 % paired bootstrap intervals of ``reference - other`` for AUC and balanced accuracy.

    ``scores[m] = (score, prediction)`` on the test ratings (uncovered scores filled, uncovered
    predictions wrong); ``groups[t]`` is the user (0..n-1) of test rating ``t``.  Every resample
    draws users with replacement, each with all of its ratings — ratings of one user are not
    independent — and the same draw serves both methods.  Each method's figures are summed by user
    first where that is small (:class:`UserPairs`; the same numbers).
    """
    y = np.asarray(y, dtype=bool)
    groups = np.asarray(groups, dtype=np.int64)
    rng = np.random.default_rng(seed)
    others = [m for m in scores if m != reference]
    diffs = {m: {"auc": [], "ba": []} for m in others}
    n_users = int(groups.max()) + 1 if len(groups) else 0
    if len(y) and UserPairs.fit(len(y), n_users):
        by_user = {
            m: UserPairs(y, np.asarray(s), np.asarray(p, dtype=bool), groups, n_users) for m, (s, p) in scores.items()
        }
        auc = lambda m, draws: by_user[m].auc(draws)  # noqa: E731
        ba = lambda m, draws: by_user[m].balanced_accuracy(draws)  # noqa: E731
    else:
        auc = lambda m, draws: weighted_auc(y, scores[m][0], draws[:, groups])  # noqa: E731
        ba = lambda m, draws: weighted_balanced_accuracy(y, scores[m][1], draws[:, groups])  # noqa: E731
    for lo in range(0, n_boot, chunk):
        draws = user_draws(rng, n_users, min(chunk, n_boot - lo))
        auc_ref, ba_ref = auc(reference, draws), ba(reference, draws)
        for m in others:
            diffs[m]["auc"].append(auc_ref - auc(m, draws))
            diffs[m]["ba"].append(ba_ref - ba(m, draws))
    out = {"reference": reference, "unit": "user", "resamples": n_boot, "seed": seed, "level": 0.95, "versus": {}}
    ref_s, ref_p = scores[reference]
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
