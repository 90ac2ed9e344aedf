"""The top-N anchors: the methods a recommender engineer would compare lists with.

iALS and BPR come from implicit, so that these anchors do not depend on our code; EASE (Steck
2019) is its closed form, tested equal to cornac's ``EASE`` (ours inverts in place: its part of
``recsys evaluate`` on ml-latest-small took 265 s with cornac's, 102 s now); RP3beta (Paudel et
al. 2017), which neither library has, and ItemKNN with the shrinkage and feature weighting its
tuned form needs (implicit's has neither) are written here and tested: RP3beta against its
formula on a hand-computed example, ItemKNN against implicit's ``CosineRecommender`` where the
two coincide.
Each is fitted on a users × items matrix of its ``input``, a choice its grid tunes like any other
parameter: 1 for every training rating (``"all"``), for the likes only (``"likes"``, a rating
above 2), for the ratings the lists count as relevant only (``"relevant"``, 4 and above), or every
rating with its value (``"weighted"``: 1–5, so that iALS's confidence grows with the stars, and
EASE's Gram matrix and ItemKNN's cosines are those of the stars; for interactions with counts,
``log2(1 + count)``, the profile model's ``confidence``).  RP3beta walks the 0/1 graph
whatever the input (its definition); an item–item model's scores sum its weights times the
user's row of the matrix, stars included.

Scores: ``x_u W`` for the item–item models (``W`` the learned items × items weights), ``p_u · q_i``
for the factor models.  A new user (strong generalisation) is folded in from their history
without refitting: ``x W`` for the item–item models, iALS's own user recalculation; BPR has no
such step.
"""

from __future__ import annotations

import numpy as np

from ..model.feedback import confidence_of
from .methods import Method, Training

INPUTS = ("all", "likes", "relevant", "weighted")


class _ItemMatrix(Method):
    """A method fitted on the users × items 0/1 matrix of its input."""

    folds_in = True

    def __init__(self, like_threshold: float = 2.0, seed: int = 0, input: str = "all", **params):
        self.like_threshold = like_threshold
        self.seed = seed
        self.params = {**params, "input": input}

    def fit(self, train: Training) -> _ItemMatrix:
        import pandas as pd
        import scipy.sparse as sp

        ratings = train.ratings
        self.users_ = pd.Index(pd.unique(ratings["user"]))
        self.items_ = pd.Index(np.unique(ratings["item"].to_numpy()))
        keep, values = self._entries(ratings["rating"].to_numpy(dtype=np.float64))
        if self.params["input"] == "weighted" and "count" in ratings.columns:  # interactions: their confidence
            values = confidence_of(ratings["count"].to_numpy(dtype=np.float64)[keep])
        ratings = ratings[keep]
        rows, cols = self.users_.get_indexer(ratings["user"]), self.items_.get_indexer(ratings["item"])
        shape = (len(self.users_), len(self.items_))
        self.X_ = sp.csr_matrix((values.astype(np.float32), (rows, cols)), shape=shape)
        self._learn(self.X_)
        return self

    def _entries(self, ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which ratings enter the matrix (its ``input``) and the value each gets."""
        from .ranking import RELEVANT

        kind = self.params["input"]
        if kind not in INPUTS:
            raise ValueError(f"input must be one of {', '.join(INPUTS)}, got {kind!r}")
        keep = {
            "all": np.ones(len(ratings), bool),
            "likes": ratings > self.like_threshold,
            "relevant": ratings >= RELEVANT,
            "weighted": np.ones(len(ratings), bool),
        }[kind]
        return keep, (ratings[keep] if kind == "weighted" else np.ones(int(keep.sum())))

    def _learn(self, X) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def _scores(self, X_rows) -> np.ndarray:  # pragma: no cover - interface
        """Scores of every known item for the users whose rows of the 0/1 matrix are ``X_rows``."""
        raise NotImplementedError

    def rank(self, user, candidates) -> np.ndarray:
        return self.rank_block([user], candidates)[0]

    def rank_block(self, users, catalogue) -> np.ndarray:
        rows = self.users_.get_indexer(np.asarray(users, dtype=object))
        known = rows >= 0
        out = np.full((len(rows), len(catalogue)), -np.inf)
        if known.any():
            out[known] = self._on_catalogue(self._scores(self.X_[rows[known]]), catalogue)
        return out

    def fold_in_block(self, histories: list, catalogue) -> np.ndarray:
        import scipy.sparse as sp

        cols = self.items_.get_indexer(np.asarray(catalogue))
        rows, idx, vals = [], [], []
        for r, (items, ratings) in enumerate(histories):
            keep, values = self._entries(np.asarray(ratings, dtype=np.float64))
            known = cols[items[keep]]
            first = np.unique(known, return_index=True)[1]  # an item given twice: its first rating
            first = first[known[first] >= 0]
            rows.append(np.full(len(first), r))
            idx.append(known[first])
            vals.append(values[first])
        rows, idx, vals = np.concatenate(rows), np.concatenate(idx), np.concatenate(vals)
        X = sp.csr_matrix((vals.astype(np.float32), (rows, idx)), shape=(len(histories), len(self.items_)))
        return self._on_catalogue(self._new_scores(X), catalogue)

    def _new_scores(self, X) -> np.ndarray:
        return self._scores(X)

    def _on_catalogue(self, S: np.ndarray, catalogue) -> np.ndarray:
        """Item columns in catalogue order; items the method never saw cannot be listed."""
        cols = self.items_.get_indexer(np.asarray(catalogue))
        out = np.full((S.shape[0], len(cols)), -np.inf)
        out[:, cols >= 0] = S[:, cols[cols >= 0]]
        return out


class _ItemItem(_ItemMatrix):
    """Scores ``x_u W`` from an items × items weight matrix ``W_`` (dense or sparse)."""

    def _scores(self, X_rows) -> np.ndarray:
        S = X_rows @ self.W_
        return np.asarray(S.toarray() if hasattr(S, "toarray") else S, dtype=np.float64)


class EASE(_ItemItem):
    """EASE (Steck 2019): ``W = I - P / diag(P)`` with ``P = (X'X + λI)^-1``, zero diagonal,
    negative weights kept (cornac's ``posB=False``, the paper's model); the closed form by a
    Cholesky inverse in place (:func:`~recsys.model.item_model.ease_weights`), tested equal to
    cornac's ``EASE``, whose LU inverse and copies took twice the time and four times the memory
    (43 s and four 0.75 GB arrays a fit at ml-latest-small's 9,700 movies).  ``l2_per_like``
    (default 0) adds ``δ X'X[i, i]`` to item ``i``'s penalty, the emphasised denoising
    autoencoder's dropout (EDLAE, Steck 2020), as the product's item model may."""

    name = "ease"

    def _learn(self, X) -> None:
        from ..model.item_model import ease_weights

        # the matrix's values: 1 for the 0/1 inputs, the stars for "weighted"; in double precision
        # whatever the catalogue: the evaluations compare lists, not fit times, and their stored
        # results (ml-latest-small's 9,700 movies among them) were measured in it
        per_like = float(self.params.get("l2_per_like", 0.0))
        self.W_ = ease_weights(X, float(self.params["lamb"]), np.float64, per_like)


class ItemKNN(_ItemItem):
    """Item-based nearest neighbours as Ferrari Dacrema et al. (2019) tune them: the items' user
    vectors optionally re-weighted (``weighting``: ``"none"``, ``"tfidf"`` or ``"bm25"``, implicit's
    weightings, applied as its ``TFIDFRecommender`` and ``BM25Recommender`` apply them), the cosine
    of two items shrunk toward 0 when they share few users (``<v_i, v_j> / (|v_i| |v_j| + shrink)``),
    and the ``k`` most similar kept per item; a user's score for an item is the sum of its
    similarities to the user's items.  With ``shrink=0`` and no weighting it is implicit's
    ``CosineRecommender`` (tested)."""

    name = "itemknn"

    def __init__(self, *args, k: int = 100, shrink: float = 0.0, weighting: str = "none", **kwargs):
        super().__init__(*args, k=k, shrink=shrink, weighting=weighting, **kwargs)

    def _learn(self, X) -> None:
        p = self.params
        self.W_ = itemknn_weights(X, p["k"], p["shrink"], p["weighting"])


WEIGHTINGS = ("none", "tfidf", "bm25")


def itemknn_weights(X, k: int, shrink: float = 0.0, weighting: str = "none"):
    """ItemKNN's item × item weights of the users × items matrix ``X`` (sparse, top ``k`` per row)."""
    import scipy.sparse as sp
    from implicit.nearest_neighbours import bm25_weight, tfidf_weight

    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}")
    V = sp.csr_matrix(X.T, dtype=np.float64)  # items × users
    if weighting != "none":
        V = sp.csr_matrix((tfidf_weight if weighting == "tfidf" else bm25_weight)(V))
    norms = np.sqrt(np.asarray(V.multiply(V).sum(axis=1)).ravel())
    S = (V @ V.T).tocoo()
    keep = S.row != S.col
    rows, cols = S.row[keep], S.col[keep]
    den = norms[rows] * norms[cols] + float(shrink)
    vals = np.divide(S.data[keep], den, out=np.zeros(len(rows)), where=den > 0)
    return _top_k_rows(sp.csr_matrix((vals, (rows, cols)), shape=S.shape), int(k))


class RP3beta(_ItemItem):
    """RP³β (Paudel et al. 2017; as in Ferrari Dacrema et al. 2019): the probability of the
    three-step walk item → user → item with every transition probability raised to ``alpha``,
    divided by the popularity of the destination item raised to ``beta``; the ``k`` largest
    weights kept per item.

    ``W[i, j] = (sum_u P(u | i)^α P(j | u)^α) / deg(j)^β``, ``P(u | i) = 1 / deg(i)``,
    ``P(j | u) = 1 / deg(u)`` over the 0/1 matrix.
    """

    name = "rp3beta"

    def _learn(self, X) -> None:
        self.W_ = rp3beta_weights(X, self.params["alpha"], self.params["beta"], self.params["k"])


def rp3beta_weights(X, alpha: float, beta: float, k: int):
    """The RP³β item × item weights of the 0/1 users × items matrix ``X`` (sparse, top ``k`` per row)."""
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    X.data[:] = 1.0
    user_deg = np.asarray(X.sum(axis=1)).ravel()
    item_deg = np.asarray(X.sum(axis=0)).ravel()
    P_ui = sp.diags(np.divide(1.0, user_deg, out=np.zeros_like(user_deg), where=user_deg > 0)) @ X
    P_iu = sp.diags(np.divide(1.0, item_deg, out=np.zeros_like(item_deg), where=item_deg > 0)) @ X.T.tocsr()
    P_ui.data **= alpha
    P_iu.data **= alpha
    W = (P_iu @ P_ui).tocsr()
    pop = np.power(item_deg, -beta, out=np.zeros_like(item_deg), where=item_deg > 0)
    W = (W @ sp.diags(pop)).tocsr()
    return _top_k_rows(W, k)


def _top_k_rows(W, k: int):
    """``W`` with the ``k`` largest entries of each row kept."""
    import scipy.sparse as sp

    W = W.tocsr()
    rows, cols, vals = [], [], []
    for i in range(W.shape[0]):
        s, e = W.indptr[i], W.indptr[i + 1]
        if e - s > k:
            keep = s + np.argpartition(-W.data[s:e], k - 1)[:k]
        else:
            keep = np.arange(s, e)
        rows.append(np.full(len(keep), i))
        cols.append(W.indices[keep])
        vals.append(W.data[keep])
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=W.shape)


class _Factors(_ItemMatrix):
    """Scores ``p_u · q_i`` from implicit's user and item factors."""

    def rank_block(self, users, catalogue) -> np.ndarray:
        rows = self.users_.get_indexer(np.asarray(users, dtype=object))
        known = rows >= 0
        out = np.full((len(rows), len(catalogue)), -np.inf)
        if known.any():
            S = np.asarray(self.user_factors_[rows[known]] @ self.item_factors_.T, dtype=np.float64)
            out[known] = self._on_catalogue(S, catalogue)
        return out


class IALS(_Factors):
    """Implicit ALS (Hu, Koren & Volinsky 2008), implicit's ``AlternatingLeastSquares``:
    confidence ``1 + alpha`` on observed pairs; a new user's factors are recalculated from their
    history with the item factors fixed."""

    name = "ials"

    def _learn(self, X) -> None:
        from implicit.cpu.als import AlternatingLeastSquares
        from threadpoolctl import threadpool_limits

        p = self.params
        with threadpool_limits(1, "blas"):  # implicit's own threads do the work; BLAS threads slow it down
            learning = {k: p[k] for k in ("factors", "regularization", "alpha", "iterations")}
            model = AlternatingLeastSquares(**learning, random_state=self.seed)
            model.fit(X.tocsr(), show_progress=False)
        self.model_ = model
        self.user_factors_, self.item_factors_ = model.user_factors, model.item_factors

    def _new_scores(self, X) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1, "blas"):
            U = self.model_.recalculate_user(np.arange(X.shape[0]), X.tocsr())
        return np.asarray(np.atleast_2d(U) @ self.item_factors_.T, dtype=np.float64)


class BPR(_Factors):
    """Bayesian personalised ranking (Rendle et al. 2009), implicit's
    ``BayesianPersonalizedRanking`` (one thread: its parallel SGD is not reproducible).  It has
    no fold-in step for a new user."""

    name = "bpr"
    folds_in = False

    def _learn(self, X) -> None:
        from implicit.cpu.bpr import BayesianPersonalizedRanking

        p = self.params
        learning = {k: p[k] for k in ("factors", "learning_rate", "regularization", "iterations")}
        model = BayesianPersonalizedRanking(**learning, random_state=self.seed, num_threads=1)
        model.fit(X.tocsr(), show_progress=False)
        self.user_factors_, self.item_factors_ = model.user_factors, model.item_factors

    def fold_in_block(self, histories: list, catalogue) -> np.ndarray:
        raise NotImplementedError("bpr cannot take a new user without refitting")


ANCHORS = {cls.name: cls for cls in (EASE, ItemKNN, RP3beta, IALS, BPR)}
