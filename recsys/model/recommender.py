"""ProfileRecommender: like/dislike predictions from co-clusters, each with its reasons.

The class holds the parameters, ``fit`` and the ways to ask: ``predict`` / ``predict_many`` (like or
dislike), ``recommend`` / ``lists`` (top-N), ``explain`` (a user's profiles), for a user of the
training ratings or a person given by their ratings.  The work is done in :mod:`recsys.model.training`
(fit), :mod:`recsys.model.scoring`, :mod:`recsys.model.listing` and :mod:`recsys.model.people`, on the
fitted state :class:`recsys.model.state.Fitted`.

Imports here are numpy-only at module level: a saved model loads without pandas, scipy,
scikit-learn or numba (see :mod:`recsys.model.csr`).  Fitting imports what it needs, and so do lists
and the item model's sums: a person's fold-in, votes and row sums are compiled
(:mod:`recsys.model._person_kernels`; numba's start costs about 0.6 s once a process).
"""

from __future__ import annotations

import numpy as np

from coclust.params import NONE as NO_VALUE
from coclust.params import Instance, Interval, Options, Params, Subset, check_params

from ..errors import NotFittedError, ParameterError
from . import listing, people, scoring
from .attributes import ATTRIBUTE_FITS
from .feedback import CONFIDENCES, FEEDBACKS
from .listing import Ranking
from .scoring import Predictions
from .settings import FEATURES, NEIGHBOURS, SCALINGS, check_coclustering
from .state import Fitted
from .terms import GROUPS, fit_weights, terms_of

__all__ = ["Predictions", "ProfileRecommender", "Ranking"]


# what each parameter of ProfileRecommender may hold (coclust.params: checked by check_params)
PARAMETERS = {
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
    "item_l2_per_like": [Interval(float, 0, None, closed="left")],
    "item_support": [Options("coclusters", "random", "all")],
    "list_score": [Options("blend", "item_model")],
    "scaling": [Options(*SCALINGS)],
    "refit_item_model": [Instance(bool)],
    "feedback": [Options(*FEEDBACKS)],
    "confidence": [Options(*CONFIDENCES)],
    "attribute_fit": [Options(*ATTRIBUTE_FITS)],
    "random_state": [Interval(int, 0, None)],
}


def _fitted(name: str) -> property:
    return property(lambda self: getattr(self.fitted_, name), doc=f"``fitted_.{name}`` (see the class docstring).")


class ProfileRecommender(Params):
    """Explainable like/dislike recommender from co-clusters (de França, 2016, § recommender).

    Co-clusters of the like relation (users × liked movies) and of the dislike relation are found
    with :class:`coclust.HBLCoClust`.  Two predictions are available on one fitted model:

    ``mode="paper"``
        the paper's rule: the side whose profile (its co-clusters' features less the other's) has the
        larger Jaccard similarity with the movie's attributes wins; with no match, it abstains.
    ``mode="scored"`` (default)
        a like-probability from the evidence of :mod:`recsys.model.terms` (shares of likes, the
        rating baseline, the residuals of the users and movies sharing the pair's co-clusters),
        weighed by a logistic regression fitted on a held-out ``validation_fraction`` of the
        training ratings; the profiles are then refitted on all of them (on large data, see
        ``scaling``, the held-out ratings are added instead).

    Parameters
    ----------
    like_threshold : float, default=2.0
        A rating above it is a like (the paper's rule).
    features : {"movies", "all", "attributes"}, default="movies"
        What is co-clustered (:mod:`recsys.model.learning`): users × movies, each co-cluster then
        taking its movies' attributes most of its users like (``movies``); every feature together as
        in the paper (``all``); the attribute features only (``attributes``).
    like_params, dislike_params : dict, optional
        :class:`coclust.HBLCoClust` parameters; default
        :data:`~recsys.model.settings.RECOMMENDER_PARAMS` (:data:`~recsys.model.settings.PAPER_PARAMS`
        are the paper's).
    evidence : tuple of str, default: all of :data:`recsys.model.terms.GROUPS`
        Evidence groups the scored mode uses (ablations remove some).
    n_neighbours, n_votes : int, default=200, 40
        Neighbours kept per user and per movie; those whose residuals vote on one pair.
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
    item_l2_per_like : float, default=0
        Added to a movie's penalty in the item model per like it has, so that the weights of much
        liked movies shrink more (the dropout emphasis of EDLAE, Steck 2020; 0: EASE's one penalty).
    item_support : {"coclusters", "random", "all"}, default="coclusters"
        The pairs of movies the item model may weigh: those the like co-clusters hold together;
        or, as controls for the ablations, as many random pairs, or every pair (EASE).
    list_score : {"blend", "item_model"}, default="blend"
        How the lists rank: the item model's score plus the item's popularity and the person's
        like-probability, weighed on the held-out ratings (:mod:`recsys.model.list_blend`; the
        item model alone unless that ranks them better); or the item model alone (a control).
    scaling : {"auto", "on", "off"}, default="auto"
        The rules for large data (``on``; ``auto``: on from :data:`~recsys.model.settings.LARGE_FROM_RATINGS`
        training ratings): one fit, the held-out ratings added after the weights; the item penalty
        scaled to the like counts; caps on a user's co-clusters, the co-clustering's work and an
        item's partners (none where one inverse is cheap enough: EASE's weights on the pairs).
        Each rule and its measured price: :mod:`recsys.model.settings`.
    refit_item_model : bool, default=False
        With the scaling rules, learn the item model again on every training rating once the
        weights are fitted (on the co-clusters' pairs, as before); without, it keeps what it learnt
        without the held-out ratings. Fits without the rules always learn it from every rating.
    attribute_fit : {"joint", "means"}, default="joint"
        The ``user_attributes`` term from one ridge fit of the user's residuals on all their items'
        attributes, or from each attribute's shrunk mean residual (:mod:`recsys.model.attributes`).
    feedback : {"auto", "explicit", "implicit"}, default="auto"
        Ratings, or interactions (plays, clicks: lists and a relevance score, no like-probability
        or dislike profile; :mod:`recsys.model.feedback`); ``auto``: implicit without a ``rating`` column.
    confidence : {"none", "log"}, default="none"
        Interactions' counts: each interaction weighs 1, or ``log2(1 + count)`` in the item model and lists.
    random_state : int, default=0

    Attributes
    ----------
    fitted_ : Fitted
        What ``fit`` learned or :func:`recsys.store.load` read (:class:`recsys.model.state.Fitted`).
    profiles_ : FittedProfiles
        What was learned from all training ratings.
    weights_ : Weights or None
        The logistic weights, the terms' means and the cut-off (None: the paper's rule only).
    new_item_weights_ : Weights or None
        A new item's (attributes, no rating) score weights, when the evidence has the attributes
        (:func:`recsys.model.terms.new_item_terms`).
    report_ : dict
        Co-cluster and relation counts, step timings.
    validation_terms_ : dict or None
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

    _constraints = PARAMETERS

    profiles_ = _fitted("profiles")
    weights_ = _fitted("weights")
    new_item_weights_ = _fitted("new_item_weights")
    report_ = _fitted("report")
    validation_terms_ = _fitted("validation_terms")
    list_blend_ = _fitted("list_blend")

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
        item_l2_per_like: float = 0.0,
        item_support: str = "coclusters",
        list_score: str = "blend",
        scaling: str = "auto",
        refit_item_model: bool = False,
        feedback: str = "auto",
        confidence: str = "none",
        attribute_fit: str = "joint",
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
        self.item_l2_per_like = item_l2_per_like
        self.item_support = item_support
        self.list_score = list_score
        self.scaling = scaling
        self.refit_item_model = refit_item_model
        self.feedback = feedback
        self.confidence = confidence
        self.attribute_fit = attribute_fit
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
        check_coclustering({"like_params": self.like_params, "dislike_params": self.dislike_params})

    @property
    def terms(self) -> list[str]:
        """The evidence terms of the scored mode."""
        return terms_of(self.evidence)

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
        from .cluster import serving
        from .training import fit_state

        self.check_params()
        with serving(self.like_params, self.dislike_params):
            self.fitted_ = fit_state(self, ratings, item_attributes, items, progress, scored)
        return self

    def with_evidence(self, evidence) -> ProfileRecommender:
        """This fitted model with only the evidence groups ``evidence``: the same profiles, the
        weights refitted on the same held-out ratings (an ablation)."""
        from .training import new_item_weights

        self.check_fitted()
        v = self.fitted_.validation_terms
        if v is None:
            raise NotFittedError("with_evidence needs the held-out terms of fit (a loaded model has none)")
        other = ProfileRecommender(**{**self.get_params(), "evidence": tuple(evidence)})
        check_params(other, ParameterError)
        weights = fit_weights(v["terms"], v["y"], [t for t in other.terms if t in v["terms"]])  # not scaled-out ones
        # the lists' blend is not refitted (its held-out lists are not kept)
        other.fitted_ = Fitted(
            self.profiles_, self.report_, weights, new_item_weights(other.terms, v), self.list_blend_, v
        )
        return other

    def check_fitted(self) -> None:
        """Raise :class:`~recsys.errors.NotFittedError` unless the model is fitted (or loaded)."""
        if not hasattr(self, "fitted_"):
            raise NotFittedError("this ProfileRecommender is not fitted yet; call fit first")

    # -- like or dislike ----------------------------------------------------------------------
    def predict_many(self, users, items, mode: str = "scored", threshold: float | None = None) -> Predictions:
        """Predictions for the pairs ``(users[t], items[t])``; unknown ids are flagged, never fatal;
        ``threshold`` overrides the fitted like-probability cut-off (``weights_.threshold``)."""
        self.check_fitted()
        return scoring.predict_pairs(self, users, items, mode, threshold)

    def predict(self, user, item, mode: str = "scored", threshold: float | None = None, unknown: str = "flag"):
        """One prediction with its explanation (:class:`recsys.model.explanation.Explanation`); an
        unknown user or item gives an uncovered prediction whose ``reason`` says so
        (``unknown="flag"``) or raises :class:`~recsys.errors.UnknownIdError` (``"raise"``)."""
        from .explanation import explain_prediction

        if unknown not in ("flag", "raise"):
            raise ParameterError(f"unknown must be 'flag' or 'raise', got {unknown!r}")
        if unknown == "raise":
            people.known_index(self, "user", user)
            people.known_index(self, "item", item)
        p = self.predict_many(np.array([user], dtype=object), np.array([item], dtype=object), mode, threshold)
        return explain_prediction(self, p, mode, threshold)

    def predict_for(self, ratings, items) -> np.ndarray:
        """Like-probabilities of ``items`` (raw ids; NaN where unknown or unrated in training) for a
        person the model has never seen, from their ``ratings``; nothing is refitted."""
        person = self.fold_in(ratings)
        idx = self.profiles_.item_index(list(items))
        out = np.full(len(idx), np.nan)
        ok = (idx >= 0) & self.fitted_.scoreable[np.maximum(idx, 0)]
        out[ok] = scoring.person_probability(self, person, idx[ok])
        return out

    # -- lists --------------------------------------------------------------------------------
    def recommend(self, who, n: int = 10, mode: str = "scored", exclude_rated: bool = True) -> list[dict]:
        """The ``n`` best movies for ``who`` with their reasons: a user of the training ratings (an
        id; their rated movies listed only if ``exclude_rated`` is false) or a person given by their
        ratings (a mapping item → rating, a frame with ``item`` and ``rating``, or pairs; unknown
        items ignored, rated items never listed, nothing refitted).  Scored mode ranks by the
        co-cluster item model plus the lists' blend (:mod:`recsys.model.listing`), whose parts are the
        reasons and add up to the score; paper mode (a user id) by ``J(like) - J(dislike)``.
        """
        self.check_fitted()
        listing.check_n(n)
        if people.is_history(who):
            return listing.history_list(self, who, n, mode)
        return listing.user_list(self, who, n, mode, exclude_rated)

    def lists(self, users, n: int = 10) -> list:
        """The ``n`` best unrated movies of each user by their list scores, without reasons (for
        batches): per user a list of ``(item id, score)``, or ``None`` for an unknown user.  The
        users are folded in and scored in blocks on every core (:mod:`recsys.model.batch`)."""
        self.check_fitted()
        return listing.batch_lists(self, users, n)

    def explain(self, user) -> dict:
        """The user's like and dislike profiles: attributes grouped by kind with the number of the
        user's co-clusters holding each, the movies, and the co-clusters' counts."""
        from .explanation import explain_profile

        return explain_profile(self.profiles_, people.known_index(self, "user", user))

    def fold_in(self, ratings):
        """The person of ``ratings`` (mapping or frame of item → rating) as the model sees them
        (:class:`recsys.model.fold_in.NewUser`)."""
        self.check_fitted()
        return people.person_of(self, *people.known_ratings(self, ratings))
