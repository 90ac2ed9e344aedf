"""Every compared method by name: the one place that knows them all (the method modules import
:mod:`recsys.evaluation.methods`, never each other or this one, so there is no import cycle)."""

from __future__ import annotations

from .anchors import ANCHORS
from .methods import AttributeLogistic, Majority, NaiveBayes, PaperRule, Popularity, ProfileMethod
from .surprise_methods import SURPRISE_METHODS, SurpriseMethod


def method_factories(
    like_threshold: float, seed: int, profile_params: dict, paper_params: dict, paper_features: str
) -> dict:
    """A maker of every method by name: ``make(point)`` gives a fresh, unfitted instance with the
    grid point ``point`` (a dict of its hyper-parameters; empty for its defaults)."""
    paper = {**profile_params, "features": paper_features, "like_params": paper_params, "dislike_params": paper_params}
    return {
        "majority": lambda point: Majority(),
        **{name: (lambda point, n=name: SurpriseMethod(n, seed, like_threshold, **point)) for name in SURPRISE_METHODS},
        "naive_bayes": lambda point: NaiveBayes(like_threshold),
        "attribute_logistic": lambda point: AttributeLogistic(like_threshold, seed, **point),
        "profile_paper": lambda point: PaperRule(**paper),
        "profile": lambda point: ProfileMethod(point, **profile_params),
        "popularity": lambda point: Popularity(like_threshold, **point),
        **{name: (lambda point, c=cls: c(like_threshold, seed, **point)) for name, cls in ANCHORS.items()},
    }
