"""Compiled top-k of each row of a sparse similarity block (:mod:`recsys.model.neighbours`).

Kept apart so that loading a model and predicting never import numba (only fitting does).  A
row of co-members holds thousands of entries at millions of ratings; sorting a whole block's
entries by (row, similarity, index) took most of the neighbourhoods' time (measured at 5 M).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def top_k_rows(indptr, indices, data, first_row, k):
    """Per row ``r`` of a CSR block (row ``r`` is entity ``first_row + r``): its ``k`` entries of
    largest positive value, leaving out column ``first_row + r``, in decreasing value, ties by
    column.  Returns ``(lengths, columns, values)``."""
    n_rows = len(indptr) - 1
    lengths = np.zeros(n_rows, dtype=np.int64)
    cols = np.empty(n_rows * k, dtype=np.int64)
    vals = np.empty(n_rows * k, dtype=np.float64)
    out = 0
    for r in range(n_rows):
        lo, hi = indptr[r], indptr[r + 1]
        m = 0
        c = np.empty(hi - lo, dtype=np.int64)
        v = np.empty(hi - lo, dtype=np.float64)
        for t in range(lo, hi):
            if data[t] > 0 and indices[t] != first_row + r:
                c[m] = indices[t]
                v[m] = data[t]
                m += 1
        c, v = c[:m], v[:m]
        if m > k:  # the k-th largest value; above it all are kept, at it the smallest columns
            thr = np.partition(v, m - k)[m - k]
            above = v > thr
            n_above = above.sum()
            at = np.flatnonzero(v == thr)
            at = at[np.argsort(c[at], kind="mergesort")][: k - n_above]
            pick = np.concatenate((np.flatnonzero(above), at))
            c, v = c[pick], v[pick]
            m = k
        order = np.argsort(c, kind="mergesort")  # by column, then (stable) by decreasing value
        c, v = c[order], v[order]
        order = np.argsort(-v, kind="mergesort")
        cols[out : out + m] = c[order]
        vals[out : out + m] = v[order]
        lengths[r] = m
        out += m
    return lengths, cols[:out], vals[:out]
