"""Top-N lists: every item's list score for a person, the best ``n`` with their reasons, and lists
in batch.

A list ranks by the co-cluster item model (:mod:`recsys.model.item_model`) plus the lists' blend of
popularity and like-probability (:mod:`recsys.model.list_blend`), computed for one person as for a
block of them (:mod:`recsys.model.batch`); the paper's mode ranks by ``J(like) - J(dislike)``.
Each function takes the :class:`~recsys.model.ProfileRecommender` and reads its fitted state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import NotFittedError, ParameterError
from .people import known_index, known_ratings, person_of, rated_of
from .scoring import check_mode, person_probability, user_probability
from .state import NO_ITEM_MODEL
from .terms import paper_scores


@dataclass
class ListScores:
    """Every item's list score (``score``, ``-inf``: not listed) and its parts: the item model's
    (``item``, every item: a new item's explanation reads the others), the popularity and like parts
    (0 off the candidates) and the like-probability behind the latter (NaN where not computed)."""

    score: np.ndarray
    item: np.ndarray
    popularity: np.ndarray
    like: np.ndarray
    probability: np.ndarray

    def top(self, n: int) -> np.ndarray:
        """The ``n`` best items (indices), ties by index."""
        cand = np.flatnonzero(np.isfinite(self.score))
        if n < len(cand):  # only the items scoring at least the n-th best (ties kept) need sorting
            cand = cand[self.score[cand] >= np.partition(self.score[cand], len(cand) - n)[len(cand) - n]]
        return cand[np.lexsort((cand, -self.score[cand]))][:n]


@dataclass
class Ranking:
    """Scores of candidate items: ``key`` ranks them (``-inf``: cannot be recommended)."""

    order: np.ndarray
    key: np.ndarray


def check_n(n) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n must be a positive integer, got {n!r}")


def candidates(blend, at_least: int) -> int:
    """How many candidates of each kind a list blends: none for plain lists, else the blend's (at
    least ``at_least``)."""
    return 0 if blend.plain else max(blend.candidates, int(at_least))


def lister(model):
    """The model's :class:`~recsys.model.batch.Lister` (:func:`recsys.model.batch.lister_of`)."""
    from .batch import lister_of

    return lister_of(model)


def user_list(model, user, n: int, mode: str, exclude_rated: bool) -> list[dict]:
    """The ``n`` best items for a known user with their reasons (``recommend`` for a user id)."""
    from .explanation import explain_paper_list

    check_mode(mode)
    fp = model.profiles_
    u = known_index(model, "user", user)
    rated = fp.ratings.row(u) if exclude_rated else np.zeros(0, dtype=np.int64)
    if mode == "paper":
        cand = np.setdiff1d(np.arange(fp.n_items), rated)
        return explain_paper_list(model, u, cand, rank_items(model, u, cand, mode), n)
    return item_list(model, rated_of(fp, u), rated, n, lambda items: user_probability(model, u, items))


def history_list(model, ratings, n: int, mode: str = "scored") -> list[dict]:
    """The ``n`` best items for a person given by a history of ratings (items the model does not
    know are ignored), with the same reasons; the items rated are never listed; nothing is refitted."""
    from .fold_in import Rated

    check_mode(mode)
    if mode != "scored":
        raise ParameterError("a person given by their ratings is listed in the scored mode only")

    idx, values = known_ratings(model, ratings)
    first = np.unique(idx, return_index=True)[1]
    rated = Rated.of(model.profiles_, idx[first], values[first])
    # the full fold-in (co-clusters, neighbours) only if a shown probability is not the list's own
    return item_list(
        model, rated, rated.items, n, lambda items: person_probability(model, person_of(model, idx, values), items)
    )


def list_key(model, person, rated: np.ndarray, at_least: int = 0) -> ListScores:
    """Every item's list score for ``person`` (a :class:`~recsys.model.fold_in.Rated` or
    :class:`~recsys.model.fold_in.NewUser`: its ``items`` and ``ratings`` are read), the items
    ``rated`` (indices) never listed: the item model's (:func:`list_scores`) plus, when the lists
    blend, each candidate's popularity and like parts (:mod:`recsys.model.list_blend`; at least
    ``at_least`` candidates of each kind; the other items ``-inf``).  The scores come from the
    likes: someone who liked nothing gets no items (not the first of a tie at 0).  Computed as every
    list is (:mod:`recsys.model.batch`)."""
    from .batch import People

    model.fitted_.check_listable()
    people = People.of([(person.items, person.ratings)])
    never = People.of([(np.asarray(rated, dtype=np.int64), np.zeros(len(rated)))])
    scored = lister(model).score(people, candidates(model.list_blend_, at_least), rated=never)
    return ListScores(*scored.parts(0))


def item_list(model, person, rated: np.ndarray, n: int, probability) -> list[dict]:
    """The ``n`` best items of :func:`list_key` with their reasons; ``probability(items)`` gives the
    like-probabilities shown when the lists do not blend them."""
    from .explanation import explain_item_list

    state = model.fitted_
    listed = list_key(model, person, rated, n)
    top = listed.top(n)
    p = listed.probability[top]
    todo = np.isnan(p) & state.scoreable[top]
    if todo.any() and state.scored:  # implicit feedback: no like-probability to show
        p[todo] = probability(top[todo])
    new = state.profiles.attribute_evidence if state.uses_attributes else None
    liked, weights = state.profiles.liked_sources(person.items, person.ratings)
    return explain_item_list(state.profiles, liked, top, listed, p, new_items=new, values=weights)


def batch_lists(model, users, n: int) -> list:
    """:meth:`~recsys.model.ProfileRecommender.lists` (see there)."""
    from .batch import People

    check_n(n)
    model.fitted_.check_listable()
    fp = model.profiles_
    index = fp.user_index(np.asarray(users) if isinstance(users, np.ndarray) else list(users))
    known = np.flatnonzero(index >= 0)
    out: list = [None] * len(index)
    people = People.of_users(fp.ratings, index[known])
    for lo, _, scored in lister(model).blocks(people, candidates(model.list_blend_, n)):
        items, scores, lengths = scored.tops(n)
        ids, values = fp.items[items].tolist(), scores.tolist()  # Python scalars, converted at once
        for t, m in enumerate(lengths.tolist()):
            out[known[lo + t]] = list(zip(ids[t][:m], values[t][:m]))
    return out


def list_score_rows(model, histories: list) -> np.ndarray:
    """Every item's list score (``-inf``: not listed) for each of ``histories`` — ``(item indices,
    ratings)`` of a person, or ``None`` for nobody the model can read (a row of ``-inf``) — a row
    each, computed in blocks (:mod:`recsys.model.batch`)."""
    from .batch import People

    model.fitted_.check_listable()
    out = np.full((len(histories), model.profiles_.n_items), -np.inf)
    known = [r for r, h in enumerate(histories) if h is not None]
    people = People.of([histories[r] for r in known])
    for lo, hi, scored in lister(model).blocks(people):
        for t in range(hi - lo):
            out[known[lo + t]] = scored.dense(t)
    return out


def list_scores(state, liked: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
    """Every item's list score for someone who liked ``liked`` (item indices; ``values``: their
    weights, an interaction's confidence, default 1): the item model's weighted sum of their rows
    and, when the score uses the attributes, each new item's score from its attributes
    (:meth:`recsys.model.attributes.AttributeEvidence.with_new_items`)."""
    from .item_model import scores, weighted_scores

    fp = state.profiles
    if fp.item_weights is None:
        raise NotFittedError(NO_ITEM_MODEL)
    key = scores(fp.item_weights, liked) if values is None else weighted_scores(fp.item_weights, liked, values)
    return fp.attribute_evidence.with_new_items(key) if state.uses_attributes else key


def rank_items(model, u: int, cand: np.ndarray, mode: str = "scored") -> Ranking:
    """Scores of the candidate items (indices) for user index ``u``, and their ranking: the list
    scores (scored mode, :func:`list_key`; the user's rated items ``-inf``) or ``J(like) -
    J(dislike)`` (paper mode, ``-inf`` where no profile matches)."""
    fp = model.profiles_
    if mode == "paper":
        jl, jd = paper_scores(fp, np.full(len(cand), u), cand)
        key = np.where((jl + jd) > 0, jl - jd, -np.inf)
    else:
        key = list_key(model, rated_of(fp, u), fp.ratings.row(u)).score[cand]
    order = np.lexsort((cand, -key))
    order = order[np.isfinite(key[order])]
    return Ranking(order=order, key=key)
