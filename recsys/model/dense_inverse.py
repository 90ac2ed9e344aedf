"""The inverse of a dense symmetric positive definite matrix, in its own memory, on BLAS threads
that neither crash nor hold the GIL.

Two facts about the OpenBLAS that scipy's wheels carry (0.3.30, SkylakeX kernels) shape it:

- its level-3 routines write past a buffer and crash the process when a dimension is large and they
  run on two threads: ``potrf`` at 18,530 and 23,170 movies (the train of MovieLens 25M's shape;
  the most the dense rule admits), ``syrk`` at 24,500 rows, numpy's ``X.T @ X`` at 18,530 columns.
  Every call here works on tiles of at most :data:`TILE` rows and columns, where they do not;
- ``potrf`` on one thread (the way round that crash until now) takes twice the time of the same
  factor made here by tiles on two (40.6 s against 21.0 s at 18,530; 10.4 s against 6.6 s at
  11,719: the right-looking blocked Cholesky, whose triangular solves and trailing updates are
  threaded ``trsm``, ``syrk`` and ``gemm`` on tiles).

The routines are scipy's own (:mod:`scipy.linalg.cython_lapack`, :mod:`scipy.linalg.cython_blas`),
called through ctypes, which releases the GIL for each call (scipy's f2py wrappers hold it: a thread
beside them got 5 % of its idle run).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

# the largest number of rows or columns one BLAS call is given (see the module docstring)
TILE = 4096
# the factor's block columns: each diagonal block is factored on one thread, the rest is level 3
BLOCK = 512

_int = ctypes.POINTER(ctypes.c_int)
_char, _ptr = ctypes.c_char_p, ctypes.c_void_p
# the routines' arguments, ``_real`` standing for the scalars' pointer type (double, or float for the
# single-precision routines: the names' first letter says which)
_real = object()
_SIGNATURES = {
    "potrf": ("lapack", (_char, _int, _ptr, _int, _int)),
    "potri": ("lapack", (_char, _int, _ptr, _int, _int)),
    "trsm": ("blas", (_char, _char, _char, _char, _int, _int, _real, _ptr, _int, _ptr, _int)),
    "syrk": ("blas", (_char, _char, _int, _int, _real, _ptr, _int, _real, _ptr, _int)),
    "gemm": ("blas", (_char, _char, _int, _int, _int, _real, _ptr, _int, _ptr, _int, _real, _ptr, _int)),
}
_PREFIX = {np.dtype(np.float64): "d", np.dtype(np.float32): "s"}


def spd_inverse(A: np.ndarray, threads: int | None = None, block: int = BLOCK, tile: int = TILE) -> np.ndarray:
    """The inverse of the symmetric positive definite ``A`` (C-ordered, float64 or float32), in ``A``'s memory
    and returned symmetric: the Cholesky factor by tiles (:func:`cholesky_in_place`), LAPACK's
    ``potri`` for the inverse of ``A`` from it, then the upper triangle copied to the lower.  Every
    BLAS call runs on ``threads`` threads (default: the pool's); ``block`` and ``tile`` are the
    factor's (tests make them small).  Raises :class:`numpy.linalg.LinAlgError` if ``A`` is not
    positive definite."""
    for name in _SIGNATURES:  # scipy's BLAS loaded first: a pool's limit reaches the libraries loaded when it is set
        _routine(_PREFIX.get(A.dtype, "d") + name)
    # A is C-ordered and symmetric: its transpose is the same matrix in Fortran order, which LAPACK
    # overwrites in place; its "lower" triangle is A's upper one
    F = A.T
    with _blas_threads(threads):
        info = cholesky_in_place(F, block, tile)
        if info == 0:
            info = lapack("potri", F)
    if info != 0:
        raise np.linalg.LinAlgError(f"the Gram matrix plus its penalty is not positive definite (LAPACK info {info})")
    P = F.T  # C-ordered again; the inverse is in its upper triangle
    _mirror_upper(P)
    return P


def _blas_threads(threads: int | None):
    """BLAS's pool limited to ``threads`` (none: as it is).  Set once, not around each call: a limit
    lists the process's libraries through a Python callback per library, each of which waits for the
    GIL, and beside the dislike side's threads that made the item model at 1 M 0.5-1.3 s longer."""
    import contextlib

    from threadpoolctl import threadpool_limits

    return contextlib.nullcontext() if threads is None else threadpool_limits(threads, "blas")


def cholesky_in_place(F: np.ndarray, block: int = BLOCK, tile: int = TILE) -> int:
    """The lower Cholesky factor ``L`` (``F = L L'``) of the Fortran-ordered square ``F``, in its
    lower triangle (the upper one is not read); LAPACK's ``info`` (0, or the order of the first
    minor that is not positive definite).  Right-looking by ``block`` columns: the diagonal block by
    ``potrf``, the panel below it by ``trsm`` and the trailing matrix by ``syrk`` and ``gemm``, on
    the pool's threads and on tiles of at most ``tile`` rows and columns."""
    _check(F)
    n, x = F.shape[0], _PREFIX[F.dtype]
    for k in range(0, n, block):
        b = min(block, n - k)
        info = lapack("potrf", F, at=k, n=b)  # a block far below the sizes whose threaded factor crashed
        if info != 0:
            return info + k
        below = range(k + b, n, tile)
        for lo in below:  # the panel: L21 = A21 L11^-T
            m = min(tile, n - lo)
            _blas(x + "trsm", b"R", b"L", b"T", b"N", m, b, 1.0, _at(F, k, k), n, _at(F, lo, k), n)
        for lo in below:  # the trailing matrix's lower triangle: A22 -= L21 L21'
            width = min(tile, n - lo)
            _blas(x + "syrk", b"L", b"N", width, b, -1.0, _at(F, lo, k), n, 1.0, _at(F, lo, lo), n)
            for under in range(lo + width, n, tile):
                m = min(tile, n - under)
                _blas(x + "gemm", b"N", b"T", m, width, b, -1.0, _at(F, under, k), n, _at(F, lo, k), n, 1.0,
                      _at(F, under, lo), n)  # fmt: skip
    return 0


def lapack(routine: str, F: np.ndarray, at: int = 0, n: int | None = None) -> int:
    """``routine`` (``potrf`` or ``potri``, lower triangle, in ``F``'s precision) in place on the
    Fortran-ordered square ``F`` or its diagonal block ``F[at:at + n, at:at + n]``; LAPACK's ``info``."""
    _check(F)
    n = F.shape[0] - at if n is None else n
    info = ctypes.c_int(0)
    _routine(_PREFIX[F.dtype] + routine)(b"L", _byref(n), _at(F, at, at), _byref(F.shape[0]), ctypes.byref(info))
    return info.value


def _blas(routine: str, *args) -> None:
    """``routine`` with ``args`` as Fortran wants them: flags as bytes, sizes and scalars by reference
    (ints, and floats in the routine's precision), pointers as ints."""
    real = ctypes.c_float if routine[0] == "s" else ctypes.c_double
    _routine(routine)(*(a if isinstance(a, (bytes, _Pointer)) else _byref(a, real) for a in args))


class _Pointer(int):
    """An address (an ``int`` that :func:`_blas` passes by value)."""


def _at(F: np.ndarray, row: int, col: int) -> _Pointer:
    """The address of ``F[row, col]`` (Fortran order: columns are contiguous)."""
    return _Pointer(F.ctypes.data + (col * F.shape[0] + row) * F.itemsize)


def _byref(value, real=ctypes.c_double):
    return ctypes.byref(real(value) if isinstance(value, float) else ctypes.c_int(value))


def _check(F: np.ndarray) -> None:
    if not (F.flags.f_contiguous and F.dtype in _PREFIX and F.ndim == 2 and F.shape[0] == F.shape[1]):
        raise ValueError(f"a square Fortran-ordered float64 or float32 array is needed, not {F.dtype} {F.shape}")


def _mirror_upper(P: np.ndarray, block: int = 512) -> None:
    """``P``'s lower triangle from its upper one, a block of rows at a time (no n² temporary)."""
    n = len(P)
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        P[lo:hi, :lo] = P[:lo, lo:hi].T
        rows = P[lo:hi, lo:hi]
        below = np.tril_indices(hi - lo, -1)
        rows[below] = rows.T[below]


@functools.cache
def _routine(name: str):
    from numba.extending import get_cython_function_address

    library, arguments = _SIGNATURES[name[1:]]
    real = ctypes.POINTER(ctypes.c_float if name[0] == "s" else ctypes.c_double)
    arguments = tuple(real if a is _real else a for a in arguments)
    return ctypes.CFUNCTYPE(None, *arguments)(get_cython_function_address(f"scipy.linalg.cython_{library}", name))
