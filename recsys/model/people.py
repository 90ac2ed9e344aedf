"""Who a score or a list is for: a user of the training ratings (an id) or a person given by a
history of ratings (a mapping item → rating, a frame with ``item`` and ``rating`` columns, or
``(item, rating)`` pairs) — for a model of implicit feedback, of items (a list of ids, or any of
those, whose values are not read) — read as the model reads a person (:mod:`recsys.model.fold_in`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import NotFittedError, ParameterError, UnknownIdError
from .feedback import INTERACTION
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
    for a model of implicit feedback, the items of the history, each one interaction."""
    if model.fitted_.implicit:
        raw_items = interacted_items(ratings)
        values = np.full(len(raw_items), INTERACTION)
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


def interacted_items(history) -> list:
    """The items of a history of interactions: a list of item ids, a mapping item → count (or
    rating: not read), a frame with an ``item`` column, or ``(item, value)`` pairs."""
    if hasattr(history, "columns"):
        if "item" not in history.columns:
            raise ParameterError("a person's interactions need an item column")
        items = history["item"].tolist()
    elif isinstance(history, Mapping):
        items = list(history)
    else:
        items = [x[0] if isinstance(x, (tuple, list)) else x for x in history]
    if not items:
        raise ParameterError("a person's history is empty: give at least one item")
    return items
