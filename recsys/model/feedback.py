"""Explicit ratings or implicit interactions: what the training data is, and how the model reads it.

*Explicit* feedback is ``user, item, rating``: a rating above the like threshold is a like, the
others dislikes, and the model learns both profiles and the like-probability.

*Implicit* feedback is ``user, item`` and perhaps a ``count`` (plays, views, clicks, purchases): an
interaction says the person chose the item, and nothing says they disliked one.  The model then
learns what needs only that positive relation: the like co-clusters (of the interactions) and the
co-cluster item model, which make the lists and their reasons, with popularity blended as on
explicit data.  What needs negatives is absent, not faked: no dislike profile, no like-probability
(``predict`` answers the list's relevance score instead; :mod:`recsys.model.scoring`).

Every interaction counts once: the co-clusters are of a binary relation, and the item model reads
0/1 like EASE and iALS's usual setting; a ``count`` column is read (a repeated line adds to it) and
kept with the data, not weighted.

>>> import pandas as pd
>>> plays = pd.DataFrame({"user": ["a", "a", "b"], "item": [1, 2, 1], "count": [3, 1, 7]})
>>> resolve("auto", plays)
'implicit'
>>> interactions_frame(plays)["rating"].tolist()
[1.0, 1.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from ..errors import RatingsError

EXPLICIT, IMPLICIT = "explicit", "implicit"
FEEDBACKS = ("auto", EXPLICIT, IMPLICIT)
INTERACTION_COLUMNS = ("user", "item", "count", "weight", "timestamp")
# the words of a like in explanations: an interaction says the person chose the item, not that they liked it
LIKED = {EXPLICIT: "liked", IMPLICIT: "chose"}
LIKED_BY = {EXPLICIT: "liked by", IMPLICIT: "chosen by"}
# an interaction as the model stores it: a "rating" above IMPLICIT_THRESHOLD, so a like
INTERACTION = 1.0
IMPLICIT_THRESHOLD = 0.0


def resolve(feedback: str, ratings) -> str:
    """``explicit`` or ``implicit``: as asked, or (``auto``) implicit when ``ratings`` (a DataFrame)
    has no ``rating`` column and nothing but interaction columns (``user, item`` and perhaps
    ``count``, ``weight``, ``timestamp``): a frame whose ratings are under another name is an error,
    not interactions."""
    if feedback != "auto":
        return feedback
    columns = getattr(ratings, "columns", None)
    if columns is None or "rating" in columns:
        return EXPLICIT
    others = sorted(set(map(str, columns)) - set(INTERACTION_COLUMNS))
    if others:
        raise RatingsError(
            f"ratings must be a DataFrame with columns user, item, rating; or, for interactions (implicit "
            f"feedback), user, item and perhaps count, weight, timestamp; got also {others}"
        )
    return IMPLICIT


def interactions_frame(ratings):
    """``user, item, rating`` with every (user, item) pair once and ``rating`` :data:`INTERACTION`
    (any rating or count of the input is not read)."""
    import pandas as pd

    if not isinstance(ratings, pd.DataFrame) or not {"user", "item"} <= set(ratings.columns):
        raise RatingsError("interactions must be a DataFrame with columns user and item")
    if len(ratings) == 0:
        raise RatingsError("interactions are empty")
    if ratings[["user", "item"]].isna().any().any():
        raise RatingsError("interactions have a missing user or item id")
    pairs = ratings[["user", "item"]].drop_duplicates(ignore_index=True)
    return pairs.assign(rating=np.full(len(pairs), INTERACTION))
