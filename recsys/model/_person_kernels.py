"""Compiled parts of a person's list: their fold-in (:mod:`recsys.model.fold_in`), the neighbours'
votes (:func:`recsys.model.neighbours.person_votes`) and the item model's row sums
(:func:`recsys.model.item_model.weighted_scores`).

A list blends ~200 candidates' like-probabilities, each with four neighbour votes over 200
neighbours: 160,000 (neighbour, item) look-ups a list, which numpy did in a dozen passes with a
binary search or a dense table per look-up (2.0 s of the 4.5 s 943 lists took).  For one person the
look-ups need no search: their 200 neighbours' rows are read once, in decreasing similarity, into
every asked item's accumulator; the item's neighbours are read against the person's ratings laid
out densely.  Each sum adds its terms in the order the vectorised code did (the neighbours', the
rows'), so the floats are the same.  The co-clusters a person joins are counted from their items'
co-clusters in one pass (a like co-clustering of ML-100K holds 370 an item).  Imported on first use:
loading a model does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def votes_of_neighbours(nbrs, sims, t_ptr, t_idx, t_val, n_cols, items, k):
    """Per item of ``items``: the sums ``(Σ s·v, Σ s, count)`` over the first ``k`` of the neighbours
    ``nbrs`` (rows of the table ``t_*`` of ``n_cols`` columns, in decreasing similarity ``sims``)
    with a value ``v`` there."""
    num, den = np.zeros(n_cols), np.zeros(n_cols)
    cnt = np.zeros(n_cols, dtype=np.int64)
    asked = np.zeros(n_cols, dtype=np.bool_)
    for t in range(len(items)):
        asked[items[t]] = True
    for q in range(len(nbrs)):
        add_row_votes(t_ptr, t_idx, t_val, nbrs[q], sims[q], asked, k, num, den, cnt)
    return num[items], den[items], cnt[items]


@numba.njit(inline="always")
def add_row_votes(t_ptr, t_idx, t_val, b, s, asked, k, num, den, cnt):
    """Neighbour ``b``'s row of the table ``t_*`` (similarity ``s``) voted into the sums of the
    ``asked`` items that have fewer than ``k`` votes; returns how many reached ``k``."""
    filled = 0
    for p in range(t_ptr[b], t_ptr[b + 1]):
        j = t_idx[p]
        if asked[j] and cnt[j] < k:
            num[j] += s * t_val[p]
            den[j] += s
            cnt[j] += 1
            if cnt[j] == k:
                filled += 1
    return filled


@numba.njit(nogil=True, cache=True)
def votes_on_values(nb_ptr, nb_idx, nb_sim, items, values, rated, k):
    """Per item of ``items``: the same sums over the first ``k`` of its neighbours (rows of
    ``nb_*``) that are ``rated`` (a flag per neighbour index), with value ``values`` there."""
    n = len(items)
    num, den = np.zeros(n), np.zeros(n)
    cnt = np.zeros(n, dtype=np.int64)
    for t in range(n):
        num[t], den[t], cnt[t] = first_k_votes(nb_ptr, nb_idx, nb_sim, items[t], values, rated, k)
    return num, den, cnt


@numba.njit(inline="always")
def first_k_votes(nb_ptr, nb_idx, nb_sim, a, values, rated, k):
    """Over the first ``k`` neighbours of ``a`` (row ``a`` of ``nb_*``, most similar first) that are
    ``rated``: the sums of similarity × ``values``, of similarity, and their count.

    ``rated`` holds 0 or 1 as integers and ``values`` 0 where it is 0: every neighbour then adds
    its terms, 0 for one not rated, which leaves the sums' floats as they are (``x + 0.0 == x``; the
    sums start at ``+0.0`` and a sum of terms is never ``-0.0``) and spares a branch that a rated
    share of a third or so mispredicts at every neighbour (integer flags: a boolean's conversion to a
    float costs the branch back)."""
    c, sn, sd = 0, 0.0, 0.0
    for p in range(nb_ptr[a], nb_ptr[a + 1]):
        if c >= k:
            break
        j = nb_idx[p]
        s = nb_sim[p]
        sn += s * values[j]
        sd += s * np.float64(rated[j])
        c += np.int64(rated[j])
    return sn, sd, c


@numba.njit(nogil=True, cache=True)
def items_held(ptr, idx, mine, n_rows):
    """How many of the items ``mine`` each of ``n_rows`` co-clusters holds (``ptr``/``idx``: each
    item's co-clusters)."""
    held = np.zeros(n_rows, dtype=np.int64)
    for i in mine:
        for p in range(ptr[i], ptr[i + 1]):
            held[idx[p]] += 1
    return held


@numba.njit(nogil=True, cache=True)
def row_sums(ptr, idx, values, rows, weights, n_cols):
    """``Σ_q weights[q] · M[rows[q], :]`` of the matrix ``M`` (``ptr``/``idx``/``values``) as a dense
    row, the rows added one after another (the order, hence the floats, of ``np.bincount`` over
    their entries)."""
    out = np.zeros(n_cols)
    for q in range(len(rows)):
        r, w = rows[q], weights[q]
        for p in range(ptr[r], ptr[r + 1]):
            out[idx[p]] += values[p] * w
    return out
