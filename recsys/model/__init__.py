"""The recommender model: learning from ratings, the fitted arrays, the terms of a score.

``from recsys.model import ProfileRecommender`` is the public entry.  Importing this package
loads numpy only (prediction from a saved model must start fast); fitting imports the rest.

=======================  ================================================================
module                   what it holds
=======================  ================================================================
``recommender``          :class:`ProfileRecommender`: parameters, fit, and the ways to ask
``state``                :class:`Fitted`: what a fit learned, one object that never changes
``training``             what ``fit`` does: validation split, weights, lists' blend, profiles
``scoring``              like or dislike: the like-probability and the paper's rule for pairs
``listing``              top-N lists for a person, with reasons, and in batch
``people``               who a score is for: a user id or a history of ratings
``settings``             named choices and parameter presets (the paper's, the recommender's)
``ratings``              accepted rating inputs, their checks, the held-out split, the baseline
``feedback``             ratings or interactions (implicit feedback): what the data is, how it is read
``learning``             :func:`fit_profiles`: vocabularies → relations → co-clusters → neighbours
``profiles``             :class:`FittedProfiles`, :class:`CoClusters`: the learned arrays
``terms``                the evidence terms of a score, their logistic weights, the paper's rule
``attributes``           what an item is, as evidence: the user–attribute relations as numbers
``neighbours``           co-cluster neighbourhoods and their votes
``logistic``             the small L2 logistic regression of the weights
``item_model``           the co-cluster item model: item–item weights on co-clustered pairs
``dense_inverse``        the item model's and EASE's one inverse: Cholesky by tiles, no BLAS call past one
``shared``               an evaluation's refits learn the same co-clusters, neighbourhoods, weights once
``list_blend``           how a list ranks: item model, popularity, like-probability, weighed
``batch``                lists for a block of people at once (the one path every list takes)
``topn``                 top-N lists and their NDCG, one definition
``fold_in``              a person never seen, folded in from their ratings without refitting
``explanation``          an explanation's numbers: a score's terms, a vote's parts, a list's reasons
``cluster``              where the fit's splittable steps run: threads, or a Dask cluster
``memory``               the memory a fit will need, estimated before it starts
``progress``             how a long step tells how far it is
``csr``, ``ids``         a numpy-only sparse matrix; raw ids ↔ indices
``threads``              the cores the fit's parallel steps use
``_*_kernels``, ``_lookup``  compiled kernels (numba), imported on first use
=======================  ================================================================
"""

from .recommender import Predictions, ProfileRecommender, Ranking
from .settings import DISLIKE, LIKE, NONE

__all__ = ["ProfileRecommender", "Predictions", "Ranking", "LIKE", "DISLIKE", "NONE"]
