"""From seeds to the small sub-matrices (regions) that InClose enumerates.

A seed is a set of objects ``S_o`` and a set of features ``S_f`` that LSH put
together: from the object orientation ``S_o`` is a bucket and ``S_f`` its key
features; from the transposed orientation ``S_f`` is a bucket of features and
``S_o`` its key objects.

The region of a seed is ``rows = {o : o has every feature of S_f}`` and
``cols = {f : every object of S_o has f}``.  This is the reading of the
author's own implementation (``lib/bicluster.py``: "vertical" and
"horizontal" bicluster), with which the paper's tables were produced.  The
paper's Algorithm 2 writes unions (``∃ f ∈ key``) instead; with unions every
region holds every object that shares a single feature with the seed, which
on the paper's MovieLens parameters (minO = minF = 2) makes hundreds of
thousands of regions of hundreds of rows each.  Every row of an
intersection region contains ``S_f`` and every column is shared by ``S_o``,
so the seed itself, ``S_o × S_f``, is an all-ones block of the region.
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernels import lower_bound, lowest_bit_index
from ._kernels import popcount as _popcount
from ._parallel import for_ranges
from .blocks import Blocks
from .concepts import column_bitsets


@numba.njit(inline="always")
def _contains(idx, lo, hi, v):
    # binary search in the sorted slice idx[lo:hi]
    p = lower_bound(idx, lo, hi, v)
    return p < hi and idx[p] == v


@numba.njit
def _intersect_lists(ptr, idx, members, m0, m1, out, o0, write):
    """Size of the intersection of the sorted index lists of ``members[m0:m1]``; written at out[o0:] if ``write``.

    Walks the shortest list and looks each element up in the others by binary search: the cost
    is set by the shortest list, not by a hub's long one.
    """
    best = members[m0]
    for t in range(m0, m1):
        m = members[t]
        if ptr[m + 1] - ptr[m] < ptr[best + 1] - ptr[best]:
            best = m
    n = 0
    for p in range(ptr[best], ptr[best + 1]):
        v = idx[p]
        found = True
        for t in range(m0, m1):
            m = members[t]
            if m != best and not _contains(idx, ptr[m], ptr[m + 1], v):
                found = False
                break
        if found:
            if write:
                out[o0 + n] = v
            n += 1
    return n


@numba.njit(inline="always")
def _list_cost(ptr, members, m0, m1):
    # total length of the index lists of members[m0:m1]
    cost = 0
    for t in range(m0, m1):
        cost += ptr[members[t] + 1] - ptr[members[t]]
    return cost


@numba.njit(nogil=True, cache=True)
def _regions(
    csr_ptr, csr_idx, csc_ptr, csc_idx,
    obj_ptr, obj_idx, feat_ptr, feat_idx, seeds,
    min_rows, min_cols, out_row_ptr, out_rows, out_col_ptr, out_cols, n_out_rows, n_out_cols, write, lo, hi,
):  # fmt: skip
    """Region sizes of ``seeds[lo:hi]`` (0 when too small); with ``write`` also the regions."""
    for i in range(lo, hi):
        s = seeds[i]
        n_out_rows[i] = 0
        n_out_cols[i] = 0
        # the cheaper intersection first: most seeds fail one of the two sizes
        rows_first = _list_cost(csc_ptr, feat_idx, feat_ptr[s], feat_ptr[s + 1]) <= _list_cost(
            csr_ptr, obj_idx, obj_ptr[s], obj_ptr[s + 1]
        )
        nr = nc = 0
        for side in range(2):
            if (side == 0) == rows_first:
                nr = _intersect_lists(csc_ptr, csc_idx, feat_idx, feat_ptr[s], feat_ptr[s + 1], out_rows,
                                      out_row_ptr[i], write)  # fmt: skip
                big_enough = nr >= min_rows
            else:
                nc = _intersect_lists(csr_ptr, csr_idx, obj_idx, obj_ptr[s], obj_ptr[s + 1], out_cols,
                                      out_col_ptr[i], write)  # fmt: skip
                big_enough = nc >= min_cols
            if not big_enough:
                break
        else:
            n_out_rows[i] = nr
            n_out_cols[i] = nc


@numba.njit
def _and_bits(bits, members, m0, m1, scratch, out, o0, write):
    """AND of the bitsets of ``members[m0:m1]`` into ``scratch``; its size, written at out[o0:] if ``write``."""
    words = bits.shape[1]
    first = members[m0]
    for w in range(words):
        scratch[w] = bits[first, w]
    for t in range(m0 + 1, m1):
        m = members[t]
        for w in range(words):
            scratch[w] &= bits[m, w]
    n = 0
    for w in range(words):
        v = scratch[w]
        if write:
            while v:
                out[o0 + n] = w * 64 + lowest_bit_index(v)
                n += 1
                v &= v - np.uint64(1)
        else:
            n += int(_popcount(v))
    return n


@numba.njit(nogil=True, cache=True)
def _regions_bits(
    row_bits, col_bits, obj_ptr, obj_idx, feat_ptr, feat_idx, seeds,
    min_rows, min_cols, out_row_ptr, out_rows, out_col_ptr, out_cols, n_out_rows, n_out_cols, write, lo, hi,
):  # fmt: skip
    """:func:`_regions` on bitsets: rows as bitsets over columns and columns over rows."""
    scratch_r = np.empty(col_bits.shape[1], dtype=np.uint64)
    scratch_c = np.empty(row_bits.shape[1], dtype=np.uint64)
    for i in range(lo, hi):
        s = seeds[i]
        n_out_rows[i] = 0
        n_out_cols[i] = 0
        nr = _and_bits(col_bits, feat_idx, feat_ptr[s], feat_ptr[s + 1], scratch_r, out_rows, out_row_ptr[i], write)
        if nr < min_rows:
            continue
        nc = _and_bits(row_bits, obj_idx, obj_ptr[s], obj_ptr[s + 1], scratch_c, out_cols, out_col_ptr[i], write)
        if nc < min_cols:
            continue
        n_out_rows[i] = nr
        n_out_cols[i] = nc


@numba.njit(cache=True)
def _first_covering(
    use_bits, row_bits, col_bits, csr_ptr, csr_idx, csc_ptr, csc_idx, n_rows, n_cols,
    obj_ptr, obj_idx, feat_ptr, feat_idx, order, max_rows, max_cols,
):  # fmt: skip
    """The seeds of ``order`` (in that order) whose region brings a row or column not yet covered."""
    row_seen = np.zeros(n_rows, dtype=np.bool_)
    col_seen = np.zeros(n_cols, dtype=np.bool_)
    rows = np.empty(max_rows, dtype=np.int64)
    cols = np.empty(max_cols, dtype=np.int64)
    scratch_r = np.empty(max(1, col_bits.shape[1]), dtype=np.uint64)
    scratch_c = np.empty(max(1, row_bits.shape[1]), dtype=np.uint64)
    keep = np.zeros(order.shape[0], dtype=np.bool_)
    seen_r = np.zeros(scratch_r.shape[0], dtype=np.uint64)
    seen_c = np.zeros(scratch_c.shape[0], dtype=np.uint64)
    for i in range(order.shape[0]):
        s = order[i]
        new = False
        if use_bits:
            # bitset AND-NOT against what is covered: no index lists needed
            _and_bits(col_bits, feat_idx, feat_ptr[s], feat_ptr[s + 1], scratch_r, rows, 0, False)
            _and_bits(row_bits, obj_idx, obj_ptr[s], obj_ptr[s + 1], scratch_c, cols, 0, False)
            for w in range(scratch_r.shape[0]):
                if scratch_r[w] & ~seen_r[w]:
                    new = True
                    break
            if not new:
                for w in range(scratch_c.shape[0]):
                    if scratch_c[w] & ~seen_c[w]:
                        new = True
                        break
            if new:
                for w in range(scratch_r.shape[0]):
                    seen_r[w] |= scratch_r[w]
                for w in range(scratch_c.shape[0]):
                    seen_c[w] |= scratch_c[w]
        else:
            nr = _intersect_lists(csc_ptr, csc_idx, feat_idx, feat_ptr[s], feat_ptr[s + 1], rows, 0, True)
            nc = _intersect_lists(csr_ptr, csr_idx, obj_idx, obj_ptr[s], obj_ptr[s + 1], cols, 0, True)
            for t in range(nr):
                if not row_seen[rows[t]]:
                    new = True
                    row_seen[rows[t]] = True
            for t in range(nc):
                if not col_seen[cols[t]]:
                    new = True
                    col_seen[cols[t]] = True
        keep[i] = new
    return order[keep]


def find_regions(X, Xt, seeds: Blocks, min_rows: int, min_cols: int, skip_covered: bool, memory: int) -> Blocks:
    """Regions of at least ``min_rows`` × ``min_cols`` of ``seeds``, de-duplicated.

    With ``skip_covered`` (the author's heuristic) regions are visited largest first and one
    is kept only if it holds a row or a column that no kept region holds yet: at most
    ``n_rows + n_cols`` regions, whatever the number of seeds.

    ``X`` is the CSR matrix and ``Xt`` its transpose in CSR (= CSC of ``X``).  Intersections
    use bitsets when those of every row and column fit in ``memory`` bytes (the estimator's
    working-memory budget; dense relations such as MovieLens), sorted index lists otherwise.
    """
    n_rows, n_cols = X.shape
    use_bits = n_rows * ((n_cols + 63) // 64) * 8 + n_cols * ((n_rows + 63) // 64) * 8 <= memory
    if use_bits:
        row_bits = column_bitsets(Xt)  # bitset of each row over the columns
        col_bits = column_bitsets(X)

    def run(which, row_ptr, col_ptr, rows, cols, write):
        nr = np.empty(len(which), dtype=np.int64)
        nc = np.empty(len(which), dtype=np.int64)
        if use_bits:
            for_ranges(
                _regions_bits, len(which), row_bits, col_bits, seeds.row_ptr, seeds.row_idx, seeds.col_ptr,
                seeds.col_idx, which, min_rows, min_cols, row_ptr, rows, col_ptr, cols, nr, nc, write,
            )  # fmt: skip
        else:
            for_ranges(
                _regions, len(which), X.indptr, X.indices, Xt.indptr, Xt.indices,
                seeds.row_ptr, seeds.row_idx, seeds.col_ptr, seeds.col_idx, which,
                min_rows, min_cols, row_ptr, rows, col_ptr, cols, nr, nc, write,
            )  # fmt: skip
        return nr, nc

    # Sizes first, without writing: almost every seed is rejected, and buffers
    # sized by upper bounds would take gigabytes on dense relations.
    everything = np.arange(len(seeds), dtype=np.int64)
    dummy = np.zeros(len(seeds), dtype=np.int64)
    nr, nc = run(everything, dummy, dummy, dummy[:0], dummy[:0], False)
    kept = np.flatnonzero(nr > 0)
    if skip_covered and len(kept):
        size = nr[kept] * nc[kept]
        order = kept[np.lexsort((kept, -size))]
        if not use_bits:
            row_bits = col_bits = np.zeros((1, 1), dtype=np.uint64)
        covering = _first_covering(
            use_bits, row_bits, col_bits, X.indptr, X.indices, Xt.indptr, Xt.indices, n_rows, n_cols,
            seeds.row_ptr, seeds.row_idx, seeds.col_ptr, seeds.col_idx, order, int(nr.max()), int(nc.max()),
        )  # fmt: skip
        kept = np.sort(covering)
    row_ptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(nr[kept], out=row_ptr[1:])
    col_ptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(nc[kept], out=col_ptr[1:])
    rows = np.empty(row_ptr[-1], dtype=np.int64)
    cols = np.empty(col_ptr[-1], dtype=np.int64)
    run(kept, row_ptr, col_ptr, rows, cols, True)
    # identical regions from different seeds are enumerated once
    return Blocks(row_ptr, rows, col_ptr, cols).unique()
