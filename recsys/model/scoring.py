"""Like or dislike: the scored mode's like-probability and the paper's rule, for pairs of known ids
or for a person folded in from their ratings.

Each function takes the :class:`~recsys.model.ProfileRecommender` (its parameters ``n_votes`` and
``shrinkage``) and reads its fitted state (:class:`~recsys.model.state.Fitted`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..files import plain
from .settings import DISLIKE, LIKE, MODES, NEW_ITEM, NONE, RELEVANCE
from .terms import compute_terms, paper_scores


@dataclass
class Predictions:
    """Predictions for pairs, one entry per pair in the order asked.

    ``score`` is the like-probability (``mode="scored"``) or the Jaccard difference
    ``J(like profile) - J(dislike profile)`` (``mode="paper"``), NaN where not covered;
    ``prediction`` is ``like``, ``dislike`` or ``none``.  A model of implicit feedback has no
    like-probability: its ``score`` is the relevance a list ranks by (:func:`relevance_pairs`) and
    its ``prediction`` is ``relevance``; ``reason`` says why a pair is not covered
    (``unknown user``, ``unknown item``, ``no rating of the item``, ``no profile match``) or, for a
    covered pair, that the item is new (``new item: from its attributes alone``: no training
    rating, scored from its attributes, :mod:`recsys.model.attributes`).
    """

    user: np.ndarray
    item: np.ndarray
    score: np.ndarray
    prediction: np.ndarray
    covered: np.ndarray
    reason: np.ndarray

    def __len__(self) -> int:
        return len(self.user)

    def records(self) -> list[dict]:
        out = []
        for t in range(len(self)):
            s = float(self.score[t])
            out.append(
                {
                    "user": plain(self.user[t]),
                    "item": plain(self.item[t]),
                    "score": None if np.isnan(s) else s,
                    "prediction": str(self.prediction[t]),
                    "covered": bool(self.covered[t]),
                    "reason": str(self.reason[t]),
                }
            )
        return out


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ParameterError(f"mode must be 'scored' or 'paper', got {mode!r}")


def predict_pairs(model, users, items, mode: str = "scored", threshold: float | None = None) -> Predictions:
    """:meth:`~recsys.model.ProfileRecommender.predict_many` (see there)."""
    state = model.fitted_
    check_mode(mode)
    if state.implicit and mode == "paper":
        raise ParameterError("the paper's rule needs likes and dislikes; this model learnt from implicit feedback")
    if mode == "scored" and not state.implicit:
        state.check_scored()
    fp = state.profiles
    users = np.asarray(users, dtype=object) if not isinstance(users, np.ndarray) else users
    items = np.asarray(items, dtype=object) if not isinstance(items, np.ndarray) else items
    if users.shape != items.shape:
        raise ParameterError(f"users and items must have the same length, got {len(users)} and {len(items)}")
    n = len(users)
    u, i = fp.user_index(users), fp.item_index(items)
    ok = (u >= 0) & (i >= 0)
    reason = np.full(n, "", dtype=object)
    reason[i < 0] = "unknown item"
    reason[u < 0] = "unknown user"
    out = Predictions(users, items, np.full(n, np.nan), np.full(n, NONE, dtype=object), np.zeros(n, dtype=bool), reason)
    if mode == "paper":
        _paper_pairs(fp, u, i, np.flatnonzero(ok), out)
    elif state.implicit:
        rated = np.zeros(n, dtype=bool)
        rated[ok] = state.scoreable[i[ok]]
        reason[ok & ~rated] = "no interaction with the item"
        idx = np.flatnonzero(rated)
        out.score[idx] = relevance_pairs(model, u[idx], i[idx])
        out.prediction[idx] = RELEVANCE
        out.covered[idx] = True
    else:
        rated = np.zeros(n, dtype=bool)
        rated[ok] = state.scoreable[i[ok]]
        reason[ok & ~rated] = "no rating of the item"
        idx = np.flatnonzero(rated)
        p, cut = probabilities(
            state,
            i[idx],
            lambda pos, names: compute_terms(fp, u[idx][pos], i[idx][pos], names, model.n_votes, model.shrinkage),
        )
        if threshold is not None:
            cut[:] = float(threshold)
        out.score[idx] = p
        out.prediction[idx] = np.where(p >= cut, LIKE, DISLIKE)
        out.covered[idx] = True
        reason[idx[~fp.item_rated[i[idx]]]] = NEW_ITEM
    out.prediction, out.reason = out.prediction.astype(str), reason.astype(str)
    return out


def relevance_pairs(model, u: np.ndarray, i: np.ndarray) -> np.ndarray:
    """The relevance of items ``i`` to users ``u`` (indices) for a model of implicit feedback: the
    item model's score from the user's interactions plus the lists' popularity part — the list score
    of a candidate (:mod:`recsys.model.list_blend`), for any item, chosen or not."""
    from .batch import People, lister_of

    out = np.zeros(len(u))
    users, which = np.unique(u, return_inverse=True)
    ls = lister_of(model)
    blend = model.fitted_.list_blend
    for lo, hi, scored in ls.blocks(People.of_users(model.profiles_.ratings, users), n_candidates=0):
        mine = np.flatnonzero((which >= lo) & (which < hi))
        out[mine] = scored.key[which[mine] - lo, i[mine]] + blend.popularity * ls.popularity[i[mine]]
    return out


def _paper_pairs(fp, u: np.ndarray, i: np.ndarray, idx: np.ndarray, out: Predictions) -> None:
    """The paper's rule on the known pairs ``idx``, written into ``out``."""
    jl, jd = paper_scores(fp, u[idx], i[idx])
    cov = (jl + jd) > 0
    out.score[idx[cov]] = (jl - jd)[cov]
    out.prediction[idx[cov]] = np.where(jl >= jd, LIKE, DISLIKE)[cov]  # ties go to like, the majority
    out.covered[idx[cov]] = True
    out.reason[idx[~cov]] = "no profile match"


def probabilities(state, items: np.ndarray, terms_of) -> tuple[np.ndarray, np.ndarray]:
    """Like-probabilities and cut-offs of ``items`` (indices), each under its weights
    (:meth:`~recsys.model.state.Fitted.weights_for`); ``terms_of(positions, names)`` gives the terms
    of those items."""
    p, cut = np.zeros(len(items)), np.zeros(len(items))
    for pos, w in state.weights_for(items):
        p[pos], cut[pos] = w.probability(terms_of(pos, w.names)), w.threshold
    return p, cut


def user_probability(model, u: int, items: np.ndarray) -> np.ndarray:
    """Like-probabilities of ``items`` (indices) for the user of index ``u``."""
    fp, k, shrink = model.profiles_, model.n_votes, model.shrinkage
    return probabilities(
        model.fitted_, items, lambda pos, names: compute_terms(fp, np.full(len(pos), u), items[pos], names, k, shrink)
    )[0]


def person_probability(model, person, items: np.ndarray) -> np.ndarray:
    """Like-probabilities of ``items`` (indices) for a person folded in
    (:class:`~recsys.model.fold_in.NewUser`)."""
    from .fold_in import new_user_terms

    fp, k, shrink = model.profiles_, model.n_votes, model.shrinkage
    return probabilities(
        model.fitted_, items, lambda pos, names: new_user_terms(fp, person, items[pos], names, k, shrink)
    )[0]


def scored_terms(model, u: np.ndarray, i: np.ndarray) -> dict[str, np.ndarray]:
    """The scored mode's terms for known user and item indices."""
    model.fitted_.check_scored()
    return compute_terms(model.profiles_, u, i, model.weights_.names, model.n_votes, model.shrinkage)
