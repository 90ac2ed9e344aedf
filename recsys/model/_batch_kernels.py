"""Compiled parts of lists for a block of people (:mod:`recsys.model.batch`).

Each kernel takes a range ``lo..hi`` of the block's people and writes their rows of the outputs,
so that ranges run on every core without the GIL.  Scratch arrays (one flag or sum per user,
co-cluster, item or attribute) are allocated once per range and reset entry by entry after each
person.  Sums add their terms in the order the per-person code does (:mod:`recsys.model.fold_in`,
:mod:`recsys.model.neighbours`, :mod:`recsys.model.attributes`), numpy's pairwise sums included
(:func:`pairwise_sum`), so the numbers are the same; the transcendental functions (``exp``, ``log``)
are left to numpy on whole arrays.
"""

from __future__ import annotations

import numba
import numpy as np

from coclust._kernels import argsort_float, kth_smallest, popcount, sorted_nonnegative, tally, unique_nonnegative

from ._attribute_kernels import ridge_of_one
from ._person_kernels import add_row_votes, first_k_votes

_REG_USER = 15.0  # recsys.model.fold_in.REG_USER


# the index of a power of two 2^i: _DEBRUIJN_INDEX[(2^i * _DEBRUIJN) >> 58] == i (a De Bruijn sequence)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[int(((1 << _i) * int(_DEBRUIJN)) % (1 << 64)) >> 58] = _i


@numba.njit(inline="always")
def lowest_bit_index(v):
    """The index of the lowest set bit of a non-zero ``uint64``."""
    return _DEBRUIJN_INDEX[((v & (~v + np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]


@numba.njit(nogil=True, cache=True)
def _block_sum(a, lo, n):
    """numpy's sum of at most 128 values: sequential below 8, else eight interleaved partial sums."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(nogil=True, cache=True)
def pairwise_sum(a, lo, n):
    """``a[lo:lo + n].sum()`` as numpy adds it — blocks of up to 128 (:func:`_block_sum`), halves of
    multiples of 8 added pairwise above that — the same float.  Iterative: numba's cache does not
    keep recursive functions reliably.  The tree's nodes are visited depth first; a node's value is
    the sum of its two halves' values, kept on a stack until both are in."""
    if n <= 128:
        return _block_sum(a, lo, n)
    depth = 2
    size = n
    while size > 128:
        size //= 2
        depth += 1
    node_lo = np.empty(2 * depth, dtype=np.int64)
    node_n = np.empty(2 * depth, dtype=np.int64)
    node_left = np.empty(2 * depth)
    node_state = np.zeros(2 * depth, dtype=np.int64)  # 0: descend left, 1: descend right, 2: done
    top = 0
    node_lo[0], node_n[0], node_state[0] = lo, n, 0
    value = 0.0
    while top >= 0:
        m = node_n[top]
        if m <= 128 or node_state[top] == 2:
            value = _block_sum(a, node_lo[top], m) if m <= 128 else node_left[top] + value
            top -= 1
            if top >= 0:  # hand the value to the parent
                if node_state[top] == 0:
                    node_left[top] = value
                    node_state[top] = 1
                else:
                    node_state[top] = 2
            continue
        half = m // 2
        half -= half % 8
        if node_state[top] == 0:
            child_lo, child_n = node_lo[top], half
        else:
            child_lo, child_n = node_lo[top] + half, m - half
        top += 1
        node_lo[top], node_n[top], node_state[top] = child_lo, child_n, 0
    return value


@numba.njit(nogil=True, cache=True)
def fold_in(p_ptr, p_idx, p_val, mean, item_bias, bias, resid, lo, hi):
    """Each person's bias (one step of the baseline's alternating means) and rating residuals."""
    for t in range(lo, hi):
        a, b = p_ptr[t], p_ptr[t + 1]
        for q in range(a, b):
            resid[q] = (p_val[q] - mean) - item_bias[p_idx[q]]  # the centred ratings, summed below
        bias[t] = pairwise_sum(resid, a, b - a) / (_REG_USER + (b - a))
        for q in range(a, b):
            resid[q] = p_val[q] - ((mean + bias[t]) + item_bias[p_idx[q]])


@numba.njit(nogil=True, cache=True)
def smallest(keys, m):
    """Positions of the ``m`` smallest ``keys``, by increasing key, ties by position: a stable sort
    of all of them, found by a threshold (the ``m``-th smallest key) and a sort of the ``m`` chosen alone."""
    n = len(keys)
    if m >= n:
        return argsort_float(keys)
    cut = kth_smallest(keys, m - 1)
    below = 0
    for i in range(n):
        if keys[i] < cut:
            below += 1
    ties = m - below
    chosen = np.empty(m, dtype=np.int64)
    r = 0
    for i in range(n):
        if keys[i] < cut or (keys[i] == cut and ties > 0):
            if keys[i] == cut:
                ties -= 1
            chosen[r] = i
            r += 1
    return chosen[argsort_float(keys[chosen])]  # chosen are in position order: ties stay so


@numba.njit(nogil=True, cache=True)
def _in_order(touched, n, mark):
    """The ``n`` distinct indices ``touched[:n]`` in increasing order, as a new array: sorted when they
    are few, else found by a scan of ``mark`` (non-zero exactly at them) — cheaper once they are a
    large share of its entries."""
    if n * 16 < len(mark):
        return sorted_nonnegative(touched[:n])
    out = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(len(mark)):
        if mark[i] != 0:
            out[m] = i
            m += 1
    return out


@numba.njit(nogil=True, cache=True)
def join_masks(c_ptr, c_idx, need, held_by, out):
    """For every co-cluster: the mask of the (up to 64) people who hold at least ``need[c]`` of its
    items (``c_*``), ``held_by[i]`` being the mask of those who hold item ``i``.  The masks of a
    co-cluster's items are summed in bit-sliced counters (bit ``k`` of every person's count in plane
    ``k``), then compared with ``need`` plane by plane: one pass over the items for 64 people."""
    planes = np.zeros(64, dtype=np.uint64)
    for c in range(len(c_ptr) - 1):
        lo, hi = c_ptr[c], c_ptr[c + 1]
        out[c] = 0
        k_need = need[c]
        if k_need <= 0 or hi - lo < k_need:
            continue
        n_planes = 1
        while (1 << n_planes) <= hi - lo:
            n_planes += 1
        for k in range(n_planes):
            planes[k] = 0
        anyone = np.uint64(0)
        for p in range(lo, hi):
            carry = held_by[c_idx[p]]
            anyone |= carry
            for k in range(n_planes):  # a ripple carry without branches: mispredicted loops cost twice as much
                t = planes[k] & carry
                planes[k] ^= carry
                carry = t
        if anyone == 0:
            continue
        # count >= k_need, bitwise from the most significant plane down
        gt = np.uint64(0)
        eq = ~np.uint64(0)
        for k in range(n_planes - 1, -1, -1):
            if (k_need >> k) & 1:
                eq &= planes[k]
            else:
                gt |= eq & planes[k]
                eq &= ~planes[k]
        out[c] = gt | eq if k_need < (1 << n_planes) else gt


@numba.njit(nogil=True, cache=True)
def neighbours(
    p_ptr,
    p_idx,
    on_side,
    n_items,
    c_ptr,
    c_idx,
    i_ptr,
    i_idx,
    by_item,
    need,
    budget,
    m_ptr,
    m_idx,
    w,
    norms,
    k,
    out_idx,
    out_sim,
    out_len,
    lo,
    hi,
):
    """Each person's ``k`` most similar training users through the co-clusters they join — those
    with at least ``need[c]`` of their items (``c_*``) among the person's items flagged ``on_side``;
    with a ``budget``, that many of them with the fewest users, ties by index — written at ``t * k``
    in ``out_idx``/``out_sim`` (``out_len[t]`` of them), decreasing similarity, ties by user.
    ``m_*``: each co-cluster's users; ``w``: co-cluster weights; ``norms``: the users' norms.

    The co-clusters joined are found for 64 people at a time by one pass over every co-cluster's
    items (:func:`join_masks`), or by counting, person by person, the co-clusters of their items
    through ``i_*`` (items × co-clusters): ``by_item`` 0 never, 1 when the people's items lie in
    fewer co-cluster memberships than the pass reads (one person's list), 2 always.  The same
    co-clusters either way."""
    n_cc, n_users = len(c_ptr) - 1, len(norms)
    held_by = np.zeros(n_items, dtype=np.uint64)
    masks = np.empty(n_cc, dtype=np.uint64)
    num = np.zeros(n_users)
    touched_u = np.empty(n_users, dtype=np.int64)
    w_joined = np.empty(n_cc)
    hits = np.zeros(n_cc if by_item > 0 else 0, dtype=np.int64)
    touched_c = np.empty(len(hits), dtype=np.int64)
    for g in range(lo, hi, 64):
        g_hi = min(hi, g + 64)
        counted = by_item == 2
        if by_item == 1:
            reads = 0
            for t in range(g, g_hi):
                for q in range(p_ptr[t], p_ptr[t + 1]):
                    if on_side[q]:
                        reads += i_ptr[p_idx[q] + 1] - i_ptr[p_idx[q]]
            counted = reads < len(c_idx)
        if counted:
            for t in range(g, g_hi):
                joined = _joined_by_item(p_ptr, p_idx, on_side, i_ptr, i_idx, need, t, hits, touched_c)
                _neighbours_of(
                    joined, budget, m_ptr, m_idx, w, norms, k, num, touched_u, w_joined, t, out_idx, out_sim, out_len
                )
            continue
        for t in range(g, g_hi):
            bit = np.uint64(1) << np.uint64(t - g)
            for q in range(p_ptr[t], p_ptr[t + 1]):
                if on_side[q]:
                    held_by[p_idx[q]] |= bit
        join_masks(c_ptr, c_idx, need, held_by, masks)
        for t in range(g, g_hi):
            for q in range(p_ptr[t], p_ptr[t + 1]):
                held_by[p_idx[q]] = 0
        # each person's co-clusters, in increasing index
        counts = np.zeros(g_hi - g, dtype=np.int64)
        for c in range(n_cc):
            m = masks[c]
            while m:
                counts[lowest_bit_index(m)] += 1
                m &= m - np.uint64(1)
        starts = np.zeros(g_hi - g + 1, dtype=np.int64)
        for r in range(g_hi - g):
            starts[r + 1] = starts[r] + counts[r]
        lists = np.empty(starts[-1], dtype=np.int64)
        fill = starts[:-1].copy()
        for c in range(n_cc):
            m = masks[c]
            while m:
                r = lowest_bit_index(m)
                lists[fill[r]] = c
                fill[r] += 1
                m &= m - np.uint64(1)
        for t in range(g, g_hi):
            joined = lists[starts[t - g] : starts[t - g + 1]]
            _neighbours_of(
                joined, budget, m_ptr, m_idx, w, norms, k, num, touched_u, w_joined, t, out_idx, out_sim, out_len
            )


@numba.njit(nogil=True, cache=True)
def _joined_by_item(p_ptr, p_idx, on_side, i_ptr, i_idx, need, t, hits, touched_c):
    """The co-clusters person ``t`` joins (increasing index), counted through their items'
    co-clusters; ``hits`` is all zeros before and after."""
    n_t = 0
    for q in range(p_ptr[t], p_ptr[t + 1]):
        if on_side[q]:
            n_t = tally(i_ptr, i_idx, p_idx[q], hits, touched_c, n_t)
    n_j = 0
    for j in range(n_t):
        c = touched_c[j]
        if need[c] > 0 and hits[c] >= need[c]:
            touched_c[n_j] = c
            n_j += 1
        hits[c] = 0
    return sorted_nonnegative(touched_c[:n_j])


@numba.njit(nogil=True, cache=True)
def _neighbours_of(joined, budget, m_ptr, m_idx, w, norms, k, num, touched_u, w_joined, t, out_idx, out_sim, out_len):
    """Person ``t``'s neighbours through the co-clusters ``joined`` (increasing index), within the
    ``budget`` of co-clusters (those with the fewest users, ties by index)."""
    n_j = len(joined)
    out_len[t] = 0
    if n_j == 0:
        return
    if budget > 0 and n_j > budget:
        sizes = np.empty(n_j)  # float64, as every other caller's keys: smallest is compiled once
        for j in range(n_j):
            sizes[j] = m_ptr[joined[j] + 1] - m_ptr[joined[j]]
        joined = sorted_nonnegative(joined[smallest(sizes, budget)])  # equal sizes: by index
        n_j = budget
    _top_neighbours(joined, n_j, m_ptr, m_idx, w, norms, k, num, touched_u, w_joined, t, out_idx, out_sim, out_len)


@numba.njit(nogil=True, cache=True)
def _top_neighbours(joined, n_j, m_ptr, m_idx, w, norms, k, num, touched_u, w_joined, t, out_idx, out_sim, out_len):
    """Person ``t``'s ``k`` most similar users through the co-clusters ``joined`` (increasing index):
    ``s(t, b) = sum_c w_c [b in c] / (n_t n_b)``, as :func:`recsys.model.fold_in._neighbours` adds it."""
    n_u = np.int64(0)  # not the literal 0: numba would compile the callees for it too
    for j in range(n_j):
        c = joined[j]
        w_joined[j] = w[c]
        for r in range(m_ptr[c], m_ptr[c + 1]):
            b = m_idx[r]
            touched_u[n_u] = b  # kept (counted) only at b's first co-cluster: no branch to mispredict
            n_u += num[b] == 0.0
            num[b] += w[c]
    own = np.sqrt(pairwise_sum(w_joined, np.int64(0), n_j))
    users = _in_order(touched_u, n_u, num)
    sims = np.empty(n_u)
    n_pos = 0
    for b in users:
        d = own * norms[b]
        if norms[b] > 0 and num[b] > 0:
            s = num[b] / d
            if s > 0:
                users[n_pos] = b
                sims[n_pos] = s
                n_pos += 1
        num[b] = 0.0
    m = min(k, n_pos)
    order = smallest(-sims[:n_pos], m)  # decreasing similarity, equal ones by user
    for r in range(m):
        out_idx[t * k + r] = users[order[r]]
        out_sim[t * k + r] = sims[order[r]]
    out_len[t] = m


@numba.njit(nogil=True, cache=True)
def keys(w_ptr, w_idx, w_val, p_ptr, p_idx, weight, out, lo, hi):
    """Row ``t`` of ``out``: the item model's score of every item from person ``t``'s items of
    non-zero ``weight`` (their rows of ``W`` added one after another, times the weight — 1.0 for a
    like: the floats of ``row_sums``)."""
    for t in range(lo, hi):
        for q in range(p_ptr[t], p_ptr[t + 1]):
            if weight[q] != 0.0:
                s = p_idx[q]
                x = weight[q]
                for p in range(w_ptr[s], w_ptr[s + 1]):
                    out[t, w_idx[p]] += w_val[p] * x


@numba.njit(nogil=True, cache=True)
def new_item_keys(r_ptr, r_idx, count, s_ptr, s_idx, s_val, new_items, n_attr, out, lo, hi):
    """The new items' scores in each row of ``out`` from the rated items' (``with_new_items``): per
    attribute the shrunk mean of the rated items carrying it (``r_*``: items × attributes, ``count``:
    the shrunk counts), then each new item's weighted mean of its attributes' (``s_*``, a row per
    new item)."""
    means = np.zeros(n_attr)
    for t in range(lo, hi):
        means[:] = 0.0
        for i in range(len(r_ptr) - 1):
            for p in range(r_ptr[i], r_ptr[i + 1]):
                means[r_idx[p]] += out[t, i]
        for a in range(n_attr):
            means[a] = means[a] / count[a]
        for r in range(len(new_items)):
            total = 0.0
            for p in range(s_ptr[r], s_ptr[r + 1]):
                total += s_val[p] * means[s_idx[p]]
            out[t, new_items[r]] = total


@numba.njit(nogil=True, cache=True)
def _best(values, cand, n_cand, n, chosen, n_chosen):
    """Append to ``chosen`` the ``n`` candidates of largest ``values`` (``cand[:n_cand]`` in increasing
    index; ties by index); returns the new count."""
    if n_cand <= n:
        for r in range(n_cand):
            chosen[n_chosen + r] = cand[r]
        return n_chosen + n_cand
    v = np.empty(n_cand)
    for r in range(n_cand):
        v[r] = values[cand[r]]
    cut = kth_smallest(-v, n - 1)  # minus the n-th largest
    above = 0
    for r in range(n_cand):
        if -v[r] < cut:
            above += 1
    ties = n - above
    for r in range(n_cand):
        if -v[r] < cut or (-v[r] == cut and ties > 0):
            if -v[r] == cut:
                ties -= 1
            chosen[n_chosen] = cand[r]
            n_chosen += 1
    return n_chosen


@numba.njit(nogil=True, cache=True)
def candidates(key, popular, listable, p_ptr, p_idx, has_likes, n, out_len, out_idx, lo, hi):
    """Each person's candidates in ``out_idx[t, :out_len[t]]``, sorted: the ``n`` listable items not
    rated of best finite ``key`` and the ``n`` most popular of them (``popular``: every item by
    decreasing popularity, ties by index), ties by index; none for someone who liked nothing."""
    n_items = key.shape[1]
    flag = np.zeros(n_items, dtype=np.bool_)
    cand = np.empty(n_items, dtype=np.int64)
    chosen = np.empty(2 * n, dtype=np.int64)
    for t in range(lo, hi):
        out_len[t] = 0
        if not has_likes[t]:
            continue
        for q in range(p_ptr[t], p_ptr[t + 1]):
            flag[p_idx[q]] = True  # rated: never listed
        n_cand = np.int64(0)  # not the literal 0 (as n_u in _top_neighbours)
        for i in range(n_items):
            if listable[i] and not flag[i] and np.isfinite(key[t, i]):
                cand[n_cand] = i
                n_cand += 1
        n_chosen = _best(key[t], cand, n_cand, n, chosen, np.int64(0))
        found = 0
        for i in popular:
            if found >= n:
                break
            if listable[i] and not flag[i] and np.isfinite(key[t, i]):
                chosen[n_chosen] = i
                n_chosen += 1
                found += 1
        for q in range(p_ptr[t], p_ptr[t + 1]):
            flag[p_idx[q]] = False
        both = unique_nonnegative(chosen[:n_chosen])
        for r in range(len(both)):
            out_idx[t, r] = both[r]
        out_len[t] = len(both)


@numba.njit(nogil=True, cache=True)
def neighbour_votes(nb_idx, nb_sim, nb_len, k_nb, t_ptr, t_idx, t_val, n_items, c_len, c_idx, k, num, den, cnt, lo, hi):
    """Per person ``t`` and candidate ``c_idx[t, r]`` (``c_len[t]`` of them): the sums of the first ``k``
    of the person's neighbours (``nb_*`` at ``t * k_nb``, decreasing similarity) who have a value
    for the item in the table ``t_*`` (training users × ``n_items`` items)."""
    sn = np.zeros(n_items)
    sd = np.zeros(n_items)
    sc = np.zeros(n_items, dtype=np.int64)
    asked = np.zeros(n_items, dtype=np.bool_)
    for t in range(lo, hi):
        for r in range(c_len[t]):
            asked[c_idx[t, r]] = True
        waiting = c_len[t]  # candidates with fewer than k votes: none left, nothing more to read
        for q in range(t * k_nb, t * k_nb + nb_len[t]):
            if waiting == 0:
                break
            waiting -= add_row_votes(t_ptr, t_idx, t_val, nb_idx[q], nb_sim[q], asked, k, sn, sd, sc)
        for r in range(c_len[t]):
            j = c_idx[t, r]
            num[t, r], den[t, r], cnt[t, r] = sn[j], sd[j], sc[j]
            sn[j], sd[j], sc[j], asked[j] = 0.0, 0.0, 0, False


@numba.njit(nogil=True, cache=True)
def neighbour_votes_by_bits(
    nb_idx, nb_sim, nb_len, k_nb, t_ptr, bits, before, t_val, n_items, c_len, c_idx, k, num, den, cnt, lo, hi
):
    """:func:`neighbour_votes` from the table's rows as bitsets with their ranks (``bits``, ``before``:
    :func:`~recsys.model._csr_kernels.ranked_row_bitsets`; each row's columns increasing): a
    neighbour's row is read in the words that hold candidates still short of ``k`` votes, and only
    at those candidates (an AND of two words finds them), where the scan reads every entry of the
    row and tests it — a test that a hit rate of a quarter or so mispredicts.  Each candidate's votes
    are added in the neighbours' order, as there: the same floats."""
    words = bits.shape[1]
    sn = np.zeros(n_items)
    sd = np.zeros(n_items)
    sc = np.zeros(n_items, dtype=np.int64)
    want = np.zeros(words, dtype=np.uint64)  # candidates with fewer than k votes
    active = np.empty(words, dtype=np.int64)  # the words of want that are not 0
    one = np.uint64(1)
    for t in range(lo, hi):
        for r in range(c_len[t]):
            j = c_idx[t, r]
            want[j >> 6] |= one << np.uint64(j & 63)
        n_active = 0
        for w in range(words):
            if want[w]:
                active[n_active] = w
                n_active += 1
        for q in range(t * k_nb, t * k_nb + nb_len[t]):
            if n_active == 0:  # every candidate has its k votes
                break
            b, s, row = nb_idx[q], nb_sim[q], t_ptr[nb_idx[q]]
            kept = 0
            for a in range(n_active):
                w = active[a]
                has = bits[b, w]
                hits = want[w] & has
                while hits:
                    low = hits & (~hits + one)
                    below = low - one
                    j = (w << 6) + popcount(below)
                    sn[j] += s * t_val[row + before[b, w] + popcount(has & below)]
                    sd[j] += s
                    sc[j] += 1
                    if sc[j] == k:
                        want[w] &= ~low
                    hits &= hits - one
                if want[w]:
                    active[kept] = w
                    kept += 1
            n_active = kept
        for r in range(c_len[t]):
            j = c_idx[t, r]
            num[t, r], den[t, r], cnt[t, r] = sn[j], sd[j], sc[j]
            sn[j], sd[j], sc[j] = 0.0, 0.0, 0
        want[:] = 0


@numba.njit(inline="always")
def _mark(p_ptr, p_idx, resid, t, rated, value, on):
    """Person ``t``'s rated items flagged, with their residuals (``on``), or the flags cleared."""
    for q in range(p_ptr[t], p_ptr[t + 1]):
        rated[p_idx[q]] = on
        value[p_idx[q]] = resid[q] if on else 0.0


@numba.njit(nogil=True, cache=True)
def item_votes(nb_ptr, nb_idx, nb_sim, p_ptr, p_idx, resid, n_items, c_len, c_idx, k, num, den, cnt, lo, hi):
    """Per person and candidate: the sums of the first ``k`` of the candidate's neighbour items
    (``nb_*``) that the person rated, with the person's residual there."""
    rated = np.zeros(n_items, dtype=np.int64)  # 0 or 1, added as numbers (first_k_votes)
    value = np.zeros(n_items)
    for t in range(lo, hi):
        _mark(p_ptr, p_idx, resid, t, rated, value, True)
        for r in range(c_len[t]):
            num[t, r], den[t, r], cnt[t, r] = first_k_votes(nb_ptr, nb_idx, nb_sim, c_idx[t, r], value, rated, k)
        _mark(p_ptr, p_idx, resid, t, rated, value, False)


@numba.njit(nogil=True, cache=True)
def residual_sums(wt_ptr, wt_idx, wt_val, p_ptr, p_idx, resid, n_items, c_len, c_idx, out, lo, hi):
    """Per person and candidate ``j``: the residual model's sum of ``W[s, j]`` times the person's
    residual on ``s``, over the rated items ``s`` — from the transposed weights (``wt_*``: row ``j``
    holds ``j``'s partners ``s``, increasing), so that a candidate reads its few partners rather than
    the person's items their whole rows; the terms are added in increasing ``s``, as the rows are."""
    value = np.zeros(n_items)  # the person's residuals, 0 off their items
    for t in range(lo, hi):
        for q in range(p_ptr[t], p_ptr[t + 1]):
            value[p_idx[q]] = resid[q]
        for r in range(c_len[t]):
            j = c_idx[t, r]
            total = 0.0
            for p in range(wt_ptr[j], wt_ptr[j + 1]):
                total += wt_val[p] * value[wt_idx[p]]  # + 0.0 where not rated: the same float, no branch
            out[t, r] = total
        for q in range(p_ptr[t], p_ptr[t + 1]):
            value[p_idx[q]] = 0.0


@numba.njit(nogil=True, cache=True)
def attribute_sums(
    a_ptr,
    a_idx,
    weight,
    item_value,
    p_ptr,
    p_idx,
    resid,
    n_attr,
    shrinkage,
    joint,
    c_len,
    c_idx,
    user_term,
    item_term,
    lo,
    hi,
):
    """Per person and candidate: ``(user_attributes, attribute_items)``: the candidate's attributes'
    weighted means of the person's shrunk mean residual over their rated items carrying each, and of
    each attribute's item value (``a_*``: items × attributes).  With ``joint``, the user side is the
    sum of the candidate's attributes' coefficients in the person's ridge fit (``shrinkage`` its
    penalty; :func:`recsys.model._attribute_kernels.ridge_of_one`)."""
    sums = np.zeros(n_attr)
    counts = np.zeros(n_attr)
    slot = np.full(n_attr, -1, dtype=np.int64)
    attrs = np.empty(n_attr, dtype=np.int64)
    coef = np.empty(n_attr)
    for t in range(lo, hi):
        if joint:
            nt = ridge_of_one(p_idx[p_ptr[t] : p_ptr[t + 1]], resid[p_ptr[t] : p_ptr[t + 1]], a_ptr, a_idx, shrinkage,
                              slot, attrs, coef)  # fmt: skip
            for x in range(nt):
                sums[attrs[x]] = coef[x]
                counts[attrs[x]] = 1.0
        else:
            for q in range(p_ptr[t], p_ptr[t + 1]):
                i = p_idx[q]
                for p in range(a_ptr[i], a_ptr[i + 1]):
                    sums[a_idx[p]] += resid[q]
                    counts[a_idx[p]] += 1.0
        for r in range(c_len[t]):
            i = c_idx[t, r]
            total, u_sum, i_sum = 0.0, 0.0, 0.0
            for p in range(a_ptr[i], a_ptr[i + 1]):
                a = a_idx[p]
                wa = weight[a]
                total += wa
                if joint:
                    u_sum += sums[a]
                else:
                    u_sum += wa * (sums[a] / (counts[a] + shrinkage) if counts[a] > 0 else 0.0)
                i_sum += wa * item_value[a]
            safe = total if total > 0 else 1.0
            user_term[t, r] = u_sum if joint else u_sum / safe
            item_term[t, r] = i_sum / safe
        for q in range(p_ptr[t], p_ptr[t + 1]):
            i = p_idx[q]
            for p in range(a_ptr[i], a_ptr[i + 1]):
                sums[a_idx[p]] = 0.0
                counts[a_idx[p]] = 0.0


@numba.njit(nogil=True, cache=True)
def top_n(score, c_len, c_idx, n, out_idx, out_len, lo, hi):
    """Per person: the ``n`` candidates of largest finite ``score``, best first, ties by item."""
    for t in range(lo, hi):
        m = c_len[t]
        s = np.empty(m)
        for r in range(m):
            s[r] = -score[t, r]
        order = argsort_float(s)  # stable: candidates are in item order: ties by item
        got = 0
        for r in range(m):
            if got >= n:
                break
            if np.isfinite(score[t, order[r]]):
                out_idx[t, got] = order[r]
                got += 1
        out_len[t] = got


@numba.njit(nogil=True, cache=True, error_model="numpy")  # 0 / 0 is NaN, as in numpy
def blend_ndcgs(ptr, key, popularity, like, relevant, b, c, discount, ideal, out, lo, hi):
    """For held-out lists ``lo..hi-1`` (list ``t``: candidates ``ptr[t]..ptr[t+1]-1``) and every
    blend ``p``: the NDCG of the top ``len(discount)`` candidates by
    ``key + popularity * b[p] + like * c[p]`` (ties by candidate order), its DCG over ``ideal[t]``,
    into ``out[t, p]``.  The floats of the score's broadcast sums and of the DCG's sum, rank by
    rank, in :func:`recsys.model.list_blend.choose`'s definition.  The top ``k`` by insertion: for
    10 of 200 candidates, :func:`smallest` (a selection on a copy, then a sort) took 2.2 × as long."""
    k = len(discount)
    top = np.empty(k, dtype=np.int64)
    top_score = np.empty(k)
    for t in range(lo, hi):
        start, end = ptr[t], ptr[t + 1]
        for p in range(len(b)):
            n = 0
            for i in range(start, end):
                s = key[i] + popularity[i] * b[p] + like[i] * c[p]
                if n == k and s <= top_score[k - 1]:
                    continue  # not above the k-th: an equal score ranks after it (ties by order)
                j = min(n, k - 1)  # insert after every score at least as large
                while j > 0 and top_score[j - 1] < s:
                    top_score[j], top[j] = top_score[j - 1], top[j - 1]
                    j -= 1
                top_score[j], top[j] = s, i
                n = min(n + 1, k)
            dcg = 0.0
            for r in range(n):
                dcg += (1.0 if relevant[top[r]] else 0.0) * discount[r]
            out[t, p] = dcg / ideal[t]
