"""Compiled helpers of the relations (imported on first use)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True)
def attribute_means(user_codes, item_codes, ratings, a_ptr, a_idx, n_users, n_attrs):
    """``(users, attributes, sums, counts)``: for each user and each attribute of the items the
    user rated, the sum and the count of the user's ratings of those items (an attribute listed
    twice on an item counts twice; a NaN rating counts in neither, but still makes the pair).
    Ratings are grouped by user with a counting sort; per user a dense accumulator over the
    attributes and the list of those it touched: linear in the ratings' attribute memberships."""
    n = len(user_codes)
    start = np.zeros(n_users + 1, dtype=np.int64)
    for p in range(n):
        start[user_codes[p] + 1] += 1
    for u in range(n_users):
        start[u + 1] += start[u]
    by_user = np.empty(n, dtype=np.int64)
    fill = start[:-1].copy()
    for p in range(n):
        by_user[fill[user_codes[p]]] = p
        fill[user_codes[p]] += 1
    seen = np.full(n_attrs, -1, dtype=np.int64)
    total = 0
    for u in range(n_users):  # first pass: how many (user, attribute) pairs
        for q in range(start[u], start[u + 1]):
            i = item_codes[by_user[q]]
            for k in range(a_ptr[i], a_ptr[i + 1]):
                if seen[a_idx[k]] != u:
                    seen[a_idx[k]] = u
                    total += 1
    users = np.empty(total, dtype=np.int64)
    attrs = np.empty(total, dtype=np.int64)
    sums = np.zeros(total, dtype=np.float64)
    counts = np.zeros(total, dtype=np.float64)
    slot = np.full(n_attrs, -1, dtype=np.int64)
    seen[:] = -1
    out = 0
    for u in range(n_users):
        for q in range(start[u], start[u + 1]):
            p = by_user[q]
            r = ratings[p]
            i = item_codes[p]
            for k in range(a_ptr[i], a_ptr[i + 1]):
                a = a_idx[k]
                if seen[a] != u:
                    seen[a] = u
                    slot[a] = out
                    users[out] = u
                    attrs[out] = a
                    out += 1
                if not np.isnan(r):
                    sums[slot[a]] += r
                    counts[slot[a]] += 1.0
    return users, attrs, sums, counts


@numba.njit(nogil=True, cache=True)
def plain_fields(raw, start, sep):
    """Whether the delimited bytes ``raw[start:]`` are *plain*: no quote anywhere, no carriage
    return but in a CRLF, and no field that opens or closes with a byte that may be white space
    (ASCII white space, or any byte of a multi-byte character, conservatively).  Such fields split
    the same for every CSV reader, and stripping them changes nothing.  One pass over the bytes."""
    n = len(raw)
    at_edge = True  # the next byte opens a field
    for i in range(start, n):
        c = raw[i]
        if c == 34:  # '"'
            return False
        if c == 13 and (i + 1 == n or raw[i + 1] != 10):
            # a carriage return alone: pandas's tokenizer ends the line there, and after a blank
            # line drops the byte that follows ("\n\r;" reads no row); pandas reads such files
            return False
        if c == sep or c == 10 or c == 13:
            if not at_edge and _maybe_space(raw[i - 1]):
                return False
            at_edge = True
        else:
            if at_edge and _maybe_space(c):
                return False
            at_edge = False
    return at_edge or not _maybe_space(raw[n - 1])


@numba.njit(inline="always")
def _maybe_space(c):
    # what str.strip() may remove: ASCII white space, 0x1c-0x1f, and (unseen here) Unicode's
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31 or c >= 128
