"""Compiled reshaping of a :class:`~recsys.model.csr.Csr` (imported on first use): the order of its
pairs, its transpose and the union of its rows through another, all linear in the entries they
read; how many of its rows hold each pair of columns (``M'M`` off its diagonal: the item model's
support); its rows as bitsets; a dense matrix's non-zero entries.

Both give exactly what the numpy/scipy code they replace gave: the transpose is a counting sort by
column, stable, as ``np.argsort(idx, kind="stable")`` (a merge sort of every entry: 1.4 of the
paper rule's 11 s fit on the demo data); the union is the pattern of a sparse product, each row's
columns increasing, as ``Csr.from_pairs`` of ``(M @ P).tocoo()`` (scipy computes every product's
sum in two passes, then the pairs are sorted again: 4.4 s of the paper rule's scoring there).
"""

from __future__ import annotations

import numba
import numpy as np

from coclust._kernels import bits_to_indices, copy_into, popcount, sort_nonnegative


@numba.njit(nogil=True, cache=True)
def transpose_rows(ptr, idx, values, n_cols):
    """``(t_ptr, t_idx, t_values)`` of the transpose: row ``c`` holds the rows that store column
    ``c``, increasing, with their values (``values`` empty for a binary matrix: ``t_values`` too).
    The values move in the same pass (a gather by a separate order array cost 2-3 s a call on the
    94 M weights of the full-support control)."""
    n_rows = len(ptr) - 1
    t_ptr = np.zeros(n_cols + 1, dtype=np.int64)
    for p in range(len(idx)):
        t_ptr[idx[p] + 1] += 1
    for c in range(n_cols):
        t_ptr[c + 1] += t_ptr[c]
    fill = np.empty(n_cols, dtype=np.int64)
    copy_into(t_ptr[:n_cols], fill, 0)
    t_idx = np.empty(len(idx), dtype=np.int64)
    with_values = len(values) > 0
    t_values = np.empty(len(idx) if with_values else 0, dtype=values.dtype)
    for r in range(n_rows):
        for p in range(ptr[r], ptr[r + 1]):
            q = fill[idx[p]]
            t_idx[q] = r
            if with_values:
                t_values[q] = values[p]
            fill[idx[p]] = q + 1
    return t_ptr, t_idx, t_values


@numba.njit(nogil=True, cache=True)
def pair_order(rows, cols, n_rows, n_cols):
    """The order of the (row, column) pairs by row, then column: ``np.lexsort((cols, rows))``, as
    two stable counting sorts (by column, then by row) instead of a comparison sort of every pair
    (``Csr.from_pairs`` of 25 M ratings: a few seconds a call, and it grew faster than the pairs)."""
    n = len(rows)
    by_col = np.empty(n, dtype=np.int64)
    start = np.zeros(n_cols + 1, dtype=np.int64)
    for p in range(n):
        start[cols[p] + 1] += 1
    for c in range(n_cols):
        start[c + 1] += start[c]
    for p in range(n):
        by_col[start[cols[p]]] = p
        start[cols[p]] += 1
    order = np.empty(n, dtype=np.int64)
    start = np.zeros(n_rows + 1, dtype=np.int64)
    for p in range(n):
        start[rows[p] + 1] += 1
    for r in range(n_rows):
        start[r + 1] += start[r]
    for q in range(n):
        p = by_col[q]
        order[start[rows[p]]] = p
        start[rows[p]] += 1
    return order


@numba.njit(nogil=True, cache=True)
def dense_nonzeros(W):
    """``(ptr, idx, values)``: the CSR arrays of the non-zero entries of the dense ``W`` (NaN counts
    as non-zero, as in ``np.nonzero``), a row's columns increasing."""
    n_rows, n_cols = W.shape
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    for r in range(n_rows):
        n = 0
        for c in range(n_cols):
            if W[r, c] != 0.0:
                n += 1
        ptr[r + 1] = ptr[r] + n
    idx = np.empty(ptr[n_rows], dtype=np.int64)
    values = np.empty(ptr[n_rows], dtype=np.float64)
    for r in range(n_rows):
        q = ptr[r]
        for c in range(n_cols):
            if W[r, c] != 0.0:
                idx[q] = c
                values[q] = W[r, c]
                q += 1
    return ptr, idx, values


@numba.njit(nogil=True, cache=True)
def union_of_rows(m_ptr, m_idx, p_ptr, p_idx, n_cols):
    """``(ptr, idx)``: row ``u`` the union of the rows ``m_idx[m_ptr[u]:m_ptr[u + 1]]`` of ``P``
    (``p_*``, ``n_cols`` columns), increasing."""
    n_rows = len(m_ptr) - 1
    seen = np.zeros(n_cols, dtype=np.int64)  # u + 1 where row u has the column: never cleared
    row = np.empty(n_cols, dtype=np.int64)
    ptr = np.zeros(n_rows + 1, dtype=np.int64)
    idx = np.empty(max(n_cols, 16), dtype=np.int64)
    for u in range(n_rows):
        n = 0
        for q in range(m_ptr[u], m_ptr[u + 1]):
            k = m_idx[q]
            for p in range(p_ptr[k], p_ptr[k + 1]):
                j = p_idx[p]
                if seen[j] != u + 1:
                    seen[j] = u + 1
                    row[n] = j
                    n += 1
        sort_nonnegative(row, n)
        at = ptr[u]
        if at + n > len(idx):  # grow the output by doubling
            grown = np.empty(max(2 * len(idx), at + n), dtype=np.int64)
            copy_into(idx[:at], grown, 0)
            idx = grown
        copy_into(row[:n], idx, at)
        ptr[u + 1] = at + n
    return ptr, idx[: ptr[n_rows]].copy()


@numba.njit(nogil=True, cache=True)
def pair_counts(t_ptr, t_idx, m_ptr, m_idx, n_cols, lo, hi):
    """Rows ``lo..hi-1`` of ``M'M`` off its diagonal, as ``(lengths, idx, counts)``: for item ``a``
    (its groups ``t_idx[t_ptr[a]:t_ptr[a + 1]]``, rows of ``M``: ``m_*``), every other column held
    by one of them with the number of them holding it (float64), columns increasing.  A dense
    counter of ``n_cols``: a row's columns are read back from it in order when they are many, else
    sorted."""
    count = np.zeros(n_cols, dtype=np.int64)
    row = np.empty(n_cols, dtype=np.int64)
    lengths = np.zeros(hi - lo, dtype=np.int64)
    idx = np.empty(max(n_cols, 16), dtype=np.int64)
    counts = np.empty(len(idx), dtype=np.float64)
    at = 0
    for a in range(lo, hi):
        n = 0
        for p in range(t_ptr[a], t_ptr[a + 1]):
            g = t_idx[p]
            for q in range(m_ptr[g], m_ptr[g + 1]):
                b = m_idx[q]
                if b != a:
                    if count[b] == 0:
                        row[n] = b
                        n += 1
                    count[b] += 1
        if at + n > len(idx):  # grow the output by doubling
            size = max(2 * len(idx), at + n)
            grown, grown_counts = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.float64)
            copy_into(idx[:at], grown, 0)
            copy_into(counts[:at], grown_counts, 0)
            idx, counts = grown, grown_counts
        if 8 * n > n_cols:  # most columns: read them back in order
            q = at
            for b in range(n_cols):
                if count[b]:
                    idx[q] = b
                    q += 1
        else:
            sort_nonnegative(row, n)
            copy_into(row[:n], idx, at)
        for q in range(at, at + n):
            counts[q] = count[idx[q]]
            count[idx[q]] = 0
        lengths[a - lo] = n
        at += n
    return lengths, idx[:at].copy(), counts[:at].copy()


@numba.njit(nogil=True, cache=True)
def row_bitsets(ptr, idx, n_cols):
    """The rows as bitsets of ``(n_cols + 63) // 64`` words: bit ``j & 63`` of word ``j >> 6``."""
    n_rows = len(ptr) - 1
    bits = np.zeros((n_rows, (n_cols + 63) // 64), dtype=np.uint64)
    for u in range(n_rows):
        for p in range(ptr[u], ptr[u + 1]):
            j = idx[p]
            bits[u, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    return bits


@numba.njit(nogil=True, cache=True)
def ranked_row_bitsets(ptr, idx, n_cols):
    """The rows as bitsets (:func:`row_bitsets`) and, per word, how many of the row's columns come
    before it: the entry of column ``j`` (set in row ``u``'s bitset) is at ``ptr[u] + before[u, j >>
    6] + (bits below j in its word)`` when each row's columns increase — found without a search."""
    bits = row_bitsets(ptr, idx, n_cols)
    before = np.zeros(bits.shape, dtype=np.int32)
    for u in range(bits.shape[0]):
        c = 0
        for w in range(bits.shape[1]):
            before[u, w] = c
            c += popcount(bits[u, w])
    return bits, before


@numba.njit(nogil=True, cache=True)
def union_of_bitsets(m_ptr, m_idx, p_ptr, p_idx, n_cols):
    """:func:`union_of_rows` by OR-ing the rows of ``P`` as bitsets of ``n_cols`` bits: reads
    ``(n_cols + 63) // 64`` words a membership where the other reads the row's columns."""
    n_rows = len(m_ptr) - 1
    bits = row_bitsets(p_ptr, p_idx, n_cols)
    words = bits.shape[1]
    acc = np.zeros((n_rows, words), dtype=np.uint64)
    for u in range(n_rows):
        for q in range(m_ptr[u], m_ptr[u + 1]):
            k = m_idx[q]
            for w in range(words):
                acc[u, w] |= bits[k, w]
    return bits_to_indices(acc)


@numba.njit(nogil=True, cache=True)
def rating_biases(ptr, idx, values, n_cols, mean, reg_user, reg_item, n_iter):
    """``(user_bias, item_bias)`` of :func:`~recsys.model.ratings.rating_baseline` from a ratings
    matrix's rows, bit for bit: each sum adds the entries in storage order, as ``np.bincount`` over
    them does.  One pass a half-step, without the gathers and temporaries of the numpy form (5.8 s
    of a 25 M-rating train's 18 M ratings, twice)."""
    n_rows = len(ptr) - 1
    n = len(idx)
    bu, bi = np.zeros(n_rows), np.zeros(n_cols)
    cu, ci = np.zeros(n_rows), np.zeros(n_cols)
    for u in range(n_rows):
        cu[u] = ptr[u + 1] - ptr[u]
    for p in range(n):
        ci[idx[p]] += 1.0
    sums_u, sums_i = np.empty(n_rows), np.empty(n_cols)
    for _ in range(n_iter):
        sums_i[:] = 0.0
        for u in range(n_rows):
            for p in range(ptr[u], ptr[u + 1]):
                sums_i[idx[p]] += values[p] - mean - bu[u]
        for i in range(n_cols):
            bi[i] = sums_i[i] / (reg_item + ci[i])
        for u in range(n_rows):
            total = 0.0
            for p in range(ptr[u], ptr[u + 1]):
                total += values[p] - mean - bi[idx[p]]
            sums_u[u] = total
        for u in range(n_rows):
            bu[u] = sums_u[u] / (reg_user + cu[u])
    return bu, bi
