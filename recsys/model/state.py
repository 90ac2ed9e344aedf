"""What a fitted :class:`~recsys.model.ProfileRecommender` knows, in one object that never changes.

``fit`` builds it (:mod:`recsys.model.training`) and :func:`recsys.store.load` reads it back; the
model's fitted attributes (``profiles_``, ``weights_``, …) read it, and scoring and lists
(:mod:`recsys.model.scoring`, :mod:`recsys.model.listing`) take it with the model's parameters.
Nothing here imports more than numpy: a saved model loads without the fitting stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import NotFittedError
from .list_blend import ListBlend
from .terms import Weights

if TYPE_CHECKING:
    from .profiles import FittedProfiles

NO_LIKE_PROBABILITY = (
    "this model learnt from implicit feedback (interactions, no ratings): it has lists and relevance scores, "
    "no like-probability"
)
NO_ITEM_MODEL = "this model has no item model (fitted for the paper's rule only); use mode='paper'"


@dataclass(frozen=True, eq=False)
class Fitted:
    """The fitted state.

    Attributes
    ----------
    profiles : FittedProfiles
        What was learned from all training ratings.
    report : dict
        Co-cluster and relation counts, step timings.
    weights : Weights or None
        The score's logistic weights; None for a model fitted for the paper's rule only.
    new_item_weights : Weights or None
        A new item's (attributes, no rating) score weights; None unless the evidence has the
        attribute terms.
    list_blend : ListBlend
        The lists' weights of popularity and like-probability.
    validation_terms : dict or None
        The held-out terms and labels the weights were fitted on (kept for ablations; a loaded
        model has none).
    """

    profiles: FittedProfiles
    report: dict
    weights: Weights | None = None
    new_item_weights: Weights | None = None
    list_blend: ListBlend = ListBlend()
    validation_terms: dict | None = None

    @property
    def scored(self) -> bool:
        """Whether the like-probability exists (not a model for the paper's rule only)."""
        return self.weights is not None

    @property
    def implicit(self) -> bool:
        """Whether the model learnt from implicit feedback (:mod:`recsys.model.feedback`): lists and
        relevance scores, no like-probability and no dislike profile."""
        return self.profiles.implicit

    @property
    def uses_attributes(self) -> bool:
        """Whether the score weighs the attribute evidence: then new items (attributes, no rating)
        are scored and listed from their attributes (:mod:`recsys.model.attributes`)."""
        return self.new_item_weights is not None

    @property
    def scoreable(self) -> np.ndarray:
        """The items a like-probability exists for: those rated in training and, when the score
        uses the attributes, those with attributes (new items)."""
        fp = self.profiles
        if self.uses_attributes:
            return fp.item_rated | (fp.item_attributes.lengths > 0)
        return fp.item_rated

    def new_items(self) -> np.ndarray:
        """Ids of the items scored and listed from their attributes alone (no training rating);
        none unless the score uses the attributes."""
        fp = self.profiles
        return fp.items[fp.attribute_evidence.new_items] if self.uses_attributes else fp.items[:0]

    def weights_for(self, items: np.ndarray) -> list[tuple[np.ndarray, Weights]]:
        """``(positions, weights)`` groups of the item indices ``items``: the rated items' positions
        with ``weights``, the new items' with ``new_item_weights``."""
        items = np.asarray(items, dtype=np.int64)
        new = ~self.profiles.item_rated[items] if self.uses_attributes else np.zeros(len(items), dtype=bool)
        groups = [(np.flatnonzero(~new), self.weights), (np.flatnonzero(new), self.new_item_weights)]
        return [(pos, w) for pos, w in groups if len(pos)]

    def check_scored(self) -> None:
        if self.implicit:
            raise NotFittedError(NO_LIKE_PROBABILITY)
        if not self.scored:
            raise NotFittedError("this model was fitted for the paper's rule only (scored=False); use mode='paper'")

    def check_listable(self) -> None:
        if not self.implicit:
            self.check_scored()
        if self.profiles.item_weights is None:
            raise NotFittedError(NO_ITEM_MODEL)
