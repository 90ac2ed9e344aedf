"""In-Close2 exact enumeration of formal concepts (Andrews, 2011), on bitsets.

A formal concept of a binary matrix is a pair (rows ``A``, columns ``B``)
where ``B`` is exactly the set of columns all rows of ``A`` share and ``A``
exactly the set of rows having all columns of ``B``: a maximal all-ones
sub-matrix.  In-Close2 visits each concept once, extending intents in
column order and rejecting a child whose extent is contained in an earlier
column's (the canonicity test), so no concept is generated twice.

Extents are bitsets over rows (``uint64`` words): intersection, equality
and subset tests cost ``n_rows / 64`` word operations.

Example
-------
>>> import numpy as np
>>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
>>> [(r.tolist(), c.tolist()) for r, c in inclose(X, min_rows=2, min_cols=1)]
[([0, 1, 2], [1]), ([0, 1], [0, 1]), ([1, 2], [1, 2])]
"""

from __future__ import annotations

import warnings

import numba
import numpy as np

from ._kernels import argsort_u64, bits_to_indices, grow_rows, sort_nonnegative
from ._kernels import grow as _grow
from ._kernels import popcount as _popcount
from ._validation import check_binary_matrix
from .minhash import as_csr
from .params import DENSITY_TOLERANCE

# the orders of a region's columns step 4 may extend intents in (HBLCoClust's column_order)
BY_INDEX, BY_DEGREE, BY_DEGREE_WHERE_BOUND = 0, 1, 2
COLUMN_ORDERS = {"index": BY_INDEX, "degree": BY_DEGREE, "auto": BY_DEGREE_WHERE_BOUND}


class ConceptBudgetExceeded(RuntimeError):
    """Raised when an enumeration reaches its ``max_concepts`` budget."""


# compiled once and called, not inlined: inlined at its two call sites it made _regions_kernel's
# compilation the longest of the package (4 s for each of its signatures)
@numba.njit(nogil=True, cache=True)
def _inclose_bitsets(cols, n_rows, min_rows, min_cols, max_concepts, density=1.0):
    """All concepts of the matrix whose column ``j`` is the bitset ``cols[j]``.

    With ``density < 1`` this is the author's relaxed In-Close: a column held by at least
    ``density`` of the current extent joins the intent without splitting the extent, and a
    child is canonical unless an earlier column outside the intent would join it so.

    Returns ``(ext, int_ptr, int_idx, complete)``: ``ext[i]`` is the extent bitset of concept
    ``i``, its intent ``int_idx[int_ptr[i]:int_ptr[i+1]]`` (sorted); ``complete`` is False when
    ``max_concepts`` stopped the search.
    """
    n_cols, words = cols.shape
    # pending nodes: extent bitset, intent, first column to try
    cap = 64
    st_ext = np.empty((cap, words), dtype=np.uint64)
    st_int_ptr = np.zeros(cap + 1, dtype=np.int64)
    st_int = np.empty(256, dtype=np.int64)
    st_y = np.empty(cap, dtype=np.int64)
    # output
    ocap = 16
    out_ext = np.empty((ocap, words), dtype=np.uint64)
    out_int_ptr = np.zeros(ocap + 1, dtype=np.int64)
    out_int = np.empty(256, dtype=np.int64)
    n_out = 0
    complete = True

    top = np.zeros(words, dtype=np.uint64)
    for r in range(n_rows):
        top[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    for w in range(words):
        st_ext[0, w] = top[w]
    st_y[0] = 0
    n_st = 1

    in_b = np.zeros(n_cols, dtype=np.bool_)
    intent = np.empty(n_cols, dtype=np.int64)
    child_j = np.empty(n_cols, dtype=np.int64)
    child_ext = np.empty((n_cols, words), dtype=np.uint64)
    a = np.empty(words, dtype=np.uint64)

    if n_rows < min_rows:
        n_st = 0
    while n_st > 0:
        n_st -= 1
        for w in range(words):
            a[w] = st_ext[n_st, w]
        y = st_y[n_st]
        nb = 0
        for p in range(st_int_ptr[n_st], st_int_ptr[n_st + 1]):
            intent[nb] = st_int[p]
            in_b[st_int[p]] = True
            nb += 1
        size_a = 0
        for w in range(words):
            size_a += _popcount(a[w])
        n_child = 0
        for j in range(y, n_cols):
            if in_b[j]:
                continue
            cnt = 0
            for w in range(words):
                v = a[w] & cols[j, w]
                child_ext[n_child, w] = v
                cnt += _popcount(v)
            if cnt >= density * size_a - DENSITY_TOLERANCE:
                in_b[j] = True
                intent[nb] = j
                nb += 1
            elif cnt >= min_rows:
                canonical = True
                for k in range(j):
                    if in_b[k]:
                        continue
                    subset = True
                    if density >= 1.0:
                        for w in range(words):
                            if child_ext[n_child, w] & ~cols[k, w]:
                                subset = False
                                break
                    else:
                        kept = 0
                        for w in range(words):
                            kept += _popcount(child_ext[n_child, w] & cols[k, w])
                        subset = kept >= density * cnt - DENSITY_TOLERANCE
                    if subset:
                        canonical = False
                        break
                if canonical:
                    child_j[n_child] = j
                    n_child += 1
        if nb >= min_cols and size_a >= min_rows:
            if n_out >= max_concepts:
                complete = False
                for t in range(nb):
                    in_b[intent[t]] = False
                break
            out_ext = grow_rows(out_ext, n_out + 1)
            out_int_ptr = _grow(out_int_ptr, out_ext.shape[0] + 1)
            for w in range(words):
                out_ext[n_out, w] = a[w]
            out_int = _grow(out_int, out_int_ptr[n_out] + nb)
            base_o = out_int_ptr[n_out]
            for t in range(nb):
                out_int[base_o + t] = intent[t]
            sort_nonnegative(out_int[base_o : base_o + nb], nb)
            out_int_ptr[n_out + 1] = out_int_ptr[n_out] + nb
            n_out += 1
        # children, last column first so the first one is explored next (depth first)
        base = st_int_ptr[n_st]
        for c in range(n_child - 1, -1, -1):
            st_ext = grow_rows(st_ext, n_st + 1)
            st_int_ptr = _grow(st_int_ptr, st_ext.shape[0] + 1)
            st_y = _grow(st_y, st_ext.shape[0])
            for w in range(words):
                st_ext[n_st, w] = child_ext[c, w]
            st_y[n_st] = child_j[c] + 1
            st_int = _grow(st_int, base + nb + 1)
            for t in range(nb):
                st_int[base + t] = intent[t]
            st_int[base + nb] = child_j[c]
            base += nb + 1
            st_int_ptr[n_st + 1] = base
            n_st += 1
        for t in range(nb):
            in_b[intent[t]] = False
    return out_ext[:n_out], out_int_ptr[: n_out + 1], out_int[: out_int_ptr[n_out]], complete


@numba.njit(nogil=True, cache=True)
def _most_selective(ext, eptr, eidx, iptr, iidx, keep):
    """The concepts of one region (extents ``ext`` as bitsets and ``eptr``/``eidx``, intents
    ``iptr``/``iidx``) reduced to the most selective whose memberships fit ``keep``: fewest rows,
    then fewest columns, then the order found; at least one.  Same arrays, in that order."""
    m = ext.shape[0]
    if m == 0:
        return ext, eptr, eidx, iptr, iidx
    rows = np.empty(m, dtype=np.int64)
    cols = np.empty(m, dtype=np.int64)
    for c in range(m):
        rows[c] = eptr[c + 1] - eptr[c]
        cols[c] = iptr[c + 1] - iptr[c]
    # by rows, then columns, then the order found: a stable sort of one key (numpy's mergesort
    # took 4 s to compile here)
    keys = np.empty(m, dtype=np.uint64)
    for c in range(m):
        keys[c] = (np.uint64(rows[c]) << np.uint64(32)) | np.uint64(cols[c])
    order = argsort_u64(keys)
    n, used = 0, 0
    while n < m and (n == 0 or used + rows[order[n]] + cols[order[n]] <= keep):
        used += rows[order[n]] + cols[order[n]]
        n += 1
    if n == m:
        return ext, eptr, eidx, iptr, iidx
    chosen = order[:n]
    o_ext = np.empty((n, ext.shape[1]), dtype=ext.dtype)
    o_eptr = np.zeros(n + 1, dtype=np.int64)
    o_iptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(n):
        c = chosen[k]
        for w in range(ext.shape[1]):
            o_ext[k, w] = ext[c, w]
        o_eptr[k + 1] = o_eptr[k] + rows[c]
        o_iptr[k + 1] = o_iptr[k] + cols[c]
    o_eidx = np.empty(o_eptr[n], dtype=np.int64)
    o_iidx = np.empty(o_iptr[n], dtype=np.int64)
    for k in range(n):
        c = chosen[k]
        for p in range(rows[c]):
            o_eidx[o_eptr[k] + p] = eidx[eptr[c] + p]
        for p in range(cols[c]):
            o_iidx[o_iptr[k] + p] = iidx[iptr[c] + p]
    return o_ext, o_eptr, o_eidx, o_iptr, o_iidx


def entity_bitsets(by_entity, others: int, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bitsets over ``others`` indices of the ``chosen`` rows of the CSR matrix ``by_entity``:
    ``(bits, slot)``, row ``e``'s bitset ``bits[slot[e]]`` (``slot[e] = -1``: none)."""
    slot = np.full(by_entity.shape[0], -1, dtype=np.int64)
    slot[chosen] = np.arange(len(chosen))
    bits = np.zeros((len(chosen), max(1, (others + 63) // 64)), dtype=np.uint64)
    if len(chosen):
        sub = by_entity[chosen].tocoo()
        np.bitwise_or.at(bits, (sub.row, sub.col >> 6), np.left_shift(np.uint64(1), (sub.col & 63).astype(np.uint64)))
    return bits, slot


def inclose(X, min_rows: int = 1, min_cols: int = 1, max_concepts: int | None = None, on_budget: str = "raise"):
    """Enumerate every formal concept of a binary matrix with In-Close2.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_rows, n_cols)
        Binary relation; non-zeros are relations.  Values must be 0 or 1.
    min_rows, min_cols : int
        Report only concepts with at least this many rows and columns.
        ``min_rows`` also prunes the search (extents only shrink).
    max_concepts : int, optional
        Stop after this many concepts.  Exact enumeration is exponential in
        the worst case; the budget turns a runaway search into an error.
    on_budget : {"raise", "warn"}
        When the budget is reached: raise :class:`ConceptBudgetExceeded`, or
        warn and return the concepts found so far.

    Returns
    -------
    list of (rows, cols)
        Sorted ``int64`` index arrays, in the order In-Close2 finds them.

    Examples
    --------
    >>> X = np.array([[1, 0], [1, 1]])
    >>> [(r.tolist(), c.tolist()) for r, c in inclose(X)]
    [([0, 1], [0]), ([1], [0, 1])]
    """
    X = check_binary_matrix(X, name="X")
    for name, value in (("min_rows", min_rows), ("min_cols", min_cols)):
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if max_concepts is not None and (not isinstance(max_concepts, (int, np.integer)) or max_concepts < 1):
        raise ValueError(f"max_concepts must be a positive integer or None, got {max_concepts!r}")
    if on_budget not in ("raise", "warn"):
        raise ValueError(f"on_budget must be 'raise' or 'warn', got {on_budget!r}")
    budget = np.iinfo(np.int64).max if max_concepts is None else int(max_concepts)
    X = as_csr(X)  # the index types of a fit's matrix: the kernel compiled for a fit serves
    everything = np.array([0, X.shape[0]], dtype=np.int64), np.array([0, X.shape[1]], dtype=np.int64)
    # the whole matrix as one region of the pipeline's kernel: one compiled In-Close, not two
    row_ptr, row_idx, int_ptr, int_idx, complete = _regions_concepts(
        X.indptr, X.indices, X.shape[1], everything[0],
        np.arange(X.shape[0], dtype=np.int64), everything[1], np.arange(X.shape[1], dtype=np.int64),
        0, 1, int(min_rows), int(min_cols), budget, 1.0,
    )  # fmt: skip
    if not complete:
        msg = (
            f"In-Close stopped at max_concepts={max_concepts}: the matrix has more concepts; "
            "raise min_rows/min_cols or the budget"
        )
        if on_budget == "raise":
            raise ConceptBudgetExceeded(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=2)
    n = len(row_ptr) - 1
    return [(row_idx[row_ptr[i] : row_ptr[i + 1]], int_idx[int_ptr[i] : int_ptr[i + 1]]) for i in range(n)]


@numba.njit(nogil=True, cache=True)
def _by_degree(bits, cols, n_rows):
    """A region's column bitsets and column indices reordered by decreasing degree in the region
    (most held first; equal degrees in their order): the order In-Close extends intents in."""
    n_cols, words = bits.shape
    keys = np.empty(n_cols, dtype=np.uint64)
    for j in range(n_cols):
        held = 0
        for w in range(words):
            held += _popcount(bits[j, w])
        keys[j] = np.uint64(n_rows - held)
    order = argsort_u64(keys)  # stable
    out_bits = np.empty_like(bits)
    out_cols = np.empty_like(cols)
    for j in range(n_cols):
        out_cols[j] = cols[order[j]]
        for w in range(words):
            out_bits[j, w] = bits[order[j], w]
    return out_bits, out_cols


def _regions_concepts(*args, keep=None, order=BY_INDEX):
    """In-Close2 on each region ``lo..hi-1``; concepts in global row/column indices.  ``args``:
    ``(csr_ptr, csr_idx, n_cols_total, row_ptr, row_idx, col_ptr, col_idx, lo, hi, min_rows, min_cols,
    budget, density)``, the relation, the regions and the search's bounds.

    ``budget`` bounds the concepts enumerated over the regions (the search stops, incomplete, past
    it).  With ``keep`` (memberships per region, the work budget's share: :mod:`coclust.budget`),
    each region's search stops at ``budget`` alone — a region that reaches it does not stop the
    others — and the region keeps its most selective concepts (fewest rows, then fewest columns,
    then the order found) whose memberships fit ``keep[g]``, at least one.  ``order``: the order of
    the columns each region's search extends intents in, :data:`BY_INDEX` or :data:`BY_DEGREE`
    (:func:`_by_degree`), or with ``keep`` :data:`BY_DEGREE_WHERE_BOUND`: by index where the region's
    share keeps every concept, by degree where it cannot, the search by degree then stopping at
    :data:`_FALLBACK_FACTOR` times the concepts the share could keep (the intents come out sorted
    either way)."""
    # one compiled signature whether or not shares are given (an empty array stands for none)
    shares = _NO_SHARES if keep is None else np.asarray(keep, dtype=np.int64)
    return _regions_kernel(*args, shares, keep is not None, order)


_NO_SHARES = np.zeros(0, dtype=np.int64)
# Where a region's share cannot keep every concept (BY_DEGREE_WHERE_BOUND), its search by degree
# stops at this many times the concepts the share could keep (share // (min_rows + min_cols)), and
# the share keeps the most selective of those found.  Unbounded, the search of a dense region ran
# on to millions of concepts for the few dozen kept: on the scale benchmark's concentrated 1 M
# interactions (a movie held by 98 % of users) step 4 took 2.5 s, 1.8 at 32, 1.3 at 8 and 0.7 at 2.
# Chosen on training data only (the 1 M structures' training parts, a tenth held out): NDCG@10 of
# the concentrated ratings 0.3527 unbounded, 0.3529 at 8, 0.3525 at 2 (AUC 0.8893, 0.8893, 0.8888);
# the movielens and popular structures and every structure read as interactions the same to 1e-5.
_FALLBACK_FACTOR = 8


@numba.njit(nogil=True, cache=True)
def _regions_kernel(
    csr_ptr,
    csr_idx,
    n_cols_total,
    row_ptr,
    row_idx,
    col_ptr,
    col_idx,
    lo,
    hi,
    min_rows,
    min_cols,
    budget,
    density,
    keep,
    bounded,
    order,
):
    """:func:`_regions_concepts` compiled; ``bounded``: whether ``keep`` holds the regions' shares."""
    local = np.full(n_cols_total, -1, dtype=np.int64)
    o_rptr = np.zeros(1024, dtype=np.int64)
    o_ridx = np.empty(4096, dtype=np.int64)
    o_cptr = np.zeros(1024, dtype=np.int64)
    o_cidx = np.empty(4096, dtype=np.int64)
    n = 0
    complete = True
    for g in range(lo, hi):
        rows = row_idx[row_ptr[g] : row_ptr[g + 1]]
        cols = col_idx[col_ptr[g] : col_ptr[g + 1]]
        for j in range(cols.shape[0]):
            local[cols[j]] = j
        words = (rows.shape[0] + 63) // 64
        bits = np.zeros((cols.shape[0], words), dtype=np.uint64)
        for i in range(rows.shape[0]):
            r = rows[i]
            for p in range(csr_ptr[r], csr_ptr[r + 1]):
                j = local[csr_idx[p]]
                if j >= 0:
                    bits[j, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        for j in range(cols.shape[0]):
            local[cols[j]] = -1
        reordered = order == BY_DEGREE
        if reordered:
            bits, cols = _by_degree(bits, cols, rows.shape[0])
        if not bounded:
            ext, iptr, iidx, ok = _inclose_bitsets(bits, rows.shape[0], min_rows, min_cols, budget - n, density)
            complete = complete and ok
            eptr, eidx = bits_to_indices(ext)
        else:
            # BY_DEGREE_WHERE_BOUND: by index, up to the most concepts the share could keep (each holds
            # min_rows + min_cols memberships at least); past them the share binds, and the region is
            # searched again by degree
            limit = budget
            if order == BY_DEGREE_WHERE_BOUND:
                limit = min(budget, keep[g - lo] // max(min_rows + min_cols, 1))
            while True:
                ext, iptr, iidx, ok = _inclose_bitsets(bits, rows.shape[0], min_rows, min_cols, limit, density)
                if ok or reordered or limit >= budget:
                    break
                bits, cols = _by_degree(bits, cols, rows.shape[0])
                reordered, limit = True, min(budget, _FALLBACK_FACTOR * max(limit, 1))
            eptr, eidx = bits_to_indices(ext)
            ext, eptr, eidx, iptr, iidx = _most_selective(ext, eptr, eidx, iptr, iidx, keep[g - lo])
        m = ext.shape[0]
        o_rptr = _grow(o_rptr, n + m + 1)
        o_cptr = _grow(o_cptr, n + m + 1)
        o_ridx = _grow(o_ridx, o_rptr[n] + eidx.shape[0])
        o_cidx = _grow(o_cidx, o_cptr[n] + iidx.shape[0])
        for c in range(m):
            a = o_rptr[n + c]
            for p in range(eptr[c], eptr[c + 1]):
                o_ridx[a] = rows[eidx[p]]
                a += 1
            o_rptr[n + c + 1] = a
            b = o_cptr[n + c]
            for p in range(iptr[c], iptr[c + 1]):
                o_cidx[b] = cols[iidx[p]]
                b += 1
            if reordered:  # the intent in the region's order of columns: sorted again
                sort_nonnegative(o_cidx[o_cptr[n + c] : b], b - o_cptr[n + c])
            o_cptr[n + c + 1] = b
        n += m
        if not complete:
            break
    return o_rptr[: n + 1], o_ridx[: o_rptr[n]], o_cptr[: n + 1], o_cidx[: o_cptr[n]], complete
