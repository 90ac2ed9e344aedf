"""ProfileRecommender: like/dislike predictions from co-clusters, each with its reasons.

Imports here are numpy-only at module level: a saved model loads without pandas, scipy,
scikit-learn or numba (see :mod:`recsys.model.csr`).  Fitting imports what it needs, and so do lists
and the item model's sums: a person's fold-in, votes and row sums are compiled
(:mod:`recsys.model._person_kernels`; numba's start costs about 0.6 s once a process).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from coclust.params import NONE as NO_VALUE
from coclust.params import Instance, Interval, Options, Params, Subset, check_params

from ..errors import NotFittedError, ParameterError, UnknownIdError
from ..files import plain
from .csr import Csr
from .ratings import as_ratings_frame
from .settings import (
    COCLUSTER_BUDGET,
    COCLUSTERS_PER_USER,
    DISLIKE,
    FEATURES,
    ITEM_L2_REFERENCE_LIKES,
    ITEM_PARTNERS,
    LARGE_FROM_RATINGS,
    LIKE,
    MODES,
    NEIGHBOURS,
    NEW_ITEM,
    NONE,
    RECOMMENDER_PARAMS,
    SCALINGS,
)

if TYPE_CHECKING:
    from .learning import Learning
from .terms import (
    ATTRIBUTE_TERMS,
    GROUPS,
    NEW_ITEM_TERMS,
    TERMS,
    Weights,
    compute_terms,
    fit_weights,
    new_item_terms,
    paper_scores,
    terms_of,
)


@dataclass
class Predictions:
    """Predictions for pairs, one entry per pair in the order asked.

    ``score`` is the like-probability (``mode="scored"``) or the Jaccard difference
    ``J(like profile) - J(dislike profile)`` (``mode="paper"``), NaN where not covered;
    ``prediction`` is ``like``, ``dislike`` or ``none``; ``reason`` says why a pair is not covered
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


class ProfileRecommender(Params):
    """Explainable like/dislike recommender from co-clusters (de França, 2016, § recommender).

    Co-clusters of the like relation (users × liked movies) and of the dislike relation are found
    with :class:`coclust.HBLCoClust`.  Two predictions are available on one fitted model:

    ``mode="paper"``
        the paper's rule: the user's like profile (the features of the like co-clusters the user
        belongs to) and dislike profile, minus their intersection; the larger Jaccard similarity
        of the movie's attributes with the two profiles wins; no match abstains.
    ``mode="scored"`` (default)
        a like-probability from the evidence of :mod:`recsys.model.terms`: the user's and the movie's
        share of likes, the rating baseline, and the rating residuals of the users who share the
        user's co-clusters and of the movies that share the movie's co-clusters.  The weights are
        a logistic regression fitted on a held-out ``validation_fraction`` of the training
        ratings (the co-clusters then come from the rest), after which the profiles are refitted
        on all training ratings (on large data, see ``scaling``, the held-out ratings are added to
        them instead).

    Parameters
    ----------
    like_threshold : float, default=2.0
        A rating above it is a like (the paper's rule).
    features : {"movies", "all", "attributes"}, default="movies"
        What is co-clustered: the users × movies relation, each co-cluster then taking the
        attributes of its movies that most of its users like (``movies``); every feature together
        as in the paper (``all``); the attribute features only (``attributes``).
        See :mod:`recsys.model.learning`.
    like_params, dislike_params : dict, optional
        :class:`coclust.HBLCoClust` parameters; default
        :data:`~recsys.model.settings.RECOMMENDER_PARAMS` (:data:`~recsys.model.settings.PAPER_PARAMS`
        are the paper's).
    evidence : tuple of str, default: all of :data:`recsys.model.terms.GROUPS`
        Evidence groups the scored mode uses (ablations remove some).
    n_neighbours : int, default=200
        Neighbours kept per user and per movie.
    n_votes : int, default=40
        Neighbours whose residuals vote on one pair.
    shrinkage : float, default=1.0
        Added to the similarity mass of a vote: few or weak neighbours vote towards 0.
    neighbours : {"coclusters", "ratings"}, default="coclusters"
        ``ratings`` takes the neighbourhoods from plain co-ratings instead of the co-clusters: a
        control for the ablations, whose votes no co-cluster explains.
    validation_fraction : float, default=0.1
        The share of the training ratings held out to fit the logistic weights and the cut-off.
    item_l2 : float, default=400
        Ridge penalty of the co-cluster item model (:mod:`recsys.model.item_model`), which makes
        the recommendation lists.
    item_support : {"coclusters", "random", "all"}, default="coclusters"
        The pairs of movies the item model may weigh: those the like co-clusters hold together;
        or, as controls for the ablations, as many random pairs, or every pair (EASE).
    list_score : {"blend", "item_model"}, default="blend"
        How the lists rank: the item model's score plus the item's popularity and the person's
        like-probability, weighed on the held-out ratings (:mod:`recsys.model.list_blend`; the
        item model alone unless that ranks them better); or the item model alone (a control).
    scaling : {"auto", "on", "off"}, default="auto"
        The rules for large data.  ``on``: the profiles are fitted once — after the weights, the
        co-clusters, neighbourhoods and item model learnt without the held-out ratings are kept and
        the held-out ratings are added to the rating table and baseline that the votes and lists
        read (about half the training time of fitting them again on every rating); and the item
        model's penalty is ``item_l2`` times the training data's mean like count of a rated movie
        over :data:`~recsys.model.settings.ITEM_L2_REFERENCE_LIKES` (MovieLens 100K's, where
        ``item_l2`` was tuned); and each user stays in at most
        :data:`~recsys.model.settings.COCLUSTERS_PER_USER` co-clusters of each side, those with
        the fewest users (the co-memberships, and with them the neighbourhoods' cost, then grow
        with the users, not with their square); and the co-clustering runs within a work budget
        (:data:`~recsys.model.settings.COCLUSTER_BUDGET` memberships per relation, unless
        ``like_params``/``dislike_params`` set ``budget``; :mod:`coclust.budget`); and an item's
        weights use at most :data:`~recsys.model.settings.ITEM_PARTNERS` partners.  ``off``: none
        of these.  ``auto``: on from :data:`~recsys.model.settings.LARGE_FROM_RATINGS` training
        ratings.
    random_state : int, default=0

    Attributes
    ----------
    profiles_ : FittedProfiles
        What was learned from all training ratings.
    weights_ : Weights
        The logistic weights, the terms' means and the decision threshold (best balanced accuracy
        on the held-out ratings).
    new_item_weights_ : Weights or None
        The weights of a new item's score (an item with attributes and no training rating), when
        the evidence has the attributes: fitted on the same held-out ratings with their items made
        new (:func:`recsys.model.terms.new_item_terms`), over :data:`~recsys.model.terms.NEW_ITEM_TERMS`.
    report_ : dict
        Co-cluster and relation counts, step timings.
    validation_terms_ : dict
        The held-out terms and labels the weights were fitted on (kept for ablations).
    list_blend_ : ListBlend
        The lists' weights of popularity and like-probability (:mod:`recsys.model.list_blend`).

    Examples
    --------
    Even users like the even movies and dislike the odd ones, odd users the reverse; the pair
    (user 0, movie 2) is left out of training:

    >>> import numpy as np, pandas as pd
    >>> users, items = np.repeat(np.arange(30), 8), np.tile(np.arange(8), 30)
    >>> ratings = pd.DataFrame({"user": users, "item": items, "rating": np.where(users % 2 == items % 2, 5, 1)})
    >>> train = ratings[(ratings["user"] != 0) | (ratings["item"] != 2)]
    >>> small = dict(n_bands=40, band_size=2)
    >>> model = ProfileRecommender(like_params=small, dislike_params=small).fit(train)
    >>> model.predict(0, 2).prediction
    'like'
    """

    _constraints = {
        "like_threshold": [Interval(float)],
        "features": [Options(*FEATURES)],
        "like_params": [NO_VALUE, Instance(dict, description="a dict of HBLCoClust parameters")],
        "dislike_params": [NO_VALUE, Instance(dict, description="a dict of HBLCoClust parameters")],
        "evidence": [Subset(GROUPS)],
        "n_neighbours": [Interval(int, 1, None)],
        "n_votes": [Interval(int, 1, None)],
        "shrinkage": [Interval(float, 0, None)],
        "neighbours": [Options(*NEIGHBOURS)],
        "validation_fraction": [Interval(float, 0, 0.5, closed="neither")],
        "item_l2": [Interval(float, 0, None, closed="neither")],
        "item_support": [Options("coclusters", "random", "all")],
        "list_score": [Options("blend", "item_model")],
        "scaling": [Options(*SCALINGS)],
        "random_state": [Interval(int, 0, None)],
    }

    def __init__(
        self,
        *,
        like_threshold: float = 2.0,
        features: str = "movies",
        like_params: dict | None = None,
        dislike_params: dict | None = None,
        evidence: tuple = GROUPS,
        n_neighbours: int = 200,
        n_votes: int = 40,
        shrinkage: float = 1.0,
        neighbours: str = "coclusters",
        validation_fraction: float = 0.1,
        item_l2: float = 400.0,
        item_support: str = "coclusters",
        list_score: str = "blend",
        scaling: str = "auto",
        random_state: int = 0,
    ):
        self.like_threshold = like_threshold
        self.features = features
        self.like_params = like_params
        self.dislike_params = dislike_params
        self.evidence = evidence
        self.n_neighbours = n_neighbours
        self.n_votes = n_votes
        self.shrinkage = shrinkage
        self.neighbours = neighbours
        self.validation_fraction = validation_fraction
        self.item_l2 = item_l2
        self.item_support = item_support
        self.list_score = list_score
        self.scaling = scaling
        self.random_state = random_state

    def set_params(self, **params) -> ProfileRecommender:
        try:
            return super().set_params(**params)
        except ValueError as exc:
            raise ParameterError(str(exc)) from None

    def check_params(self) -> None:
        """Raise :class:`~recsys.errors.ParameterError` naming the first invalid parameter
        (``fit`` calls it first; the HBLCoClust parameters are checked by HBLCoClust's contract)."""
        check_params(self, ParameterError)
        from coclust.fitting import CoClustering

        for name in ("like_params", "dislike_params"):
            params = getattr(self, name)
            if params is None:
                continue
            try:
                CoClustering(**params).check_params()
            except (TypeError, ValueError) as exc:
                raise ParameterError(f"{name}: {exc}") from None

    @property
    def terms(self) -> list[str]:
        """The evidence terms of the scored mode."""
        return terms_of(self.evidence)

    def is_large(self, n_ratings: int) -> bool:
        """Whether ``fit`` on ``n_ratings`` training ratings applies the scaling rules."""
        return self.scaling == "on" or (self.scaling == "auto" and n_ratings >= LARGE_FROM_RATINGS)

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, ratings, item_attributes=None, items=None, progress=None, scored: bool = True) -> ProfileRecommender:
        """Learn profiles and evidence weights from training ``ratings`` (``user, item, rating``).

        Parameters
        ----------
        ratings : DataFrame, or a ``surprise.Trainset`` / ``surprise.Dataset``
        item_attributes : DataFrame with columns ``item, kind, value``, optional
        items : DataFrame with columns ``item, title``, optional
            Titles to show in explanations.
        progress : callable, optional
            Called with a message between steps.
        scored : bool, default=True
            Also fit the evidence weights of the scored mode.  ``False`` fits the profiles of all
            ratings once, without neighbourhoods, enough for ``mode="paper"`` (a third of the work).

        With the co-clustering on a Dask cluster (``backend="dask"`` in ``like_params`` or
        ``dislike_params``), one client serves the whole fit: the co-clusterings, and the item
        model's solves, the neighbourhoods and the held-out terms (:mod:`recsys.model.cluster`).
        """
        self.check_params()
        dask = [p for p in (self.like_params, self.dislike_params) if p and p.get("backend") == "dask"]
        if not dask:
            return self._fit(ratings, item_attributes, items, progress, scored)
        from .cluster import connected

        with connected(dask[0].get("scheduler")):
            return self._fit(ratings, item_attributes, items, progress, scored)

    def _fit(self, ratings, item_attributes, items, progress, scored: bool) -> ProfileRecommender:
        from .learning import add_ratings, fit_profiles
        from .progress import tell
        from .ratings import holdout_mask

        ratings = as_ratings_frame(ratings)
        say = progress or (lambda message: None)
        t0 = time.perf_counter()
        learning = self._learning()
        if not scored:  # the paper's rule reads the co-clusters only: no neighbours, no item model
            paper = dataclasses.replace(learning, n_neighbours=0, item_l2=None)
            self.profiles_, self.report_ = fit_profiles(ratings, item_attributes, items, paper, progress=say)
            self.report_["timings"]["fit"] = time.perf_counter() - t0
            return self
        held = holdout_mask(ratings, self.validation_fraction, self.random_state)
        say(f"validation: profiles of {int((~held).sum()):,} ratings, weights on {int(held.sum()):,}")
        large = self.is_large(len(ratings))
        learning = self._learning(ratings[~held] if large else None)
        inner_learning = learning
        if large:
            inner_learning = dataclasses.replace(learning, user_budget=COCLUSTERS_PER_USER, max_partners=ITEM_PARTNERS)
        inner, inner_report = fit_profiles(
            ratings[~held], item_attributes, items, inner_learning, progress=say, universe=ratings if large else None
        )
        val = ratings[held]
        u, i = inner.user_index(val["user"].to_numpy()), inner.item_index(val["item"].to_numpy())
        ok = (u >= 0) & (i >= 0)
        all_terms = [t.name for t in TERMS if t.name != "item_residuals" or inner.residual_weights is not None]
        say(f"the score's terms on the {int(ok.sum()):,} held-out ratings, and their weights")
        terms = compute_terms(
            inner, u[ok], i[ok], all_terms, self.n_votes, self.shrinkage, done=lambda share: tell(say, share, "terms")
        )
        y = val["rating"].to_numpy(dtype=np.float64)[ok] > self.like_threshold
        self.validation_terms_ = {
            "terms": terms,
            "y": y,
            "new_item_terms": new_item_terms(inner, u[ok], i[ok], NEW_ITEM_TERMS),
        }
        self.weights_ = fit_weights(terms, y, self.terms)
        self.new_item_weights_ = self._new_item_weights(self.validation_terms_)
        self.list_blend_, list_report = self._fit_list_blend(inner, val, say)
        t_val = time.perf_counter() - t0
        if large:
            say(f"the {int(held.sum()):,} held-out ratings added to the profiles")
            self.profiles_, self.report_ = add_ratings(inner, ratings), inner_report
        else:
            say(f"profiles of all {len(ratings):,} ratings")
            self.profiles_, self.report_ = fit_profiles(ratings, item_attributes, items, learning, progress=say)
        self.report_["scaling"] = {"on": bool(large), "item_l2": learning.item_l2}
        self.report_["timings"]["validation"] = t_val
        self.report_["timings"]["fit"] = time.perf_counter() - t0
        self.report_["validation"] = {"held_out": int(held.sum()), "scored": int(ok.sum())}
        self.report_["lists"] = list_report
        return self

    def _learning(self, scaled_on=None) -> Learning:
        """What :func:`~recsys.model.learning.fit_profiles` learns from this model's parameters;
        with ``scaled_on`` (the ratings the profiles learn from, when the scaling rules are on) the
        co-clustering's work budget (unless the parameters set one) and the item penalty scaled to
        those ratings' like counts."""
        from .learning import Learning

        sides = {"like_params": self.like_params, "dislike_params": self.dislike_params}
        l2 = float(self.item_l2)
        if scaled_on is not None:
            sides = {
                side: {"budget": COCLUSTER_BUDGET, **dict(RECOMMENDER_PARAMS if p is None else p)}
                for side, p in sides.items()
            }
            l2 = scaled_item_penalty(scaled_on, l2, self.like_threshold)
        return Learning(
            like_threshold=float(self.like_threshold),
            features=self.features,
            **sides,
            n_neighbours=int(self.n_neighbours),
            neighbours=self.neighbours,
            item_l2=l2,
            item_support=self.item_support,
            residual_model="item_residuals" in self.evidence,
            random_state=self.random_state,
        )

    def _fit_list_blend(self, inner, held, say):
        """The lists' blend (:func:`recsys.model.list_blend.choose`), chosen on the held-out
        ratings ``held`` with the profiles ``inner`` learnt without them; and its report."""
        from copy import copy

        from .batch import Lister, People
        from .list_blend import CANDIDATES, VALIDATION_USERS, ListBlend, ValidationList, choose
        from .topn import RELEVANT

        if self.list_score == "item_model":
            return ListBlend(), {"list_score": "item_model"}
        probe = copy(self)
        probe.profiles_, probe.list_blend_ = inner, ListBlend()
        u = inner.user_index(held["user"].to_numpy())
        i = inner.item_index(held["item"].to_numpy())
        good = (u >= 0) & (i >= 0) & (held["rating"].to_numpy(dtype=np.float64) >= RELEVANT)
        users = np.unique(u[good])
        rng = np.random.default_rng(self.random_state)
        if len(users) > VALIDATION_USERS:
            users = np.sort(rng.choice(users, VALIDATION_USERS, replace=False))
        say(f"the lists' blend on {len(users):,} held-out users")
        # each user folded in from their ratings, as their list reads them: the blend is chosen on the
        # candidates and scores the lists will add up (only those are kept: memory grows with users)
        relevant = Csr.from_pairs(*np.unique(np.c_[u[good], i[good]], axis=0).T, inner.ratings.shape)
        rows = []
        lister = Lister(probe)
        for lo, _, scored in lister.blocks(People.of_users(inner.ratings, users), n_candidates=CANDIDATES):
            for t in range(len(scored.n_cand)):
                cand = scored.cand[t, : scored.n_cand[t]]
                mine = relevant.row(users[lo + t])
                rows.append(
                    ValidationList(
                        scored.key[t, cand],
                        lister.popularity[cand],
                        scored.like_feature(t),
                        np.isin(cand, mine),
                        len(mine),
                    )
                )
        return choose(rows, CANDIDATES)

    def with_evidence(self, evidence) -> ProfileRecommender:
        """This fitted model with only the evidence groups ``evidence``: the same profiles, the
        weights refitted on the same held-out ratings (an ablation)."""
        self.check_fitted()
        if not hasattr(self, "validation_terms_"):
            raise NotFittedError("with_evidence needs the held-out terms of fit (a loaded model has none)")
        other = ProfileRecommender(**{**self.get_params(), "evidence": tuple(evidence)})
        check_params(other, ParameterError)
        other.profiles_ = self.profiles_
        other.report_ = self.report_
        other.validation_terms_ = self.validation_terms_
        v = self.validation_terms_
        other.weights_ = fit_weights(v["terms"], v["y"], other.terms)
        other.new_item_weights_ = other._new_item_weights(v)
        other.list_blend_ = self._blend  # the lists' blend is not refitted (its held-out lists are not kept)
        return other

    def _new_item_weights(self, validation: dict) -> Weights | None:
        """The weights of new items' scores (``new_item_weights_``), or None when the evidence has
        no attribute term: then nothing scores an item without ratings."""
        names = [n for n in NEW_ITEM_TERMS if n in self.terms]
        if not set(ATTRIBUTE_TERMS) & set(names):
            return None
        return fit_weights(validation["new_item_terms"], validation["y"], names)

    def weights_for(self, items: np.ndarray) -> list[tuple[np.ndarray, Weights]]:
        """``(positions, weights)`` groups of the item indices ``items``: the rated items' positions
        with ``weights_``, the new items' with ``new_item_weights_``."""
        items = np.asarray(items, dtype=np.int64)
        new = np.zeros(len(items), dtype=bool)
        if self.uses_attributes:
            new = ~self.profiles_.item_rated[items]
        groups = [
            (np.flatnonzero(~new), self.weights_),
            (np.flatnonzero(new), getattr(self, "new_item_weights_", None)),
        ]
        return [(pos, w) for pos, w in groups if len(pos)]

    def check_fitted(self) -> None:
        """Raise :class:`~recsys.errors.NotFittedError` unless the model is fitted (or loaded)."""
        if not hasattr(self, "profiles_"):
            raise NotFittedError("this ProfileRecommender is not fitted yet; call fit first")

    # -- prediction ---------------------------------------------------------------------------
    def _check_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ParameterError(f"mode must be 'scored' or 'paper', got {mode!r}")

    def _check_scored(self) -> None:
        if not hasattr(self, "weights_"):
            raise NotFittedError("this model was fitted for the paper's rule only (scored=False); use mode='paper'")

    def scored_terms(self, u: np.ndarray, i: np.ndarray) -> dict[str, np.ndarray]:
        """The scored mode's terms for known user and item indices."""
        self._check_scored()
        return compute_terms(self.profiles_, u, i, self.weights_.names, self.n_votes, self.shrinkage)

    def predict_many(self, users, items, mode: str = "scored", threshold: float | None = None) -> Predictions:
        """Predictions for the pairs ``(users[t], items[t])``; unknown ids are flagged, never fatal.

        ``threshold`` overrides the like-probability cut-off of the scored mode (default: the one
        fitted, ``weights_.threshold``).
        """
        self.check_fitted()
        self._check_mode(mode)
        if mode == "scored":
            self._check_scored()
        fp = self.profiles_
        users = np.asarray(users, dtype=object) if not isinstance(users, np.ndarray) else users
        items = np.asarray(items, dtype=object) if not isinstance(items, np.ndarray) else items
        if users.shape != items.shape:
            raise ParameterError(f"users and items must have the same length, got {len(users)} and {len(items)}")
        n = len(users)
        u, i = fp.user_index(users), fp.item_index(items)
        rated = np.zeros(n, dtype=bool)
        ok = (u >= 0) & (i >= 0)
        rated[ok] = self._scoreable[i[ok]] if mode == "scored" else fp.item_rated[i[ok]]
        reason = np.full(n, "", dtype=object)
        reason[i < 0] = "unknown item"
        reason[u < 0] = "unknown user"
        score = np.full(n, np.nan)
        prediction = np.full(n, NONE, dtype=object)
        covered = np.zeros(n, dtype=bool)
        if mode == "paper":
            idx = np.flatnonzero(ok)
            jl, jd = paper_scores(fp, u[idx], i[idx])
            cov = (jl + jd) > 0
            score[idx[cov]] = (jl - jd)[cov]
            prediction[idx[cov]] = np.where(jl >= jd, LIKE, DISLIKE)[cov]  # ties go to like, the majority
            covered[idx[cov]] = True
            reason[idx[~cov]] = "no profile match"
        else:
            reason[ok & ~rated] = "no rating of the item"
            idx = np.flatnonzero(rated)
            p, cut = self._probabilities(
                i[idx],
                lambda pos, names: compute_terms(fp, u[idx][pos], i[idx][pos], names, self.n_votes, self.shrinkage),
            )
            if threshold is not None:
                cut[:] = float(threshold)
            score[idx] = p
            prediction[idx] = np.where(p >= cut, LIKE, DISLIKE)
            covered[idx] = True
            reason[idx[~fp.item_rated[i[idx]]]] = NEW_ITEM
        return Predictions(users, items, score, prediction.astype(str), covered, reason.astype(str))

    def predict(self, user, item, mode: str = "scored", threshold: float | None = None, unknown: str = "flag"):
        """One prediction with its explanation (:class:`recsys.model.explanation.Explanation`).

        An unknown user or item gives an uncovered prediction whose ``reason`` says so
        (``unknown="flag"``), or raises :class:`~recsys.errors.UnknownIdError` (``"raise"``).
        """
        from .explanation import explain_prediction

        if unknown not in ("flag", "raise"):
            raise ParameterError(f"unknown must be 'flag' or 'raise', got {unknown!r}")
        if unknown == "raise":
            self.user_index(user)
            self.item_index(item)
        p = self.predict_many(np.array([user], dtype=object), np.array([item], dtype=object), mode, threshold)
        return explain_prediction(self, p, mode, threshold)

    def recommend(self, user, n: int = 10, mode: str = "scored", exclude_rated: bool = True) -> list[dict]:
        """The ``n`` best movies the user has not rated, each with its reasons.

        Scored mode ranks by the co-cluster item model (:mod:`recsys.model.item_model`): the sum of
        the weights from the movies the user liked, each carried by co-clusters that hold both
        movies, plus the lists' blend of popularity and like-probability (:mod:`recsys.model.list_blend`);
        the reasons are those parts, which add up to the score.  Paper mode ranks
        the movies the profiles cover by ``J(like) - J(dislike)``.
        """
        self.check_fitted()
        self._check_mode(mode)
        _check_n(n)
        fp = self.profiles_
        u = self.user_index(user)
        rated = fp.ratings.row(u) if exclude_rated else np.zeros(0, dtype=np.int64)
        if mode == "paper":
            from .explanation import explain_paper_list

            cand = np.setdiff1d(np.arange(fp.n_items), rated)
            return explain_paper_list(self, u, cand, self.rank_items(u, cand, mode), n)
        return self._item_list(self._rated(u), rated, n, lambda items: self._probability(u, items))

    def lists(self, users, n: int = 10) -> list:
        """The ``n`` best unrated movies of each user by their list scores (:meth:`list_key`), without
        reasons (for batches): per user a list of ``(item id, score)``, or ``None`` for an unknown user.
        The users are folded in and scored in blocks on every core (:mod:`recsys.model.batch`)."""
        from .batch import People

        self.check_fitted()
        _check_n(n)
        self._check_listable()
        fp = self.profiles_
        index = fp.user_index(np.asarray(users) if isinstance(users, np.ndarray) else list(users))
        known = np.flatnonzero(index >= 0)
        out: list = [None] * len(index)
        people = People.of_users(fp.ratings, index[known])
        for lo, _, scored in self._lister().blocks(people, _candidates(self._blend, n)):
            for t in range(len(scored.n_cand)):
                items, scores = scored.top(t, n)
                out[known[lo + t]] = [(fp.items[i].item(), float(v)) for i, v in zip(items, scores, strict=True)]
        return out

    def list_score_rows(self, histories: list) -> np.ndarray:
        """Every item's list score (``-inf``: not listed) for each of ``histories`` — ``(item
        indices, ratings)`` of a person, or ``None`` for nobody the model can read (a row of
        ``-inf``) — a row each, computed in blocks (:mod:`recsys.model.batch`)."""
        from .batch import People

        self.check_fitted()
        self._check_listable()
        out = np.full((len(histories), self.profiles_.n_items), -np.inf)
        known = [r for r, h in enumerate(histories) if h is not None]
        people = People.of([histories[r] for r in known])
        for lo, hi, scored in self._lister().blocks(people):
            for t in range(hi - lo):
                out[known[lo + t]] = scored.dense(t)
        return out

    def _lister(self):
        """The :class:`~recsys.model.batch.Lister` of this fitted model (built on first use)."""
        from .batch import Lister

        cached = self.__dict__.get("_lister_cache")
        if cached is None or cached.fp is not self.profiles_ or cached.model is not self:
            cached = self.__dict__["_lister_cache"] = Lister(self)
        return cached

    def _check_listable(self) -> None:
        self._check_scored()
        if self.profiles_.item_weights is None:
            raise NotFittedError("this model has no item model (fitted for the paper's rule only); use mode='paper'")

    def recommend_for(self, ratings, n: int = 10) -> list[dict]:
        """The ``n`` best movies for a person the model has never seen, from their ``ratings`` (a
        mapping or a frame of item → rating; items the model does not know are ignored), with the
        same reasons as :meth:`recommend`; the items rated are never listed.  Nothing is refitted."""
        from .fold_in import Rated

        _check_n(n)
        idx, values = self._known_ratings(ratings)
        first = np.unique(idx, return_index=True)[1]
        rated = Rated.of(self.profiles_, idx[first], values[first])
        # the full fold-in (co-clusters, neighbours) only if a shown probability is not the list's own
        return self._item_list(
            rated, rated.items, n, lambda items: self._new_probability(self._person_of(idx, values), items)
        )

    def predict_for(self, ratings, items) -> np.ndarray:
        """Like-probabilities of ``items`` (raw ids; NaN where unknown or unrated in training) for a
        person the model has never seen, from their ``ratings``; nothing is refitted."""
        person = self.fold_in(ratings)
        idx = self.profiles_.item_index(list(items))
        out = np.full(len(idx), np.nan)
        ok = (idx >= 0) & self._scoreable[np.maximum(idx, 0)]
        out[ok] = self._new_probability(person, idx[ok])
        return out

    def fold_in(self, ratings):
        """The person of ``ratings`` (mapping or frame of item → rating) as the model sees them
        (:class:`recsys.model.fold_in.NewUser`)."""

        return self._person_of(*self._known_ratings(ratings))

    def _known_ratings(self, ratings) -> tuple[np.ndarray, np.ndarray]:
        """The item indices and ratings of ``ratings`` the model knows (an error if none)."""
        self._check_scored()
        raw_items, values = _item_ratings(ratings)
        idx = self.profiles_.item_index(raw_items)
        known = idx >= 0
        if not known.any():
            raise UnknownIdError("none of the rated items is in the model's training data")
        return idx[known], values[known]

    def _person_of(self, idx: np.ndarray, values: np.ndarray):
        """The :class:`~recsys.model.fold_in.NewUser` of ratings ``values`` of the item indices
        ``idx`` (an item rated twice: its first rating)."""
        from .fold_in import NewUser

        first = np.unique(idx, return_index=True)[1]
        densities = {
            side: float((p or RECOMMENDER_PARAMS).get("min_density", 1.0))
            for side, p in (("like", self.like_params), ("dislike", self.dislike_params))
        }
        return NewUser.of(self.profiles_, idx[first], values[first], int(self.n_neighbours), densities)

    def _rated(self, u: int):
        """User index ``u``'s training ratings as a list reads them (:class:`~recsys.model.fold_in.Rated`)."""
        from .fold_in import Rated

        fp = self.profiles_
        return Rated.of(fp, fp.ratings.row(u), fp.ratings.row_values(u))

    def _person(self, u: int):
        """User index ``u`` folded in from their training ratings: what a list reads of a person,
        so that a user's list is the one their ratings give a new person."""
        fp = self.profiles_
        return self._person_of(fp.ratings.row(u), fp.ratings.row_values(u))

    @property
    def uses_attributes(self) -> bool:
        """Whether the score weighs the attribute evidence: then new items (attributes, no rating)
        are scored and listed from their attributes (:mod:`recsys.model.attributes`)."""
        return getattr(self, "new_item_weights_", None) is not None

    @property
    def _scoreable(self) -> np.ndarray:
        """The items a like-probability exists for: those rated in training and, when the score
        uses the attributes, those with attributes (new items)."""
        fp = self.profiles_
        if self.uses_attributes:
            return fp.item_rated | (fp.item_attributes.lengths > 0)
        return fp.item_rated

    def new_items(self) -> np.ndarray:
        """Ids of the items scored and listed from their attributes alone (no training rating);
        none unless the score uses the attributes."""
        fp = self.profiles_
        return fp.items[fp.attribute_evidence.new_items] if self.uses_attributes else fp.items[:0]

    def list_scores(self, liked: np.ndarray) -> np.ndarray:
        """Every item's list score for someone who liked ``liked`` (item indices): the item model's
        sum of weights and, when the score uses the attributes, each new item's score from its
        attributes (:meth:`recsys.model.attributes.AttributeEvidence.with_new_items`)."""
        from .item_model import scores

        fp = self.profiles_
        if fp.item_weights is None:
            raise NotFittedError("this model has no item model (fitted for the paper's rule only); use mode='paper'")
        key = scores(fp.item_weights, liked)
        return fp.attribute_evidence.with_new_items(key) if self.uses_attributes else key

    def _probabilities(self, items: np.ndarray, terms_of) -> tuple[np.ndarray, np.ndarray]:
        """Like-probabilities and cut-offs of ``items`` (indices), each under its weights
        (:meth:`weights_for`); ``terms_of(positions, names)`` gives the terms of those items."""
        p, cut = np.zeros(len(items)), np.zeros(len(items))
        for pos, w in self.weights_for(items):
            p[pos], cut[pos] = w.probability(terms_of(pos, w.names)), w.threshold
        return p, cut

    def _probability(self, u: int, items: np.ndarray) -> np.ndarray:
        fp, k, shrink = self.profiles_, self.n_votes, self.shrinkage
        return self._probabilities(
            items, lambda pos, names: compute_terms(fp, np.full(len(pos), u), items[pos], names, k, shrink)
        )[0]

    def _new_probability(self, person, items: np.ndarray) -> np.ndarray:
        from .fold_in import new_user_terms

        fp, k, shrink = self.profiles_, self.n_votes, self.shrinkage
        return self._probabilities(items, lambda pos, names: new_user_terms(fp, person, items[pos], names, k, shrink))[
            0
        ]

    @property
    def _blend(self):
        from .list_blend import ListBlend

        return getattr(self, "list_blend_", None) or ListBlend()

    def list_key(self, person, rated: np.ndarray, at_least: int = 0) -> ListScores:
        """Every item's list score for ``person`` (a :class:`~recsys.model.fold_in.Rated` or
        :class:`~recsys.model.fold_in.NewUser`: its ``items`` and ``ratings`` are read), the
        items ``rated`` (indices) never listed: the item model's (:meth:`list_scores`) plus, when
        the lists blend (``list_blend_``), each candidate's popularity and like parts
        (:mod:`recsys.model.list_blend`; at least ``at_least`` candidates of each kind; the other
        items ``-inf``).  The scores come from the likes: someone who liked nothing gets no items
        (not the first of a tie at 0).  Computed as every list is (:mod:`recsys.model.batch`)."""
        from .batch import People

        self._check_listable()
        people = People.of([(person.items, person.ratings)])
        never = People.of([(np.asarray(rated, dtype=np.int64), np.zeros(len(rated)))])
        scored = self._lister().score(people, _candidates(self._blend, at_least), rated=never)
        return ListScores(*scored.parts(0))

    def _item_list(self, person, rated: np.ndarray, n: int, probability) -> list[dict]:
        """The ``n`` best items of :meth:`list_key` with their reasons; ``probability(items)`` gives
        the like-probabilities shown when the lists do not blend them."""
        from .explanation import explain_item_list

        fp = self.profiles_
        listed = self.list_key(person, rated, n)
        top = listed.top(n)
        p = listed.probability[top]
        todo = np.isnan(p) & self._scoreable[top]
        if todo.any():
            p[todo] = probability(top[todo])
        new = fp.attribute_evidence if self.uses_attributes else None
        return explain_item_list(fp, person.liked, top, listed, p, new_items=new)

    def rank_items(self, u: int, cand: np.ndarray, mode: str = "scored"):
        """Scores of the candidate items (indices) for user index ``u``, and their ranking: the
        list scores (scored mode, :meth:`list_key`; the user's rated items ``-inf``) or
        ``J(like) - J(dislike)`` (paper mode, ``-inf`` where no profile matches)."""
        fp = self.profiles_
        if mode == "paper":
            jl, jd = paper_scores(fp, np.full(len(cand), u), cand)
            key = np.where((jl + jd) > 0, jl - jd, -np.inf)
        else:
            key = self.list_key(self._rated(u), fp.ratings.row(u)).score[cand]
        order = np.lexsort((cand, -key))
        order = order[np.isfinite(key[order])]
        return Ranking(order=order, key=key)

    def explain(self, user) -> dict:
        """The user's like and dislike profiles: attributes grouped by kind with the number of the
        user's co-clusters holding each, the movies, and the co-clusters' counts."""
        from .explanation import explain_profile

        return explain_profile(self.profiles_, self.user_index(user))

    def user_index(self, user) -> int:
        """The index of a user of the training ratings; :class:`~recsys.errors.UnknownIdError` otherwise."""
        return self._known("user", user)

    def item_index(self, item) -> int:
        """The index of an item the model knows; :class:`~recsys.errors.UnknownIdError` otherwise."""
        return self._known("item", item)

    def _known(self, kind: str, raw) -> int:
        self.check_fitted()
        index = self.profiles_.user_index if kind == "user" else self.profiles_.item_index
        i = int(index([raw])[0])
        if i < 0:
            raise UnknownIdError(f"unknown {kind} {raw}: not in the model's training data")
        return i


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


def scaled_item_penalty(ratings, item_l2: float, like_threshold: float = 2.0) -> float:
    """The scaling rules' penalty: ``item_l2`` times the mean like count of a liked movie of
    ``ratings`` over MovieLens 100K's (see ``ProfileRecommender``'s ``scaling``)."""
    from .ids import distinct

    liked = ratings["item"].to_numpy()[ratings["rating"].to_numpy(dtype=np.float64) > like_threshold]
    mean_likes = len(liked) / max(len(distinct(liked)), 1)
    return float(item_l2) * mean_likes / ITEM_L2_REFERENCE_LIKES


def _candidates(blend, at_least: int) -> int:
    """How many candidates of each kind a list blends: none for plain lists, else the blend's (at
    least ``at_least``)."""
    return 0 if blend.plain else max(blend.candidates, int(at_least))


def _check_n(n) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n must be a positive integer, got {n!r}")


def _item_ratings(ratings) -> tuple[list, np.ndarray]:
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
