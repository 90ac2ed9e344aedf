"""The lists' blend given to every ranker alike: like-for-like rows of the top-N table.

The product's lists blend its item model's score with popularity and the person's like-probability
(:mod:`recsys.model.list_blend`).  To show what the co-cluster item model adds *beyond* that blend,
the same blend is put on other rankers' scores — EASE's, iALS's and the product's own item model's —
with its two weights chosen by one procedure for all of them on the evaluation's tuning tenth:

1. the ranker at its chosen setting and the profile model at its chosen setting, both fitted on
   the fit part (the selection already has them);
2. for up to :data:`~recsys.model.list_blend.VALIDATION_USERS` tuning users with a relevant tuning
   rating: the candidates (the :data:`~recsys.model.list_blend.CANDIDATES` best by the ranker's
   score and as many most liked items, never an item of the user's fit-part history), their
   score, ``log(1 + likes)`` and the profile model's like-probability logit;
3. :func:`recsys.model.list_blend.choose`: the weights on its grid with the best NDCG@10 of those
   lists (the ranker alone unless a blend ranks better);
4. the ranker and the profile model refitted on all training ratings, the test lists blended with
   those weights.

A ranker's scores are on its own scale; ``choose`` scales each feature to the score's spread, so the
grid means the same for every ranker.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.list_blend import CANDIDATES, VALIDATION_USERS, ListBlend, ValidationList, candidates, choose, log_likes
from ..model.list_blend import logit as like_logit
from .methods import Method
from .ranking import RankingTask


def popularity_of(ratings, catalogue: np.ndarray, like_threshold: float) -> np.ndarray:
    """``log(1 + training likes)`` of every catalogue item."""
    import pandas as pd

    likes = ratings[ratings["rating"].to_numpy(dtype=np.float64) > like_threshold]
    counts = likes["item"].value_counts().reindex(pd.Index(catalogue)).fillna(0).to_numpy(dtype=np.float64)
    return log_likes(counts)


@dataclass
class _Features:
    """One block of users' candidates: catalogue indices (a row per user, ``n[t]`` used), and per
    candidate the ranker's score, the popularity and the like-probability logit."""

    cand: list
    key: list
    like: list


def _features(
    base: Method, profile: Method, task: RankingTask, lo: int, hi: int, popularity: np.ndarray, n: int
) -> _Features:
    S = np.array(base.rank_block(task.users[lo:hi], task.catalogue), dtype=np.float64)
    out = _Features([], [], [])
    users, items = [], []
    for j, seen in enumerate(task.history[lo:hi]):
        listable = np.ones(len(task.catalogue), bool)
        listable[seen] = False
        cand = candidates(S[j], popularity, listable, n)
        out.cand.append(cand)
        out.key.append(S[j, cand])
        users.append(np.full(len(cand), task.users[lo + j], dtype=object))
        items.append(task.catalogue[cand])
    if users:
        scores = profile.score(np.concatenate(users), np.concatenate(items))
        p = np.where(scores.covered, scores.score, 0.5)  # no like-probability: no information
        bounds = np.cumsum([0] + [len(c) for c in out.cand])
        out.like = [like_logit(p[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    return out


def choose_blend(
    base: Method, profile: Method, task: RankingTask, popularity: np.ndarray, seed: int = 0, n: int = CANDIDATES
) -> tuple[ListBlend, dict]:
    """Steps 2–3 of the module docstring: the blend of ``base`` (fitted on the fit part) with
    ``profile``'s like-probabilities, chosen on ``task`` (the tuning users; histories: the fit part)."""
    rng = np.random.default_rng(seed)
    keep = np.arange(len(task))
    if len(keep) > VALIDATION_USERS:
        keep = np.sort(rng.choice(keep, VALIDATION_USERS, replace=False))
    sub = RankingTask(
        task.users[keep],
        task.catalogue,
        [task.history[t] for t in keep],
        [task.history_ratings[t] for t in keep],
        [task.relevant[t] for t in keep],
    )
    rows = []
    for lo in range(0, len(sub), 256):
        hi = min(lo + 256, len(sub))
        f = _features(base, profile, sub, lo, hi, popularity, n)
        for j in range(hi - lo):
            rel = sub.relevant[lo + j]
            rows.append(ValidationList(f.key[j], popularity[f.cand[j]], f.like[j], np.isin(f.cand[j], rel), len(rel)))
    return choose(rows, n)


class Blended(Method):
    """``base``'s lists with a chosen blend (step 4): on each user's candidates, the score plus
    ``blend.popularity × log(1 + likes)`` plus ``blend.like × logit P(like)`` (``profile``'s);
    every other item cannot be listed."""

    folds_in = False

    def __init__(self, base: Method, profile: Method, blend: ListBlend, popularity: np.ndarray, task: RankingTask):
        self.base, self.profile, self.blend, self.popularity = base, profile, blend, popularity
        self._history = dict(zip(task.users.tolist(), task.history, strict=True))

    def rank_block(self, users, catalogue) -> np.ndarray:
        users = np.asarray(users, dtype=object)
        task = RankingTask(
            users,
            np.asarray(catalogue),
            [self._history.get(u, np.zeros(0, np.int64)) for u in users],
            [np.zeros(0)] * len(users),
            [np.zeros(0, np.int64)] * len(users),
        )
        f = _features(self.base, self.profile, task, 0, len(users), self.popularity, self.blend.candidates)
        out = np.full((len(users), len(catalogue)), -np.inf)
        for j, cand in enumerate(f.cand):
            out[j, cand] = f.key[j] + self.blend.popularity * self.popularity[cand] + self.blend.like * f.like[j]
        return out
