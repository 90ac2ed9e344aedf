"""Who a score or a list is for: a user of the training ratings (an id) or a person given by a
history of ratings (a mapping item → rating, a frame with ``item`` and ``rating`` columns, or
``(item, rating)`` pairs) — for a model of implicit feedback, of interactions (a list of ids, an
item listed twice two interactions; or any of those, their values counts: a mapping item → count,
a frame with ``item`` and ``count`` columns, ``(item, count)`` pairs) — read as the model reads a
person (:mod:`recsys.model.fold_in`; an implicit model weighs the counts by its ``confidence``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import NotFittedError, ParameterError, UnknownIdError
from .feedback import COUNT_COLUMNS, INTERACTION, confidence_of
from .settings import RECOMMENDER_PARAMS


def is_history(who) -> bool:
    """Whether ``who`` is a history of ratings rather than a user id."""
    return isinstance(who, Mapping) or hasattr(who, "columns") or isinstance(who, (list, tuple))


def known_index(model, kind: str, raw) -> int:
    """The index of a ``kind`` (``user`` or ``item``) the model knows; :class:`~recsys.errors.UnknownIdError`
    otherwise."""
    if not hasattr(model, "fitted_"):
        raise NotFittedError("this ProfileRecommender is not fitted yet; call fit first")
    fp = model.fitted_.profiles
    i = int((fp.user_index if kind == "user" else fp.item_index)([raw])[0])
    if i < 0:
        raise UnknownIdError(f"unknown {kind} {raw}: not in the model's training data")
    return i


def rated_of(fp, u: int):
    """User index ``u``'s training ratings as a list reads them (:class:`~recsys.model.fold_in.Rated`)."""
    from .fold_in import Rated

    return Rated.of(fp, fp.ratings.row(u), fp.ratings.row_values(u))


def person_of(model, idx: np.ndarray, values: np.ndarray):
    """The :class:`~recsys.model.fold_in.NewUser` of ratings ``values`` of the item indices ``idx``
    (an item rated twice: its first rating)."""
    from .fold_in import NewUser

    first = np.unique(idx, return_index=True)[1]
    densities = {
        side: float((p or RECOMMENDER_PARAMS).get("min_density", 1.0))
        for side, p in (("like", model.like_params), ("dislike", model.dislike_params))
    }
    return NewUser.of(model.profiles_, idx[first], values[first], int(model.n_neighbours), densities)


def user_person(model, u: int):
    """User index ``u`` folded in from their training ratings: what a list reads of a person, so that
    a user's list is the one their ratings give a new person."""
    fp = model.profiles_
    return person_of(model, fp.ratings.row(u), fp.ratings.row_values(u))


def known_ratings(model, ratings) -> tuple[np.ndarray, np.ndarray]:
    """The item indices and ratings of the history ``ratings`` the model knows (an error if none);
    for a model of implicit feedback, the items of the history and their confidence (1 each, or
    ``log2(1 + count)`` under ``confidence="log"``: :func:`history_counts`)."""
    if model.fitted_.implicit:
        raw_items, counts = history_counts(ratings)
        values = confidence_of(counts) if model.confidence == "log" else np.full(len(raw_items), INTERACTION)
    else:
        model.fitted_.check_scored()
        raw_items, values = item_ratings(ratings)
    idx = model.profiles_.item_index(raw_items)
    known = idx >= 0
    if not known.any():
        raise UnknownIdError("none of the rated items is in the model's training data")
    return idx[known], values[known]


def item_ratings(ratings) -> tuple[list, np.ndarray]:
    """``(items, ratings)`` from a mapping item → rating, a frame with ``item`` and ``rating``
    columns, or pairs."""
    if hasattr(ratings, "columns"):
        if not {"item", "rating"} <= set(ratings.columns):
            raise ParameterError("a person's ratings need columns item and rating")
        items, values = ratings["item"].tolist(), ratings["rating"].to_numpy(dtype=np.float64)
    else:
        pairs = list(ratings.items()) if hasattr(ratings, "items") else list(ratings)
        items, values = [p[0] for p in pairs], np.array([float(p[1]) for p in pairs])
    if not len(items):
        raise ParameterError("a person's ratings are empty: give at least one (item, rating)")
    if not np.isfinite(values).all():
        raise ParameterError("a person's ratings must be finite numbers")
    return items, values


def history_counts(history) -> tuple[list, np.ndarray]:
    """The distinct items of a history of interactions and each one's count: a list of item ids
    (each occurrence one), a mapping item → count, a frame with an ``item`` column and perhaps a
    ``count`` (or ``weight``) column, or ``(item, count)`` pairs; an item given twice adds up."""
    import pandas as pd

    if hasattr(history, "columns"):
        if "item" not in history.columns:
            raise ParameterError("a person's interactions need an item column")
        column = next((c for c in COUNT_COLUMNS if c in history.columns), None)
        items = history["item"].tolist()
        counts = history[column].tolist() if column else [1.0] * len(items)
    elif isinstance(history, Mapping):
        items, counts = list(history), list(history.values())
    else:
        pairs = [x if isinstance(x, (tuple, list)) else (x, 1.0) for x in history]
        items, counts = [p[0] for p in pairs], [p[1] for p in pairs]
    if not items:
        raise ParameterError("a person's history is empty: give at least one item")
    try:
        counts = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("a person's interaction counts must be positive numbers") from None
    if not (np.isfinite(counts) & (counts > 0)).all():
        raise ParameterError("a person's interaction counts must be positive numbers")
    summed = pd.Series(counts).groupby(pd.Index(items, dtype=object), sort=False).sum()
    return summed.index.tolist(), summed.to_numpy(dtype=np.float64)
