"""The recommender model: learning from ratings, the fitted arrays, the terms of a score.

``from recsys.model import ProfileRecommender`` is the public entry.  Importing this package
loads numpy only (prediction from a saved model must start fast); fitting imports the rest.

=====================  ==================================================================
module                 what it holds
=====================  ==================================================================
``recommender``        :class:`ProfileRecommender`: fit / predict / recommend / explain
``settings``           named choices and parameter presets (the paper's, the recommender's)
``ratings``            accepted rating inputs, their checks, the held-out split, the baseline
``learning``           :func:`fit_profiles`: vocabularies → relations → co-clusters → neighbours
``profiles``           :class:`FittedProfiles`, :class:`CoClusters`: the learned arrays
``terms``              the evidence terms of a score, their logistic weights, the paper's rule
``neighbours``         co-cluster neighbourhoods and their votes
``logistic``           the small L2 logistic regression of the weights
``csr``, ``ids``       a numpy-only sparse matrix; raw ids ↔ indices
``threads``            the cores the fit's parallel steps use
=====================  ==================================================================
"""

from .recommender import Predictions, ProfileRecommender, Ranking
from .settings import DISLIKE, LIKE, NONE

__all__ = ["ProfileRecommender", "Predictions", "Ranking", "LIKE", "DISLIKE", "NONE"]
