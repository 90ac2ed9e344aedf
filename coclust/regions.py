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
from .concepts import entity_bitsets


@numba.njit(inline="always")
def _contains(idx, lo, hi, v):
    # binary search in the sorted slice idx[lo:hi]
    p = lower_bound(idx, lo, hi, v)
    return p < hi and idx[p] == v


@numba.njit(inline="always")
def _has_bit(bits, s, v):
    return (bits[s, v >> 6] >> np.uint64(v & 63)) & np.uint64(1)


@numba.njit
def _intersect(ptr, idx, bits, slot, members, m0, m1, scratch, out, o0, write):
    """Size of the intersection of the sorted index lists of ``members[m0:m1]`` (not empty); with
    ``write`` the common indices are written at ``out[o0:]``, increasing.

    A member with a bitset (``bits[slot[m]]``, ``slot[m] >= 0``: the heavy rows or columns, see
    :func:`entity_bitsets`) is tested a bit at a time; the others by binary search.  When the
    shortest list is shorter than a bitset, or some member has none, the intersection walks the
    shortest list and tests every other member; otherwise the members' bitsets are ANDed into
    ``scratch`` and its set bits are walked.  Either way the cost follows the shortest list or the
    bitsets' words, not a hub's long list: on the 25 M-rating like relation, whose bitsets did not
    all fit, lists alone made step 3 42 s (1.3 s at 10 M)."""
    words = bits.shape[1]
    short = members[m0]
    n_bits = 0
    for t in range(m0, m1):
        m = members[t]
        if ptr[m + 1] - ptr[m] < ptr[short + 1] - ptr[short]:
            short = m
        if slot[m] >= 0:
            n_bits += 1
    n = 0
    # a member without a bitset is lighter than an eighth of one's words, or than every member
    # with one (entity_bitsets): the shortest list then costs less than an AND of bitsets
    if n_bits < m1 - m0 or ptr[short + 1] - ptr[short] < words:
        for p in range(ptr[short], ptr[short + 1]):
            v = idx[p]
            found = True
            for t in range(m0, m1):
                m = members[t]
                if m == short:
                    continue
                s = slot[m]
                if s >= 0:
                    if not _has_bit(bits, s, v):
                        found = False
                        break
                elif not _contains(idx, ptr[m], ptr[m + 1], v):
                    found = False
                    break
            if found:
                if write:
                    out[o0 + n] = v
                n += 1
        return n
    first = True
    for t in range(m0, m1):
        s = slot[members[t]]
        for w in range(words):
            scratch[w] = bits[s, w] if first else scratch[w] & bits[s, w]
        first = False
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


@numba.njit(inline="always")
def _cost(ptr, slot, words, members, m0, m1):
    # what an intersection of members[m0:m1] reads, about: the shortest list or the bitsets' words
    short = ptr[members[m0] + 1] - ptr[members[m0]]
    all_bits = True
    for t in range(m0, m1):
        m = members[t]
        short = min(short, ptr[m + 1] - ptr[m])
        all_bits = all_bits and slot[m] >= 0
    if all_bits and short >= words:
        return words * (m1 - m0)
    return short * (m1 - m0)


@numba.njit(nogil=True, cache=True)
def _regions(rel, seeds, which, min_rows, min_cols, out_row_ptr, out_rows, out_col_ptr, out_cols, sizes, write, lo, hi):
    """Region sizes of the seeds ``which[lo:hi]`` in ``sizes`` (rows, columns; 0 when too small);
    with ``write`` also the regions.  ``rel`` holds the relation's lists and bitsets and ``seeds``
    the seeds' row and column lists (:func:`find_regions`)."""
    csr_ptr, csr_idx, csc_ptr, csc_idx, row_bits, row_slot, col_bits, col_slot = rel
    obj_ptr, obj_idx, feat_ptr, feat_idx = seeds
    scratch_r = np.empty(max(1, col_bits.shape[1]), dtype=np.uint64)
    scratch_c = np.empty(max(1, row_bits.shape[1]), dtype=np.uint64)
    for i in range(lo, hi):
        s = which[i]
        sizes[i, 0] = 0
        sizes[i, 1] = 0
        f0, f1, o0, o1 = feat_ptr[s], feat_ptr[s + 1], obj_ptr[s], obj_ptr[s + 1]
        # the cheaper intersection first: most seeds fail one of the two sizes
        rows_first = _cost(csc_ptr, col_slot, col_bits.shape[1], feat_idx, f0, f1) <= _cost(
            csr_ptr, row_slot, row_bits.shape[1], obj_idx, o0, o1
        )
        nr = nc = 0
        for side in range(2):
            if (side == 0) == rows_first:
                nr = _intersect(
                    csc_ptr, csc_idx, col_bits, col_slot, feat_idx, f0, f1, scratch_r, out_rows, out_row_ptr[i], write
                )
                big_enough = nr >= min_rows
            else:
                nc = _intersect(
                    csr_ptr, csr_idx, row_bits, row_slot, obj_idx, o0, o1, scratch_c, out_cols, out_col_ptr[i], write
                )
                big_enough = nc >= min_cols
            if not big_enough:
                break
        else:
            sizes[i, 0] = nr
            sizes[i, 1] = nc


_MIN_CHUNK_BYTES = 1 << 20  # of the regions written at once by _first_covering


def _first_covering(run, order, nr, nc, n_rows, n_cols, chunk_bytes: int, cover: int = 1) -> np.ndarray:
    """The seeds of ``order`` (in that order) whose region holds a row or column that fewer than
    ``cover`` regions kept before it hold.

    The regions of a chunk of seeds (about ``chunk_bytes`` of them, from their sizes ``nr``, ``nc``)
    are written on the thread pool by ``run`` (:func:`find_regions`'s), then scanned in order: the
    intersections, most of the work, no longer run on one thread."""
    row_held = np.zeros(n_rows, dtype=np.int64)
    col_held = np.zeros(n_cols, dtype=np.int64)
    keep = np.zeros(len(order), dtype=np.bool_)
    ends = np.cumsum(8 * (nr[order] + nc[order]))
    lo = 0
    while lo < len(order):
        done = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, done + chunk_bytes, side="right")))
        _bring_new(*_written(run, order[lo:hi], nr, nc), row_held, col_held, cover, keep[lo:hi])
        lo = hi
    return order[keep]


@numba.njit(nogil=True, cache=True)
def _bring_new(row_ptr, rows, col_ptr, cols, row_held, col_held, cover, keep):
    """``keep[i]``: region ``i`` holds a row or a column that fewer than ``cover`` regions kept
    before it hold (``row_held``, ``col_held``: how many; a kept region adds one to each of its)."""
    for i in range(row_ptr.shape[0] - 1):
        new = False
        for p in range(row_ptr[i], row_ptr[i + 1]):
            new = new or row_held[rows[p]] < cover
        for p in range(col_ptr[i], col_ptr[i + 1]):
            new = new or col_held[cols[p]] < cover
        if new:
            for p in range(row_ptr[i], row_ptr[i + 1]):
                row_held[rows[p]] += 1
            for p in range(col_ptr[i], col_ptr[i + 1]):
                col_held[cols[p]] += 1
        keep[i] = new


def heavy_entities(degrees: list[np.ndarray], others: list[int], memory: int) -> list[np.ndarray]:
    """For each side (entities of ``degrees[k]``, their bitsets over ``others[k]`` indices): the
    entities given a bitset, heaviest first, within ``memory`` bytes for all sides together.  An
    entity qualifies when its list is at least an eighth of a bitset's words (a binary search in a
    shorter list costs less than a bitset's scan); among those, the longest lists relative to their
    bitset's size go first."""
    words = [max(1, (n + 63) // 64) for n in others]
    side = np.concatenate([np.full(len(d), k) for k, d in enumerate(degrees)]).astype(np.int64)
    entity = np.concatenate([np.arange(len(d)) for d in degrees]).astype(np.int64)
    degree = np.concatenate(degrees).astype(np.float64)
    size = np.asarray(words, dtype=np.float64)[side]
    ok = np.flatnonzero(8 * degree >= size)
    ok = ok[np.lexsort((side[ok], entity[ok], -degree[ok] / size[ok]))]
    fits = ok[: int(np.searchsorted(np.cumsum(8 * size[ok]), memory, side="right"))]
    return [np.sort(entity[fits[side[fits] == k]]) for k in range(len(degrees))]


def find_regions(
    X, Xt, seeds: Blocks, min_rows: int, min_cols: int, skip_covered: bool, memory: int, cover: int = 1
) -> Blocks:
    """Regions of at least ``min_rows`` × ``min_cols`` of ``seeds``, de-duplicated.

    With ``skip_covered`` (the author's heuristic) regions are visited largest first and one
    is kept only if it holds a row or a column that fewer than ``cover`` kept regions hold (the
    author's: none): at most ``cover × (n_rows + n_cols)`` regions, whatever the number of seeds.

    ``X`` is the CSR matrix and ``Xt`` its transpose in CSR (= CSC of ``X``).  Intersections
    test the heaviest rows and columns in bitsets, as many as fit in ``memory`` bytes (the
    estimator's working-memory budget; :func:`heavy_entities`), and the others in their sorted
    index lists.
    """
    n_rows, n_cols = X.shape
    heavy_rows, heavy_cols = heavy_entities([np.diff(X.indptr), np.diff(Xt.indptr)], [n_cols, n_rows], memory)
    row_bits, row_slot = entity_bitsets(X, n_cols, heavy_rows)  # rows over the columns
    col_bits, col_slot = entity_bitsets(Xt, n_rows, heavy_cols)  # columns over the rows

    rel = (X.indptr, X.indices, Xt.indptr, Xt.indices, row_bits, row_slot, col_bits, col_slot)
    seed_lists = (seeds.row_ptr, seeds.row_idx, seeds.col_ptr, seeds.col_idx)

    def run(which, row_ptr, col_ptr, rows, cols, write):
        sizes = np.empty((len(which), 2), dtype=np.int64)
        for_ranges(
            _regions, len(which), rel, seed_lists, which, min_rows, min_cols, row_ptr, rows, col_ptr, cols, sizes, write
        )
        return sizes[:, 0], sizes[:, 1]

    # Sizes first, without writing: almost every seed is rejected, and buffers
    # sized by upper bounds would take gigabytes on dense relations.
    everything = np.arange(len(seeds), dtype=np.int64)
    dummy = np.zeros(len(seeds), dtype=np.int64)
    nr, nc = run(everything, dummy, dummy, dummy[:0], dummy[:0], False)
    kept = np.flatnonzero(nr > 0)
    if skip_covered and len(kept):
        size = nr[kept] * nc[kept]
        order = kept[np.lexsort((kept, -size))]
        chunk = min(max(memory // 8, _MIN_CHUNK_BYTES), 64 << 20)
        covering = _first_covering(run, order, nr, nc, n_rows, n_cols, chunk, cover)
        kept = np.sort(covering)
    # identical regions from different seeds are enumerated once
    return Blocks(*_written(run, kept, nr, nc)).unique()


def _written(run, which, nr, nc) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The regions of the seeds ``which`` (of sizes ``nr``, ``nc``) written by ``run`` (:func:`find_regions`'s):
    ``(row_ptr, rows, col_ptr, cols)``."""
    row_ptr = np.zeros(len(which) + 1, dtype=np.int64)
    np.cumsum(nr[which], out=row_ptr[1:])
    col_ptr = np.zeros(len(which) + 1, dtype=np.int64)
    np.cumsum(nc[which], out=col_ptr[1:])
    rows = np.empty(row_ptr[-1], dtype=np.int64)
    cols = np.empty(col_ptr[-1], dtype=np.int64)
    run(which, row_ptr, col_ptr, rows, cols, True)
    return row_ptr, rows, col_ptr, cols
