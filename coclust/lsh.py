"""LSH banding over MinHash signatures: band keys, buckets and seeds, in memory that grows with
the input.

A *band* is ``band_size`` consecutive MinHash functions; an object's key in a band is the sorted
tuple of its ``band_size`` minimum-hash features.  As in Algorithm 2 of the paper
(``clusters[key]``), buckets are indexed by the key alone, not by (band, key): objects whose
minimum-hash features agree in any band share a bucket.  A bucket with at least ``min_bucket``
objects is a *seed*: its objects and the key's features.

Keys are 64-bit: the features themselves packed in bit fields when they fit
(``band_size * bits(n_features) <= 64``), otherwise a 64-bit mix of them (collisions then have
probability about ``n_keys**2 / 2**65``).

**Memory.**  On sparse data nearly every key belongs to one object only (96 % of them on a
power-law relation of 3 M ones) and can never make a seed, yet holding every (key, object)
pair to group them takes tens of bytes per pair: gigabytes, growing with ``n_bands``.  When the
pairs would not fit in ``memory`` bytes, the keys are computed twice.  The first pass counts them
in a count-min sketch of 2-bit saturating counters (two hash rows, about two cells per key, sized
from a sample of the objects); the second keeps only the pairs whose count can reach
``min_bucket``.  A count-min sketch never undercounts, and the kept pairs are then grouped
exactly, so the seeds are those of the one-pass grouping; only the memory differs.  The sketch
is updated in parallel without races: each thread owns a contiguous range of its cells, and
saturating addition does not depend on the order.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from ._arrays import group_ids
from ._kernels import argsort_u64, mix64, sort_nonnegative
from ._kernels import invert_hash as _invert
from ._parallel import for_ranges, for_strided, n_threads
from .blocks import Blocks
from .contract import DEFAULT_MEMORY
from .minhash import HashFamily, as_csr, minhash_block

_BLOCK = 256
# (object, band) key slots computed per block of objects: bounds the working arrays.
_PAIRS_PER_BLOCK = 1 << 23
# Objects whose keys estimate the number of (key, object) pairs: enough for a few per cent of error.
_SAMPLE = 1024
# Bytes per held (key, object) pair: the pairs and the grouping's work arrays.
_BYTES_PER_PAIR = 64
_SKETCH_SEEDS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03))


@numba.njit(inline="always")
def _network_sort(v, n):
    """Sort the ``n`` (a band: a handful) values of ``v`` by compare-exchanges: ``min``/``max``
    compile to conditional moves, where an insertion sort of random features mispredicts a branch
    or two per band (2x slower key building)."""
    for i in range(n - 1, 0, -1):
        for j in range(i):
            x, y = v[j], v[j + 1]
            v[j] = min(x, y)
            v[j + 1] = max(x, y)


@numba.njit(nogil=True, cache=True)
def _row_keys(
    indptr, indices, rows, a, b, a_inv, band_size, bits, key_ok, out_keys, out_bands, out_count, task, n_tasks
):
    """The distinct band keys of each object ``rows[i]`` (one output row each), with one band that gave
    each; keys holding a feature with ``key_ok[f] == False`` are dropped.  This task takes every
    ``n_tasks``-th object: costly objects (hubs) spread over every thread."""
    n_rows = rows.shape[0]
    n_bands = out_keys.shape[1]
    n_hash = n_bands * band_size
    block = (_BLOCK // band_size) * band_size
    table_size = 1
    while table_size < 2 * n_bands:
        table_size *= 2
    mask = np.uint64(table_size - 1)
    buf = np.empty(block, dtype=np.uint32)
    feats = np.empty(block, dtype=np.int64)
    key_f = np.empty(band_size, dtype=np.int64)
    table = np.zeros(table_size, dtype=np.uint64)  # open addressing; 0 marks a free slot
    used = np.empty(n_bands, dtype=np.int64)
    for i in range(task, n_rows, n_tasks):
        r = rows[i]
        start, end = indptr[r], indptr[r + 1]
        out_count[i] = 0
        if end - start < band_size:
            continue
        has_zero = False
        n_used = 0
        c = 0
        for lo in range(0, n_hash, block):
            n = min(block, n_hash - lo)
            minhash_block(indices, start, end, a, b, lo, n, buf)
            for h in range(n):
                feats[h] = np.int64(_invert(np.uint64(buf[h]), b[lo + h], a_inv[lo + h]))
            for j in range(n // band_size):
                ok = True
                for k in range(band_size):
                    f = feats[j * band_size + k]
                    key_f[k] = f
                    ok &= key_ok[f]
                if not ok:
                    continue
                _network_sort(key_f, band_size)
                key = np.uint64(0)
                if bits > 0:
                    for k in range(band_size):
                        key = (key << np.uint64(bits)) | np.uint64(key_f[k])
                else:
                    for k in range(band_size):
                        key = mix64(key, key_f[k])
                if key == 0:
                    if has_zero:
                        continue
                    has_zero = True
                else:
                    slot = mix64(np.uint64(0), key) & mask
                    while table[slot] != 0 and table[slot] != key:
                        slot = (slot + np.uint64(1)) & mask
                    if table[slot] == key:
                        continue
                    table[slot] = key
                    used[n_used] = slot
                    n_used += 1
                out_keys[i, c] = key
                out_bands[i, c] = lo // band_size + j
                c += 1
        out_count[i] = c
        for t in range(n_used):  # clear only what this object used
            table[used[t]] = 0


@numba.njit(nogil=True, cache=True)
def _sketch_cells(log_cells, keys, count, cells, lo, hi):
    """``cells[j, i, c]``: the cell of key ``keys[i, c]`` in hash row ``j``, for objects ``lo..hi-1``."""
    shift_cells = np.uint64(64 - log_cells)
    for i in range(lo, hi):
        for c in range(count[i]):
            for j in range(2):
                cells[j, i, c] = np.uint32(mix64(_SKETCH_SEEDS[j], keys[i, c]) >> shift_cells)


@numba.njit(nogil=True, cache=True)
def _sketch_add(table, log_cells, cells, count, weights, p, n_parts):
    """Add ``weights[i]`` to the cells ``cells[:, i, :count[i]]`` of the two hash rows (2-bit cells,
    saturating at 3), in part ``p`` of the table only: each part is its own contiguous range of
    bytes, so no two threads write a byte, and the result does not depend on the number of parts."""
    row_bytes = (1 << log_cells) >> 2
    lo_b = p * row_bytes // n_parts
    hi_b = (p + 1) * row_bytes // n_parts
    for j in range(2):
        base = j * row_bytes
        for i in range(cells.shape[1]):
            w = weights[i]
            for c in range(count[i]):
                cell = cells[j, i, c]
                byte = np.int64(cell >> 2)
                if lo_b <= byte < hi_b:
                    shift = np.uint8((cell & 3) * 2)
                    cur = (table[base + byte] >> shift) & np.uint8(3)
                    new = min(np.int64(3), np.int64(cur) + w)
                    table[base + byte] = (table[base + byte] & ~(np.uint8(3) << shift)) | (np.uint8(new) << shift)


_LOW_BITS = np.uint64(0x5555555555555555)


@numba.njit(nogil=True, cache=True)
def _sketch_union(a, b, out):
    """``out``: the cell-wise saturating sum of two sketches (``uint64`` views: 32 cells a word).

    Two-bit lanes added without carries across lanes: low bits ``s0``, high bits ``s1`` and
    ``ov`` where the sum reaches 4; saturation sets both bits of an overflowing cell."""
    for i in range(a.shape[0]):
        a0, a1 = a[i] & _LOW_BITS, (a[i] >> np.uint64(1)) & _LOW_BITS
        b0, b1 = b[i] & _LOW_BITS, (b[i] >> np.uint64(1)) & _LOW_BITS
        c0 = a0 & b0
        x1 = a1 ^ b1
        ov = (a1 & b1) | (c0 & x1)
        out[i] = ((a0 ^ b0) | ov) | (((x1 ^ c0) | ov) << np.uint64(1))


def sketch_union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sketch counting the keys of both ``a`` and ``b`` (2-bit cells, saturating at 3)."""
    out = np.empty_like(a)
    _sketch_union(a.view(np.uint64), b.view(np.uint64), out.view(np.uint64))
    return out


@numba.njit(nogil=True, cache=True)
def _sketch_keep(table, log_cells, keys, count, threshold, keep, kept, lo, hi):
    """``keep[i, c]``: whether the sketch's count of ``keys[i, c]`` (never below the true count, at
    most 3) reaches ``threshold``; ``kept[i]`` the kept number, for objects ``lo..hi-1``."""
    row_bytes = (1 << log_cells) >> 2
    shift_cells = np.uint64(64 - log_cells)
    for i in range(lo, hi):
        kept[i] = 0
        for c in range(count[i]):
            best = np.uint8(3)
            for j in range(2):
                cell = mix64(_SKETCH_SEEDS[j], keys[i, c]) >> shift_cells
                byte = np.int64(cell >> np.uint64(2))
                shift = np.uint8((cell & np.uint64(3)) * np.uint64(2))
                best = min(best, (table[j * row_bytes + byte] >> shift) & np.uint8(3))
            keep[i, c] = best >= threshold
            kept[i] += keep[i, c]


@numba.njit(nogil=True, cache=True)
def _compact(keys, bands, count, keep, rows, offsets, out_keys, out_rows, out_bands, lo, hi):
    """Write the (kept) entries of the dense per-object arrays one after the other, from ``offsets``."""
    for i in range(lo, hi):
        o = offsets[i]
        for c in range(count[i]):
            if keep.shape[0] == 0 or keep[i, c]:
                out_keys[o] = keys[i, c]
                out_rows[o] = rows[i]
                out_bands[o] = bands[i, c]
                o += 1


def key_bits(n_features: int, band_size: int) -> int:
    """Bits per feature for exact packed keys, or 0 when they do not fit in 64 bits."""
    bits = max(1, int(n_features - 1).bit_length())
    return bits if bits * band_size <= 64 else 0


class _KeyMaker:
    """Computes the band keys of blocks of objects."""

    def __init__(self, X, n_bands, band_size, hashes, key_ok):
        self.X, self.n_bands, self.band_size, self.hashes = X, n_bands, band_size, hashes
        self.bits = key_bits(X.shape[1], band_size)
        self.key_ok = key_ok

    def dense(self, rows: np.ndarray):
        """``(keys, bands, count)``: object ``rows[i]``'s distinct keys in ``keys[i, :count[i]]``."""
        n = len(rows)
        k = np.empty((n, self.n_bands), dtype=np.uint64)
        bnd = np.empty((n, self.n_bands), dtype=np.int32)
        cnt = np.empty(n, dtype=np.int64)
        h = self.hashes
        tasks = max(1, min(n, 4 * n_threads()))
        for_strided(
            _row_keys,
            tasks,
            self.X.indptr,
            self.X.indices,
            rows,
            h.a,
            h.b,
            h.a_inv,
            self.band_size,
            self.bits,
            self.key_ok,
            k,
            bnd,
            cnt,
        )
        return k, bnd, cnt

    def keys(self, rows: np.ndarray):
        """``(keys, objects, bands)``: every distinct key of each object of ``rows``."""
        k, bnd, cnt = self.dense(rows)
        return compact(k, bnd, cnt, rows)


def compact(k, bnd, cnt, rows, keep_mask=None, kept=None):
    """Dense per-object key arrays as ``(keys, objects, bands)`` triples (only ``keep_mask`` if given)."""
    per_row = cnt if kept is None else kept
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(per_row, out=offsets[1:])
    n = int(offsets[-1])
    out = (np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32))
    mask = np.zeros((0, 1), dtype=np.bool_) if keep_mask is None else keep_mask
    for_ranges(_compact, len(rows), k, bnd, cnt, mask, rows.astype(np.int64), offsets, *out)
    return out


def _blocks_of(rows: np.ndarray, n_bands: int):
    step = max(1, _PAIRS_PER_BLOCK // max(n_bands, 1))
    for lo in range(0, len(rows), step):
        yield rows[lo : lo + step]


def band_keys(X, n_bands, band_size, hashes, row_ok=None, key_ok=None):
    """Every distinct (key, object) pair with a band that gave it: ``(keys, objects, bands)``.

    Objects with fewer than ``band_size`` features get no key (as in the author's code: they cannot
    fill a band with distinct features), nor do objects with ``row_ok[r] == False``; keys holding a
    feature with ``key_ok[f] == False`` are dropped.  Both masks only prune seeds that cannot
    become regions.
    """
    X = as_csr(X)
    assert len(hashes) == n_bands * band_size
    key_ok = np.ones(X.shape[1], dtype=np.bool_) if key_ok is None else np.asarray(key_ok, dtype=np.bool_)
    rows = np.arange(X.shape[0], dtype=np.int64) if row_ok is None else np.flatnonzero(row_ok).astype(np.int64)
    maker = _KeyMaker(X, n_bands, band_size, hashes, key_ok)
    parts = [maker.keys(block) for block in _blocks_of(rows, n_bands)]
    return _concat3(parts)


def _concat3(parts):
    if not parts:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def estimation_sample(rows: np.ndarray) -> np.ndarray:
    """The objects whose keys estimate the number of (key, object) pairs: all of them when few,
    else a fixed-seed sample of ``_SAMPLE`` (the Dask backend draws the same one)."""
    if len(rows) <= 2 * _SAMPLE:
        return rows
    return np.sort(rows[np.random.default_rng(len(rows)).choice(len(rows), _SAMPLE, replace=False)])


def candidate_keys(
    X, n_bands, band_size, hashes, row_ok, key_ok, weights, min_bucket, memory=DEFAULT_MEMORY, stats=None
):
    """The (key, object, band) triples whose key can make a bucket of ``min_bucket`` weighted objects:
    every pair when they fit in ``memory`` bytes, else those a count-min sketch lets through (see
    the module docstring).  ``stats`` (a dict) receives what was done."""
    X = as_csr(X)
    rows = np.flatnonzero(row_ok).astype(np.int64)
    maker = _KeyMaker(X, n_bands, band_size, hashes, np.asarray(key_ok, dtype=np.bool_))
    weights = np.asarray(weights, dtype=np.int64)
    stats = {} if stats is None else stats
    # estimate the pairs from a sample of the objects: the first pass is skipped when they fit
    sample = estimation_sample(rows)
    first = [maker.keys(block) for block in _blocks_of(sample, n_bands)]
    est = sum(len(p[0]) for p in first) * len(rows) / max(len(sample), 1)
    stats["estimated_pairs"] = int(est)
    if est * _BYTES_PER_PAIR <= memory:
        stats["passes"] = 1
        # the sample's keys are kept, not computed again: pair order does not change the seeds
        # (buckets are grouped by key, their members sorted)
        rest = np.setdiff1d(rows, sample, assume_unique=True)
        return _concat3(first + [maker.keys(block) for block in _blocks_of(rest, n_bands)])
    log_cells = min(32, max(16, int(np.ceil(np.log2(max(2 * est, 1.0))))))  # cells fit in uint32
    table = np.zeros(2 * ((1 << log_cells) >> 2), dtype=np.uint8)
    parts = n_threads()
    stats.update(passes=2, sketch_bytes=int(table.nbytes))
    cells = None
    for block in _blocks_of(rows, n_bands):
        k, _, cnt = maker.dense(block)
        if cells is None or cells.shape[1] < k.shape[0]:
            cells = np.empty((2, k.shape[0], k.shape[1]), dtype=np.uint32)
        view = cells[:, : k.shape[0]]
        for_ranges(_sketch_cells, len(block), log_cells, k, cnt, view)
        for_strided(_sketch_add, parts, table, log_cells, view, cnt, np.minimum(weights[block], 3))
    del cells
    kept_parts = []
    threshold = np.uint8(min(min_bucket, 3))
    for block in _blocks_of(rows, n_bands):
        k, bnd, cnt = maker.dense(block)
        keep = np.empty(k.shape, dtype=np.bool_)
        kept = np.empty(len(block), dtype=np.int64)
        for_ranges(_sketch_keep, len(block), table, log_cells, k, cnt, threshold, keep, kept)
        kept_parts.append(compact(k, bnd, cnt, block, keep, kept))
    del table
    out = _concat3(kept_parts)
    stats["candidate_pairs"] = len(out[0])
    return out


def band_features(
    X: sp.csr_matrix,
    rows: np.ndarray,
    bands: np.ndarray,
    band_size: int,
    hashes: HashFamily,
    keys: np.ndarray | None = None,
):
    """The sorted distinct minimum-hash features of ``rows[i]`` in band ``bands[i]``.

    ``keys`` (the band keys) are decoded instead when they pack the features exactly (see
    :func:`key_bits`): no MinHash to compute again.  Returns a CSR-like pair ``(indptr, indices)``.
    """
    X = as_csr(X)
    bits = key_bits(X.shape[1], band_size)
    if keys is not None and bits > 0:
        shifts = np.uint64(bits) * np.arange(band_size - 1, -1, -1, dtype=np.uint64)
        out = ((np.asarray(keys, dtype=np.uint64)[:, None] >> shifts) & np.uint64((1 << bits) - 1)).astype(np.int64)
    else:
        out = np.empty((len(rows), band_size), dtype=np.int64)
        for_ranges(
            _features_at,
            len(rows),
            X.indptr,
            X.indices,
            rows.astype(np.int64),
            bands.astype(np.int64),
            band_size,
            hashes.a,
            hashes.b,
            hashes.a_inv,
            out,
        )
    out.sort(axis=1)
    keep = np.ones_like(out, dtype=bool)
    keep[:, 1:] = out[:, 1:] != out[:, :-1]
    counts = keep.sum(axis=1)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, out[keep]


@numba.njit(nogil=True, cache=True)
def _features_at(indptr, indices, rows, bands, band_size, a, b, a_inv, out, lo, hi):
    for i in range(lo, hi):
        buf = np.empty(band_size, dtype=np.uint32)
        lo = bands[i] * band_size
        minhash_block(indices, indptr[rows[i]], indptr[rows[i] + 1], a, b, lo, band_size, buf)
        for k in range(band_size):
            out[i, k] = _invert(np.uint64(buf[k]), b[lo + k], a_inv[lo + k])


_N_PARTS = 256


@numba.njit(nogil=True, cache=True)
def _partition(keys, rows):
    """``(offsets, perm, keys[perm], rows[perm])``: the (key, row) pairs ordered by hash partition of
    their key (256 partitions), stably.  Copying them in that order here, sequentially, lets each
    partition be grouped from consecutive memory (3x faster than gathering at random)."""
    n = keys.shape[0]
    part = np.empty(n, dtype=np.uint8)
    counts = np.zeros(_N_PARTS + 1, dtype=np.int64)
    for i in range(n):
        part[i] = np.uint8(mix64(np.uint64(0), keys[i]) >> np.uint64(56))
        counts[part[i] + 1] += 1
    offsets = np.empty(_N_PARTS + 1, dtype=np.int64)
    fill = np.empty(_N_PARTS, dtype=np.int64)
    offsets[0] = 0
    for p in range(_N_PARTS):
        offsets[p + 1] = offsets[p] + counts[p + 1]
        fill[p] = offsets[p]
    perm = np.empty(n, dtype=np.int64)
    keys_p = np.empty_like(keys)
    rows_p = np.empty_like(rows)
    for i in range(n):
        j = fill[part[i]]
        perm[j] = i
        keys_p[j] = keys[i]
        rows_p[j] = rows[i]
        fill[part[i]] += 1
    return offsets, perm, keys_p, rows_p


@numba.njit(nogil=True, cache=True)
def _group_parts(keys, rows, weights, min_bucket, offsets, members, sizes, rep_pair, n_buckets, n_members, lo_p, hi_p):
    """Group the pairs of partitions ``lo_p..hi_p-1`` (``keys`` and ``rows`` in partition order) by
    key: buckets of at least ``min_bucket`` weighted rows, their members (sorted) and a
    representative pair (its position), at each partition's slots."""
    for p in range(lo_p, hi_p):
        lo, hi = offsets[p], offsets[p + 1]
        m = hi - lo
        part_keys = keys[lo:hi]
        order = argsort_u64(part_keys)
        nb = 0
        nm = 0
        t = 0
        while t < m:
            u = t
            k = part_keys[order[t]]
            while u < m and part_keys[order[u]] == k:
                u += 1
            weight = 0
            for v in range(t, u):
                weight += weights[rows[lo + order[v]]]
            if weight >= min_bucket:
                base = lo + nm
                for v in range(t, u):
                    members[base + v - t] = rows[lo + order[v]]
                sort_nonnegative(members[base : base + u - t], u - t)
                sizes[lo + nb] = u - t
                rep_pair[lo + nb] = lo + order[t]
                nb += 1
                nm += u - t
            t = u
        n_buckets[p] = nb
        n_members[p] = nm


def _group_pairs(keys, rows, weights, min_bucket):
    """Group (key, row) pairs by key, in parallel over hash partitions of the keys.

    Returns ``(obj_ptr, obj_idx, rep)``: the kept buckets' members (sorted within each bucket) as a
    CSR pair, and the index of a representative pair of each bucket.
    """
    n = len(keys)
    offsets, perm, keys_p, rows_p = _partition(keys, rows)
    members = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    rep_pair = np.empty(n, dtype=np.int64)
    n_buckets = np.zeros(_N_PARTS, dtype=np.int64)
    n_members = np.zeros(_N_PARTS, dtype=np.int64)
    for_ranges(
        _group_parts,
        _N_PARTS,
        keys_p,
        rows_p,
        weights,
        min_bucket,
        offsets,
        members,
        sizes,
        rep_pair,
        n_buckets,
        n_members,
    )
    del keys_p, rows_p
    b_slots = _part_slices(offsets, n_buckets)
    obj_ptr = np.zeros(len(b_slots) + 1, dtype=np.int64)
    np.cumsum(sizes[b_slots], out=obj_ptr[1:])
    return obj_ptr, members[_part_slices(offsets, n_members)], perm[rep_pair[b_slots]]


def _part_slices(offsets, n_per_part):
    starts = offsets[:-1]
    return np.repeat(starts, n_per_part) + (
        np.arange(n_per_part.sum()) - np.repeat(np.cumsum(n_per_part) - n_per_part, n_per_part)
    )


def duplicate_rows(X: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``(representative, weight)``: a mask of the first row of each group of identical rows and,
    on it, the group's size (0 elsewhere)."""
    h = np.empty(X.shape[0], dtype=np.uint64)
    for_ranges(_hash_rows, X.shape[0], X.indptr, X.indices, h)
    first, inverse = group_ids(h)
    counts = np.bincount(inverse, minlength=len(first))
    rep = np.zeros(X.shape[0], dtype=bool)
    rep[first] = True
    weight = np.zeros(X.shape[0], dtype=np.int64)
    weight[first] = counts
    return rep, weight


@numba.njit(nogil=True, cache=True)
def _hash_rows(ptr, idx, out, lo, hi):
    for i in range(lo, hi):
        h = np.uint64(0x2545F4914F6CDD1D)
        for p in range(ptr[i], ptr[i + 1]):
            h = mix64(h, idx[p])
        out[i] = h


def find_seeds(
    X: sp.csr_matrix,
    n_bands: int,
    band_size: int,
    min_bucket: int,
    hashes: HashFamily,
    row_ok: np.ndarray | None = None,
    key_ok: np.ndarray | None = None,
    row_weight: np.ndarray | None = None,
    memory: int = DEFAULT_MEMORY,
    stats: dict | None = None,
) -> Blocks:
    """Bucket the rows of ``X`` by band key; buckets of ``min_bucket`` rows or more are seeds
    (blocks of objects × the key's features).

    ``row_weight`` counts a row as that many rows (a representative of identical rows, the
    others masked out by ``row_ok``): identical rows always share every bucket, so hashing one
    of them and weighting it gives the same seeds for less work.  ``memory`` bounds the (key, row)
    pairs held at once (see the module docstring).
    """
    X = as_csr(X)
    if row_ok is None:
        row_ok = np.ones(X.shape[0], dtype=bool)
    if key_ok is None:
        key_ok = np.ones(X.shape[1], dtype=bool)
    if row_weight is None:
        row_weight = np.ones(X.shape[0], dtype=np.int64)
    keys, rows, bands = candidate_keys(
        X, n_bands, band_size, hashes, row_ok, key_ok, row_weight, min_bucket, memory, stats
    )
    obj_ptr, obj_idx, rep = _group_pairs(keys, rows, np.asarray(row_weight, dtype=np.int64), min_bucket)
    rep_key, rep_row, rep_band = keys[rep], rows[rep], bands[rep]
    del keys, rows, bands
    feat_ptr, feat_idx = band_features(X, rep_row, rep_band, band_size, hashes, rep_key)
    return Blocks(obj_ptr, obj_idx, feat_ptr, feat_idx)
