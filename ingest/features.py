"""Names of the features of the like/dislike relations, defined once.

A feature is ``kind:value:P``: ``kind`` the attribute kind (``movie``, ``genre``, ``director``,
``tag``, …; no colon), ``value`` the attribute's value (may hold colons), ``P`` the polarity,
``Y`` (liked) or ``N`` (disliked).  Without its polarity a feature is an *attribute*
(``genre:Drama``); an item's own attribute is ``movie:<item id>``.

>>> f = Feature("genre", "Sci-Fi", LIKED)
>>> str(f), f.attribute
('genre:Sci-Fi:Y', 'genre:Sci-Fi')
>>> Feature.parse("director:Ridley Scott:N")
Feature(kind='director', value='Ridley Scott', polarity='N')
>>> format_features(["movie", "genre"], ["50", "Drama"], ["Y", "N"]).tolist()
['movie:50:Y', 'genre:Drama:N']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The polarity letters of a feature (a recommender's verdicts, "like" / "dislike", are other names:
# recsys.model.settings).
LIKED, DISLIKED = "Y", "N"
POLARITIES = (LIKED, DISLIKED)
ITEM_KIND = "movie"


@dataclass(frozen=True)
class Feature:
    """One feature (``polarity`` given) or attribute (``polarity=""``)."""

    kind: str
    value: str
    polarity: str = ""

    def __post_init__(self) -> None:
        if not self.kind or ":" in self.kind:
            raise ValueError(f"an attribute kind is a non-empty name without ':', got {self.kind!r}")
        if self.polarity not in ("", *POLARITIES):
            raise ValueError(f"polarity must be {LIKED!r}, {DISLIKED!r} or empty, got {self.polarity!r}")

    @property
    def attribute(self) -> str:
        """The name without polarity: ``kind:value``."""
        return f"{self.kind}:{self.value}"

    def __str__(self) -> str:
        return f"{self.attribute}:{self.polarity}" if self.polarity else self.attribute

    @classmethod
    def parse(cls, name: str, with_polarity: bool | None = None) -> Feature:
        """Read ``kind:value[:P]``; ``with_polarity=None`` takes a trailing ``:Y``/``:N`` as the polarity."""
        kind, sep, rest = str(name).partition(":")
        if not sep:
            raise ValueError(f"not a feature name (kind:value[:Y|N]): {name!r}")
        polarity = ""
        if with_polarity is not False and rest[-2:] in (":" + LIKED, ":" + DISLIKED):
            rest, polarity = rest[:-2], rest[-1]
        elif with_polarity:
            raise ValueError(f"feature {name!r} has no :{LIKED} or :{DISLIKED} polarity")
        return cls(kind, rest, polarity)


def attribute_names(kinds, values) -> np.ndarray:
    """``kind:value`` for parallel sequences (vectorised), as an object array."""
    kinds = np.asarray(kinds, dtype=object).astype(str).astype(object)
    values = np.asarray(values, dtype=object).astype(str).astype(object)
    return kinds + ":" + values


def item_attributes(items) -> np.ndarray:
    """The attribute naming each item itself: ``movie:<id>``."""
    items = np.asarray(items, dtype=object)
    return attribute_names(np.full(len(items), ITEM_KIND, dtype=object), items)


def format_features(kinds, values, polarity) -> np.ndarray:
    """``kind:value:P`` for parallel sequences; ``polarity`` is one letter or a sequence of them."""
    base = attribute_names(kinds, values)
    pol = np.broadcast_to(np.asarray(polarity, dtype=object), base.shape)
    return base + ":" + pol


def split_features(names) -> tuple[np.ndarray, np.ndarray]:
    """``(attributes, polarities)`` of feature names ``kind:value:P`` (vectorised)."""
    names = np.asarray(names, dtype=object).astype(str)
    if names.size == 0:
        return names.astype(object), names.astype(object)
    tail = np.char.rpartition(names, ":")
    bad = ~np.isin(tail[:, 2], POLARITIES) | (np.char.find(tail[:, 0], ":") < 1)
    if bad.any():
        raise ValueError(f"not a feature name kind:value:{LIKED}|{DISLIKED}: {names[bad][0]!r}")
    return tail[:, 0].astype(object), tail[:, 2].astype(object)


def attribute_kinds(attributes) -> np.ndarray:
    """The kind of each ``kind:value`` attribute (vectorised)."""
    attributes = np.asarray(attributes, dtype=object).astype(str)
    if attributes.size == 0:
        return attributes.astype(object)
    return np.char.partition(attributes, ":")[:, 0].astype(object)


def attribute_values(attributes) -> np.ndarray:
    """The value of each ``kind:value`` attribute (vectorised)."""
    attributes = np.asarray(attributes, dtype=object).astype(str)
    if attributes.size == 0:
        return attributes.astype(object)
    return np.char.partition(attributes, ":")[:, 2].astype(object)
