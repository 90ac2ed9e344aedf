"""LSH banding over MinHash signatures: band keys, buckets and seeds.

A *band* is ``band_size`` consecutive MinHash functions; an object's key in a
band is the sorted tuple of its ``band_size`` minimum-hash features.  As in
Algorithm 2 of the paper (``clusters[key]``), buckets are indexed by the key
alone, not by (band, key): objects whose minimum-hash features agree in any
band share a bucket.  A bucket with at least ``min_bucket`` objects is a
*seed*: its objects and the key's features.

Keys are 64-bit: the features themselves packed in bit fields when they fit
(``band_size * bits(n_features) <= 64``), otherwise a 64-bit mix of them
(collisions then have probability about ``n_keys**2 / 2**65``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp

from ._arrays import group_ids
from ._kernels import MERSENNE_P
from ._kernels import invert_hash as _invert
from ._kernels import mix64 as _mix64
from .minhash import HashFamily, as_csr

_BLOCK = 256
# Keys (row × band pairs) computed per chunk of rows, to bound memory.
_PAIRS_PER_CHUNK = 1 << 23


@numba.njit(inline="always")
def _insertion_sort(v):
    # bands are a handful of features: far cheaper than a general sort call
    for i in range(1, v.shape[0]):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x


@numba.njit(parallel=True, fastmath=True, cache=True)
def _row_band_keys(indptr, indices, row0, a, b, a_inv, band_size, bits, key_ok, out_keys, out_bands, out_count):
    """Distinct band keys of rows row0.. (one output row each), with one band that gave each.

    Keys holding a feature with ``key_ok[f] == False`` are dropped.
    """
    n_rows = out_keys.shape[0]
    n_bands = out_keys.shape[1]
    n_hash = n_bands * band_size
    block = (_BLOCK // band_size) * band_size
    table_size = 1
    while table_size < 2 * n_bands:
        table_size *= 2
    mask = np.uint64(table_size - 1)
    for i in numba.prange(n_rows):
        r = row0 + i
        start, end = indptr[r], indptr[r + 1]
        out_count[i] = 0
        if end - start < band_size:
            continue
        buf = np.empty(block, dtype=np.uint64)
        feats = np.empty(band_size, dtype=np.int64)
        table = np.zeros(table_size, dtype=np.uint64)  # open addressing; 0 marks a free slot
        has_zero = False
        c = 0
        for lo in range(0, n_hash, block):
            n = min(block, n_hash - lo)
            aa = a[lo : lo + n]
            bb = b[lo : lo + n]
            for h in range(n):
                buf[h] = MERSENNE_P
            for p in range(start, end):
                x = np.uint64(indices[p])
                for h in range(n):
                    y = aa[h] * x + bb[h]
                    y = (y & MERSENNE_P) + (y >> np.uint64(31))
                    y = (y & MERSENNE_P) + (y >> np.uint64(31))
                    y = y - MERSENNE_P if y >= MERSENNE_P else y
                    buf[h] = min(buf[h], y)
            for j in range(n // band_size):
                ok = True
                for k in range(band_size):
                    h = j * band_size + k
                    f = _invert(buf[h], bb[h], a_inv[lo + h])
                    feats[k] = f
                    ok = ok and key_ok[f]
                if not ok:
                    continue
                _insertion_sort(feats)
                key = np.uint64(0)
                if bits > 0:
                    for k in range(band_size):
                        key = (key << np.uint64(bits)) | np.uint64(feats[k])
                else:
                    for k in range(band_size):
                        key = _mix64(key, feats[k])
                if key == 0:
                    if has_zero:
                        continue
                    has_zero = True
                else:
                    slot = _mix64(np.uint64(0), key) & mask
                    while table[slot] != 0 and table[slot] != key:
                        slot = (slot + np.uint64(1)) & mask
                    if table[slot] == key:
                        continue
                    table[slot] = key
                out_keys[i, c] = key
                out_bands[i, c] = lo // band_size + j
                c += 1
        out_count[i] = c


@dataclass
class BandKeys:
    """Distinct (key, row) pairs, with a band in which the row got the key."""

    keys: np.ndarray
    rows: np.ndarray
    bands: np.ndarray


def key_bits(n_features: int, band_size: int) -> int:
    """Bits per feature for exact packed keys, or 0 when they do not fit in 64 bits."""
    bits = max(1, int(n_features - 1).bit_length())
    return bits if bits * band_size <= 64 else 0


def band_keys(
    X: sp.csr_matrix,
    n_bands: int,
    band_size: int,
    hashes: HashFamily,
    row_ok: np.ndarray | None = None,
    key_ok: np.ndarray | None = None,
) -> BandKeys:
    """Compute every row's distinct band keys.

    Rows with fewer than ``band_size`` features get no key (as in the author's
    code: they cannot fill a band with distinct features), nor do rows with
    ``row_ok[r] == False``; keys holding a feature with ``key_ok[f] == False``
    are dropped.  Both masks only prune seeds that cannot become regions.
    """
    X = as_csr(X)
    assert len(hashes) == n_bands * band_size
    bits = key_bits(X.shape[1], band_size)
    if key_ok is None:
        key_ok = np.ones(X.shape[1], dtype=np.bool_)
    active = np.arange(X.shape[0]) if row_ok is None else np.flatnonzero(row_ok)
    # Work on the wanted rows only: an index-gathered CSR keeps the kernel simple.
    Xa = X[active] if row_ok is not None else X
    chunk = max(1, _PAIRS_PER_CHUNK // max(n_bands, 1))
    keys, rows, bands = [], [], []
    for row0 in range(0, Xa.shape[0], chunk):
        n = min(chunk, Xa.shape[0] - row0)
        k = np.empty((n, n_bands), dtype=np.uint64)
        bnd = np.empty((n, n_bands), dtype=np.int32)
        cnt = np.empty(n, dtype=np.int64)
        _row_band_keys(
            Xa.indptr, Xa.indices, row0, hashes.a, hashes.b, hashes.a_inv, band_size, bits, key_ok, k, bnd, cnt
        )
        mask = np.arange(n_bands)[None, :] < cnt[:, None]
        keys.append(k[mask])
        bands.append(bnd[mask])
        rows.append(np.repeat(active[row0 : row0 + n].astype(np.int32), cnt))
    if not keys:
        empty = np.empty(0, dtype=np.int32)
        return BandKeys(np.empty(0, dtype=np.uint64), empty, empty)
    return BandKeys(np.concatenate(keys), np.concatenate(rows), np.concatenate(bands))


def band_features(X: sp.csr_matrix, rows: np.ndarray, bands: np.ndarray, band_size: int, hashes: HashFamily):
    """The sorted distinct minimum-hash features of ``rows[i]`` in band ``bands[i]``.

    Returns a CSR-like pair ``(indptr, indices)``.
    """
    X = as_csr(X)
    cols = (bands[:, None] * band_size + np.arange(band_size)[None, :]).astype(np.int64)
    out = np.empty((len(rows), band_size), dtype=np.int64)
    _features_at(X.indptr, X.indices, rows.astype(np.int64), cols, hashes.a, hashes.b, hashes.a_inv, out)
    out.sort(axis=1)
    keep = np.ones_like(out, dtype=bool)
    keep[:, 1:] = out[:, 1:] != out[:, :-1]
    counts = keep.sum(axis=1)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, out[keep]


@numba.njit(parallel=True, cache=True)
def _features_at(indptr, indices, rows, cols, a, b, a_inv, out):
    for i in numba.prange(rows.shape[0]):
        r = rows[i]
        for k in range(cols.shape[1]):
            h = cols[i, k]
            best = MERSENNE_P
            for p in range(indptr[r], indptr[r + 1]):
                x = np.uint64(indices[p])
                y = a[h] * x + b[h]
                y = (y & MERSENNE_P) + (y >> np.uint64(31))
                y = (y & MERSENNE_P) + (y >> np.uint64(31))
                y = y - MERSENNE_P if y >= MERSENNE_P else y
                best = min(best, y)
            out[i, k] = _invert(best, b[h], a_inv[h])


@dataclass
class Seeds:
    """Seeds in CSR-like form: seed ``s`` has objects ``obj_idx[obj_ptr[s]:obj_ptr[s+1]]``
    and features ``feat_idx[feat_ptr[s]:feat_ptr[s+1]]`` (both sorted)."""

    obj_ptr: np.ndarray
    obj_idx: np.ndarray
    feat_ptr: np.ndarray
    feat_idx: np.ndarray

    def __len__(self) -> int:
        return len(self.obj_ptr) - 1


_N_PARTS = 256


@numba.njit(parallel=True, cache=True)
def _group_pairs(keys, rows, bands, weights, min_bucket):
    """Group (key, row) pairs by key, in parallel over hash partitions of the keys.

    Returns, per pair slot, the members of kept buckets (rows sorted within each
    bucket) and per partition the bucket sizes and representative (row, band).
    """
    n = keys.shape[0]
    part = np.empty(n, dtype=np.int64)
    for i in numba.prange(n):
        part[i] = np.int64(_mix64(np.uint64(0), keys[i]) >> np.uint64(56))
    counts = np.zeros(_N_PARTS + 1, dtype=np.int64)
    for i in range(n):
        counts[part[i] + 1] += 1
    offsets = np.cumsum(counts)
    fill = offsets[:-1].copy()
    perm = np.empty(n, dtype=np.int64)
    for i in range(n):
        perm[fill[part[i]]] = i
        fill[part[i]] += 1
    members = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)  # bucket sizes at each partition's slots
    rep_row = np.empty(n, dtype=np.int64)
    rep_band = np.empty(n, dtype=np.int64)
    n_buckets = np.zeros(_N_PARTS, dtype=np.int64)
    n_members = np.zeros(_N_PARTS, dtype=np.int64)
    for p in numba.prange(_N_PARTS):
        lo, hi = offsets[p], offsets[p + 1]
        idx = perm[lo:hi]
        order = np.argsort(keys[idx])
        nb = 0
        nm = 0
        t = 0
        m = hi - lo
        while t < m:
            u = t
            k = keys[idx[order[t]]]
            while u < m and keys[idx[order[u]]] == k:
                u += 1
            weight = 0
            for v in range(t, u):
                weight += weights[rows[idx[order[v]]]]
            if weight >= min_bucket:
                grp = np.empty(u - t, dtype=np.int64)
                for v in range(t, u):
                    grp[v - t] = rows[idx[order[v]]]
                grp.sort()
                members[lo + nm : lo + nm + u - t] = grp
                sizes[lo + nb] = u - t
                rep_row[lo + nb] = rows[idx[order[t]]]
                rep_band[lo + nb] = bands[idx[order[t]]]
                nb += 1
                nm += u - t
            t = u
        n_buckets[p] = nb
        n_members[p] = nm
    return offsets, members, sizes, rep_row, rep_band, n_buckets, n_members


def _part_slices(offsets, n_per_part):
    starts = offsets[:-1]
    return np.repeat(starts, n_per_part) + (
        np.arange(n_per_part.sum()) - np.repeat(np.cumsum(n_per_part) - n_per_part, n_per_part)
    )


def duplicate_rows(X: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """``(representative, weight)``: a mask of the first row of each group of identical rows and,
    on it, the group's size (0 elsewhere)."""
    z = np.zeros(X.shape[0] + 1, dtype=np.int64)
    h = _hash_rows(X.indptr.astype(np.int64), X.indices.astype(np.int64))
    first, inverse = group_ids(h)
    counts = np.bincount(inverse, minlength=len(first))
    rep = np.zeros(X.shape[0], dtype=bool)
    rep[first] = True
    weight = z[:-1].copy()
    weight[first] = counts
    return rep, weight


@numba.njit(parallel=True, cache=True)
def _hash_rows(ptr, idx):
    out = np.empty(ptr.shape[0] - 1, dtype=np.uint64)
    for i in numba.prange(ptr.shape[0] - 1):
        h = np.uint64(0x2545F4914F6CDD1D)
        for p in range(ptr[i], ptr[i + 1]):
            h = _mix64(h, idx[p])
        out[i] = h
    return out


def find_seeds(
    X: sp.csr_matrix,
    n_bands: int,
    band_size: int,
    min_bucket: int,
    hashes: HashFamily,
    row_ok: np.ndarray | None = None,
    key_ok: np.ndarray | None = None,
    row_weight: np.ndarray | None = None,
) -> Seeds:
    """Bucket the rows of ``X`` by band key; buckets of ``min_bucket`` rows or more are seeds.

    ``row_weight`` counts a row as that many rows (a representative of identical rows, the
    others masked out by ``row_ok``): identical rows always share every bucket, so hashing one
    of them and weighting it gives the same seeds for less work.
    """
    bk = band_keys(X, n_bands, band_size, hashes, row_ok, key_ok)
    if row_weight is None:
        row_weight = np.ones(X.shape[0], dtype=np.int64)
    offsets, members, sizes, rep_row, rep_band, n_buckets, n_members = _group_pairs(
        bk.keys, bk.rows.astype(np.int64), bk.bands.astype(np.int64), row_weight.astype(np.int64), min_bucket
    )
    b_slots = _part_slices(offsets, n_buckets)
    obj_ptr = np.zeros(len(b_slots) + 1, dtype=np.int64)
    np.cumsum(sizes[b_slots], out=obj_ptr[1:])
    obj_idx = members[_part_slices(offsets, n_members)]
    feat_ptr, feat_idx = band_features(X, rep_row[b_slots], rep_band[b_slots], band_size, hashes)
    return Seeds(obj_ptr, obj_idx, feat_ptr, feat_idx)
