"""Compiled helpers shared by the steps of :mod:`coclust`: bit counting, 64-bit mixing, growable
buffers and the Mersenne-prime reduction of the MinHash family.

Each is ``inline="always"``: it is compiled into the kernel that calls it, never called through
a function pointer.
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


@numba.njit(inline="always")
def mix64(h, x):
    """splitmix64's finaliser over a running state: a good 64-bit mix of a short sequence."""
    z = h + np.uint64(x) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(inline="always")
def grow(a, need):
    """``a`` if it holds ``need`` items, else a copy at least twice as long."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


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
