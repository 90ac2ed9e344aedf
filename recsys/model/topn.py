"""Top-N lists and their NDCG, one definition for the model (which weighs its lists on held-out
ratings) and the evaluation (:mod:`recsys.evaluation.ranking`).

An item is *relevant* to a list when its held-out rating is at least :data:`RELEVANT` (the usual
MovieLens convention, stricter than a like).  Gain is binary, DCG discounts by ``log2(rank + 1)``,
the ideal DCG counts ``min(|relevant|, k)`` hits.
"""

from __future__ import annotations

import numpy as np

RELEVANT = 4.0
K = 10


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest finite scores, ties in index order.

    >>> top_k(np.array([0.5, 2.0, -np.inf, 2.0]), 3).tolist()
    [1, 3, 0]
    """
    if len(scores) > 4 * k:
        # a partial partition first: the k-th largest value bounds the candidates
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        pool = np.flatnonzero(scores >= kth)
        order = pool[np.argsort(-scores[pool], kind="stable")]
    else:
        order = np.argsort(-scores, kind="stable")
    return order[np.isfinite(scores[order])][:k]


def ndcg_per_user(lists: list, relevant: list, k: int = K) -> np.ndarray:
    """NDCG@k of each list against its relevant items."""
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    out = np.zeros(len(lists))
    for j, (rec, rel) in enumerate(zip(lists, relevant, strict=True)):
        hits = np.isin(rec[:k], rel)
        idcg = discount[: min(k, len(rel))].sum()
        out[j] = (hits * discount[: len(hits)]).sum() / idcg if idcg > 0 else 0.0
    return out
