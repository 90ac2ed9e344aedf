"""The product as a cornac ``Recommender``: fit on a cornac train set, scored by cornac's own
``Experiment`` beside its models (cornac is a dependency already: EASE comes from it)::

    import cornac
    from recsys.cornac_recommender import CoClusterRecommender

    # train, test: lists of (user, item, rating)
    method = cornac.eval_methods.BaseMethod.from_splits(train, test, rating_threshold=4.0, exclude_unknowns=True)
    models = [CoClusterRecommender(), cornac.models.EASE(lamb=400)]
    cornac.Experiment(method, models, [cornac.metrics.NDCG(k=10)]).run()

``score(user_idx)`` is every item's list score (:mod:`recsys.model.listing`: the co-cluster item
model plus the lists' blend), the items the user rated in training lowest: cornac ranks the
training items a user rated below its ``rating_threshold`` among the candidates, the product never
lists a rated item.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from cornac.exception import ScoreException
from cornac.models import Recommender

from .model import ProfileRecommender
from .model.listing import list_score_rows


class CoClusterRecommender(Recommender):
    """:class:`~recsys.model.ProfileRecommender` behind cornac's ``Recommender`` interface.

    Parameters
    ----------
    name : str, default="HBLCoClust"
    item_attributes : DataFrame with columns ``item, kind, value``, optional
        The items' attributes, keyed by the raw item ids of cornac's data.
    items : DataFrame with columns ``item, title``, optional
    **params
        :class:`~recsys.model.ProfileRecommender` parameters.

    Attributes
    ----------
    model_ : ProfileRecommender
        The fitted model (its ids are cornac's raw ids).
    """

    def __init__(self, name: str = "HBLCoClust", item_attributes=None, items=None, verbose: bool = False, **params):
        super().__init__(name=name, trainable=True, verbose=verbose)
        self.item_attributes, self.items, self.params = item_attributes, items, params

    def fit(self, train_set, val_set=None):
        Recommender.fit(self, train_set, val_set)
        u, i, r = train_set.uir_tuple
        user_ids, item_ids = np.asarray(train_set.user_ids, dtype=object), np.asarray(train_set.item_ids, dtype=object)
        ratings = pd.DataFrame({"user": user_ids[u], "item": item_ids[i], "rating": np.asarray(r, dtype=np.float64)})
        self.model_ = ProfileRecommender(**self.params).fit(ratings, self.item_attributes, self.items)
        fp = self.model_.profiles_  # cornac's indices → the model's (the raw ids are the same)
        self._users, self._items = fp.user_index(user_ids.tolist()), fp.item_index(item_ids.tolist())
        return self

    def score(self, user_idx, item_idx=None):
        if self.is_unknown_user(user_idx) or self._users[user_idx] < 0:
            raise ScoreException(f"Can't make score prediction for user {user_idx}")
        fp, u = self.model_.profiles_, int(self._users[user_idx])
        row = list_score_rows(self.model_, [(fp.ratings.row(u), fp.ratings.row_values(u))])[0]
        known = self._items >= 0
        out = np.full(len(self._items), -np.inf)
        out[known] = row[self._items[known]]
        # below every listed item, in the product's own order: a rated or unlisted item last
        floor = out[np.isfinite(out)].min(initial=0.0) - 1.0
        out[~np.isfinite(out)] = floor
        return out if item_idx is None else out[item_idx]
