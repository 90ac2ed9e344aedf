"""Compiled sparse similarities and their top-k per row (:mod:`recsys.model.neighbours`).

Kept apart so that loading a model never imports numba (fitting does, and so do lists:
:mod:`recsys.model._person_kernels`).  A row of co-members holds thousands of entries at millions
of ratings.  Sorting a whole block's entries by (row, similarity, index) took most of the
neighbourhoods' time at 5 M; then scipy's product of the blocks did (one thread, and a sparse
matrix built per block only to be read once): at 25 M, 473 s of 1,690.  Here each row's products
are summed into a dense accumulator and its top k chosen at once, without the GIL, so that the
blocks run on every core.
"""

from __future__ import annotations

import numba
import numpy as np

from coclust._kernels import argsort_float, copy_into, kth_smallest


@numba.njit(nogil=True, cache=True)
def top_k_similar(a_ptr, a_idx, a_val, t_ptr, t_idx, t_val, inv, lo, hi, k, budget=0):
    """Rows ``lo..hi`` of ``S = (A Aᵀ)[a, b] inv[a] inv[b]`` (``A`` in CSR, ``t_*`` its transpose),
    each row's ``k`` largest positive entries but its own, in decreasing value, ties by column.

    The sums are those of scipy's sparse product (the same terms added in the same order, so
    the same floats).  ``budget`` > 0 bounds the co-members a row visits: when its columns' lengths
    (its co-clusters' sizes) add up to more, it reads its smallest co-clusters first — the ones a
    pair's similarity weighs most — as long as they fit (the smallest at least).  Returns
    ``(lengths, columns, values)``."""
    n = len(inv)
    acc = np.zeros(n)
    seen = np.zeros(n, dtype=np.bool_)
    touched = np.empty(n, dtype=np.int64)
    lengths = np.zeros(hi - lo, dtype=np.int64)
    cols = np.empty((hi - lo) * k, dtype=np.int64)
    vals = np.empty((hi - lo) * k, dtype=np.float64)
    out = 0
    for r in range(lo, hi):
        m = 0
        if budget > 0:
            visit = _within_budget(a_ptr[r], a_ptr[r + 1], a_idx, t_ptr, budget)
        else:
            visit = np.arange(a_ptr[r], a_ptr[r + 1])
        for p in visit:
            c, v = a_idx[p], a_val[p]
            for q in range(t_ptr[c], t_ptr[c + 1]):
                b = t_idx[q]
                if not seen[b]:
                    seen[b] = True
                    touched[m] = b
                    m += 1
                acc[b] += v * t_val[q]
        cand_c = np.empty(m, dtype=np.int64)
        cand_v = np.empty(m, dtype=np.float64)
        got = 0
        for j in range(m):
            b = touched[j]
            s = acc[b] * inv[r] * inv[b]
            acc[b] = 0.0
            seen[b] = False
            if s > 0 and b != r:
                cand_c[got] = b
                cand_v[got] = s
                got += 1
        c_, v_ = _top_k(cand_c[:got], cand_v[:got], k)
        copy_into(c_, cols, out)
        copy_into(v_, vals, out)
        lengths[r - lo] = len(c_)
        out += len(c_)
    return lengths, cols[:out], vals[:out]


@numba.njit(inline="always")
def _within_budget(start, stop, a_idx, t_ptr, budget):
    """The positions ``start..stop`` of a row's co-clusters to visit: all of them, in order, when
    their sizes fit ``budget``; else the smallest first while they fit (in order of position)."""
    sizes = np.empty(stop - start, dtype=np.float64)
    for j in range(stop - start):
        c = a_idx[start + j]
        sizes[j] = t_ptr[c + 1] - t_ptr[c]
    if sizes.sum() <= budget:
        return np.arange(start, stop)
    order = argsort_float(sizes)
    used = 0.0
    m = 0
    while m < len(order) and (m == 0 or used + sizes[order[m]] <= budget):
        used += sizes[order[m]]
        m += 1
    return np.sort(order[:m]) + start


@numba.njit(inline="always")
def _top_k(c, v, k):
    """The ``k`` entries of largest value in decreasing value, ties by the smaller column."""
    m = len(c)
    if m > k:  # the k-th largest value; above it all are kept, at it the smallest columns
        thr = kth_smallest(v, m - k)
        above = v > thr
        n_above = above.sum()
        at = np.flatnonzero(v == thr)
        at = at[argsort_float(c[at])][: k - n_above]
        pick = np.concatenate((np.flatnonzero(above), at))
        c, v = c[pick], v[pick]
    order = argsort_float(c)  # stable: by column, then (stable) by decreasing value
    c, v = c[order], v[order]
    order = argsort_float(-v)
    return c[order], v[order]
