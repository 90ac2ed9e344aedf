"""Top-N lists and their quality, the same way for tuning, testing and new users.

A :class:`RankingTask` is a set of users, each with a *history* (the items whose ratings the
ranker may know; never listed) and *relevant* items (held-out ratings of at least
:data:`RELEVANT`, the usual MovieLens convention — stricter than a like).  Every catalogue item
outside the history is a candidate.  A ranker scores the whole catalogue for a block of users at
once (``-inf``: cannot be listed); the top ``k`` by score, ties in catalogue order, are the list.
Gain is binary, DCG discounts by ``log2(rank + 1)``, the ideal DCG counts ``min(|relevant|, k)``
hits; NDCG is averaged over the task's users.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.topn import RELEVANT, K, ndcg_per_user, top_k

__all__ = [
    "K",
    "RECALL_K",
    "RELEVANT",
    "RankingTask",
    "catalogue_of",
    "list_metrics",
    "ndcg_per_user",
    "top_k",
    "top_lists",
]

BLOCK = 512  # users scored at once: a block × catalogue array of scores
RECALL_K = 20  # recall is also reported at this length (the implicit-feedback literature's Recall@20)


@dataclass
class RankingTask:
    """Users (raw ids); per user, the catalogue indices of its history with their ratings, and of
    its relevant held-out items."""

    users: np.ndarray
    catalogue: np.ndarray
    history: list
    history_ratings: list
    relevant: list

    def __len__(self) -> int:
        return len(self.users)

    @classmethod
    def of(cls, history_ratings, target_ratings, catalogue: np.ndarray, relevant: float = RELEVANT) -> RankingTask:
        """Every user with a relevant rating in ``target_ratings``; histories from ``history_ratings``."""
        import pandas as pd

        index = pd.Index(catalogue)
        rel = target_ratings[target_ratings["rating"] >= relevant]
        rel = rel[index.get_indexer(rel["item"]) >= 0]
        users = np.array(sorted(pd.unique(rel["user"])), dtype=object)
        targets = _by_user(rel, index)
        seen = _by_user(history_ratings[history_ratings["user"].isin(users)], index)
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0))
        hist = [seen.get(u, empty) for u in users]
        return cls(users, catalogue, [h[0] for h in hist], [h[1] for h in hist], [targets[u][0] for u in users])

    def histories(self, lo: int, hi: int) -> list:
        """``(items, ratings)`` of users ``lo..hi-1``: catalogue indices and their ratings."""
        return list(zip(self.history[lo:hi], self.history_ratings[lo:hi], strict=True))


def _by_user(ratings, index) -> dict:
    """user → (sorted catalogue indices of its items, their ratings)."""
    codes = index.get_indexer(ratings["item"])
    keep = codes >= 0
    frame = ratings.loc[keep, ["user", "rating"]].assign(code=codes[keep]).sort_values(["user", "code"])
    return {
        u: (g["code"].to_numpy(dtype=np.int64), g["rating"].to_numpy(dtype=np.float64))
        for u, g in frame.groupby("user", sort=False)
    }


def catalogue_of(train, items=None) -> np.ndarray:
    """The items that can be recommended: every item of the training ratings and of the item table, sorted."""
    parts = [np.asarray(train["item"].to_numpy())]
    if items is not None and len(items):
        parts.append(np.asarray(items["item"].to_numpy()))
    return np.unique(np.concatenate(parts))


def top_lists(ranker, task: RankingTask, k: int = K, new_users: bool = False) -> list[np.ndarray]:
    """Each user's list: catalogue indices of its ``k`` best candidates (finite scores only).

    ``new_users``: the users are not in the ranker's training data; it folds their histories in
    (:meth:`~recsys.evaluation.methods.Method.fold_in_block`)."""
    lists = []
    for lo in range(0, len(task), BLOCK):
        hi = min(lo + BLOCK, len(task))
        if new_users:
            S = ranker.fold_in_block(task.histories(lo, hi), task.catalogue)
        else:
            S = ranker.rank_block(task.users[lo:hi], task.catalogue)
        S = np.array(S, dtype=np.float64)
        for j, seen in enumerate(task.history[lo:hi]):
            S[j, seen] = -np.inf
        lists += [top_k(row, k) for row in S]
    return lists


def list_metrics(lists: list, relevant: list, n_catalogue: int, k: int = K, recall_k: int | None = None) -> dict:
    """Precision, recall, NDCG and hit rate at ``k``, averaged over users, and catalogue coverage
    (the share of the catalogue in some list); with ``recall_k``, recall at that length too (the
    lists asked that long: ``top_lists(..., k=recall_k)``, whose first ``k`` are the lists of ``k``).

    >>> m = list_metrics([np.array([1, 2, 3])], [np.array([2, 9])], n_catalogue=10, k=3)
    >>> round(m["ndcg@3"], 4), m["recall@3"], m["catalogue_coverage"]  # (1/log2 3) / (1 + 1/log2 3)
    (0.3869, 0.5, 0.3)
    """
    hits = np.array([np.isin(rec[:k], rel).sum() for rec, rel in zip(lists, relevant, strict=True)], dtype=float)
    sizes = np.array([len(rel) for rel in relevant], dtype=float)
    seen = np.unique(np.concatenate([np.asarray(rec[:k], dtype=np.int64) for rec in lists])) if lists else []
    out = {}
    if recall_k is not None and lists:
        long_hits = np.array([np.isin(rec[:recall_k], rel).sum() for rec, rel in zip(lists, relevant, strict=True)])
        out[f"recall@{recall_k}"] = float(np.mean(long_hits / np.maximum(sizes, 1)))
    return {
        **out,
        f"precision@{k}": float(np.mean(hits / k)) if len(lists) else float("nan"),
        f"recall@{k}": float(np.mean(hits / np.maximum(sizes, 1))) if len(lists) else float("nan"),
        f"ndcg@{k}": float(ndcg_per_user(lists, relevant, k).mean()) if len(lists) else float("nan"),
        f"hit_rate@{k}": float(np.mean(hits > 0)) if len(lists) else float("nan"),
        "catalogue_coverage": len(seen) / max(n_catalogue, 1),
        "users": len(lists),
    }
