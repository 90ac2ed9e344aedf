"""Train/test splits of any ratings table, named by a short spec.

========================  ====================================================================
spec                      split
========================  ====================================================================
``all``                   every rating is training; no test
``random:F:SEED``         a random ``F`` of the ratings (rounded) is the test set
``leave-k-out:K:SEED``    per user, ``K`` random ratings are the test set (users with ``K`` or
                          fewer ratings keep them all in training)
``temporal:F``            the latest ``F`` of the ratings by timestamp are the test set (needs a
                          ``timestamp`` column; equal timestamps keep the file order)
========================  ====================================================================

MovieLens 100K's own splits (``u1`` … ``u5``, ``ua``, ``ub``) are files, read by
:mod:`ingest.movielens`.

>>> import pandas as pd
>>> r = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 2], "rating": 4, "timestamp": [5, 1, 3, 2, 4]})
>>> train, test = split_ratings(r, "temporal:0.4")
>>> test["timestamp"].tolist()
[5, 4]
>>> [len(x) for x in split_ratings(r, "leave-k-out:1:0")]
[3, 2]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import DataRequestError

SPEC_HELP = "all, random:FRACTION:SEED, leave-k-out:K:SEED or temporal:FRACTION"


@dataclass(frozen=True)
class Split:
    kind: str
    fraction: float | None = None
    k: int | None = None
    seed: int = 0

    def __str__(self) -> str:
        if self.kind == "all":
            return "all"
        if self.kind == "random":
            return f"random:{self.fraction:g}:{self.seed}"
        if self.kind == "leave-k-out":
            return f"leave-k-out:{self.k}:{self.seed}"
        return f"temporal:{self.fraction:g}"


def parse_split(spec: str) -> Split:
    """Read a split spec (see the module docstring); a bad one raises :class:`DataRequestError`."""
    parts = str(spec).strip().split(":")
    kind = parts[0]
    try:
        if kind == "all" and len(parts) == 1:
            return Split("all")
        if kind == "random" and len(parts) == 3:
            f, seed = float(parts[1]), int(parts[2])
            if 0 < f < 1 and seed >= 0:
                return Split("random", fraction=f, seed=seed)
        if kind == "leave-k-out" and len(parts) == 3:
            k, seed = int(parts[1]), int(parts[2])
            if k >= 1 and seed >= 0:
                return Split("leave-k-out", k=k, seed=seed)
        if kind == "temporal" and len(parts) == 2:
            f = float(parts[1])
            if 0 < f < 1:
                return Split("temporal", fraction=f)
    except ValueError:
        pass
    raise DataRequestError(
        f"bad split {spec!r}: use {SPEC_HELP} (0 < FRACTION < 1, K >= 1, SEED >= 0), e.g. random:0.2:0"
    )


def split_ratings(ratings, spec: str | Split):
    """``(train, test)`` of a ratings DataFrame; ``test`` is None for ``all``."""
    split = spec if isinstance(spec, Split) else parse_split(spec)
    n = len(ratings)
    if split.kind == "all":
        return ratings, None
    if split.kind == "random":
        rng = np.random.default_rng(split.seed)
        is_test = np.zeros(n, dtype=bool)
        is_test[rng.permutation(n)[: int(round(split.fraction * n))]] = True
    elif split.kind == "leave-k-out":
        rng = np.random.default_rng(split.seed)
        key = rng.random(n)
        users = ratings["user"].to_numpy()
        order = np.lexsort((key, users))
        u_sorted = users[order]
        starts = np.r_[0, np.flatnonzero(u_sorted[1:] != u_sorted[:-1]) + 1]
        counts = np.diff(np.r_[starts, n])
        rank = np.arange(n) - np.repeat(starts, counts)
        big = np.repeat(counts > split.k, counts)
        is_test = np.zeros(n, dtype=bool)
        is_test[order[(rank < split.k) & big]] = True
    else:
        if "timestamp" not in ratings.columns:
            raise DataRequestError("a temporal split needs a timestamp column in the ratings")
        order = np.argsort(ratings["timestamp"].to_numpy(), kind="stable")
        is_test = np.zeros(n, dtype=bool)
        is_test[order[n - int(round(split.fraction * n)) :]] = True
    if not is_test.any() or is_test.all():
        raise DataRequestError(f"split {split} leaves {'no' if not is_test.any() else 'every'} rating for testing")
    return ratings[~is_test], ratings[is_test]
