"""Like/dislike profiles from co-clusters, and the evidence they give for a (user, movie) pair.

Vocabulary: a *base attribute* is a feature without its polarity — ``genre:Drama`` for
``genre:Drama:Y`` / ``genre:Drama:N``, ``movie:50`` for ``movie:50:Y``.  A movie's attribute
set is its attributes plus ``movie:<id>`` itself (co-clusters hold movies as features too).

For user ``u`` (paper, § recommender): the like profile is the union of the features of the like
co-clusters ``u`` belongs to, the dislike profile the same from the dislike co-clusters, and
their intersection is removed from both.  ``support[u, a]`` counts the co-clusters behind
each profile attribute; it is kept for the scored mode and for explanations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp


def base_attributes(features: np.ndarray) -> np.ndarray:
    """Strip the ``:Y`` / ``:N`` polarity from feature names."""
    f = pd.Series(features, dtype=str)
    return f.str.replace(r":[YN]$", "", regex=True).to_numpy(dtype=object)


def membership(coclusters, n_rows: int) -> sp.csr_matrix:
    """Rows × co-clusters 0/1 matrix."""
    k = len(coclusters)
    sizes = np.array([len(r) for r, _ in coclusters], dtype=np.int64)
    rows = np.concatenate([r for r, _ in coclusters]) if k else np.empty(0, dtype=np.int64)
    return sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, np.repeat(np.arange(k), sizes))), shape=(n_rows, k)
    )


def features_of(coclusters, col_map: np.ndarray, n_attrs: int) -> sp.csr_matrix:
    """Co-clusters × base attributes 0/1 matrix; ``col_map`` maps the co-clustered columns to base ids."""
    k = len(coclusters)
    sizes = np.array([len(c) for _, c in coclusters], dtype=np.int64)
    cols = np.concatenate([c for _, c in coclusters]) if k else np.empty(0, dtype=np.int64)
    m = sp.csr_matrix(
        (np.ones(len(cols), dtype=np.float32), (np.repeat(np.arange(k), sizes), col_map[cols])), shape=(k, n_attrs)
    )
    m.data[:] = 1
    return m


@dataclass
class Profiles:
    """Per user: co-cluster support of every base attribute, on the like and the dislike side.

    Attributes
    ----------
    like_support, dislike_support : csr_matrix (n_users, n_attrs), float32
        How many of the user's like (dislike) co-clusters hold the attribute.
    like_members, dislike_members : csr_matrix (n_users, n_coclusters)
        Which co-clusters the user belongs to.
    like_features, dislike_features : csr_matrix (n_coclusters, n_attrs)
        The base attributes of each co-cluster.
    """

    like_support: sp.csr_matrix
    dislike_support: sp.csr_matrix
    like_members: sp.csr_matrix
    dislike_members: sp.csr_matrix
    like_features: sp.csr_matrix
    dislike_features: sp.csr_matrix

    @classmethod
    def build(cls, like_cc, like_map, dislike_cc, dislike_map, n_users: int, n_attrs: int) -> Profiles:
        lm, dm = membership(like_cc, n_users), membership(dislike_cc, n_users)
        lf, df = features_of(like_cc, like_map, n_attrs), features_of(dislike_cc, dislike_map, n_attrs)
        return cls((lm @ lf).tocsr(), (dm @ df).tocsr(), lm, dm, lf, df)

    def paper_profiles(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Binary like and dislike profiles, each without the attributes of the other (the paper)."""
        like = (self.like_support > 0).astype(np.float32)
        dislike = (self.dislike_support > 0).astype(np.float32)
        both = like.multiply(dislike)
        return (like - both).tocsr(), (dislike - both).tocsr()


def rowwise_dot(P: sp.csr_matrix, Q: sp.csr_matrix, rows_p: np.ndarray, rows_q: np.ndarray) -> np.ndarray:
    """``(P[rows_p[i]] · Q[rows_q[i]])`` for every ``i``, sparse throughout."""
    if len(rows_p) == 0:
        return np.zeros(0)
    return np.asarray(P[rows_p].multiply(Q[rows_q]).sum(axis=1)).ravel()


def jaccard(profile: sp.csr_matrix, items: sp.csr_matrix, u: np.ndarray, i: np.ndarray) -> np.ndarray:
    """Jaccard index between the profile of user ``u[k]`` and the attribute set of item ``i[k]``."""
    inter = rowwise_dot(profile, items, u, i)
    size_p = np.asarray(profile.sum(axis=1)).ravel()[u]
    size_i = np.asarray(items.sum(axis=1)).ravel()[i]
    union = size_p + size_i - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)
