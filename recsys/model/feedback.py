"""Explicit ratings or implicit interactions: what the training data is, and how the model reads it.

*Explicit* feedback is ``user, item, rating``: a rating above the like threshold is a like, the
others dislikes, and the model learns both profiles and the like-probability.

*Implicit* feedback is ``user, item`` and perhaps a ``count`` (plays, views, clicks, purchases): an
interaction says the person chose the item, and nothing says they disliked one.  The model then
learns what needs only that positive relation: the like co-clusters (of the interactions) and the
co-cluster item model, which make the lists and their reasons, with popularity blended as on
explicit data.  What needs negatives is absent, not faked: no dislike profile, no like-probability
(``predict`` answers the list's relevance score instead; :mod:`recsys.model.scoring`).

The co-clusters are of the binary relation: an interaction is in it or not.  A ``count`` column
(plays, views; ``weight`` when there is no count; a repeated line adds to it) becomes each
interaction's *confidence* where the model can use it — the item model's regression and the sum
that scores a list, a person's row ``x_u`` of ``x_u W`` — by the declared transform
``confidence="log"``: ``log2(1 + count)``, so that one play weighs 1, three weigh 2 and seven 3
(:data:`CONFIDENCES`).  The default, ``"none"``, weighs every interaction 1: on the play
generator's training part the counts in the item model's rows lowered its lists' NDCG@10, as they
lowered EASE's, while iALS, whose counts weigh its loss, gained (README, "Data without stars").  The model stores an
interaction's confidence as its "rating" (always above :data:`IMPLICIT_THRESHOLD`: a like), and
:meth:`~recsys.model.profiles.FittedProfiles.source_weights` reads it back; the explanations show
each item's term with it, so that they still add up to the score.

>>> import pandas as pd
>>> plays = pd.DataFrame({"user": ["a", "a", "b"], "item": [1, 2, 1], "count": [3, 1, 7]})
>>> resolve("auto", plays)
'implicit'
>>> interactions_frame(plays)["rating"].tolist()
[1.0, 1.0, 1.0]
>>> interactions_frame(plays, confidence="log")["rating"].tolist()
[2.0, 1.0, 3.0]
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
# how a count weighs an interaction: "none", 1 each; "log", log2(1 + count) (one play 1, three 2)
CONFIDENCES = ("none", "log")
# the columns read as counts, the first present
COUNT_COLUMNS = ("count", "weight")


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


def interactions_frame(ratings, confidence: str = "none"):
    """``user, item, rating`` with every (user, item) pair once and ``rating`` its confidence: 1
    (:data:`INTERACTION`), or with ``confidence="log"`` and a count column (:data:`COUNT_COLUMNS`)
    ``log2(1 + count)``, the counts of a pair's lines added (any rating of the input is not read)."""
    import pandas as pd

    if not isinstance(ratings, pd.DataFrame) or not {"user", "item"} <= set(ratings.columns):
        raise RatingsError("interactions must be a DataFrame with columns user and item")
    if len(ratings) == 0:
        raise RatingsError("interactions are empty")
    if ratings[["user", "item"]].isna().any().any():
        raise RatingsError("interactions have a missing user or item id")
    if confidence not in CONFIDENCES:
        raise RatingsError(f"confidence must be one of {', '.join(CONFIDENCES)}, got {confidence!r}")
    column = next((c for c in COUNT_COLUMNS if c in ratings.columns), None)
    if confidence == "none" or column is None:
        pairs = ratings[["user", "item"]].drop_duplicates(ignore_index=True)
        return pairs.assign(rating=np.full(len(pairs), INTERACTION))
    counts = pd.to_numeric(ratings[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(counts) & (counts > 0)))
    if len(bad):
        row = ratings.index[bad[0]]
        raise RatingsError(
            f"interactions' {column} must be positive numbers: row {row!r} has {ratings[column].iloc[bad[0]]!r}"
            f" ({len(bad):,} such rows)"
        )
    frame = ratings[["user", "item"]].assign(count=counts)
    pairs = frame.groupby(["user", "item"], sort=False, as_index=False)["count"].sum()
    return pairs[["user", "item"]].assign(rating=confidence_of(pairs["count"].to_numpy()))


def confidence_of(counts) -> np.ndarray:
    """The ``"log"`` confidence of interaction counts: ``log2(1 + count)`` (1 for one)."""
    return np.log2(1.0 + np.asarray(counts, dtype=np.float64))
