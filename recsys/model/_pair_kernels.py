"""Compiled terms of many (user, item) pairs: the held-out ratings of a fit, a batch of predictions.

The vectorised votes (:func:`recsys.model.neighbours.votes`) expand every pair's 200 neighbours
and look each one up, although a vote stops at the first ``k`` (40) neighbours with a value; the
item model's term (:func:`recsys.model.terms.item_model_term`) ran a Python call per user.  Here
the pairs are grouped by the index they share with a row of values (the user of an item model's
sum; the other index of a vote), that row is spread into a dense array once per group, and each
pair walks its anchor's neighbours in decreasing similarity until ``k`` have a value, or its item's
partners in increasing index, with one read per look-up (a binary search per look-up cost 4.4 of
the 5.6 s of a fit's held-out terms at 1 M ratings).  Each sum adds its terms in the order the
vectorised code did: the same floats.  Groups are split into ranges run on every core
(:func:`run_ranges`).  Imported on first use: loading a model does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np

from . import cluster
from .threads import in_threads

# pairs per range of work: small enough that every core gets several, large enough to be cheap
_RANGE = 4096


@numba.njit(nogil=True, cache=True)
def grouped_votes(
    nb_ptr, nb_idx, nb_sim, anchor, order, g_ptr, g_row, r_ptr, r_idx, r_val, n_dense, k, num, den, cnt, lo, hi
):
    """For the groups ``lo..hi-1`` of pairs sharing their other index (group ``g``: the pairs
    ``order[g_ptr[g]:g_ptr[g + 1]]``, whose values are the row ``g_row[g]`` of ``r_*``):
    ``(Σ s·v, Σ s, count)`` over the first ``k`` neighbours ``n`` of each pair's anchor (rows of
    ``nb_*``, decreasing similarity ``s``) with a value ``v`` in that row.  The row is spread over
    ``n_dense`` slots once per group, so a neighbour's value is one read, not a binary search."""
    seen = np.full(n_dense, -1, dtype=np.int64)
    value = np.zeros(n_dense)
    for g in range(lo, hi):
        for q in range(r_ptr[g_row[g]], r_ptr[g_row[g] + 1]):
            seen[r_idx[q]] = g
            value[r_idx[q]] = r_val[q]
        for p in range(g_ptr[g], g_ptr[g + 1]):
            t = order[p]
            c, sn, sd = 0, 0.0, 0.0
            for e in range(nb_ptr[anchor[t]], nb_ptr[anchor[t] + 1]):
                if c >= k:
                    break
                n = nb_idx[e]
                if seen[n] == g:
                    sn += nb_sim[e] * value[n]
                    sd += nb_sim[e]
                    c += 1
            num[t], den[t], cnt[t] = sn, sd, c


@numba.njit(nogil=True, cache=True)
def grouped_sums(wt_ptr, wt_idx, wt_val, s_ptr, s_idx, s_val, order, g_ptr, g_user, items, n_dense, out, lo, hi):
    """For the groups ``lo..hi-1`` of pairs of one user (group ``g``: the pairs
    ``order[g_ptr[g]:g_ptr[g + 1]]`` of user ``g_user[g]``): ``Σ_j s_j · W[j, items[t]]`` over the
    user's entries ``j`` (``s_*``) that are partners of the item (``wt_*``: ``W`` by columns,
    sources in increasing index, the order of the user's row: the same floats as a walk of it).
    With the roles swapped — ``s_*`` the columns of ``W``, groups of one item, ``wt_*`` the users'
    rows walked — it gives the same sums (:func:`sums_of_pairs`'s ``group_by="item"``)."""
    seen = np.full(n_dense, -1, dtype=np.int64)
    value = np.zeros(n_dense)
    for g in range(lo, hi):
        u = g_user[g]
        for q in range(s_ptr[u], s_ptr[u + 1]):
            seen[s_idx[q]] = g
            value[s_idx[q]] = s_val[q]
        for p in range(g_ptr[g], g_ptr[g + 1]):
            t = order[p]
            total = 0.0
            for e in range(wt_ptr[items[t]], wt_ptr[items[t] + 1]):
                if seen[wt_idx[e]] == g:
                    total += wt_val[e] * value[wt_idx[e]]
            out[t] = total


def _groups(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs grouped by ``key``: ``(order, group bounds in order, each group's key)``."""
    order = np.argsort(key, kind="stable").astype(np.int64)
    ordered = key[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(key) else np.zeros(0, np.int64)
    return order, np.r_[starts, len(key)].astype(np.int64), ordered[starts].astype(np.int64)


def _group_ranges(g_ptr: np.ndarray, size: int = _RANGE) -> list[tuple[int, int]]:
    """Ranges of groups of about ``size`` pairs each (a group is never split)."""
    n_groups = len(g_ptr) - 1
    cuts = np.searchsorted(g_ptr, np.arange(size, g_ptr[-1], size)) if n_groups else []
    edges = np.unique(np.r_[0, np.minimum(cuts, n_groups), n_groups]).astype(int)
    return list(zip(edges[:-1], edges[1:], strict=True))


def run_in_ranges(kernel, n: int, *args, size: int = _RANGE) -> None:
    """``kernel(*args, lo, hi)`` over ranges of ``size`` covering ``range(n)``, on every core (the
    kernels release the GIL and write disjoint slices of their outputs)."""
    run_ranges(kernel, [(lo, min(n, lo + size)) for lo in range(0, n, size)], *args)


def run_ranges(kernel, ranges: list[tuple[int, int]], *args) -> None:
    """``kernel(*args, lo, hi)`` for each ``(lo, hi)`` of ``ranges``, on every core
    (:func:`~recsys.model.threads.in_threads`)."""
    for _ in in_threads(lambda r: kernel(*args, *r), ranges):
        pass


def votes_of_pairs(nb, anchor, other, table, anchor_is_row: bool, k: int) -> tuple[np.ndarray, ...]:
    """``(num, den, cnt)`` of :func:`grouped_votes` for every pair: a neighbour ``n`` of
    ``anchor[t]`` has its value at ``table[n, other[t]]`` (``anchor_is_row``) or ``table[other[t], n]``."""
    n = len(anchor)
    num, den, cnt = np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64)
    if not n:
        return num, den, cnt
    by_other = table.transpose() if anchor_is_row else table
    vals = np.ones(by_other.nnz) if by_other.values is None else by_other.values
    order, g_ptr, g_row = _groups(other)
    values = (by_other.ptr, by_other.idx, vals, by_other.shape[1])
    args = (nb.ptr, nb.idx, nb.sim, anchor, order, g_ptr, g_row, *values, int(k), num, den, cnt)
    n_args = len(args)
    for _ in cluster.run_ranges(
        grouped_votes, _group_ranges(g_ptr), *args, outputs=(n_args - 3, n_args - 2, n_args - 1)
    ):
        pass
    return num, den, cnt


def sums_of_pairs(W, sources, users, items, group_by: str | None = None) -> np.ndarray:
    """:func:`grouped_sums` for every pair: the item model's score of ``items[t]`` from the row
    ``users[t]`` of ``sources`` (values ``None``: ones); the pairs grouped by ``"user"`` (each
    walks its item's column) or ``"item"`` (each walks its user's row: cheaper where the columns are
    long and the rows short, every co-clustered pair kept: ~870 partners a movie against ~110 likes
    a user at 1 M), by default whichever reads far fewer entries: the same floats either way."""
    out = np.zeros(len(users))
    if not len(users):
        return out
    Wt = W.transpose()
    vals = np.ones(sources.nnz) if sources.values is None else sources.values
    weights, rows = (Wt.ptr, Wt.idx, Wt.values), (sources.ptr, sources.idx, vals)
    # each pair walks its item's column (pairs grouped by user) or its user's row (by item),
    # whichever reads far fewer entries: the rows of many users are scattered in memory, a column
    # read twice as long cost less than them (measured on the residual model's 200 partners)
    by_user = Wt.lengths[items].sum() + sources.lengths[np.unique(users)].sum()
    by_item = sources.lengths[users].sum() + Wt.lengths[np.unique(items)].sum()
    if group_by is None:
        group_by = "user" if by_user <= 2 * by_item else "item"
    # grouped by item, the kernel spreads the item's column and walks each user's row: the same
    # products (a product's factors commute exactly), added in the same order (increasing index)
    walked, spread, key, other = (weights, rows, users, items) if group_by == "user" else (rows, weights, items, users)
    order, g_ptr, g_key = _groups(key)
    args = (*walked, *spread, order, g_ptr, g_key, other, W.shape[0], out)
    for _ in cluster.run_ranges(grouped_sums, _group_ranges(g_ptr), *args, outputs=(len(args) - 1,)):
        pass
    return out
