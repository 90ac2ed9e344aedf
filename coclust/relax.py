"""Density relaxation (the paper's ``spthr``) and merging of equal feature sets.

Relaxation (step 5) of a concept with columns ``B``, on the whole matrix:

1. ``rows = {o : |row(o) ∩ B| >= min_density * |B|}``
2. ``cols = {f : |col(f) ∩ rows| >= min_density * |rows|}``

As in the author's implementation (``lib/bicluster.py``).  Every column
of the result holds at least ``min_density * |rows|`` ones among ``rows``,
so the co-cluster's density is at least ``min_density``; with
``min_density = 1`` the two steps are the Galois closure and the result is a
formal concept of the whole matrix.  The result depends on ``B`` alone, so
concepts with equal intents are relaxed once.

Merging (step 6) unites the rows of co-clusters with identical columns.  A
union of two co-clusters of density >= ``d`` can fall below ``d`` (rows
dense in one may be sparse in the other); the sparsest rows of a merged
co-cluster are then dropped until its density is back to ``d`` — the
guarantee "every co-cluster has density >= min_density" is kept.
"""

from __future__ import annotations

import numba
import numpy as np

from ._arrays import first_occurrences, group_ids
from ._kernels import append_block, argsort_u64, lower_bound, lowest_bit_index, sort_nonnegative, tally
from ._kernels import popcount as _popcount
from ._parallel import chunk_bounds, map_chunks, n_threads
from .blocks import Blocks, _gather, select_of_two
from .concepts import entity_bitsets
from .params import DENSITY_TOLERANCE as _EPS


@numba.njit(inline="always")
def _n_at_least(desc, need):
    # how many leading entries of the descending array ``desc`` are >= need (binary search)
    lo, hi = 0, desc.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if desc[mid] >= need:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(inline="always")
def _columns_held_by(csr_ptr, csr_idx, rows, need, count, touched, alive):
    """The columns held by at least ``need`` of ``rows`` (each row's list sorted), written at the
    front of ``touched`` (unordered); returns how many.  ``count`` is all zeros on entry and on
    return.  Given the columns' lists (CSC) and columns, the rows holding at least ``need`` of
    those columns (step 1), the same way.

    A column held by ``k = ceil(need)`` of the ``nr`` rows misses at most ``nr - k`` of them, so
    it is in the list of one of any ``nr - k + 1`` rows: the lightest rows' lists give the
    candidates, the other rows only test the candidates still able to reach ``k`` (by binary
    search in the row's list while they are fewer than the list is long).  Walking every row's
    list cost the sum of their lengths, in which the heaviest users, members of many
    co-clusters, weigh most (25 M ratings: 6.5 billion entries, 20 s of step 5); in step 1, the
    hub movies' lists (25 M ratings: the 5,045 column sets counted by lists, 44 columns each,
    walked 1.57 billion entries; their lightest, 0.04 billion)."""
    nr = rows.shape[0]
    k = max(1, int(np.ceil(need)))
    if k > nr:
        return 0
    lengths = np.empty(nr, dtype=np.int64)
    for t in range(nr):
        lengths[t] = csr_ptr[rows[t] + 1] - csr_ptr[rows[t]]
    order = np.argsort(lengths)
    first = nr - k + 1
    nt = 0
    for t in range(first):
        nt = tally(csr_ptr, csr_idx, rows[order[t]], count, touched, nt)
    n_alive = nt
    alive[:nt] = touched[:nt]
    for t in range(first, nr):
        r = rows[order[t]]
        lo, hi = csr_ptr[r], csr_ptr[r + 1]
        if n_alive * 8 < hi - lo:
            for a in range(n_alive):
                c = alive[a]
                q = lower_bound(csr_idx, lo, hi, c)
                if q < hi and csr_idx[q] == c:
                    count[c] += 1
        else:  # every entry: a column no longer alive may count, it cannot reach k any more
            for q in range(lo, hi):
                if count[csr_idx[q]] > 0:
                    count[csr_idx[q]] += 1
        # alive: columns that can still reach k with the nr - t - 1 rows left
        floor = k - (nr - t - 1)
        kept = 0
        for a in range(n_alive):
            if count[alive[a]] >= floor:
                alive[kept] = alive[a]
                kept += 1
        n_alive = kept
    for a in range(nt):
        count[touched[a]] = 0
    touched[:n_alive] = alive[:n_alive]
    return n_alive


@numba.njit
def _output(n: int):
    """A chunk's output blocks for at most ``n`` co-clusters (the index arrays grow as they fill,
    ``append_block``) and the input each came from."""
    return (
        np.zeros(n + 1, dtype=np.int64),
        np.empty(1024, dtype=np.int64),
        np.zeros(n + 1, dtype=np.int64),
        np.empty(1024, dtype=np.int64),
        np.empty(n, dtype=np.int64),
    )


@numba.njit(inline="always")
def _rows_counted_in_bits(sorted_bits, rank, B, k_need, n_planes, planes, carry, gt, eq, n_rows, out):
    """The rows holding at least ``k_need`` of the columns ``B`` (each with a row bitset,
    ``sorted_bits[rank[f]]``), written in increasing order at the front of ``out``; returns how
    many.  A carry-save adder over whole bitsets: adding a column ripples its carries through
    the planes (bit k of every row's count in ``planes[k]``) one plane at a time, each plane a
    straight loop over the words with no branch on the data (which the compiler vectorises),
    where a word-at-a-time ripple, whose loop ends where the carry does, mispredicts about a
    branch a word (2,360 words a column at 151,000 users)."""
    words = sorted_bits.shape[1]
    for k in range(n_planes):
        planes[k, :] = 0
    for j in range(B.shape[0]):
        src = sorted_bits[rank[B[j]]]
        p0 = planes[0]
        for w in range(words):
            c = src[w]
            carry[w] = p0[w] & c
            p0[w] ^= c
        # after j + 1 columns a count is at most j + 1: carries reach its bit length's planes only
        reach = 1
        while reach < n_planes and (1 << reach) <= j + 1:
            reach += 1
        for k in range(1, reach):
            pk = planes[k]
            for w in range(words):
                c = carry[w]
                carry[w] = pk[w] & c
                pk[w] ^= c
    # count >= k_need, compared bitwise from the most significant plane down
    for w in range(words):
        gt[w] = 0
        eq[w] = ~np.uint64(0)
    for k in range(n_planes - 1, -1, -1):
        pk = planes[k]
        if (k_need >> k) & 1:
            for w in range(words):
                eq[w] &= pk[w]
        else:
            for w in range(words):
                gt[w] |= eq[w] & pk[w]
                eq[w] &= ~pk[w]
    with_equal = k_need < (1 << n_planes)
    nr = 0
    for w in range(words):
        v = gt[w] | eq[w] if with_equal else gt[w]
        while v:
            r = w * 64 + lowest_bit_index(v)
            if r < n_rows:
                out[nr] = r
                nr += 1
            v &= v - np.uint64(1)
    return nr


@numba.njit(nogil=True, cache=True)
def _relax_chunk(
    csr_ptr,
    csr_idx,
    csc_ptr,
    csc_idx,
    n_rows,
    n_cols,
    col_ptr,
    col_idx,
    lo,
    hi,
    density,
    min_rows,
    min_cols,
    sorted_bits,
    rank,
    deg_order,
    deg_sorted,
):
    # per row and per column: a count, and a list of those met
    row_count, touched_r = np.zeros(n_rows, dtype=np.int64), np.empty(n_rows, dtype=np.int64)
    col_count, touched_c = np.zeros(n_cols, dtype=np.int64), np.empty(n_cols, dtype=np.int64)
    alive_c = np.empty(n_cols, dtype=np.int64)
    alive_r = np.empty(n_rows, dtype=np.int64)
    row_bits = np.zeros(max(1, sorted_bits.shape[1]), dtype=np.uint64)
    o_rptr, o_ridx, o_cptr, o_cidx, origin = _output(hi - lo)
    n = 0
    words = sorted_bits.shape[1]
    n_bits = sorted_bits.shape[0]  # the heaviest columns have a bitset: those of rank < n_bits
    planes = np.zeros((64, max(1, words)), dtype=np.uint64)
    carry = np.empty(max(1, words), dtype=np.uint64)  # the adder's carries, and the comparison's
    gt = np.empty(max(1, words), dtype=np.uint64)
    eq = np.empty(max(1, words), dtype=np.uint64)
    for g in range(lo, hi):
        nb = col_ptr[g + 1] - col_ptr[g]
        need = density * nb - _EPS
        list_cost = 0
        lightest = 0  # the largest degree rank among B's columns
        for p in range(col_ptr[g], col_ptr[g + 1]):
            list_cost += csc_ptr[col_idx[p] + 1] - csc_ptr[col_idx[p]]
            lightest = max(lightest, rank[col_idx[p]])
        n_planes = 1
        while (1 << n_planes) <= nb:
            n_planes += 1
        nr = 0
        # the adder costs about a quarter of an operation a column and word (vectorised), a
        # list entry one operation and a cache miss
        if lightest < n_bits and nb * words < 4 * list_cost:
            # Dense relation: count each row's ones in B with a bit-sliced vertical counter over
            # the columns' row bitsets (bit k of a row's count in planes[k])
            nr = _rows_counted_in_bits(
                sorted_bits,
                rank,
                col_idx[col_ptr[g] : col_ptr[g + 1]],
                int(np.ceil(need)),
                n_planes,
                planes,
                carry,
                gt,
                eq,
                n_rows,
                touched_r,
            )
            rows = touched_r  # the bit scan found them in increasing order
        else:
            # the lightest columns' lists and probes in the others' (the estimate above takes
            # every list walked whole: it chose as well as one from the lightest lists did,
            # 14.5-15.8 s against 14.6 s of the 25 M like relaxation on one thread)
            B = col_idx[col_ptr[g] : col_ptr[g + 1]]
            nr = _columns_held_by(csc_ptr, csc_idx, B, need, row_count, touched_r, alive_r)
            sort_nonnegative(touched_r, nr)
            rows = touched_r
        if nr < min_rows:
            continue
        need = density * nr - _EPS
        # Only columns of degree >= need can qualify: on dense relations a popcount over that
        # prefix of the degree-sorted column bitsets is cheaper than walking every kept row.
        n_cand = _n_at_least(deg_sorted, need)
        w0 = rows[0] >> 6
        w1 = (rows[nr - 1] >> 6) + 1
        list_cost = 0
        for t in range(nr):
            list_cost += csr_ptr[rows[t] + 1] - csr_ptr[rows[t]]
        nc = 0
        if 0 < n_bits and n_cand <= n_bits and n_cand * (w1 - w0) < list_cost:
            for w in range(w0, w1):
                row_bits[w] = 0
            for t in range(nr):
                row_bits[rows[t] >> 6] |= np.uint64(1) << np.uint64(rows[t] & 63)
            for t in range(n_cand):
                cnt = 0
                for w in range(w0, w1):
                    cnt += _popcount(sorted_bits[t, w] & row_bits[w])
                if cnt >= need:
                    touched_c[nc] = deg_order[t]
                    nc += 1
        else:
            nc = _columns_held_by(csr_ptr, csr_idx, rows[:nr], need, col_count, touched_c, alive_c)
        if nc < min_cols:
            continue
        sort_nonnegative(touched_c, nc)
        o_ridx, o_cidx = append_block(o_rptr, o_ridx, o_cptr, o_cidx, n, rows, nr, touched_c, nc)
        origin[n] = g
        n += 1
    return o_rptr[: n + 1], o_ridx[: o_rptr[n]], o_cptr[: n + 1], o_cidx[: o_cptr[n]], origin[:n]


@numba.njit(inline="always")
def _gallop(lst, lo, hi, x):
    """The first index ``i`` in ``lo..hi`` with ``lst[i] >= x`` (``lst`` sorted): doubling steps
    from ``lo``, then bisection, so a probe costs the log of the distance skipped."""
    if lo >= hi or lst[lo] >= x:
        return lo
    step = 1
    while lo + step < hi and lst[lo + step] < x:
        step *= 2
    return lower_bound(lst, lo + step // 2 + 1, min(lo + step, hi), x)


@numba.njit(inline="always")
def _keep_in_all(cand, m, ptr, idx, lists, order, min_keep):
    """Keep, in order, the values of the sorted ``cand[:m]`` found in every sorted list
    ``idx[ptr[v]:ptr[v + 1]]`` for ``v = lists[order[t]]``, ``t >= 1``; returns how many are kept
    (stops early below ``min_keep``: the caller drops the co-cluster)."""
    for t in range(1, order.shape[0]):
        if m < min_keep:
            break
        v = lists[order[t]]
        hi = ptr[v + 1]
        p = ptr[v]
        w = 0
        for i in range(m):
            x = cand[i]
            p = _gallop(idx, p, hi, x)
            if p >= hi:
                break
            if idx[p] == x:
                cand[w] = x
                w += 1
        m = w
    return m


@numba.njit
def _common(ptr, idx, members, out, min_keep):
    """The values found in every sorted list ``idx[ptr[m]:ptr[m + 1]]`` of the ``members``,
    written sorted at the front of ``out``: the shortest list, filtered by the others; returns
    how many (fewer than ``min_keep`` may be an early stop)."""
    deg = np.empty(members.shape[0], dtype=np.int64)
    for t in range(members.shape[0]):
        deg[t] = ptr[members[t] + 1] - ptr[members[t]]
    order = np.argsort(deg)
    first = members[order[0]]
    n = 0
    for q in range(ptr[first], ptr[first + 1]):
        out[n] = idx[q]
        n += 1
    return _keep_in_all(out, n, ptr, idx, members, order, min_keep)


@numba.njit(nogil=True, cache=True)
def _closure_chunk(csr_ptr, csr_idx, csc_ptr, csc_idx, n_rows, n_cols, col_ptr, col_idx, lo, hi, min_rows, min_cols):
    """Relaxation at density 1 (the Galois closure) of the column sets ``lo..hi-1``: the rows
    holding every column of ``B``, then the columns every such row holds, as intersections of
    sorted index lists from the shortest one (galloping search), so a hub column costs the length
    of the shortest list, not its own."""
    rows = np.empty(n_rows, dtype=np.int64)
    cols = np.empty(n_cols, dtype=np.int64)
    o_rptr, o_ridx, o_cptr, o_cidx, origin = _output(hi - lo)
    n = 0
    for g in range(lo, hi):
        B = col_idx[col_ptr[g] : col_ptr[g + 1]]
        if B.shape[0] == 0:
            continue
        nr = _common(csc_ptr, csc_idx, B, rows, min_rows)
        if nr == 0 or nr < min_rows:
            continue
        nc = _common(csr_ptr, csr_idx, rows[:nr], cols, min_cols)
        if nc < min_cols:
            continue
        o_ridx, o_cidx = append_block(o_rptr, o_ridx, o_cptr, o_cidx, n, rows, nr, cols, nc)
        origin[n] = g
        n += 1
    return o_rptr[: n + 1], o_ridx[: o_rptr[n]], o_cptr[: n + 1], o_cidx[: o_cptr[n]], origin[:n]


def unique_by_cols(blocks: Blocks) -> np.ndarray:
    """Indices of the first block of each distinct column set, in order."""
    return first_occurrences(blocks.column_hashes())


def relax(
    X,
    Xt,
    col_ptr,
    col_idx,
    min_density: float,
    min_rows: int,
    min_cols: int,
    memory: int,
    done=None,
    on=None,
    with_origin: bool = False,
):
    """Relax the co-clusters with columns ``col_idx[col_ptr[i]:col_ptr[i+1]]``; drop the too small.
    With ``with_origin``, also the index ``i`` each relaxed co-cluster came from: ``(Blocks, origin)``.

    Below density 1 the counts use the bitsets of the heaviest columns, as many as fit in half of
    ``memory`` bytes (the estimator's working-memory budget), and index lists elsewhere.
    ``done(k, n)``: told as the work's chunks complete (see :func:`map_chunks`).  ``on``: what
    runs the chunks, ``on(args, cost, done)`` returning each chunk's :func:`relax_chunk` in order
    (``args``: those of :func:`relax_inputs`; ``cost``: each co-cluster's share of the work) —
    by default this process's threads; :func:`coclust.dask.relax_on` runs them on a Dask cluster."""
    args = (X, Xt, col_ptr, col_idx, float(min_density), int(min_rows), int(min_cols), int(memory))
    parts = (on or _here)(args, np.diff(col_ptr), done)
    if not with_origin:
        return Blocks.concat(parts)
    origin = np.concatenate([p[4] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    return Blocks.concat(parts), origin


def _here(args: tuple, cost: np.ndarray, done=None) -> list:
    inputs = relax_inputs(*args)
    return map_chunks(lambda lo, hi: relax_chunk(inputs, lo, hi), chunk_bounds(cost, 8 * n_threads()), done)


def relax_inputs(X, Xt, col_ptr, col_idx, min_density: float, min_rows: int, min_cols: int, memory: int) -> tuple:
    """What every chunk of the relaxation reads, built once: ``(kernel name, arguments before the
    chunk's bounds, arguments after them)``."""
    # sorted lists: density 1 intersects them, below it step 2 searches the rows' lists
    if not X.has_sorted_indices or not Xt.has_sorted_indices:
        X, Xt = X.sorted_indices(), Xt.sorted_indices()
    if min_density >= 1.0:
        # density 1 needs no counting: list intersections (66 s -> 0.6 s on the 10 M synthetic,
        # whose hub columns made every count walk lists that grow with the data)
        head = (X.indptr, X.indices, Xt.indptr, Xt.indices, X.shape[0], X.shape[1], col_ptr, col_idx)
        return "closure", head, (min_rows, min_cols)
    words = max(1, (X.shape[0] + 63) // 64)
    deg = np.diff(Xt.indptr)
    deg_order = np.argsort(-deg, kind="stable").astype(np.int64)
    deg_sorted = deg[deg_order].astype(np.int64)
    rank = np.empty(X.shape[1], dtype=np.int64)
    rank[deg_order] = np.arange(X.shape[1])
    # the bitsets of the heaviest columns, in decreasing degree (step 2 scans a prefix of them, in
    # memory order), as many as fit in half of ``memory``: where not all fit (25 M ratings: 151,000
    # users × 18,530 movies), the heavy columns that make lists slow still have theirs
    n_bits = min(X.shape[1], (memory // 2) // (8 * words))
    sorted_bits = entity_bitsets(Xt, X.shape[0], deg_order[:n_bits])[0]
    head = (X.indptr, X.indices, Xt.indptr, Xt.indices, X.shape[0], X.shape[1], col_ptr, col_idx)
    return "relax", head, (min_density, min_rows, min_cols, sorted_bits, rank, deg_order, deg_sorted)


def relax_chunk(inputs: tuple, lo: int, hi: int) -> tuple:
    """The relaxed co-clusters ``lo..hi`` (too small ones dropped) as the four arrays of a
    :class:`Blocks` and the index each came from, from :func:`relax_inputs`."""
    kind, head, tail = inputs
    return (_closure_chunk if kind == "closure" else _relax_chunk)(*head, lo, hi, *tail)


@numba.njit(cache=True)
def _tighten(csr_ptr, csr_idx, csc_ptr, csc_idx, r_ptr, rows, c_ptr, cols, groups, density):
    """For each group, drop its sparsest rows until rows × cols reaches ``density``.

    Returns the new row counts per group; ``rows`` is rewritten in place
    (each group's kept rows at the front of its slice, sorted).  A row's ones in the group's
    columns are counted along the rows (CSR) or along the columns (CSC), whichever reads fewer
    entries: a merged group of many rows and few columns reads its columns.
    """
    n_rows, n_cols = csr_ptr.shape[0] - 1, csc_ptr.shape[0] - 1
    mark = np.zeros(n_cols, dtype=np.bool_)
    where = np.full(n_rows, -1, dtype=np.int64)
    new_len = np.empty(r_ptr.shape[0] - 1, dtype=np.int64)
    for g in range(new_len.shape[0]):
        new_len[g] = r_ptr[g + 1] - r_ptr[g]
    for g in groups:
        cg = cols[c_ptr[g] : c_ptr[g + 1]]
        rg = rows[r_ptr[g] : r_ptr[g + 1]]
        along_rows = 0
        for r in rg:
            along_rows += csr_ptr[r + 1] - csr_ptr[r]
        along_cols = 0
        for f in cg:
            along_cols += csc_ptr[f + 1] - csc_ptr[f]
        ones = np.zeros(rg.shape[0], dtype=np.int64)
        if along_cols < along_rows:
            for i in range(rg.shape[0]):
                where[rg[i]] = i
            for f in cg:
                for p in range(csc_ptr[f], csc_ptr[f + 1]):
                    if where[csc_idx[p]] >= 0:
                        ones[where[csc_idx[p]]] += 1
            for r in rg:
                where[r] = -1
        else:
            for f in cg:
                mark[f] = True
            for i in range(rg.shape[0]):
                r = rg[i]
                for p in range(csr_ptr[r], csr_ptr[r + 1]):
                    if mark[csr_idx[p]]:
                        ones[i] += 1
            for f in cg:
                mark[f] = False
        # rows by decreasing ones, ties in their order (a stable sort of the complement)
        top = 0
        total = 0
        for i in range(ones.shape[0]):
            top = max(top, ones[i])
            total += ones[i]
        key = np.empty(ones.shape[0], dtype=np.uint64)
        for i in range(ones.shape[0]):
            key[i] = np.uint64(top - ones[i])
        order = argsort_u64(key)
        n = rg.shape[0]
        while n > 0 and total < density * n * cg.shape[0] - _EPS:
            n -= 1
            total -= ones[order[n]]
        if n < rg.shape[0]:
            kept = np.empty(n, dtype=np.int64)
            for i in range(n):
                kept[i] = rg[order[i]]
            sort_nonnegative(kept, n)
            for i in range(n):
                rg[i] = kept[i]
            new_len[g] = n
    return new_len


def merge_equal_columns(X, Xt, cc: Blocks, min_density: float, min_rows: int) -> Blocks:
    """Unite the rows of co-clusters with identical column sets (step 6): each group of equal
    column sets becomes one co-cluster (the columns and the place of its first member, the union
    of the members' rows, tightened back to ``min_density`` when ``min_density < 1``); those left
    with fewer than ``min_rows`` rows are dropped.  ``Xt`` is ``X`` transposed, in CSR (the
    tightening counts along the columns where that reads less).

    Most column sets are held by one co-cluster, whose rows (sorted, distinct) stay as they are:
    only the groups of several are united, so the cost follows their rows, not every co-cluster's."""
    n = len(cc)
    if n == 0:
        return cc
    first, group = group_ids(cc.column_hashes())
    count = np.bincount(group, minlength=len(first))
    merged = np.flatnonzero(count > 1)  # groups of several members, in group order
    # a block per co-cluster, then one per merged group: the union of its members' rows
    source = first.copy()
    source[merged] = n + np.arange(len(merged))
    united = _united(X, Xt, cc, merged, group, first, min_density) if len(merged) else Blocks.empty()
    lengths = np.concatenate([np.diff(cc.row_ptr), np.diff(united.row_ptr)])[source]
    order = np.argsort(first, kind="stable")  # the groups in the order their first member came
    keep = order[lengths[order] >= min_rows]
    return select_of_two(cc, united, source[keep])


def _united(X, Xt, cc: Blocks, merged: np.ndarray, group: np.ndarray, first: np.ndarray, min_density: float) -> Blocks:
    """The ``merged`` groups as blocks: their members' rows united (sorted, distinct; tightened to
    ``min_density`` below 1), the columns of their ``first`` member."""
    local = np.full(len(first), -1, dtype=np.int64)
    local[merged] = np.arange(len(merged))
    members = np.flatnonzero(local[group] >= 0)
    of_member = local[group[members]]
    m_ptr = np.zeros(len(merged) + 1, dtype=np.int64)
    np.cumsum(np.bincount(of_member, minlength=len(merged)), out=m_ptr[1:])
    by_group = members[np.argsort(of_member, kind="stable")]
    r_ptr, rows = _union_rows(cc.row_ptr, cc.row_idx, m_ptr, by_group, X.shape[0])
    heads = first[merged]
    col_ptr, col_idx = _gather(cc.col_idx, cc.col_ptr[heads], np.diff(cc.col_ptr)[heads])
    if min_density < 1.0:
        # the united rows may be sparser than the members were: drop the sparsest until dense again
        everyone = np.arange(len(merged), dtype=np.int64)
        new_len = _tighten(
            X.indptr, X.indices, Xt.indptr, Xt.indices, r_ptr, rows, col_ptr, col_idx, everyone, min_density
        )
        starts = r_ptr[:-1]
        r_ptr = np.zeros(len(merged) + 1, dtype=np.int64)
        np.cumsum(new_len, out=r_ptr[1:])
        rows = rows[np.repeat(starts - r_ptr[:-1], new_len) + np.arange(r_ptr[-1])]
    return Blocks(r_ptr, rows, col_ptr, col_idx)


@numba.njit(cache=True)
def _union_rows(row_ptr, row_idx, m_ptr, members, n_rows):
    """For each group ``g`` (its blocks ``members[m_ptr[g]:m_ptr[g+1]]``), the union of the blocks'
    rows, sorted: ``(r_ptr, rows)``.  Rows are marked as they are met, so the cost is the members'
    rows, read twice (once to size the output), and a sort of each union."""
    n_groups = m_ptr.shape[0] - 1
    seen = np.zeros(n_rows, dtype=np.bool_)
    r_ptr = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        n = 0
        for k in members[m_ptr[g] : m_ptr[g + 1]]:
            for r in row_idx[row_ptr[k] : row_ptr[k + 1]]:
                if not seen[r]:
                    seen[r] = True
                    n += 1
        for k in members[m_ptr[g] : m_ptr[g + 1]]:
            for r in row_idx[row_ptr[k] : row_ptr[k + 1]]:
                seen[r] = False
        r_ptr[g + 1] = r_ptr[g] + n
    rows = np.empty(r_ptr[-1], dtype=np.int64)
    for g in range(n_groups):
        n = r_ptr[g]
        for k in members[m_ptr[g] : m_ptr[g + 1]]:
            for r in row_idx[row_ptr[k] : row_ptr[k + 1]]:
                if not seen[r]:
                    seen[r] = True
                    rows[n] = r
                    n += 1
        for i in range(r_ptr[g], n):
            seen[rows[i]] = False
        sort_nonnegative(rows[r_ptr[g] : n], n - r_ptr[g])
    return r_ptr, rows


def assign_uncovered(X, row_ptr, row_idx, col_ptr, col_idx, chunk: int = 256):
    """Add every object in no co-cluster to the co-cluster whose features are most Jaccard-similar
    to the object's own (the author's post-processing, ``lib/postprocess.py: uncovered``).

    Objects sharing no feature with any co-cluster stay uncovered.  The added objects can be
    sparser than ``min_density`` in their co-cluster.  Returns the new CSR-like pair for rows.
    """
    n_rows = X.shape[0]
    k = len(col_ptr) - 1
    if k == 0:
        return row_ptr, row_idx
    covered = np.zeros(n_rows, dtype=bool)
    covered[row_idx] = True
    todo = np.flatnonzero(~covered & (np.diff(X.indptr) > 0))
    if len(todo) == 0:
        return row_ptr, row_idx
    import scipy.sparse as sp

    C = sp.csr_matrix((np.ones(len(col_idx), dtype=np.float32), col_idx, col_ptr), shape=(k, X.shape[1]))
    CT = C.T.tocsr()
    c_size = np.diff(col_ptr).astype(np.float64)
    r_size = np.diff(X.indptr).astype(np.float64)
    target = np.zeros(len(todo), dtype=np.int64)
    best = np.zeros(len(todo))
    for lo in range(0, len(todo), chunk):
        rows = todo[lo : lo + chunk]
        # sparse: only the co-clusters sharing a feature with the object, never rows × co-clusters dense
        inter = (X[rows].astype(np.float32) @ CT).tocoo()
        jac = inter.data / (r_size[rows][inter.row] + c_size[inter.col] - inter.data)
        # per object, the best Jaccard; ties go to the first (largest) co-cluster
        order = np.lexsort((inter.col, -jac, inter.row))
        first = np.r_[True, inter.row[order][1:] != inter.row[order][:-1]] if len(order) else np.zeros(0, bool)
        pick = order[first]
        target[lo + inter.row[pick]] = inter.col[pick]
        best[lo + inter.row[pick]] = jac[pick]
    ok = best > 0
    groups = np.repeat(np.arange(k), np.diff(row_ptr))
    groups = np.concatenate([groups, target[ok]])
    rows_all = np.concatenate([row_idx, todo[ok]])
    order = np.lexsort((rows_all, groups))
    new_ptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(groups, minlength=k), out=new_ptr[1:])
    return new_ptr, rows_all[order]
