"""The evidence a profile recommender weighs for a (user, item) pair, and how it is combined.

Every term is a number per pair; a logistic regression turns a weighted sum of them into the
like-probability.  Terms come in groups, the unit of the ablations:

``like_shares``
    the user's and the item's smoothed share of likes (no co-clusters);
``baseline``
    the rating baseline ``mean + user bias + item bias`` (no co-clusters);
``like_coclusters``
    votes of the users who share the user's like co-clusters, and of the items that share like
    co-clusters with the item: their rating residuals (rating minus baseline), see
    :mod:`recsys.model.neighbours`;
``dislike_coclusters``
    the same through the dislike co-clusters;
``attributes``
    what the item is: how the user rated its attributes, and what its attributes say of any item
    (:mod:`recsys.model.attributes`, the paper's user–attribute relations as numbers); the only
    item-side evidence of an item nobody rated;
``item_model``
    the item model's score of the item from the items the user liked
    (:mod:`recsys.model.item_model`): weights learnt on the pairs the like co-clusters hold.

The paper's rule (``mode="paper"``) uses none of these: the larger of the Jaccard similarities
of the item's attributes with the user's like and dislike profiles wins (:func:`paper_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RatingsError
from .csr import Csr
from .list_blend import logit
from .neighbours import votes
from .profiles import FittedProfiles


@dataclass(frozen=True)
class Term:
    name: str
    group: str
    text: str


TERMS = (
    Term("user_like_share", "like_shares", "your share of likes"),
    Term("item_like_share", "like_shares", "this movie's share of likes"),
    Term("baseline", "baseline", "rating baseline: average + your bias + this movie's bias"),
    Term("like_users", "like_coclusters", "users who share your like co-clusters"),
    Term("like_items", "like_coclusters", "movies in like co-clusters with this one"),
    Term("dislike_users", "dislike_coclusters", "users who share your dislike co-clusters"),
    Term("dislike_items", "dislike_coclusters", "movies in dislike co-clusters with this one"),
    Term("user_attributes", "attributes", "how you rated this movie's attributes"),
    Term("attribute_items", "attributes", "how movies with these attributes are rated"),
    Term("item_model", "item_model", "the movies you liked, through the co-cluster item model"),
    Term("item_residuals", "item_residuals", "your ratings above or below expectation, through the item model"),
)
TERM = {t.name: t for t in TERMS}
GROUPS = (
    "like_shares",
    "baseline",
    "like_coclusters",
    "dislike_coclusters",
    "attributes",
    "item_model",
    "item_residuals",
)
ATTRIBUTE_TERMS = ("user_attributes", "attribute_items")
# the terms that say something of an item nobody rated: a new item's score weighs these alone
NEW_ITEM_TERMS = ("user_like_share", "baseline", *ATTRIBUTE_TERMS)
# term name -> (co-cluster side, neighbours of the user or of the item)
VOTE_TERMS = {
    "like_users": ("like", "users"),
    "like_items": ("like", "items"),
    "dislike_users": ("dislike", "users"),
    "dislike_items": ("dislike", "items"),
}


def terms_of(groups) -> list[str]:
    """The term names of the given groups, in :data:`TERMS` order."""
    groups = set(groups)
    return [t.name for t in TERMS if t.group in groups]


def like_share(likes, dislikes, prior: float) -> np.ndarray:
    """Log-odds of ``(likes + 2 prior) / (likes + dislikes + 2)``: a share of likes shrunk to the prior."""
    return logit((likes + 2 * prior) / (likes + dislikes + 2))


def vote(fp: FittedProfiles, name: str, u: np.ndarray, i: np.ndarray, k: int, shrinkage: float, detail=False):
    """The neighbour vote ``name`` (see :data:`VOTE_TERMS`) on pairs ``(u, i)``."""
    side, who = VOTE_TERMS[name]
    nb = fp.neighbours[f"{side}_{who}"]
    if who == "users":
        return votes(nb, u, i, fp.residuals, True, k, shrinkage, detail)
    return votes(nb, i, u, fp.residuals, False, k, shrinkage, detail)


def compute_terms(fp: FittedProfiles, u, i, names, k: int, shrinkage: float, done=None) -> dict[str, np.ndarray]:
    """The terms ``names`` for known users ``u`` and items ``i`` (index arrays); ``done(share)``
    is told as the terms complete."""
    tell = done or (lambda share: None)
    tell(0.0)
    u = np.asarray(u, dtype=np.int64)
    i = np.asarray(i, dtype=np.int64)
    out = {}
    p = fp.like_rate
    for name in names:  # each vote runs on every core (recsys.model._pair_kernels)
        if name == "user_like_share":
            likes, dislikes = fp.user_counts
            out[name] = like_share(likes[u], dislikes[u], p)
        elif name == "item_like_share":
            likes, dislikes = fp.item_counts
            out[name] = like_share(likes[i], dislikes[i], p)
        elif name == "baseline":
            out[name] = fp.global_mean + fp.user_bias[u] + fp.item_bias[i]
        elif name in VOTE_TERMS:
            out[name] = vote(fp, name, u, i, k, shrinkage).value
        elif name in ATTRIBUTE_TERMS:
            values = fp.attribute_evidence.terms(fp.item_attributes, u, i)
            out.update((n, v) for n, v in zip(ATTRIBUTE_TERMS, values, strict=True) if n in names)
        elif name == "item_model":
            out[name] = item_model_term(fp, u, i)
        elif name == "item_residuals":
            out[name] = item_model_term(fp, u, i, residuals=True)
        else:
            raise ValueError(f"unknown evidence term {name!r}")  # a bug: names come from TERMS
        tell(len(out) / len(names))
    return out


def new_item_terms(fp: FittedProfiles, u, i, names) -> dict[str, np.ndarray]:
    """The terms ``names`` (of :data:`NEW_ITEM_TERMS`) of the pairs ``(u, i)`` as if nobody had
    rated the items: the baseline without the item's bias, ``attribute_items`` without the item
    in its attributes' means; the user's side as it is.  On the held-out ratings of rated items
    these are what the weights for new items learn from."""
    u = np.asarray(u, dtype=np.int64)
    i = np.asarray(i, dtype=np.int64)
    out = {}
    if "user_like_share" in names:
        likes, dislikes = fp.user_counts
        out["user_like_share"] = like_share(likes[u], dislikes[u], fp.like_rate)
    if "baseline" in names:
        out["baseline"] = fp.global_mean + fp.user_bias[u]
    if set(ATTRIBUTE_TERMS) & set(names):
        own = np.where(fp.item_rated[i], fp.item_bias[i], np.nan)
        values = fp.attribute_evidence.terms(fp.item_attributes, u, i, leave_out=own)
        out.update((n, v) for n, v in zip(ATTRIBUTE_TERMS, values, strict=True) if n in names)
    return out


def item_model_term(fp: FittedProfiles, u: np.ndarray, i: np.ndarray, residuals: bool = False) -> np.ndarray:
    """The item model's score of item ``i[t]`` for user ``u[t]``: the sum of the weights from the
    items the user liked in training (:mod:`recsys.model.item_model`); with ``residuals``, the
    residual model's prediction of the user's residual on the item (compiled per pair, the floats
    of :func:`~recsys.model.item_model.scores` at those items)."""
    from ._pair_kernels import sums_of_pairs

    W = fp.residual_weights if residuals else fp.item_weights
    sources = fp.residuals if residuals else fp.liked
    return sums_of_pairs(W, sources, np.asarray(u, dtype=np.int64), np.asarray(i, dtype=np.int64))


# A weight looked up costs about as much as eight entries of the compiled row sum (8.5 ns against
# 1.0 ns, ML-100K): fewer look-ups than that are cheaper than the items' whole row.
_LOOKUP_COST = 8


def scores_of(W: Csr, src: np.ndarray, items: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
    """The item model's scores of ``items`` from the source items ``src`` (each row of ``W`` times
    its ``values``, or once): :func:`~recsys.model.item_model.scores` at ``items``, the same floats."""
    from .item_model import scores, weighted_scores

    if 0 < len(items) * len(src) * _LOOKUP_COST < W.lengths[src].sum():  # a few items asked: their weights only
        pos = W.positions((src[:, None] * np.int64(W.shape[1]) + items[None, :]).ravel())
        w = np.where(pos >= 0, W.values[pos], 0.0).reshape(len(src), len(items))
        # added one source after another, as the full row's bincount does
        return np.cumsum(w if values is None else w * values[:, None], axis=0)[-1]
    row = scores(W, src) if values is None else weighted_scores(W, src, values)
    return row[items]


def paper_scores(fp: FittedProfiles, u, i) -> tuple[np.ndarray, np.ndarray]:
    """Jaccard similarity of each item's attribute set (its attributes and itself) with the user's
    like profile and with the dislike profile (the paper's rule)."""
    u = np.asarray(u, dtype=np.int64)
    i = np.asarray(i, dtype=np.int64)
    with_item = fp.features != "attributes"  # the relation holds movie:<id> features
    item_attr_count = fp.item_attributes.lengths[i] + (1 if with_item else 0)
    out = []
    for side in ("like", "dislike"):
        items_p, attrs_p = fp.paper_profiles[side]
        has_item, _ = items_p.lookup(u, i)
        which, pos = fp.item_attributes.rows_entries(i)
        found, _ = attrs_p.lookup(u[which], fp.item_attributes.idx[pos])
        inter = has_item.astype(np.float64) + np.bincount(which[found], minlength=len(i))
        union = items_p.lengths[u] + attrs_p.lengths[u] + item_attr_count - inter
        out.append(np.divide(inter, union, out=np.zeros(len(i)), where=union > 0))
    return out[0], out[1]


@dataclass(frozen=True)
class Weights:
    """A logistic combination of terms: ``logit = intercept + sum coef[t] * term[t]``.

    ``means`` are the terms' means on the data the weights were fitted on: an explanation shows
    each term as its deviation from that mean, ``coef[t] * (term[t] - means[t])``.
    ``threshold`` is the like-probability cut-off with the best balanced accuracy there.
    """

    coef: dict
    intercept: float
    means: dict
    threshold: float

    @property
    def names(self) -> list[str]:
        return list(self.coef)

    def logit(self, terms: dict[str, np.ndarray]) -> np.ndarray:
        z = np.full(len(next(iter(terms.values()))) if terms else 0, self.intercept)
        for name, w in self.coef.items():
            z = z + w * terms[name]
        return z

    def probability(self, terms: dict[str, np.ndarray]) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logit(terms)))

    def to_dict(self) -> dict:
        return {"coef": self.coef, "intercept": self.intercept, "means": self.means, "threshold": self.threshold}

    @classmethod
    def from_dict(cls, d: dict) -> Weights:
        return cls(
            {str(k): float(v) for k, v in d["coef"].items()},
            float(d["intercept"]),
            {str(k): float(v) for k, v in d["means"].items()},
            float(d["threshold"]),
        )


def fit_weights(terms: dict[str, np.ndarray], y: np.ndarray, names) -> Weights:
    """Logistic weights of the terms ``names`` for the labels ``y`` (True = like)."""
    from .logistic import best_balanced_threshold, fit_logistic

    names = list(names)
    y = np.asarray(y, dtype=bool)
    if len(y) == 0:
        raise RatingsError(
            "no held-out rating of a known user and item to fit the evidence weights on: the training ratings are "
            "too few (give more ratings, or a larger validation_fraction)"
        )
    if not names:
        p = float(y.mean())
        return Weights({}, float(logit(p)), {}, 0.5)
    X = np.column_stack([terms[n] for n in names])
    coef, intercept = fit_logistic(X, y)
    w = Weights(
        dict(zip(names, map(float, coef), strict=True)),
        float(intercept),
        dict(zip(names, map(float, X.mean(axis=0)), strict=True)),
        0.5,
    )
    threshold = best_balanced_threshold(w.probability(terms), y)
    return Weights(w.coef, w.intercept, w.means, float(threshold))
