"""The methods the profile recommender is compared with, behind one small interface.

Every method is fitted on training ratings and returns, for (user, item) pairs, a score (higher =
more likely a like) and whether it covers the pair.  The rating predictors are Surprise's own
classes (``BaselineOnly``, ``SVD``, ``SVDpp``, ``KNNBaseline``, ``CoClustering``), scored with
their ``predict`` (estimates clipped to the rating scale, Surprise's default).  A per-user
Bernoulli Naive Bayes over item attributes and the majority class ("always like") complete the
like/dislike comparison; ``popularity`` (training likes) is a top-N baseline.

For top-N lists every candidate of every user is scored; Surprise's per-pair ``predict`` is too slow
for that (KNNBaseline: about 0.1 ms a pair), so :meth:`SurpriseMethod.rank_scores` computes the
same estimates as ``predict(..., clip=False)`` from the fitted model's own state, vectorised
(tested equal to Surprise's on samples).  Unclipped: clipping makes every item above the top of the
scale tie.
"""

from __future__ import annotations

import time

import numpy as np

SURPRISE_METHODS = ("bias", "svd", "svdpp", "knn_baseline", "coclustering")


def _surprise_algo(name: str, random_state: int):
    from surprise import SVD, BaselineOnly, CoClustering, KNNBaseline, SVDpp

    if name == "bias":
        return BaselineOnly(verbose=False)
    if name == "svd":
        return SVD(random_state=random_state)
    if name == "svdpp":
        return SVDpp(random_state=random_state, cache_ratings=True)
    if name == "knn_baseline":
        return KNNBaseline(sim_options={"name": "pearson_baseline", "user_based": False}, verbose=False)
    if name == "coclustering":
        return CoClustering(random_state=random_state)
    raise ValueError(f"unknown Surprise method {name!r}; choose from {', '.join(SURPRISE_METHODS)}")


class SurpriseMethod:
    """A Surprise rating predictor; its score is the predicted rating."""

    def __init__(self, name: str, random_state: int = 0):
        self.name = name
        self.random_state = random_state

    def fit(self, ratings) -> SurpriseMethod:
        from surprise import Dataset, Reader

        lo, hi = float(ratings["rating"].min()), float(ratings["rating"].max())
        data = Dataset.load_from_df(ratings[["user", "item", "rating"]], Reader(rating_scale=(lo, hi)))
        self.trainset_ = data.build_full_trainset()
        self.algo_ = _surprise_algo(self.name, self.random_state)
        self.algo_.fit(self.trainset_)
        return self

    def score(self, users, items) -> tuple[np.ndarray, np.ndarray]:
        """Predicted ratings (Surprise's ``predict``), and coverage (every pair: unknown ids get
        Surprise's default prediction)."""
        est = np.array([self.algo_.predict(u, i).est for u, i in zip(_plain(users), _plain(items), strict=True)])
        return est, np.ones(len(est), dtype=bool)

    def rank_scores(self, user, items) -> np.ndarray:
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


def _plain(xs) -> list:
    return [x.item() if isinstance(x, np.generic) else x for x in xs]


class NaiveBayes:
    """Per-user Bernoulli Naive Bayes over item attributes (the paper's Naive Bayes baseline).

    For each user, two classes (like: rating above the like threshold, dislike) with
    Laplace-smoothed priors ``P(c) = (n_c + 1) / (n + 2)``; the features are the binary attributes
    of the rated item and the item itself, restricted to those occurring in the user's training
    items; ``P(a | c) = (n_{c,a} + 1) / (n_c + 2)``.  A test item is scored with the full Bernoulli
    likelihood (present *and* absent attributes).  The score is ``P(like | item)``; it covers pairs
    of a known user and a known item.  The paper does not say which Naive Bayes it used.
    """

    def __init__(self, like_threshold: float = 2.0):
        self.like_threshold = like_threshold

    def fit(self, ratings, item_attributes=None) -> NaiveBayes:
        import pandas as pd
        import scipy.sparse as sp

        from ingest.features import attribute_names
        from ingest.features import item_attributes as own_attribute

        attrs = item_attributes if item_attributes is not None else pd.DataFrame(columns=["item", "kind", "value"])
        items = pd.Index(pd.unique(np.concatenate([ratings["item"].to_numpy(), attrs["item"].to_numpy()])))
        names = np.concatenate([attribute_names(attrs["kind"], attrs["value"]), own_attribute(items.to_numpy())])
        item_of = np.concatenate([items.get_indexer(attrs["item"]), np.arange(len(items))])
        a_codes, vocab = pd.factorize(pd.Series(names))
        A = sp.csr_matrix((np.ones(len(a_codes)), (item_of, a_codes)), shape=(len(items), len(vocab)))
        A.sum_duplicates()
        A.data[:] = 1
        u_codes, users = pd.factorize(ratings["user"])
        i = items.get_indexer(ratings["item"])
        like = ratings["rating"].to_numpy() > self.like_threshold
        n_u = len(users)
        R_like = sp.csr_matrix((np.ones(like.sum()), (u_codes[like], i[like])), shape=(n_u, len(items)))
        R_dis = sp.csr_matrix((np.ones((~like).sum()), (u_codes[~like], i[~like])), shape=(n_u, len(items)))
        self.users_, self.items_ = pd.Index(users), items
        self.n_like_ = np.asarray(R_like.sum(axis=1)).ravel()
        self.n_dis_ = np.asarray(R_dis.sum(axis=1)).ravel()
        c_like, c_dis = (R_like @ A).tocsr(), (R_dis @ A).tocsr()
        seen = ((c_like + c_dis) > 0).astype(np.float64).tocsr()
        self.logp_like_ = self._log_probs(c_like, seen, self.n_like_)
        self.logp_dis_ = self._log_probs(c_dis, seen, self.n_dis_)
        self.A_ = A.tocsr()
        return self

    @staticmethod
    def _log_probs(counts, seen, n_c):
        import scipy.sparse as sp

        seen = seen.tocoo()
        cnt = np.asarray(counts.tocsr()[seen.row, seen.col]).ravel()
        p = (cnt + 1.0) / (n_c[seen.row] + 2.0)
        lp = sp.csr_matrix((np.log(p), (seen.row, seen.col)), shape=seen.shape)
        l1p = sp.csr_matrix((np.log1p(-p), (seen.row, seen.col)), shape=seen.shape)
        return lp, l1p

    def score(self, users, items) -> tuple[np.ndarray, np.ndarray]:
        u = self.users_.get_indexer(np.asarray(users))
        i = self.items_.get_indexer(np.asarray(items))
        known = (u >= 0) & (i >= 0)
        out = np.full(len(u), np.nan)
        uk, ik = u[known], i[known]
        scores = []
        for (lp, l1p), n_c, n_o in (
            (self.logp_like_, self.n_like_, self.n_dis_),
            (self.logp_dis_, self.n_dis_, self.n_like_),
        ):
            prior = np.log((n_c[uk] + 1.0) / (n_c[uk] + n_o[uk] + 2.0))
            absent_all = np.asarray(l1p.sum(axis=1)).ravel()[uk]
            present = np.asarray((lp - l1p)[uk].multiply(self.A_[ik]).sum(axis=1)).ravel()
            scores.append(prior + absent_all + present)
        d = np.clip(scores[1] - scores[0], -50, 50)
        out[known] = 1.0 / (1.0 + np.exp(d))
        return out, known


class Majority:
    """Always "like" (the majority class); its score is constant."""

    def fit(self, ratings, item_attributes=None) -> Majority:
        return self

    def score(self, users, items) -> tuple[np.ndarray, np.ndarray]:
        return np.ones(len(users)), np.ones(len(users), dtype=bool)


class Popularity:
    """Top-N baseline: items ranked by their number of training likes."""

    def __init__(self, like_threshold: float = 2.0):
        self.like_threshold = like_threshold

    def fit(self, ratings) -> Popularity:
        liked = ratings.loc[ratings["rating"] > self.like_threshold, "item"]
        self.counts_ = liked.value_counts()
        return self

    def rank_scores(self, user, items) -> np.ndarray:
        return self.counts_.reindex(np.asarray(items)).fillna(0).to_numpy(dtype=np.float64)


def timed(fn, *args, **kwargs):
    """``(result, seconds)``."""
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t
