"""Compiled gathers of the item model's per-item systems (:mod:`recsys.model.item_model`).

Kept apart so that loading a model and predicting never import numba (only fitting does).  Each
gather runs without the GIL, so the solver threads gather and factorise in parallel; numpy's and
scipy's fancy indexing held it (half of the solves' time at 1 M ratings ran one thread at a time)
and scipy's copied every row of ``S`` whole from a sparse Gram matrix (minutes at 8,000 movies).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.np.linalg import _LAPACK  # numba's own handle on scipy's LAPACK (numba >= 0.59)

from coclust._kernels import argsort_float, copy_into

from ._lookup import position_in_row


@numba.njit(
    [
        "Tuple((float64[:, ::1], float64[::1]))(float64[:, ::1], int64[::1], int64, float64)",
        "Tuple((float64[:, ::1], float64[::1]))(float32[:, ::1], int64[::1], int64, float64)",
    ],
    nogil=True,
    cache=True,
)
def system(G, S, j, l2):
    """``(G[S, S] + l2 I, G[S, j])``, gathered without the GIL: numpy's fancy indexing holds it, and
    the gathers were half of the solves' time, run one thread at a time (measured at 1 M ratings).
    Only the lower triangle of ``A`` (row ``a``, columns up to ``a``) is gathered and written: it is
    all that :func:`cholesky_solve` reads.  The gathers read a row of ``G`` for every partner, memory
    bound on large catalogues: half the triangle, half the time; a ``float32`` ``G`` (the counts of
    0/1 likes, exact in it) halves it again."""
    k = len(S)
    A = np.empty((k, k))
    b = np.empty(k)
    for a in range(k):
        row = S[a]
        for c in range(a + 1):
            A[a, c] = G[row, S[c]]
        A[a, a] += l2
        b[a] = G[row, j]
    return A, b


@numba.njit(inline="always")
def entry(indptr, indices, data, row, col):
    """``G[row, col]`` of a CSR matrix with sorted indices (0 when not stored)."""
    at = position_in_row(indptr, indices, row, col)
    return data[at] if at >= 0 else 0.0


@numba.njit("float64[::1](int64[::1], int64[::1], float64[::1], int64[::1], int64)", nogil=True, cache=True)
def sparse_entries(indptr, indices, data, S, j):
    """``G[S, j]`` of a sparse ``G``: a binary search in each of the rows ``S`` (scipy's fancy
    indexing copied every row whole: minutes at 8,000 movies)."""
    out = np.empty(len(S))
    for a in range(len(S)):
        out[a] = entry(indptr, indices, data, S[a], j)
    return out


@numba.njit("float64[::1](int64[::1], int64[::1], float64[::1], int64[::1], int64[::1])", nogil=True, cache=True)
def gram_entries(indptr, indices, data, rows, cols):
    """``G[rows[t], cols[t]]`` of a sparse ``G`` for every ``t`` (binary searches)."""
    out = np.empty(len(rows))
    for t in range(len(rows)):
        out[t] = entry(indptr, indices, data, rows[t], cols[t])
    return out


@numba.njit(
    "Tuple((float64[:, ::1], float64[::1]))(int64[::1], int64[::1], float64[::1], int64[::1], int64, float64)",
    nogil=True,
    cache=True,
)
def sparse_system(indptr, indices, data, S, j, l2):
    """:func:`system` for a sparse ``G``: each row of ``A`` by a walk along the row of ``G`` and
    ``S`` together when ``S`` is sorted and the row is short, else by binary searches."""
    k = len(S)
    A = np.zeros((k, k))
    b = np.empty(k)
    ascending = True
    for c in range(1, k):
        ascending = ascending and S[c - 1] < S[c]
    for a in range(k):
        row = S[a]
        lo, hi = indptr[row], indptr[row + 1]
        if ascending and hi - lo < k * 8:
            c = 0
            while lo < hi and c < k:
                if indices[lo] < S[c]:
                    lo += 1
                elif indices[lo] > S[c]:
                    c += 1
                else:
                    A[a, c] = data[lo]
                    lo += 1
                    c += 1
        else:
            for c in range(k):
                A[a, c] = entry(indptr, indices, data, row, S[c])
        A[a, a] += l2
        b[a] = entry(indptr, indices, data, row, j)
    return A, b


# LAPACK's Cholesky factorisation as numba's own ``np.linalg.cholesky`` calls it (resolved from
# scipy's LAPACK at run time, so the kernels that call it stay cacheable)
_POTRF = _LAPACK().numba_xxpotrf(numba.types.float64)
_DOUBLE, _UPPER = ord("d"), ord("U")


@numba.njit(nogil=True, cache=True)
def cholesky_solve(A, b):
    """``A⁻¹ b`` of a symmetric positive definite ``A`` given by its lower triangle (overwritten by
    its Cholesky factor): LAPACK's factorisation in place, then the two triangular solves in place
    of ``b`` (compiled: a solve of 200 partners is too short for scipy's per-call overhead, which
    held the GIL).  The factor is the one ``np.linalg.cholesky`` gives, without its copy of ``A``
    and its zeroing of the upper triangle, column by column (at 700 partners: 3.9 ms against 7.4)."""
    k = len(b)
    if k == 0:
        return b
    # A in C order is its transpose in Fortran order: LAPACK's upper triangle is our lower one
    info = _POTRF(_DOUBLE, _UPPER, k, A.ctypes, k)
    if info != 0:
        raise np.linalg.LinAlgError("Matrix is not positive definite.")
    L = A
    for i in range(k):  # L y = b
        s = b[i]
        for c in range(i):
            s -= L[i, c] * b[c]
        b[i] = s / L[i, i]
    for i in range(k - 1, -1, -1):  # Lᵀ x = y
        s = b[i]
        for c in range(i + 1, k):
            s -= L[c, i] * b[c]
        b[i] = s / L[i, i]
    return b


@numba.njit(nogil=True, cache=True)
def solve_dense_rows(G, s_ptr, s_idx, l2, out, lo, hi):
    """For items ``j`` in ``lo..hi-1``: ``out`` at row ``j``'s entries of the support ``s_*`` gets
    the ridge weights ``(G[S, S] + l2 I)⁻¹ G[S, j]`` (``S``: that row)."""
    for j in range(lo, hi):
        start, end = s_ptr[j], s_ptr[j + 1]
        if end > start:
            A, b = system(G, s_idx[start:end], j, l2)
            copy_into(cholesky_solve(A, b), out, start)


@numba.njit(nogil=True, cache=True)
def solve_sparse_rows(indptr, indices, data, s_ptr, s_idx, l2, out, lo, hi):
    """:func:`solve_dense_rows` for a sparse ``G``."""
    for j in range(lo, hi):
        start, end = s_ptr[j], s_ptr[j + 1]
        if end > start:
            A, b = sparse_system(indptr, indices, data, s_idx[start:end], j, l2)
            copy_into(cholesky_solve(A, b), out, start)


@numba.njit(nogil=True, cache=True)
def dense_gram_rows(c_ptr, c_idx, c_val, ptr, idx, val, G, lo, hi):
    """Rows ``lo..hi-1`` of ``G = X'X``'s lower triangle (the diagonal included): row ``a`` sums
    ``X[u, a] · X[u, b]`` for ``b <= a`` over the users ``u`` of column ``a`` (``c_*``: ``X`` by
    columns, users in increasing order; ``ptr``/``idx``/``val``: by rows, items sorted, each user's
    read up to ``a``) — half the products of the whole row, and the order, hence the floats, of
    scipy's sparse product (a product's two factors commute exactly, so that ``G[a, b]`` and
    ``G[b, a]`` are the same float: :func:`mirror_lower` copies the triangle up).  Threads given
    disjoint row ranges never write the same cell."""
    for a in range(lo, hi):
        for p in range(c_ptr[a], c_ptr[a + 1]):
            u = c_idx[p]
            va = c_val[p]
            for q in range(ptr[u], ptr[u + 1]):
                b = idx[q]
                if b > a:
                    break
                G[a, b] += va * val[q]


@numba.njit(nogil=True, cache=True)
def mirror_lower(G, lo, hi):
    """Rows ``lo..hi-1`` of a square ``G``'s upper triangle from its lower one (``G[a, b] = G[b, a]``,
    ``b > a``), in tiles of 64 × 64 so that the column each row reads stays in cache."""
    n = G.shape[0]
    for a0 in range(lo, hi, 64):
        a1 = min(a0 + 64, hi)
        for b0 in range(a0, n, 64):
            for b in range(b0, min(b0 + 64, n)):
                for a in range(a0, min(a1, b)):
                    G[a, b] = G[b, a]


@numba.njit(nogil=True, cache=True)
def weights_of_inverse(P, ptr, idx, symmetric, out, lo, hi):
    """For rows ``lo..hi-1`` of a support (``ptr``/``idx``, numbered as ``P``): ``out`` at each entry
    ``(r, c)`` gets EASE's weight ``-P[r, c] / P[s, s]``, ``s`` the item scored — ``c`` where
    ``symmetric`` (the entries are the weights' own), ``r`` otherwise.  ``P`` is read along its rows
    and nothing else is made: numpy's gather built the entries' rows, flat positions and diagonal
    first, arrays of the pairs' size (7 M at 1 M interactions, where the item model's ease_on_support
    took 1.9-2.2 s with it and 1.5-1.7 s with this kernel)."""
    for r in range(lo, hi):
        for k in range(ptr[r], ptr[r + 1]):
            c = idx[k]
            s = c if symmetric else r
            out[k] = -P[r, c] / P[s, s]


@numba.njit(nogil=True, cache=True)
def keep_top(ptr, colike, cap, keep, lo, hi):
    """For rows ``lo..hi-1`` longer than ``cap``: flag in ``keep`` the ``cap`` entries of largest
    ``colike``, ties by position (a row's entries are in increasing index: ties by index)."""
    for j in range(lo, hi):
        start, end = ptr[j], ptr[j + 1]
        if end - start <= cap:
            for p in range(start, end):
                keep[p] = True
            continue
        order = argsort_float(-colike[start:end])  # stable: equal co-likes by index
        for t in range(cap):
            keep[start + order[t]] = True
