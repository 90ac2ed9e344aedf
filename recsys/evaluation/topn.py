"""Top-N lists: every user with a relevant test rating gets every catalogue item not rated in
training ranked, by every ranking method; their precision, recall, NDCG and hit rate at ``k``."""

from __future__ import annotations

import time

import numpy as np

from .methods import Popularity, Training
from .metrics import K, ranking_metrics

TOPN_METHODS = ("popularity", "svd", "knn_baseline", "profile")
RELEVANT = 4.0  # a test rating at least this is relevant (the usual MovieLens convention)


def topn(train, test, fitted: dict, like_threshold: float, k: int = K) -> dict:
    """Top-``k`` lists of every user with a relevant test rating, for the :data:`TOPN_METHODS`
    available: popularity, and those of ``fitted`` (name → :class:`~recsys.evaluation.protocol.Fitted`,
    as the protocol leaves them) that were evaluated; each ranks with its final fit."""
    profile = fitted["profile"].final if "profile" in fitted else None
    if profile is not None:
        catalogue = profile.model.profiles_.items
    else:
        catalogue = np.unique(np.concatenate([train["item"].to_numpy(), test["item"].to_numpy()]))
    rel = test[test["rating"] >= RELEVANT]
    relevant = {u: set(g.tolist()) for u, g in rel.groupby("user")["item"]}
    users = sorted(relevant)
    rated = {u: set(g.tolist()) for u, g in train.groupby("user")["item"]}
    rankers = {"popularity": Popularity(like_threshold).fit(Training(train))}
    rankers.update({name: fitted[name].final for name in TOPN_METHODS if name in fitted})
    out = {
        "relevant": f"test rating >= {RELEVANT:g}",
        "k": k,
        "candidates": "every catalogue item not rated in training",
        "catalogue": int(len(catalogue)),
        "methods": {},
    }
    for name in (m for m in TOPN_METHODS if m in rankers):
        t = time.perf_counter()
        lists = []
        for u in users:
            seen = rated.get(u, set())
            cand = np.array([x for x in catalogue.tolist() if x not in seen], dtype=catalogue.dtype)
            lists.append(top_k(rankers[name].rank(u, cand), cand, k))
        res = ranking_metrics(lists, [relevant[u] for u in users], len(catalogue), k)
        res["seconds"] = time.perf_counter() - t
        out["methods"][name] = res
    return out


def top_k(scores: np.ndarray, candidates: np.ndarray, k: int) -> list:
    """The ``k`` best candidates by score (ties: in candidate order); ``-inf`` are never listed.

    >>> top_k(np.array([0.5, 2.0, -np.inf, 2.0]), np.array([10, 11, 12, 13]), 3)
    [11, 13, 10]
    """
    order = np.lexsort((np.arange(len(candidates)), -scores))
    order = order[np.isfinite(scores[order])][:k]
    return candidates[order].tolist()
