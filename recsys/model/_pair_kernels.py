"""Compiled terms of many (user, item) pairs: the held-out ratings of a fit, a batch of predictions.

The vectorised votes (:func:`recsys.model.neighbours.votes`) expand every pair's 200 neighbours
and look each one up, although a vote stops at the first ``k`` (40) neighbours with a value; the
item model's term (:func:`recsys.model.terms.item_model_term`) ran a Python call per user.  Here each
pair walks its anchor's neighbours in decreasing similarity until ``k`` have a value, and sums the
item model's weights from the user's items, by binary search in the rows (each sum adds its terms
in the order the vectorised code did: the same floats).  Pairs are split into ranges run on every
core (:func:`run_in_ranges`).  Imported on first use: loading a model does not load numba.
"""

from __future__ import annotations

import numba
import numpy as np

from ._lookup import position_in_row
from .threads import in_threads

# pairs per range of work: small enough that every core gets several, large enough to be cheap
_RANGE = 4096


@numba.njit(nogil=True, cache=True)
def pair_votes(nb_ptr, nb_idx, nb_sim, anchor, other, t_ptr, t_idx, t_val, anchor_is_row, k, num, den, cnt, lo, hi):
    """For pairs ``lo..hi-1``: ``(Σ s·v, Σ s, count)`` over the first ``k`` neighbours ``n`` of
    ``anchor[t]`` (rows of ``nb_*``, decreasing similarity ``s``) with a value ``v`` in the table
    ``t_*`` at ``(n, other[t])`` (``anchor_is_row``) or ``(other[t], n)``."""
    for t in range(lo, hi):
        a, o = anchor[t], other[t]
        c, sn, sd = 0, 0.0, 0.0
        for p in range(nb_ptr[a], nb_ptr[a + 1]):
            if c >= k:
                break
            n = nb_idx[p]
            at = position_in_row(t_ptr, t_idx, n, o) if anchor_is_row else position_in_row(t_ptr, t_idx, o, n)
            if at >= 0:
                s = nb_sim[p]
                sn += s * t_val[at]
                sd += s
                c += 1
        num[t], den[t], cnt[t] = sn, sd, c


@numba.njit(nogil=True, cache=True)
def pair_sums(w_ptr, w_idx, w_val, s_ptr, s_idx, s_val, users, items, out, lo, hi):
    """For pairs ``lo..hi-1``: ``Σ_q s_val[q] · W[s_idx[q], items[t]]`` over the entries ``q`` of row
    ``users[t]`` of the sources ``s_*`` (a user's items and their values), in row order."""
    for t in range(lo, hi):
        u, i = users[t], items[t]
        total = 0.0
        for q in range(s_ptr[u], s_ptr[u + 1]):
            at = position_in_row(w_ptr, w_idx, s_idx[q], i)
            if at >= 0:
                total += w_val[at] * s_val[q]
        out[t] = total


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
    """``(num, den, cnt)`` of :func:`pair_votes` for every pair."""
    n = len(anchor)
    num, den, cnt = np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64)
    vals = np.ones(table.nnz) if table.values is None else table.values
    run_in_ranges(pair_votes, n, nb.ptr, nb.idx, nb.sim, anchor, other, table.ptr, table.idx, vals,
                  bool(anchor_is_row), int(k), num, den, cnt)  # fmt: skip
    return num, den, cnt


def sums_of_pairs(W, sources, users, items) -> np.ndarray:
    """:func:`pair_sums` for every pair: the item model's score of ``items[t]`` from the row
    ``users[t]`` of ``sources`` (values ``None``: ones)."""
    out = np.zeros(len(users))
    vals = np.ones(sources.nnz) if sources.values is None else sources.values
    run_in_ranges(pair_sums, len(users), W.ptr, W.idx, W.values, sources.ptr, sources.idx, vals, users, items, out)
    return out
