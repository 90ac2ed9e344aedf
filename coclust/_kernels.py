"""Compiled helpers shared by the steps of :mod:`coclust`: bit counting, 64-bit mixing, growable
buffers, sorting and the Mersenne-prime reduction of the MinHash family.

The tiny ones (bit tricks, mixing, the modular reduction) are ``inline="always"``: compiled into
the hot loop that calls them.  The growable buffers and the sorts are ordinary compiled functions,
typed once and shared: inlined, numba types their body again at every call site (In-Close has
seven), which cost seconds of first-use compilation.  The sorts carry their one signature, so a
call with a constant length does not compile a second, literal-typed version.

Compile time is a feature here (a new user's first fit waits for it), so the kernels avoid what
makes numba slow to compile: array slice assignment (``a[:n] = b`` compiles a shape check that
formats an error message: ~3 s, once per process), and numpy's sorts (~2.5 s each kind).  Copies
are loops, sorts are :func:`sort_nonnegative` and :func:`argsort_u64` (LSD radix sorts: stable,
linear, a few dozen lines), and a partition's threshold is :func:`kth_smallest`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

MERSENNE_P = np.uint64((1 << 31) - 1)


@intrinsic
def _ctpop(typingctx, x):
    # LLVM's population count: one POPCNT instruction where the CPU has it.
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(inline="always")
def popcount(x):
    """Number of set bits of a ``uint64``."""
    return _ctpop(np.uint64(x))


@numba.njit(inline="always")
def lowest_bit_index(v):
    """Index of the lowest set bit of a non-zero ``uint64``."""
    return int(_ctpop((v & (~v + np.uint64(1))) - np.uint64(1)))


@numba.njit(nogil=True, cache=True)
def bits_to_indices(bits):
    """Rows of ``uint64`` bitsets as a CSR pair ``(ptr, idx)``: each row's set bits, increasing."""
    n, words = bits.shape
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        c = 0
        for w in range(words):
            c += popcount(bits[i, w])
        ptr[i + 1] = ptr[i] + c
    idx = np.empty(ptr[n], dtype=np.int64)
    for i in range(n):
        p = ptr[i]
        for w in range(words):
            v = bits[i, w]
            while v:
                idx[p] = w * 64 + lowest_bit_index(v)
                p += 1
                v &= v - np.uint64(1)
    return ptr, idx


@numba.njit(inline="always")
def mix64(h, x):
    """splitmix64's finaliser over a running state: a good 64-bit mix of a short sequence."""
    z = h + np.uint64(x) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(inline="always")
def lower_bound(lst, lo, hi, x):
    """The first index ``i`` in ``lo..hi`` with ``lst[i] >= x`` (``lst`` sorted), by bisection."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if lst[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(inline="always")
def tally(ptr, idx, s, count, touched, n_touched):
    """Counts the indices of list ``idx[ptr[s]:ptr[s + 1]]`` in ``count``; an index met for the first
    time is appended to ``touched[:n_touched]``.  Returns the new ``n_touched``."""
    for q in range(ptr[s], ptr[s + 1]):
        r = idx[q]
        if count[r] == 0:
            touched[n_touched] = r
            n_touched += 1
        count[r] += 1
    return n_touched


@numba.njit
def grow(a, need):
    """``a`` if it holds ``need`` items, else a copy at least twice as long."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    for i in range(a.shape[0]):
        b[i] = a[i]
    return b


@numba.njit
def append_block(o_rptr, o_ridx, o_cptr, o_cidx, n, rows, nr, cols, nc):
    """Append block ``n`` (``rows[:nr]`` × ``cols[:nc]``) to the CSR pair ``o_rptr/o_ridx``,
    ``o_cptr/o_cidx`` (pointer arrays long enough); returns the index arrays, grown as needed."""
    o_ridx = grow(o_ridx, o_rptr[n] + nr)
    for t in range(nr):
        o_ridx[o_rptr[n] + t] = rows[t]
    o_rptr[n + 1] = o_rptr[n] + nr
    o_cidx = grow(o_cidx, o_cptr[n] + nc)
    for t in range(nc):
        o_cidx[o_cptr[n] + t] = cols[t]
    o_cptr[n + 1] = o_cptr[n] + nc
    return o_ridx, o_cidx


@numba.njit
def grow_rows(a, need):
    """A 2-D ``a`` if it has ``need`` rows, else a copy with at least twice as many."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]
    return b


_RADIX_BITS = 11
_SMALL = 32


@numba.njit("void(int64[::1], int64)", nogil=True, cache=True)
def sort_nonnegative(a, n):
    """Sort ``a[:n]`` (non-negative integers) in place."""
    if n <= _SMALL:
        for i in range(1, n):
            x = a[i]
            j = i - 1
            while j >= 0 and a[j] > x:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
        return
    top = a[0]
    for i in range(n):
        top = max(top, a[i])
    src = a[:n]
    dst = np.empty(n, dtype=a.dtype)
    counts = np.empty((1 << _RADIX_BITS) + 1, dtype=np.int64)
    mask = (1 << _RADIX_BITS) - 1
    shift = 0
    swapped = False
    while shift == 0 or (top >> shift) > 0:
        for d in range(counts.shape[0]):
            counts[d] = 0
        for i in range(n):
            counts[((src[i] >> shift) & mask) + 1] += 1
        for d in range(1, counts.shape[0]):
            counts[d] += counts[d - 1]
        for i in range(n):
            d = (src[i] >> shift) & mask
            dst[counts[d]] = src[i]
            counts[d] += 1
        src, dst = dst, src
        swapped = not swapped
        shift += _RADIX_BITS
    if swapped:
        for i in range(n):
            a[i] = src[i]


@numba.njit(inline="always")
def copy_into(src, dst, at):
    """``dst[at : at + len(src)] = src``, as a loop (slice assignment compiles for seconds)."""
    for x in range(len(src)):
        dst[at + x] = src[x]


@numba.njit(nogil=True, cache=True)
def sorted_nonnegative(a):
    """``np.sort(a)`` of non-negative integers ``a``, by :func:`sort_nonnegative` on a copy."""
    out = np.empty(len(a), dtype=np.int64)
    copy_into(a, out, 0)
    sort_nonnegative(out, len(out))
    return out


@numba.njit(nogil=True, cache=True)
def unique_nonnegative(a):
    """``np.unique(a)`` of non-negative integers ``a``."""
    out = sorted_nonnegative(a)
    m = 0
    for i in range(len(out)):
        if i == 0 or out[i] != out[m - 1]:
            out[m] = out[i]
            m += 1
    return out[:m]


@numba.njit("int64[::1](uint64[::1])", nogil=True, cache=True)
def argsort_u64(keys):
    """The stable ascending order of the ``uint64`` array ``keys`` (equal keys keep their order)."""
    n = keys.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = i
    if n <= _SMALL:
        for i in range(1, n):
            x = order[i]
            j = i - 1
            while j >= 0 and keys[order[j]] > keys[x]:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
        return order
    top = keys[0]
    for i in range(n):
        top = max(top, keys[i])
    tmp = np.empty(n, dtype=np.int64)
    counts = np.empty((1 << _RADIX_BITS) + 1, dtype=np.int64)
    mask = np.uint64((1 << _RADIX_BITS) - 1)
    shift = np.uint64(0)
    while shift == 0 or (shift < 64 and (top >> shift) > 0):
        for d in range(counts.shape[0]):
            counts[d] = 0
        for i in range(n):
            counts[np.int64((keys[order[i]] >> shift) & mask) + 1] += 1
        for d in range(1, counts.shape[0]):
            counts[d] += counts[d - 1]
        for i in range(n):
            d = np.int64((keys[order[i]] >> shift) & mask)
            tmp[counts[d]] = order[i]
            counts[d] += 1
        order, tmp = tmp, order
        shift += np.uint64(_RADIX_BITS)
    return order


@numba.njit(nogil=True, cache=True)
def argsort_float(keys):
    """``np.argsort(keys, kind="stable")`` of a float array: ascending, NaN last, equal keys (``-0.0``
    and ``0.0`` among them) in their order.  The floats are mapped to unsigned integers in the same
    order and sorted by :func:`argsort_u64`: numpy's mergesort took 1.7 s to compile in each process."""
    n = keys.shape[0]
    values = np.empty(n, dtype=np.float64)
    for i in range(n):
        values[i] = keys[i]
    bits = values.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    mapped = np.empty(n, dtype=np.uint64)
    for i in range(n):
        if values[i] != values[i]:
            mapped[i] = ~np.uint64(0)
        elif values[i] == 0.0:
            mapped[i] = sign
        elif bits[i] & sign:
            mapped[i] = ~bits[i]  # negative: a larger magnitude comes first
        else:
            mapped[i] = bits[i] | sign
    return argsort_u64(mapped)


@numba.njit(inline="always")
def _before(x, y):
    """``x`` comes before ``y`` in numpy's sort order: by value, NaN after every number."""
    return x < y or (y != y and x == x)


@numba.njit(nogil=True, cache=True)
def kth_smallest(values, k):
    """``np.partition(values, k)[k]``: the value at position ``k`` of ``values`` sorted (NaN last),
    found by Hoare's selection on a copy.  numba's ``np.partition`` compiles for seconds (it checks
    its ``kth`` argument with ``np.unique`` and formats shape errors); this, in well under one."""
    a = values.copy()
    lo, hi = 0, len(a) - 1
    while lo < hi:
        pivot = a[k]
        i, j = lo, hi
        while i <= j:
            while _before(a[i], pivot):
                i += 1
            while _before(pivot, a[j]):
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if j < k:
            lo = i
        if k < i:
            hi = j
    return a[k]


@numba.njit(inline="always")
def mod_p(y):
    """``y mod (2**31 - 1)`` for ``y < 2**63``: two folds bring it below ``2**31 + 2``, one subtraction finishes."""
    y = (y & MERSENNE_P) + (y >> np.uint64(31))
    y = (y & MERSENNE_P) + (y >> np.uint64(31))
    return y - MERSENNE_P if y >= MERSENNE_P else y


@numba.njit(inline="always")
def invert_hash(v, b, a_inv):
    """The ``x`` with ``(a*x + b) mod P == v``, given ``a_inv = a^-1 mod P``."""
    return mod_p(mod_p(v + MERSENNE_P - b) * a_inv)
