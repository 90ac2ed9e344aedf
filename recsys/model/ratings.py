"""Training ratings: accepted inputs, their checks, the held-out split and the rating baseline.

>>> import pandas as pd
>>> r = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 11, 10, 12], "rating": [5.0, 3.0, 4.0, 1.0]})
>>> check_ratings(r)
>>> holdout_mask(r, 0.5, seed=0).tolist() == holdout_mask(r.iloc[::-1], 0.5, seed=0)[::-1].tolist()
True
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, RatingsError
from .csr import Csr


def as_ratings_frame(ratings):
    """A DataFrame ``user, item, rating`` from a DataFrame, a ``surprise.Trainset`` or a ``surprise.Dataset``."""
    import pandas as pd

    if isinstance(ratings, pd.DataFrame):
        return ratings
    try:
        from surprise import Dataset, Trainset
    except ImportError:  # pragma: no cover - surprise is a dependency
        Dataset = Trainset = ()
    if isinstance(ratings, Dataset):
        ratings = ratings.build_full_trainset()
    if isinstance(ratings, Trainset):
        rows = [(ratings.to_raw_uid(u), ratings.to_raw_iid(i), r) for u, i, r in ratings.all_ratings()]
        return pd.DataFrame(rows, columns=["user", "item", "rating"])
    raise ParameterError(f"ratings must be a DataFrame or a surprise Trainset/Dataset, got {type(ratings).__name__}")


def check_ratings(ratings) -> None:
    """Raise :class:`RatingsError` unless ``ratings`` is a DataFrame of finite (user, item, rating)
    with no repeated pair."""
    import pandas as pd

    if not isinstance(ratings, pd.DataFrame) or not {"user", "item", "rating"} <= set(ratings.columns):
        raise RatingsError("ratings must be a DataFrame with columns user, item, rating")
    if len(ratings) == 0:
        raise RatingsError("ratings is empty")
    r = pd.to_numeric(ratings["rating"], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(r).all():
        bad = ratings.loc[~np.isfinite(r), "rating"].iloc[0]
        raise RatingsError(f"ratings must be finite numbers, found {bad!r}")
    if ratings[["user", "item"]].isna().any().any():
        raise RatingsError("ratings have a missing user or item id")
    from ingest.userfiles import any_repeated_pair

    if any_repeated_pair(ratings):  # a sorted key per pair: 6.6 s of DataFrame.duplicated on 18 M ratings
        dup = ratings.duplicated(["user", "item"], keep=False)
        first = ratings.loc[dup, ["user", "item"]].iloc[0]
        raise RatingsError(
            f"ratings hold {int(dup.sum())} rows of repeated (user, item) pairs, e.g. ({first['user']}, "
            f"{first['item']}); keep one rating per pair"
        )


def holdout_mask(ratings, fraction: float, seed: int) -> np.ndarray:
    """True for the ratings held out: a hash of (user, item, seed) below ``fraction``.

    It depends on the pair, not on the row order, so the same ratings in any order (a DataFrame,
    a Surprise trainset) give the same split.
    """
    key = f"recsys{int(seed) & 0xFFFFFFFFFF:010d}"[-16:]
    h = _tuple_hash([_string_hash(ratings[column], key) for column in ("user", "item")])
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) < fraction


def _string_hash(column, key: str) -> np.ndarray:
    """``pd.util.hash_pandas_object(column.astype(str), index=False, hash_key=key)``, each distinct
    id converted and hashed once: the conversion of every row to a string took 2.7 s of 10 M
    ratings (the split, and so every result, depends on these exact hashes)."""
    import pandas as pd

    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    hashed = pd.util.hash_pandas_object(pd.Series(uniques).astype(str), index=False, hash_key=key).to_numpy()
    return hashed[codes]


def _tuple_hash(columns: list[np.ndarray]) -> np.ndarray:
    """The row hash pandas combines a DataFrame's column hashes into (CPython's tuple hash), so that
    ``_tuple_hash([h(user), h(item)])`` is ``hash_pandas_object(frame, index=False)``."""
    out = np.full(len(columns[0]), 0x345678, dtype=np.uint64)
    mult = np.uint64(1000003)
    for i, h in enumerate(columns):
        out ^= h
        out *= mult
        mult += np.uint64(82520 + 2 * (len(columns) - i))
    return out + np.uint64(97531)


def rating_baseline(ratings: Csr, reg_user: float = 15.0, reg_item: float = 10.0, n_iter: int = 10):
    """``(mean, user_bias, item_bias)`` by alternating regularised means: Surprise's
    ``BaselineOnly`` with its default ALS options (``reg_u=15``, ``reg_i=10``, 10 epochs)."""
    from ._csr_kernels import rating_biases

    r = np.ascontiguousarray(ratings.values, dtype=np.float64)
    mean = float(r.mean()) if len(r) else 0.0
    ptr, idx = ratings.ptr.astype(np.int64, copy=False), ratings.idx.astype(np.int64, copy=False)
    bu, bi = rating_biases(ptr, idx, r, int(ratings.shape[1]), mean, float(reg_user), float(reg_item), int(n_iter))
    return mean, bu, bi
