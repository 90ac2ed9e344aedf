"""MinHash signatures of the rows of a sparse binary matrix.

The hash family is the paper's universal family ``h(x) = (a*x + b) mod P``
with the Mersenne prime ``P = 2**31 - 1``.  Reducing modulo a Mersenne prime
needs only shifts, masks and adds, so the exact mod-P family costs no more
than the wrap-around ``mod 2**32`` family that datasketch uses, and the
compiled loop vectorises over hash functions.  Because ``h`` is a bijection
of ``[0, P)`` (``a != 0``), the minimum hash value identifies its feature:
``x = (v - b) * a^-1 mod P``; we invert instead of tracking an argmin in the
hot loop.

Example
-------
>>> import numpy as np, scipy.sparse as sp
>>> X = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]]))
>>> H = HashFamily.sample(8, random_state=0)
>>> F = minhash_features(X, H)
>>> bool((F[0] == F[1]).all()), F.shape
(True, (3, 8))
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp

from ._kernels import MERSENNE_P
from ._kernels import invert_hash as _invert
from ._parallel import for_ranges

_MAX_FEATURES = (1 << 31) - 1
# Hash functions processed at once per row: the running minima stay in L1.
_BLOCK = 256
_LOW32 = np.uint64(0xFFFFFFFF)


@dataclass(frozen=True)
class HashFamily:
    """``n`` hash functions ``h_i(x) = (a_i*x + b_i) mod P`` and the inverses of ``a_i``."""

    a: np.ndarray
    b: np.ndarray
    a_inv: np.ndarray

    @classmethod
    def sample(cls, n: int, random_state: int | np.random.Generator | None = None) -> HashFamily:
        rng = np.random.default_rng(random_state)
        p = int(MERSENNE_P)
        a = rng.integers(1, p, size=n, dtype=np.uint64)
        b = rng.integers(0, p, size=n, dtype=np.uint64)
        return cls(a=a, b=b, a_inv=_inverse_mod_p(a))

    def __len__(self) -> int:
        return len(self.a)


def _inverse_mod_p(a: np.ndarray) -> np.ndarray:
    """``a**(P-2) mod P`` (Fermat: the inverse of ``a`` modulo the prime ``P``), elementwise; squaring
    arrays takes a millisecond where Python's ``pow`` on each of 6,000 took 40."""
    p = np.uint64(MERSENNE_P)
    out = np.ones_like(a)
    base = a % p
    e = int(MERSENNE_P) - 2
    while e:
        if e & 1:
            out = out * base % p  # factors < 2**31: the product fits 64 bits
        base = base * base % p
        e >>= 1
    return out


@numba.njit(inline="always")
def minhash_block(indices, start, end, a, b, lo, n, buf):
    """``buf[h] = min over the features x in indices[start:end] of (a[lo+h] * x + b[lo+h]) mod P`` for
    ``h < n``: the MinHash of one row for a block of hash functions.  ``buf`` is ``uint32``.

    The one MinHash kernel: :func:`minhash_values` and the pipeline's band keys
    (:mod:`coclust.lsh`) both inline it.  ``P`` marks an empty row.
    """
    # Local slices let LLVM prove no aliasing and vectorise over h.  a, x < 2**31, so the product
    # is a 32x32 -> 64-bit multiply (one instruction per 4 lanes, not a 64-bit emulation: the
    # masks tell LLVM so), and the reduced value fits 32 bits, so the running minimum takes
    # 8 lanes.  2.2x faster than 64-bit lanes on Classic3, same values.
    aa = a[lo : lo + n]
    bb = b[lo : lo + n]
    for h in range(n):
        buf[h] = np.uint32(MERSENNE_P)
    for p in range(start, end):
        x = np.uint64(np.uint32(indices[p]))
        for h in range(n):
            y = (aa[h] & _LOW32) * x + bb[h]
            y = (y & MERSENNE_P) + (y >> np.uint64(31))
            y = (y & MERSENNE_P) + (y >> np.uint64(31))
            y = y - MERSENNE_P if y >= MERSENNE_P else y
            buf[h] = min(buf[h], np.uint32(y))


@numba.njit(nogil=True, cache=True)
def _minhash(indptr, indices, a, b, a_inv, invert, out, lo_row, hi_row):
    """out[r, h] = min over the features x of row r of h(x); its feature if ``invert``."""
    n_hash = a.shape[0]
    for r in range(lo_row, hi_row):
        buf = np.empty(_BLOCK, dtype=np.uint32)
        for lo in range(0, n_hash, _BLOCK):
            n = min(_BLOCK, n_hash - lo)
            minhash_block(indices, indptr[r], indptr[r + 1], a, b, lo, n, buf)
            if invert:
                for h in range(n):
                    v = np.uint64(buf[h])
                    out[r, lo + h] = _invert(v, b[lo + h], a_inv[lo + h]) if v < MERSENNE_P else -1
            else:
                for h in range(n):
                    out[r, lo + h] = buf[h]


def as_csr(X) -> sp.csr_matrix:
    """CSR view with sorted int32 indices (no copy when already so)."""
    X = sp.csr_matrix(X)
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    if X.shape[1] >= _MAX_FEATURES:
        raise ValueError(f"at most {_MAX_FEATURES - 1} features are supported, got {X.shape[1]}")
    return X


def minhash_features(X, hashes: HashFamily) -> np.ndarray:
    """For every row of ``X`` and hash function, the feature of minimum hash.

    Parameters
    ----------
    X : sparse matrix of shape (n_rows, n_features)
        Non-zeros are the row's features.
    hashes : HashFamily

    Returns
    -------
    ndarray of shape (n_rows, len(hashes)), int64
        Feature index, or -1 for an empty row.
    """
    X = as_csr(X)
    out = np.empty((X.shape[0], len(hashes)), dtype=np.int64)
    for_ranges(_minhash, X.shape[0], X.indptr, X.indices, hashes.a, hashes.b, hashes.a_inv, True, out)
    return out


def minhash_values(X, hashes: HashFamily) -> np.ndarray:
    """Minimum hash values, shape (n_rows, len(hashes)), uint64 (``P`` for empty rows)."""
    X = as_csr(X)
    out = np.empty((X.shape[0], len(hashes)), dtype=np.uint64)
    for_ranges(_minhash, X.shape[0], X.indptr, X.indices, hashes.a, hashes.b, hashes.a_inv, False, out)
    return out
