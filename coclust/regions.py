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

from dataclasses import dataclass

import numba
import numpy as np

from .lsh import Seeds, _mix64

# Seeds handled by one parallel task: enough work to amortise the scratch arrays.
_CHUNK = 2048


@dataclass
class Regions:
    """Regions in CSR-like form: region ``i`` spans rows
    ``row_idx[row_ptr[i]:row_ptr[i+1]]`` and columns ``col_idx[col_ptr[i]:col_ptr[i+1]]``."""

    row_ptr: np.ndarray
    row_idx: np.ndarray
    col_ptr: np.ndarray
    col_idx: np.ndarray

    def __len__(self) -> int:
        return len(self.row_ptr) - 1

    def sizes(self) -> tuple[np.ndarray, np.ndarray]:
        return np.diff(self.row_ptr), np.diff(self.col_ptr)


@numba.njit(inline="always")
def _intersect_lists(ptr, idx, members, m0, m1, count, out, o0, write):
    """Size of the intersection of the index lists of ``members[m0:m1]``; written at out[o0:] if ``write``."""
    k = m1 - m0
    # start from the shortest list: every element of the intersection is in it
    best = members[m0]
    for t in range(m0, m1):
        m = members[t]
        if ptr[m + 1] - ptr[m] < ptr[best + 1] - ptr[best]:
            best = m
    for t in range(m0, m1):
        m = members[t]
        for p in range(ptr[m], ptr[m + 1]):
            count[idx[p]] += 1
    n = 0
    for p in range(ptr[best], ptr[best + 1]):
        v = idx[p]
        if count[v] == k:
            if write:
                out[o0 + n] = v
            n += 1
    for t in range(m0, m1):
        m = members[t]
        for p in range(ptr[m], ptr[m + 1]):
            count[idx[p]] = 0
    return n


@numba.njit(parallel=True, cache=True)
def _regions(
    csr_ptr, csr_idx, csc_ptr, csc_idx, n_rows, n_cols,
    obj_ptr, obj_idx, feat_ptr, feat_idx, seeds,
    min_rows, min_cols, out_row_ptr, out_rows, out_col_ptr, out_cols, n_out_rows, n_out_cols, write,
):  # fmt: skip
    """Region sizes of ``seeds`` (0 when too small); with ``write`` also the regions."""
    n_seeds = seeds.shape[0]
    n_chunks = (n_seeds + _CHUNK - 1) // _CHUNK
    for c in numba.prange(n_chunks):
        row_count = np.zeros(n_rows, dtype=np.int32)
        col_count = np.zeros(n_cols, dtype=np.int32)
        for i in range(c * _CHUNK, min(n_seeds, (c + 1) * _CHUNK)):
            s = seeds[i]
            n_out_rows[i] = 0
            n_out_cols[i] = 0
            # the cheaper intersection first: most seeds fail one of the two sizes
            row_cost = 0
            for t in range(feat_ptr[s], feat_ptr[s + 1]):
                row_cost += csc_ptr[feat_idx[t] + 1] - csc_ptr[feat_idx[t]]
            col_cost = 0
            for t in range(obj_ptr[s], obj_ptr[s + 1]):
                col_cost += csr_ptr[obj_idx[t] + 1] - csr_ptr[obj_idx[t]]
            nr = 0
            nc = 0
            for side in range(2):
                if (side == 0) == (row_cost <= col_cost):
                    nr = _intersect_lists(
                        csc_ptr, csc_idx, feat_idx, feat_ptr[s], feat_ptr[s + 1],
                        row_count, out_rows, out_row_ptr[i], write,
                    )  # fmt: skip
                    if nr < min_rows:
                        break
                else:
                    nc = _intersect_lists(
                        csr_ptr, csr_idx, obj_idx, obj_ptr[s], obj_ptr[s + 1],
                        col_count, out_cols, out_col_ptr[i], write,
                    )  # fmt: skip
                    if nc < min_cols:
                        break
            else:
                n_out_rows[i] = nr
                n_out_cols[i] = nc


@numba.njit(parallel=True, cache=True)
def _hash_sets(row_ptr, row_idx, col_ptr, col_idx, out):
    for i in numba.prange(row_ptr.shape[0] - 1):
        h = np.uint64(0x1234567)
        for p in range(row_ptr[i], row_ptr[i + 1]):
            h = _mix64(h, row_idx[p])
        h = _mix64(h, -1)
        for p in range(col_ptr[i], col_ptr[i + 1]):
            h = _mix64(h, col_idx[p])
        out[i] = h


def set_pair_hashes(row_ptr, row_idx, col_ptr, col_idx) -> np.ndarray:
    """A 64-bit hash of each (row set, column set) pair given as sorted CSR-like lists."""
    out = np.empty(len(row_ptr) - 1, dtype=np.uint64)
    _hash_sets(row_ptr, row_idx, col_ptr, col_idx, out)
    return out


def find_regions(X, Xt, seeds: Seeds, min_rows: int, min_cols: int) -> Regions:
    """Regions of at least ``min_rows`` × ``min_cols`` of ``seeds``, de-duplicated.

    ``X`` is the CSR matrix and ``Xt`` its transpose in CSR (= CSC of ``X``).
    """
    n_rows, n_cols = X.shape

    def run(which, row_ptr, col_ptr, rows, cols, write):
        nr = np.empty(len(which), dtype=np.int64)
        nc = np.empty(len(which), dtype=np.int64)
        _regions(
            X.indptr, X.indices, Xt.indptr, Xt.indices, n_rows, n_cols,
            seeds.obj_ptr, seeds.obj_idx, seeds.feat_ptr, seeds.feat_idx, which,
            min_rows, min_cols, row_ptr, rows, col_ptr, cols, nr, nc, write,
        )  # fmt: skip
        return nr, nc

    # Sizes first, without writing: almost every seed is rejected, and buffers
    # sized by upper bounds would take gigabytes on dense relations.
    everything = np.arange(len(seeds), dtype=np.int64)
    dummy = np.zeros(len(seeds), dtype=np.int64)
    nr, nc = run(everything, dummy, dummy, dummy[:0], dummy[:0], False)
    kept = np.flatnonzero(nr > 0)
    row_ptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(nr[kept], out=row_ptr[1:])
    col_ptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(nc[kept], out=col_ptr[1:])
    rows = np.empty(row_ptr[-1], dtype=np.int64)
    cols = np.empty(col_ptr[-1], dtype=np.int64)
    run(kept, row_ptr, col_ptr, rows, cols, True)
    regions = Regions(row_ptr, rows, col_ptr, cols)
    # identical regions from different seeds are enumerated once
    h = set_pair_hashes(regions.row_ptr, regions.row_idx, regions.col_ptr, regions.col_idx)
    _, first = np.unique(h, return_index=True)
    first.sort()
    return select(regions, first)


def _gather(values, starts, lengths):
    ptr = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    idx = np.repeat(starts - ptr[:-1], lengths) + np.arange(ptr[-1])
    return ptr, values[idx]


def select(regions: Regions, which: np.ndarray) -> Regions:
    """The regions ``which`` (indices), in that order."""
    rows = _gather(regions.row_idx, regions.row_ptr[which], np.diff(regions.row_ptr)[which])
    cols = _gather(regions.col_idx, regions.col_ptr[which], np.diff(regions.col_ptr)[which])
    return Regions(*rows, *cols)
