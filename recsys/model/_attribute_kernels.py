"""Compiled users × attributes table of the attribute evidence (:func:`recsys.model.attributes.user_table`).

Summing every (rating, attribute of its item) per (user, attribute) through one sort of their keys
took 0.4 s of a list's first use at 1 M ratings; a walk of each user's ratings with a dense row of
sums takes milliseconds, and adds each sum's terms in the same order (the same floats).
"""

from __future__ import annotations

import numba
import numpy as np

from coclust._kernels import sorted_nonnegative


@numba.njit(nogil=True, cache=True)
def attribute_rows(r_ptr, r_idx, a_ptr, a_idx, n_attr):
    """The row pointers of a users × attributes table: how many distinct attributes the items of
    each user (rows of ``r_*``) carry (``a_*``: items × attributes)."""
    n_users = len(r_ptr) - 1
    seen = np.zeros(n_attr, dtype=np.bool_)
    touched = np.empty(n_attr, dtype=np.int64)
    ptr = np.zeros(n_users + 1, dtype=np.int64)
    for u in range(n_users):
        nt = 0
        for q in range(r_ptr[u], r_ptr[u + 1]):
            for p in range(a_ptr[r_idx[q]], a_ptr[r_idx[q] + 1]):
                if not seen[a_idx[p]]:
                    seen[a_idx[p]] = True
                    touched[nt] = a_idx[p]
                    nt += 1
        for x in range(nt):
            seen[touched[x]] = False
        ptr[u + 1] = ptr[u] + nt
    return ptr


@numba.njit(nogil=True, cache=True)
def user_attribute_means(r_ptr, r_idx, r_val, a_ptr, a_idx, n_attr, shrinkage, ptr, idx, val, lo, hi):
    """For users ``lo..hi-1`` (rows of ``r_*``: items and residuals) and each attribute of the items
    they rated (``a_*``: items × attributes): ``Σ residual / (count + shrinkage)``, written at their
    rows of the CSR arrays ``idx``/``val`` (``ptr``: :func:`attribute_rows`), attributes increasing."""
    total = np.zeros(n_attr)
    count = np.zeros(n_attr, dtype=np.int64)
    touched = np.empty(n_attr, dtype=np.int64)
    for u in range(lo, hi):
        nt = 0
        for q in range(r_ptr[u], r_ptr[u + 1]):
            for p in range(a_ptr[r_idx[q]], a_ptr[r_idx[q] + 1]):
                a = a_idx[p]
                if count[a] == 0:
                    touched[nt] = a
                    nt += 1
                count[a] += 1
                total[a] += r_val[q]
        mine = sorted_nonnegative(touched[:nt])
        for x in range(nt):
            a = mine[x]
            idx[ptr[u] + x] = a
            val[ptr[u] + x] = total[a] / (count[a] + shrinkage)
            total[a], count[a] = 0.0, 0


RIDGE_SWEEPS = 200  # most users' fits stop far earlier, at RIDGE_TOLERANCE
RIDGE_TOLERANCE = 1e-9


@numba.njit(nogil=True, cache=True)
def ridge_of_one(items, resid, a_ptr, a_idx, l2, slot, attrs_out, w_out):
    """One person's joint fit of their residuals on the attributes of the items they rated:
    ``argmin_w Σ_j (resid[j] − Σ_{a of items[j]} w_a)² + l2 Σ_a w_a²``, by cyclic coordinate descent
    over their attributes in increasing order from ``w = 0`` until no coefficient moves more than
    :data:`RIDGE_TOLERANCE` (at most :data:`RIDGE_SWEEPS` sweeps).  An attribute alone on its items
    gets ``Σ resid / (count + l2)``, the shrunk mean, at the first sweep.  Writes the attributes
    (increasing) and their coefficients into ``attrs_out`` and ``w_out``; returns how many.
    ``slot`` (one entry per attribute, all −1) is left as it was found."""
    m = len(items)
    nt = 0
    for j in range(m):
        for p in range(a_ptr[items[j]], a_ptr[items[j] + 1]):
            a = a_idx[p]
            if slot[a] < 0:
                slot[a] = 0
                attrs_out[nt] = a
                nt += 1
    mine = sorted_nonnegative(attrs_out[:nt])
    start = np.zeros(nt + 1, dtype=np.int64)
    for x in range(nt):
        attrs_out[x] = mine[x]
        slot[mine[x]] = x
    for j in range(m):
        for p in range(a_ptr[items[j]], a_ptr[items[j] + 1]):
            start[slot[a_idx[p]] + 1] += 1
    for x in range(nt):
        start[x + 1] += start[x]
    fill = start[:nt].copy()
    rated = np.empty(start[nt], dtype=np.int64)  # per attribute, the person's ratings of its items
    for j in range(m):
        for p in range(a_ptr[items[j]], a_ptr[items[j] + 1]):
            s = slot[a_idx[p]]
            rated[fill[s]] = j
            fill[s] += 1
    pred = np.zeros(m)
    w = np.zeros(nt)
    for _ in range(RIDGE_SWEEPS):
        moved = 0.0
        for s in range(nt):
            n = start[s + 1] - start[s]
            num = 0.0
            for e in range(start[s], start[s + 1]):
                num += resid[rated[e]] - pred[rated[e]]
            new = (num + n * w[s]) / (n + l2)
            d = new - w[s]
            if d != 0.0:
                for e in range(start[s], start[s + 1]):
                    pred[rated[e]] += d
                w[s] = new
                moved = max(moved, abs(d))
        if moved <= RIDGE_TOLERANCE:
            break
    for x in range(nt):
        w_out[x] = w[x]
        slot[attrs_out[x]] = -1
    return nt


@numba.njit(nogil=True, cache=True)
def user_attribute_ridge(r_ptr, r_idx, r_val, a_ptr, a_idx, n_attr, l2, ptr, idx, val, lo, hi):
    """:func:`ridge_of_one` for users ``lo..hi-1`` (rows of ``r_*``: items and residuals), written
    as :func:`user_attribute_means` writes its rows."""
    slot = np.full(n_attr, -1, dtype=np.int64)
    attrs = np.empty(n_attr, dtype=np.int64)
    w = np.empty(n_attr)
    for u in range(lo, hi):
        start, end = r_ptr[u], r_ptr[u + 1]
        nt = ridge_of_one(r_idx[start:end], r_val[start:end], a_ptr, a_idx, l2, slot, attrs, w)
        for x in range(nt):
            idx[ptr[u] + x] = attrs[x]
            val[ptr[u] + x] = w[x]
