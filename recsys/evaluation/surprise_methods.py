"""Surprise's rating predictors as compared methods: ``BaselineOnly``, ``SVD``, ``SVDpp``,
item-based ``KNNBaseline`` and ``CoClustering``, scored with their own ``predict`` (estimates
clipped to the rating scale, Surprise's default).

For top-N lists every candidate of every user is scored; Surprise's per-pair ``predict`` is too slow
for that (KNNBaseline: about 0.1 ms a pair), so :meth:`SurpriseMethod.rank` computes the same
estimates as ``predict(..., clip=False)`` from the fitted model's own state, vectorised (tested
equal to Surprise's on samples).  Unclipped: clipping makes every item above the top of the
scale tie.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ..files import plain
from .methods import Method, Scores, Training

SURPRISE_METHODS = ("bias", "svd", "svdpp", "knn_baseline", "coclustering")
# the last KNNBaseline fitted within shared_neighbourhoods(): (ratings' digest, options) -> fitted
_SHARED_KNN: ContextVar[dict | None] = ContextVar("shared_knn_fits", default=None)


@contextmanager
def shared_neighbourhoods() -> Iterator[None]:
    """Within this block, a ``knn_baseline`` fit on the ratings of the previous one, with the same
    options but ``k``, reuses its baselines and similarities and takes the new ``k``: KNNBaseline
    reads ``k`` only when it predicts, so the model is the one a fit would give.  Its grid tries
    three ``k`` on the same ratings; each fit computed the same items² similarities (30-45 s of one
    core on ml-latest-small).  One fit is kept (the similarities are items²), none outside."""
    token = _SHARED_KNN.set({})
    try:
        yield
    finally:
        _SHARED_KNN.reset(token)


def _ratings_digest(ratings) -> str:
    import pandas as pd

    rows = pd.util.hash_pandas_object(ratings[["user", "item", "rating"]], index=False).to_numpy()
    return hashlib.blake2b(rows.tobytes(), digest_size=20).hexdigest()


def _plain(xs) -> list:
    return [plain(x) for x in xs]


def _surprise_algo(name: str, random_state: int, params: dict):
    """The Surprise algorithm ``name`` with a point of its grid (:mod:`recsys.evaluation.grids`)."""
    from surprise import SVD, BaselineOnly, CoClustering, KNNBaseline, SVDpp

    if name == "bias":
        als = {"method": "als", "reg_u": params.get("reg_u", 15), "reg_i": params.get("reg_i", 10)}
        return BaselineOnly(bsl_options=als, verbose=False)
    if name == "svd":
        return SVD(random_state=random_state, **params)
    if name == "svdpp":
        return SVDpp(random_state=random_state, cache_ratings=True, **params)
    if name == "knn_baseline":
        sim = {"name": params.get("sim", "pearson_baseline"), "user_based": False}
        return KNNBaseline(k=params.get("k", 40), sim_options=sim, verbose=False)
    if name == "coclustering":
        return CoClustering(random_state=random_state, **params)
    raise ValueError(f"unknown Surprise method {name!r}; choose from {', '.join(SURPRISE_METHODS)}")


class SurpriseMethod(Method):
    """A Surprise rating predictor; its score is the predicted rating, its natural cut-off the
    like threshold (a predicted rating above it is a like)."""

    def __init__(self, name: str, random_state: int = 0, like_threshold: float = 2.0, **params):
        self.name = name
        self.random_state = random_state
        self.natural_cut_off = like_threshold
        self.params = params

    def natural_like(self, score: np.ndarray) -> np.ndarray:
        return score > self.natural_cut_off

    def fit(self, train: Training) -> SurpriseMethod:
        from surprise import Dataset, Reader

        ratings = train.ratings
        memo, key = _SHARED_KNN.get(), None
        if memo is not None and self.name == "knn_baseline":
            options = sorted((name, str(value)) for name, value in self.params.items() if name != "k")
            key = (_ratings_digest(ratings), tuple(options))
            if key in memo:
                self.trainset_, fitted = memo[key]
                self.algo_ = copy.copy(fitted)  # the fitted state shared, read only
                self.algo_.k = self.params.get("k", 40)
                return self
        lo, hi = float(ratings["rating"].min()), float(ratings["rating"].max())
        data = Dataset.load_from_df(ratings[["user", "item", "rating"]], Reader(rating_scale=(lo, hi)))
        self.trainset_ = data.build_full_trainset()
        self.algo_ = _surprise_algo(self.name, self.random_state, self.params)
        self.algo_.fit(self.trainset_)
        if key is not None:
            memo.clear()
            memo[key] = (self.trainset_, self.algo_)
        return self

    def score(self, users, items) -> Scores:
        """Predicted ratings (Surprise's ``predict``), and coverage (every pair: unknown ids get
        Surprise's default prediction)."""
        est = np.array([self.algo_.predict(u, i).est for u, i in zip(_plain(users), _plain(items), strict=True)])
        return Scores(est, np.ones(len(est), dtype=bool))

    def rank(self, user, items) -> np.ndarray:
        """Unclipped predicted ratings of ``items`` (raw ids) for ``user``: ``predict(..., clip=False)``."""
        ts, algo = self.trainset_, self.algo_
        try:
            u = ts.to_inner_uid(_plain([user])[0])
        except ValueError:
            return np.array([algo.predict(user, i, clip=False).est for i in _plain(items)])
        inner = np.array([ts._raw2inner_id_items.get(i, -1) for i in _plain(items)], dtype=np.int64)
        known = inner >= 0
        est = np.full(len(inner), ts.global_mean)
        if self.name in ("svd", "knn_baseline", "bias"):
            bu, bi = (algo.bu, algo.bi)
            est += bu[u]
            est[known] += bi[inner[known]]
            if self.name == "svd":
                est[known] += algo.qi[inner[known]] @ algo.pu[u]
            elif self.name == "knn_baseline":
                est[known] += _knn_item_offsets(algo, u, inner[known])
            return est
        # SVD++ and CoClustering: Surprise's own estimate, pair by pair
        return np.array([algo.predict(user, i, clip=False).est for i in _plain(items)])


def _knn_item_offsets(algo, u: int, items: np.ndarray) -> np.ndarray:
    """Item-based KNNBaseline's neighbourhood term for user ``u`` and inner items (see its ``estimate``):
    the ``k`` items the user rated most similar to each item; of those, the positively similar
    ones give ``sum sim * (r - baseline) / sum sim``."""
    rated = algo.yr[u]
    if not rated:
        return np.zeros(len(items))
    j = np.array([x for x, _ in rated], dtype=np.int64)
    r = np.array([x for _, x in rated], dtype=np.float64)
    resid = r - (algo.trainset.global_mean + algo.bx[j] + algo.by[u])
    S = algo.sim[np.ix_(items, j)]
    k = min(algo.k, len(j))
    if k < len(j):
        # heapq.nlargest keeps the first of equal similarities: a stable sort does the same
        top = np.argsort(-S, axis=1, kind="stable")[:, :k]
        S = np.take_along_axis(S, top, axis=1)
        res = resid[top]
    else:
        res = np.broadcast_to(resid, S.shape)
    pos = S > 0
    sum_sim = np.where(pos, S, 0).sum(axis=1)
    sum_r = np.where(pos, S * res, 0).sum(axis=1)
    enough = pos.sum(axis=1) >= algo.min_k
    return np.where(enough & (sum_sim > 0), np.divide(sum_r, sum_sim, out=np.zeros_like(sum_r), where=sum_sim > 0), 0.0)
