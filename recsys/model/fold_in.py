"""A person the model has never seen, folded in from their ratings without refitting.

Everything a score needs of a user is computed from the ratings given, against the fitted model
(whose item side does not change): the like and dislike counts, the user's bias (one step of the
baseline's alternating means, the movies' biases fixed), the rating residuals, the items liked
(the item model's input), and the user's co-clusters — a like (dislike) co-cluster takes the person
when they liked (disliked) at least ``min_density`` of its movies, the rule step 5 of HBLCoClust
uses to relax a co-cluster over the rows; where the training users were held to a budget of
co-clusters, the person keeps as many, the most selective — hence their co-cluster neighbours, with
the same similarity as the training users' (:mod:`recsys.model.neighbours`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coclust.params import DENSITY_TOLERANCE

from .csr import Csr
from .neighbours import Neighbours, person_votes, votes_on_person
from .profiles import CoClusters, FittedProfiles
from .settings import SIDES

REG_USER = 15.0  # the user-bias regularisation of recsys.model.ratings.rating_baseline


@dataclass(frozen=True, eq=False)
class Rated:
    """What a list reads of a person: the items rated (indices, sorted, each once), their ratings
    and the items liked.  Cheap, where :class:`NewUser` also joins co-clusters and finds neighbours
    (which the lists compute in their own batch path)."""

    items: np.ndarray
    ratings: np.ndarray
    liked: np.ndarray

    @classmethod
    def of(cls, fp: FittedProfiles, items: np.ndarray, ratings: np.ndarray) -> Rated:
        """``items`` (indices, distinct) rated ``ratings``."""
        order = np.argsort(items)
        items, ratings = np.asarray(items, dtype=np.int64)[order], np.asarray(ratings, dtype=np.float64)[order]
        return cls(items, ratings, items[ratings > fp.like_threshold])


@dataclass(frozen=True, eq=False)
class NewUser:
    """The user side of the scores, for one person outside the training data."""

    items: np.ndarray  # item indices rated, sorted
    ratings: np.ndarray
    bias: float
    residuals: Csr  # 1 × items
    liked: np.ndarray  # item indices liked
    counts: tuple[int, int]  # likes, dislikes
    coclusters: dict  # side -> co-cluster indices the person joins
    neighbours: dict  # side -> Neighbours of one row (training users)

    @classmethod
    def of(
        cls, fp: FittedProfiles, items: np.ndarray, ratings: np.ndarray, n_neighbours: int, densities: dict
    ) -> NewUser:
        """``items`` (indices into the model's items, distinct) rated ``ratings``."""
        order = np.argsort(items)
        items, ratings = np.asarray(items, dtype=np.int64)[order], np.asarray(ratings, dtype=np.float64)[order]
        bias = float((ratings - fp.global_mean - fp.item_bias[items]).sum() / (REG_USER + len(items)))
        resid = ratings - (fp.global_mean + bias + fp.item_bias[items])
        residuals = Csr(np.array([0, len(items)]), items, resid, (1, fp.n_items))
        like = ratings > fp.like_threshold
        chosen = {
            "like": _joined(fp.like, items[like], densities["like"], fp.user_budget),
            "dislike": _joined(fp.dislike, items[~like], densities["dislike"], fp.user_budget),
        }
        nbrs = {side: _neighbours(fp.coclusters(side), chosen[side], fp.n_users, n_neighbours) for side in SIDES}
        return cls(items, ratings, bias, residuals, items[like], (int(like.sum()), int((~like).sum())), chosen, nbrs)


def _joined(cc: CoClusters, mine: np.ndarray, density: float, budget: int = 0) -> np.ndarray:
    """The co-clusters with at least ``density`` of their items among ``mine`` (distinct indices);
    with a ``budget``, only that many of them, those with the fewest users (ties by index), as a
    training user keeps (:func:`recsys.model.learning.most_selective`)."""
    if not len(mine) or not len(cc):
        return np.zeros(0, dtype=np.int64)
    from ._person_kernels import items_held

    # counted from the person's items' co-clusters, not over every co-cluster's items: a person's
    # few ratings touch a small part of them
    held = items_held(cc.of_item.ptr, cc.of_item.idx, np.asarray(mine, dtype=np.int64), len(cc))
    sizes = cc.items.lengths
    joined = np.flatnonzero((sizes > 0) & (held >= density * sizes - DENSITY_TOLERANCE))
    if budget and len(joined) > budget:
        joined = np.sort(joined[np.lexsort((joined, cc.users.lengths[joined]))[:budget]])
    return joined


def _neighbours(cc: CoClusters, mine: np.ndarray, n_users: int, k: int) -> Neighbours:
    """The person's ``k`` most similar training users through the co-clusters ``mine`` of ``cc``:
    ``s(a, b) = sum_c w_c [a in c][b in c] / (n_a n_b)``, as between training users."""
    if not len(mine):
        return Neighbours(np.zeros(2, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0))
    members = cc.users
    w = cc.weights
    which, pos = members.rows_entries(mine)
    num = np.bincount(members.idx[pos], weights=w[mine][which], minlength=n_users)
    norms = cc.user_norms
    own = np.sqrt(w[mine].sum())
    sim = np.divide(num, own * norms, out=np.zeros(n_users), where=(norms > 0) & (num > 0))
    top = np.flatnonzero(sim > 0)
    top = top[np.lexsort((top, -sim[top]))][:k]
    return Neighbours(np.array([0, len(top)], dtype=np.int64), top.astype(np.int64), sim[top])


def new_user_terms(fp: FittedProfiles, person: NewUser, items: np.ndarray, names, k: int, shrinkage: float) -> dict:
    """The terms ``names`` (:mod:`recsys.model.terms`) of the person and each item of ``items``."""
    from .terms import ATTRIBUTE_TERMS, VOTE_TERMS, like_share, scores_of

    items = np.asarray(items, dtype=np.int64)
    zero = np.zeros(len(items), dtype=np.int64)
    out = {}
    for name in names:
        if name == "user_like_share":
            out[name] = np.full(len(items), like_share(person.counts[0], person.counts[1], fp.like_rate))
        elif name == "item_like_share":
            likes, dislikes = fp.item_counts
            out[name] = like_share(likes[items], dislikes[items], fp.like_rate)
        elif name == "baseline":
            out[name] = fp.global_mean + person.bias + fp.item_bias[items]
        elif name in VOTE_TERMS:
            side, who = VOTE_TERMS[name]
            if who == "users":  # the person's neighbours, who rated the item
                out[name] = person_votes(person.neighbours[side], items, fp.residuals, k, shrinkage).value
            else:  # the item's neighbours, that the person rated
                out[name] = votes_on_person(fp.neighbours[f"{side}_items"], items, person.residuals, k, shrinkage).value
        elif name in ATTRIBUTE_TERMS:
            if name in out:  # both attribute terms come from one pass
                continue
            evidence = fp.attribute_evidence.for_user(person.residuals, fp.item_attributes)
            values = evidence.terms(fp.item_attributes, zero, items)
            out.update((n, v) for n, v in zip(ATTRIBUTE_TERMS, values, strict=True) if n in names)
        elif name == "item_model":
            out[name] = scores_of(fp.item_weights, person.liked, items)
        elif name == "item_residuals":
            out[name] = scores_of(fp.residual_weights, person.residuals.idx, items, person.residuals.values)
        else:
            raise ValueError(f"unknown evidence term {name!r}")  # a bug: names come from TERMS
    return out
