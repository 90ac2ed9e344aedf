"""Baselines on identical splits, each predicting *like* iff its predicted rating / class is above
the threshold (2 by default): regularised SVD (``surprise.SVD``), a per-user Bernoulli Naive
Bayes over movie attributes, and the majority class ("always like")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp


@dataclass
class SVDFactors:
    """The learned state of a ``surprise.SVD`` model, enough to predict without pickling it."""

    global_mean: float
    users: np.ndarray
    items: np.ndarray
    bu: np.ndarray
    bi: np.ndarray
    pu: np.ndarray
    qi: np.ndarray
    rating_range: tuple[float, float]

    def predict(self, users, items) -> tuple[np.ndarray, np.ndarray]:
        """Predicted ratings, and whether both user and item were known (else the global mean)."""
        u = pd.Index(self.users).get_indexer(np.asarray(users))
        i = pd.Index(self.items).get_indexer(np.asarray(items))
        est = np.full(len(u), self.global_mean)
        ku, ki = u >= 0, i >= 0
        est[ku] += self.bu[u[ku]]
        est[ki] += self.bi[i[ki]]
        both = ku & ki
        est[both] += np.einsum("ij,ij->i", self.pu[u[both]], self.qi[i[both]])
        return np.clip(est, *self.rating_range), both

    def arrays(self) -> dict:
        return {
            "svd_users": self.users,
            "svd_items": self.items,
            "svd_bu": self.bu,
            "svd_bi": self.bi,
            "svd_pu": self.pu,
            "svd_qi": self.qi,
            "svd_meta": np.array([self.global_mean, *self.rating_range]),
        }

    @classmethod
    def from_arrays(cls, a) -> SVDFactors:
        meta = a["svd_meta"]
        return cls(
            float(meta[0]),
            a["svd_users"],
            a["svd_items"],
            a["svd_bu"],
            a["svd_bi"],
            a["svd_pu"],
            a["svd_qi"],
            (float(meta[1]), float(meta[2])),
        )


def fit_svd(ratings: pd.DataFrame, random_state: int = 0, **params) -> SVDFactors:
    """Regularised SVD (Funk) with ``surprise.SVD`` (its defaults unless given)."""
    from surprise import SVD, Dataset, Reader

    lo, hi = float(ratings["rating"].min()), float(ratings["rating"].max())
    data = Dataset.load_from_df(ratings[["user", "item", "rating"]], Reader(rating_scale=(lo, hi)))
    trainset = data.build_full_trainset()
    algo = SVD(random_state=random_state, **params)
    algo.fit(trainset)
    users = np.array([trainset.to_raw_uid(k) for k in range(trainset.n_users)])
    items = np.array([trainset.to_raw_iid(k) for k in range(trainset.n_items)])
    return SVDFactors(
        float(trainset.global_mean),
        users,
        items,
        algo.bu.copy(),
        algo.bi.copy(),
        algo.pu.copy(),
        algo.qi.copy(),
        (lo, hi),
    )


class NaiveBayes:
    """Per-user Bernoulli Naive Bayes over movie attributes.

    For each user, two classes (like: rating > threshold, dislike) with Laplace-smoothed priors
    ``P(c) = (n_c + 1) / (n + 2)``; the features are the binary attributes of the rated movie
    (genre, director, …, and the movie itself), restricted to the attributes that occur in the
    user's training movies; ``P(a | c) = (n_{c,a} + 1) / (n_c + 2)``.  A test movie is scored with
    the full Bernoulli likelihood (present *and* absent attributes).  The score is
    ``P(like | movie)``; like iff it is at least 0.5.  The paper does not say which Naive Bayes it
    used.
    """

    def fit(self, ratings: pd.DataFrame, item_attrs: sp.csr_matrix, item_index: pd.Index, threshold: float = 2.0):
        u_codes, users = pd.factorize(ratings["user"])
        i = item_index.get_indexer(ratings["item"])
        ok = i >= 0
        like = ratings["rating"].to_numpy() > threshold
        n_u = len(users)
        R_like = sp.csr_matrix(
            (np.ones((ok & like).sum()), (u_codes[ok & like], i[ok & like])), shape=(n_u, len(item_index))
        )
        R_dis = sp.csr_matrix(
            (np.ones((ok & ~like).sum()), (u_codes[ok & ~like], i[ok & ~like])), shape=(n_u, len(item_index))
        )
        self.users_ = pd.Index(users)
        self.n_like_ = np.asarray(R_like.sum(axis=1)).ravel()
        self.n_dis_ = np.asarray(R_dis.sum(axis=1)).ravel()
        c_like = (R_like @ item_attrs).tocsr()  # users × attrs counts
        c_dis = (R_dis @ item_attrs).tocsr()
        seen = ((c_like + c_dis) > 0).astype(np.float64).tocsr()
        # log P(a|c) and log(1 - P(a|c)) on the user's seen attributes
        self.seen_ = seen
        self.logp_like_ = self._log_probs(c_like, seen, self.n_like_)
        self.logp_dis_ = self._log_probs(c_dis, seen, self.n_dis_)
        self.item_attrs_ = item_attrs
        self.item_index_ = item_index
        return self

    @staticmethod
    def _log_probs(counts, seen, n_c):
        # on seen entries: p = (count + 1) / (n_c + 2)
        seen = seen.tocoo()
        cnt = np.asarray(counts.tocsr()[seen.row, seen.col]).ravel()
        p = (cnt + 1.0) / (n_c[seen.row] + 2.0)
        lp = sp.csr_matrix((np.log(p), (seen.row, seen.col)), shape=seen.shape)
        l1p = sp.csr_matrix((np.log1p(-p), (seen.row, seen.col)), shape=seen.shape)
        return lp, l1p

    def predict_proba(self, users, items) -> tuple[np.ndarray, np.ndarray]:
        """``P(like)`` per pair, and whether the user was known (else NaN)."""
        from .profiles import rowwise_dot

        u = self.users_.get_indexer(np.asarray(users))
        i = self.item_index_.get_indexer(np.asarray(items))
        known = (u >= 0) & (i >= 0)
        out = np.full(len(u), np.nan)
        uk, ik = u[known], i[known]
        A = self.item_attrs_
        scores = []
        sides = ((self.logp_like_, self.n_like_, self.n_dis_), (self.logp_dis_, self.n_dis_, self.n_like_))
        for (lp, l1p), n_c, n_o in sides:
            prior = np.log((n_c[uk] + 1.0) / (n_c[uk] + n_o[uk] + 2.0))
            absent_all = np.asarray(l1p.sum(axis=1)).ravel()[uk]
            present = rowwise_dot(lp - l1p, A, uk, ik)
            scores.append(prior + absent_all + present)
        d = np.clip(scores[1] - scores[0], -50, 50)
        out[known] = 1.0 / (1.0 + np.exp(d))
        return out, known
