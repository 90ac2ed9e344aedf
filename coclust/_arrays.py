"""Sort-based set operations on integer arrays (``np.unique`` takes a slower hash path on large int arrays)."""

from __future__ import annotations

import numpy as np


def unique_sorted(a: np.ndarray) -> np.ndarray:
    """The distinct values of ``a``, sorted."""
    s = np.sort(a)
    if len(s) == 0:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def group_ids(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the position of the first occurrence of each distinct value (in value
    order) and, for each element, the index of its value in that order."""
    order = np.argsort(h, kind="stable")
    s = h[order]
    start = np.empty(len(s), dtype=bool)
    if len(s):
        start[0] = True
        np.not_equal(s[1:], s[:-1], out=start[1:])
    inverse = np.empty(len(h), dtype=np.int64)
    inverse[order] = np.cumsum(start) - 1
    return order[start], inverse


def first_occurrences(h: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct value of ``h``, in increasing position."""
    first, _ = group_ids(h)
    return np.sort(first)
