"""User–attribute relations for the recommender, exactly as the paper builds them.

For each training rating ``(user, movie, r)``: the relation ``(user, movie:<id>:Y)`` if
``r > threshold`` else ``(user, movie:<id>:N)``.  For each user and attribute ``a`` (a genre, a
director, …): the mean ``m`` of the user's training ratings of the movies carrying ``a`` gives
``(user, <kind>:<a>:Y)`` if ``m > threshold`` else ``:N``.  Test ratings are never an input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .errors import DataRequestError
from .features import (
    DISLIKED,
    ITEM_KIND,
    LIKED,
    attribute_kinds,
    attribute_names,
    attribute_values,
    format_features,
    split_features,
)


@dataclass
class Relations:
    """A binary objects × features relation with its vocabularies.

    Attributes
    ----------
    matrix : csr_matrix of int8, shape (n_objects, n_features)
    objects : ndarray
        Row vocabulary (user ids, document ids, …).
    features : ndarray of str
        Column vocabulary (``movie:50:Y``, ``genre:Comedy:N``, ``term:space``, …).
    labels : ndarray, optional
        One class label per object (benchmark data sets).
    """

    matrix: sp.csr_matrix
    objects: np.ndarray
    features: np.ndarray
    labels: np.ndarray | None = None

    @property
    def n_relations(self) -> int:
        return int(self.matrix.nnz)

    def feature_info(self) -> pd.DataFrame:
        """``kind``, ``value`` and ``polarity`` (Y/N, or empty) of every feature."""
        names = np.asarray(self.features, dtype=object).astype(str)
        polar = np.char.endswith(names, ":" + LIKED) | np.char.endswith(names, ":" + DISLIKED)
        attrs = names.astype(object)
        pol = np.full(len(names), "", dtype=object)
        if polar.any():
            attrs[polar], pol[polar] = split_features(names[polar])
        return pd.DataFrame(
            {"feature": names, "kind": attribute_kinds(attrs), "value": attribute_values(attrs), "polarity": pol}
        )

    def frame(self) -> pd.DataFrame:
        """The relations as a two-column DataFrame ``object, feature``."""
        coo = self.matrix.tocoo()
        return pd.DataFrame({"object": self.objects[coo.row], "feature": self.features[coo.col]})

    def select_features(self, mask: np.ndarray) -> Relations:
        """The relation restricted to the features where ``mask`` is True (all objects kept)."""
        idx = np.flatnonzero(mask)
        return Relations(self.matrix[:, idx].tocsr(), self.objects, self.features[idx], self.labels)

    def like(self) -> Relations:
        """The like view: the ``:Y`` features only."""
        return self.select_features(self.feature_info()["polarity"].to_numpy() == LIKED)

    def dislike(self) -> Relations:
        """The dislike view: the ``:N`` features only."""
        return self.select_features(self.feature_info()["polarity"].to_numpy() == DISLIKED)

    def summary(self) -> dict:
        """Counts of objects, movies, attributes and relations (total, like, dislike)."""
        info = self.feature_info()
        pol = info["polarity"].to_numpy()
        per_col = np.diff(self.matrix.tocsc().indptr)
        is_movie = (info["kind"] == ITEM_KIND).to_numpy()
        attrs = info.loc[~is_movie, ["kind", "value"]].drop_duplicates()
        return {
            "users": int((np.diff(self.matrix.indptr) > 0).sum()),
            "movies": int(info.loc[is_movie, "value"].nunique()),
            "attributes": int(len(attrs)),
            "features": int(len(self.features)),
            "relations": self.n_relations,
            "movie_relations": int(per_col[is_movie].sum()),
            "attribute_relations": int(per_col[~is_movie].sum()),
            "like_relations": int(per_col[pol == LIKED].sum()),
            "dislike_relations": int(per_col[pol == DISLIKED].sum()),
            "attributes_by_kind": {k: int(v) for k, v in attrs["kind"].value_counts().sort_index().items()},
        }


def build_relations(
    ratings: pd.DataFrame,
    item_attributes: pd.DataFrame | None = None,
    threshold: float = 2.0,
    kinds: list[str] | None = None,
) -> Relations:
    """Like/dislike user–movie and user–attribute relations from training ratings.

    Parameters
    ----------
    ratings : DataFrame with columns ``user, item, rating``
        Training ratings only.
    item_attributes : DataFrame with columns ``item, kind, value``, optional
        Movie attributes (genre, director, writer, cast, actor, actress, keyword, …).
    threshold : float, default=2.0
        A rating (or a user's mean rating of an attribute's movies) above it is a like.
    kinds : list of str, optional
        Attribute kinds to use; default all present.

    Returns
    -------
    Relations
        Users × features, features ``movie:<id>:Y|N`` and ``<kind>:<value>:Y|N``.

    Examples
    --------
    >>> r = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [5, 1, 2]})
    >>> a = pd.DataFrame({"item": [10, 11], "kind": "genre", "value": ["Drama", "Drama"]})
    >>> sorted(build_relations(r, a).frame().itertuples(index=False, name=None))
    [(1, 'genre:Drama:Y'), (1, 'movie:10:Y'), (1, 'movie:11:N'), (2, 'genre:Drama:N'), (2, 'movie:10:N')]
    """
    _check_inputs(ratings, threshold)
    # Rows and features as integer keys (movies 2 × item + liked, then attributes after them); a
    # feature's name is written once, not once per rating: at 25 M ratings the per-rating names,
    # their sort and a two-column group-by took 67 s.
    users = ratings["user"].to_numpy()
    liked = ratings["rating"].to_numpy(dtype=np.float64) > threshold
    item_codes, item_ids = pd.factorize(ratings["item"])
    keys = [2 * item_codes.astype(np.int64) + liked]
    objs = [users]
    distinct = _distinct(keys[0])
    names = [
        format_features(
            np.full(len(distinct), ITEM_KIND, dtype=object),
            np.asarray(item_ids, dtype=object)[distinct // 2],
            _polarity(distinct),
        )
    ]
    if item_attributes is not None and len(item_attributes):
        u, codes, attr_liked, attr_names = _attribute_relations(ratings, item_attributes, threshold, kinds)
        attr_keys = 2 * codes + attr_liked
        attr_distinct = _distinct(attr_keys)
        offset = 2 * len(item_ids)
        objs.append(u)
        keys.append(offset + attr_keys)
        distinct = np.r_[distinct, offset + attr_distinct]
        names.append(np.asarray(attr_names, dtype=object)[attr_distinct // 2] + ":" + _polarity(attr_distinct))
    return _assemble(objs, keys, distinct, names)


def _check_inputs(ratings: pd.DataFrame, threshold: float) -> None:
    missing = {"user", "item", "rating"} - set(ratings.columns)
    if missing:
        raise DataRequestError(f"ratings lack columns {sorted(missing)}")
    if not np.isfinite(threshold):
        raise DataRequestError(f"threshold must be a finite number, got {threshold!r}")


def _assemble(objs: list, keys: list, distinct: np.ndarray, names: list) -> Relations:
    """The 0/1 relations of the rows ``objs`` and integer feature keys ``keys`` (parts of equal
    lengths), the features named by ``names`` in the order of ``distinct`` (their distinct keys)."""
    o_codes, o_vocab = pd.factorize(np.concatenate(objs), sort=True)
    # the sorted vocabulary of the distinct names (equal names, if any, become one feature)
    name_codes, f_vocab = pd.factorize(np.concatenate(names), sort=True)
    column = np.empty(int(distinct.max()) + 1 if len(distinct) else 0, dtype=np.int64)
    column[distinct] = name_codes
    f_codes = column[np.concatenate(keys)]
    X = sp.csr_matrix((np.ones(len(o_codes), dtype=np.int8), (o_codes, f_codes)), shape=(len(o_vocab), len(f_vocab)))
    X.sum_duplicates()
    X.data[:] = 1
    return Relations(X, np.asarray(o_vocab), np.asarray(f_vocab, dtype=object))


def _attribute_relations(ratings: pd.DataFrame, item_attributes: pd.DataFrame, threshold: float, kinds):
    """``(users, attribute codes, liked, attribute names)``: for each user and attribute of the
    movies the user rated, whether the user's mean rating of those movies is above ``threshold``."""
    attrs = item_attributes[["item", "kind", "value"]].drop_duplicates()
    if kinds is not None:
        unknown = set(kinds) - set(attrs["kind"].unique())
        if unknown:
            available = sorted(attrs["kind"].unique())
            raise DataRequestError(f"no attributes of kind {sorted(unknown)}; available: {available}")
        attrs = attrs[attrs["kind"].isin(kinds)]
    codes, vocab = pd.factorize(attribute_names(attrs["kind"], attrs["value"]))
    # Each user's mean rating per attribute, compiled (ingest._kernels.attribute_means): linear in the
    # ratings' attribute memberships, where joining every rating to its attributes and grouping the
    # joined rows took 5.5 s of 10 M ratings and grew faster.  The items are matched as pandas' merge
    # matches them (its dtype rules and errors); an attribute listed twice on an item counts twice
    # and a NaN rating in no mean, as in the merge and group-by this replaces.
    from ._kernels import attribute_means

    item_codes, item_ids = pd.factorize(ratings["item"])
    matched = pd.DataFrame({"item": item_ids, "pos": np.arange(len(item_ids))}).merge(
        pd.DataFrame({"item": attrs["item"].to_numpy(), "code": codes}), on="item"
    )
    pos, code = matched["pos"].to_numpy(dtype=np.int64), matched["code"].to_numpy(dtype=np.int64)
    a_idx = code[np.argsort(pos, kind="stable")]  # each item's attributes, a repeated one repeated
    a_ptr = np.r_[0, np.cumsum(np.bincount(pos, minlength=len(item_ids)))].astype(np.int64)
    user_codes, user_ids = pd.factorize(ratings["user"])
    if (user_codes < 0).any() or (item_codes < 0).any():
        raise DataRequestError("ratings have a missing user or item id")
    users, found, sums, counts = attribute_means(
        user_codes.astype(np.int64),
        item_codes.astype(np.int64),
        np.ascontiguousarray(ratings["rating"].to_numpy(dtype=np.float64)),
        a_ptr,
        a_idx,
        len(user_ids),
        len(vocab),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        liked = sums / counts > threshold  # a mean of no rating is NaN: not a like
    return np.asarray(user_ids)[users], found, liked, vocab


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct non-negative integers of ``keys``, sorted."""
    present = np.zeros(int(keys.max()) + 1 if len(keys) else 0, dtype=bool)
    present[keys] = True
    return np.flatnonzero(present)


def _polarity(keys: np.ndarray) -> np.ndarray:
    """The polarity letter of each feature key (``2 × code + liked``)."""
    return np.where(keys % 2 == 1, LIKED, DISLIKED).astype(object)
