"""``ProfileRecommender.fit``: the validation split, the score's weights, the lists' blend and the
profiles of all training ratings, built into one :class:`~recsys.model.state.Fitted`.

The co-clusters, neighbourhoods and item model are learnt by :func:`recsys.model.learning.fit_profiles`
from a :class:`~recsys.model.learning.Learning` made of the model's parameters (:func:`learning_of`);
the weights are a logistic regression on the terms of a held-out ``validation_fraction`` of the
training ratings, with the profiles learnt from the rest.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ..errors import RatingsError
from .csr import Csr
from .feedback import EXPLICIT, IMPLICIT, IMPLICIT_THRESHOLD, interactions_frame, resolve
from .learning import Learning, add_ratings, fit_profiles, refit_item_model
from .list_blend import ListBlend
from .progress import tell
from .ratings import as_ratings_frame, holdout_mask
from .settings import (
    COCLUSTERS_PER_USER,
    DENSE_INVERSE_FLOPS_PER_RATING,
    ITEM_L2_REFERENCE_LIKES,
    ITEM_PARTNERS,
    NEIGHBOUR_BUDGET,
    SCALED_OUT_TERMS,
    SPARSE_NEIGHBOURS_UP_TO,
    scaled_coclustering,
    scales,
)
from .state import Fitted
from .terms import ATTRIBUTE_TERMS, NEW_ITEM_TERMS, TERMS, Weights, compute_terms, fit_weights, new_item_terms

# what the scaling rules change in the learning (recsys.model.settings)
LARGE_DATA_RULES = dict(
    user_budget=COCLUSTERS_PER_USER,
    max_partners=ITEM_PARTNERS,
    sparse_neighbours=SPARSE_NEIGHBOURS_UP_TO,
    neighbour_budget=NEIGHBOUR_BUDGET,
    user_neighbours=False,  # the score leaves out SCALED_OUT_TERMS
)


def fit_state(model, ratings, item_attributes, items, progress, scored: bool) -> Fitted:
    """What ``model.fit`` learns (see :meth:`~recsys.model.ProfileRecommender.fit`)."""
    ratings = as_ratings_frame(ratings)
    say = progress or (lambda message: None)
    if resolve(model.feedback, ratings) == IMPLICIT:
        return _implicit_state(model, interactions_frame(ratings, model.confidence), item_attributes, items, say)
    if "rating" not in ratings.columns:
        raise RatingsError("ratings have no rating column; for interactions (plays, clicks) use feedback='implicit'")
    t0 = time.perf_counter()
    if not scored:  # the paper's rule reads the co-clusters only: no neighbours, no item model
        paper = dataclasses.replace(learning_of(model), n_neighbours=0, item_l2=None)
        profiles, report = fit_profiles(ratings, item_attributes, items, paper, progress=say)
        report["timings"]["fit"] = time.perf_counter() - t0
        return Fitted(profiles, report)
    held = holdout_mask(ratings, model.validation_fraction, model.random_state)
    say(f"validation: profiles of {int((~held).sum()):,} ratings, weights on {int(held.sum()):,}")
    large = scales(model.scaling, len(ratings))
    learning = learning_of(model, ratings[~held] if large else None)
    inner_learning = learning
    if large:
        inner_learning = dataclasses.replace(learning, **LARGE_DATA_RULES)
    inner, inner_report = fit_profiles(
        ratings[~held], item_attributes, items, inner_learning, progress=say, universe=ratings if large else None
    )
    held_out = _held_out_weights(model, inner, ratings[held], say, SCALED_OUT_TERMS if large else ())
    t_val = time.perf_counter() - t0
    if large:
        say(f"the {int(held.sum()):,} held-out ratings added to the profiles")
        profiles, report = _refit(model, add_ratings(inner, ratings), inner_learning, inner_report, say)
    else:
        say(f"profiles of all {len(ratings):,} ratings")
        del inner  # its item weights are as large as the ones fitted next (items² on every pair)
        profiles, report = fit_profiles(ratings, item_attributes, items, learning, progress=say)
    report["scaling"] = {
        "on": bool(large),
        "item_l2": learning.item_l2,
        "terms_left_out": list(SCALED_OUT_TERMS) if large else [],
        "dense_weights_up_to": learning.dense_weights_up_to,
    }
    report["timings"]["validation"] = t_val
    report["timings"]["fit"] = time.perf_counter() - t0
    report["validation"] = {"held_out": int(held.sum()), "scored": held_out.pop("scored")}
    report["lists"] = held_out.pop("lists")
    return Fitted(profiles, report, **held_out)


def _implicit_state(model, interactions, item_attributes, items, say) -> Fitted:
    """What ``model.fit`` learns from implicit feedback (:mod:`recsys.model.feedback`): the like
    co-clusters of the interactions and the item model, from all of them; the lists' blend chosen
    on a held-out ``validation_fraction`` with the profiles of the rest, as on ratings.  No
    neighbourhoods, no residual model, no weights: nothing here is a like-probability."""
    t0 = time.perf_counter()
    held = holdout_mask(interactions, model.validation_fraction, model.random_state)
    say(f"validation: profiles of {int((~held).sum()):,} interactions, the lists' blend on {int(held.sum()):,}")
    large = scales(model.scaling, len(interactions))
    learning = learning_of(model, interactions[~held] if large else None, implicit=True)
    inner_learning = learning
    if large:
        inner_learning = dataclasses.replace(learning, **LARGE_DATA_RULES)
    universe = interactions if large else None
    inner, report = fit_profiles(
        interactions[~held], item_attributes, items, inner_learning, progress=say, universe=universe
    )
    probe = Fitted(inner, {})
    blend, lists = fit_list_blend(model, probe, interactions[held], say)
    t_val = time.perf_counter() - t0
    if large:
        say(f"the {int(held.sum()):,} held-out interactions added to the profiles")
        profiles, report = _refit(model, add_ratings(inner, interactions), inner_learning, report, say)
    else:
        say(f"profiles of all {len(interactions):,} interactions")
        profiles, report = fit_profiles(interactions, item_attributes, items, learning, progress=say)
    report["feedback"] = IMPLICIT
    report["scaling"] = {
        "on": bool(large),
        "item_l2": learning.item_l2,
        "dense_weights_up_to": learning.dense_weights_up_to,
    }
    report["timings"]["validation"] = t_val
    report["timings"]["fit"] = time.perf_counter() - t0
    report["validation"] = {"held_out": int(held.sum()), "scored": 0}
    report["lists"] = lists
    return Fitted(profiles, report, list_blend=blend)


def _refit(model, profiles, learning: Learning, report: dict, say) -> tuple:
    """Under the scaling rules, the profiles with every rating added and, with ``refit_item_model``,
    the item model learnt again from them (its weights otherwise miss the held-out tenth: on the 1 M
    training tenths that cost up to 0.006 NDCG@10, for 1.2-1.9 s)."""
    if model.refit_item_model:
        say("the item model again, on every rating")
        profiles = refit_item_model(profiles, learning, report, say)
    return profiles, report


def _held_out_weights(model, inner, val, say, left_out=()) -> dict:
    """The score's weights, a new item's and the lists' blend, learnt on the held-out ratings
    ``val`` with the profiles ``inner`` learnt without them (and the counts for the report); the
    terms ``left_out`` are neither computed nor weighed (the scaling rules')."""
    u, i = inner.user_index(val["user"].to_numpy()), inner.item_index(val["item"].to_numpy())
    ok = (u >= 0) & (i >= 0)
    all_terms = [
        t.name
        for t in TERMS
        if (t.name != "item_residuals" or inner.residual_weights is not None) and t.name not in left_out
    ]
    say(f"the score's terms on the {int(ok.sum()):,} held-out ratings, and their weights")
    terms = compute_terms(
        inner, u[ok], i[ok], all_terms, model.n_votes, model.shrinkage, done=lambda share: tell(say, share, "terms")
    )
    y = val["rating"].to_numpy(dtype=np.float64)[ok] > model.like_threshold
    validation = {"terms": terms, "y": y, "new_item_terms": new_item_terms(inner, u[ok], i[ok], NEW_ITEM_TERMS)}
    weights = fit_weights(terms, y, [t for t in model.terms if t not in left_out])
    new_weights = new_item_weights(model.terms, validation)
    probe = Fitted(inner, {}, weights, new_weights)
    blend, lists = fit_list_blend(model, probe, val, say)
    return {
        "weights": weights,
        "new_item_weights": new_weights,
        "list_blend": blend,
        "validation_terms": validation,
        "scored": int(ok.sum()),
        "lists": lists,
    }


def learning_of(model, scaled_on=None, implicit: bool = False) -> Learning:
    """What :func:`~recsys.model.learning.fit_profiles` learns from the model's parameters; with
    ``scaled_on`` (the ratings the profiles learn from, when the scaling rules are on) the
    co-clustering's work budget (unless the parameters set one) and the item penalty scaled to
    those ratings' like counts.  ``implicit``: every interaction a like, and nothing learnt that
    only a like-probability reads (neighbourhoods, the residual model)."""
    sides = {"like_params": model.like_params, "dislike_params": model.dislike_params}
    scaled = {}
    threshold = IMPLICIT_THRESHOLD if implicit else float(model.like_threshold)
    l2 = float(model.item_l2)
    if scaled_on is not None:
        sides = {side: scaled_coclustering(p) for side, p in sides.items()}
        l2 = scaled_item_penalty(scaled_on, l2, threshold)
        scaled["dense_weights_up_to"] = dense_weights_limit(len(scaled_on))
    return Learning(
        like_threshold=threshold,
        features=model.features,
        **sides,
        n_neighbours=0 if implicit else int(model.n_neighbours),
        neighbours=model.neighbours,
        item_l2=l2,
        item_l2_per_like=float(model.item_l2_per_like),
        item_support=model.item_support,
        residual_model="item_residuals" in model.evidence and not implicit,
        feedback=IMPLICIT if implicit else EXPLICIT,
        attribute_fit=model.attribute_fit,
        random_state=model.random_state,
        **scaled,
    )


def dense_weights_limit(n_ratings: int) -> int:
    """The scaling rules' ``dense_weights_up_to`` for a fit on ``n_ratings`` ratings: the most movies
    whose one inverse (``n³`` flops) stays within :data:`~recsys.model.settings.DENSE_INVERSE_FLOPS_PER_RATING`
    flops a rating, and whose Gram matrix is dense (:data:`~recsys.model.item_model.DENSE_GRAM_BYTES`)."""
    from .item_model import DENSE_GRAM_BYTES

    flops, cells = DENSE_INVERSE_FLOPS_PER_RATING * float(n_ratings), DENSE_GRAM_BYTES / 8.0
    n = int(min(np.cbrt(flops), np.sqrt(cells)))
    while (n + 1) ** 3 <= flops and (n + 1) ** 2 <= cells:  # the roots' last bit, either way
        n += 1
    while n > 0 and (n**3 > flops or n**2 > cells):
        n -= 1
    return n


def fit_list_blend(model, probe: Fitted, held, say) -> tuple[ListBlend, dict]:
    """The lists' blend (:func:`recsys.model.list_blend.choose`), chosen on the held-out ratings
    ``held`` with ``probe``, the state of the profiles learnt without them; and its report."""
    from .batch import Lister, People
    from .list_blend import CANDIDATES, VALIDATION_USERS, ValidationList, choose
    from .topn import RELEVANT

    if model.list_score == "item_model":
        return ListBlend(), {"list_score": "item_model"}
    inner = probe.profiles
    u = inner.user_index(held["user"].to_numpy())
    i = inner.item_index(held["item"].to_numpy())
    good = (u >= 0) & (i >= 0)
    if not probe.implicit:  # every held-out interaction is relevant; of ratings, the good ones
        good &= held["rating"].to_numpy(dtype=np.float64) >= RELEVANT
    users = np.unique(u[good])
    rng = np.random.default_rng(model.random_state)
    if len(users) > VALIDATION_USERS:
        users = np.sort(rng.choice(users, VALIDATION_USERS, replace=False))
    say(f"the lists' blend on {len(users):,} held-out users")
    # each user folded in from their ratings, as their list reads them: the blend is chosen on the
    # candidates and scores the lists will add up (only those are kept: memory grows with users)
    relevant = Csr.from_pairs(*np.unique(np.c_[u[good], i[good]], axis=0).T, inner.ratings.shape)
    rows = []
    lister = Lister(model, probe)
    for lo, _, scored in lister.blocks(People.of_users(inner.ratings, users), n_candidates=CANDIDATES):
        for t in range(len(scored.n_cand)):
            cand = scored.cand[t, : scored.n_cand[t]]
            mine = relevant.row(users[lo + t])
            rows.append(
                ValidationList(
                    scored.key[t, cand], lister.popularity[cand], scored.like_feature(t), np.isin(cand, mine), len(mine)
                )
            )
    return choose(rows, CANDIDATES)


def new_item_weights(terms: list[str], validation: dict) -> Weights | None:
    """The weights of new items' scores, or None when the evidence ``terms`` have no attribute
    term: then nothing scores an item without ratings."""
    names = [n for n in NEW_ITEM_TERMS if n in terms]
    if not set(ATTRIBUTE_TERMS) & set(names):
        return None
    return fit_weights(validation["new_item_terms"], validation["y"], names)


def scaled_item_penalty(ratings, item_l2: float, like_threshold: float = 2.0) -> float:
    """The scaling rules' penalty: ``item_l2`` times the mean like count of a liked movie of
    ``ratings`` over MovieLens 100K's (see ``ProfileRecommender``'s ``scaling``)."""
    from .ids import distinct

    liked = ratings["item"].to_numpy()[ratings["rating"].to_numpy(dtype=np.float64) > like_threshold]
    mean_likes = len(liked) / max(len(distinct(liked)), 1)
    return float(item_l2) * mean_likes / ITEM_L2_REFERENCE_LIKES
