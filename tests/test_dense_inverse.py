"""The dense inverse of the item model and EASE: numpy's inverse, by tiles no BLAS call exceeds,
on the threads asked, without holding the GIL."""

import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recsys.model.dense_inverse as di


def penalised_gram(n: int, seed: int, users: int = 20) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = (rng.random((users, n)) < 0.3).astype(float)
    return X.T @ X + 0.5 * np.eye(n)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_the_inverse_by_tiles_is_numpys(n, block, tile, seed):
    G = penalised_gram(n, seed)
    P = di.spd_inverse(G.copy(), block=block, tile=tile)
    assert P == pytest.approx(np.linalg.inv(G), abs=1e-10)
    assert np.array_equal(P, P.T)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_a_single_precision_matrix_is_inverted_in_single_precision(n, block, tile, seed):
    """The single-precision routines (spotrf, strsm, ssyrk, sgemm, spotri) on a float32 matrix: its
    inverse in float32, numpy's float64 inverse to float32's precision."""
    G = penalised_gram(n, seed)
    P = di.spd_inverse(G.astype(np.float32), block=block, tile=tile)
    assert P.dtype == np.float32 and np.array_equal(P, P.T)
    assert P == pytest.approx(np.linalg.inv(G), abs=2e-5 * np.abs(np.linalg.inv(G)).max())


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 14), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_the_factor_by_tiles_is_lapacks(n, block, tile, seed):
    F = np.asfortranarray(penalised_gram(n, seed))
    whole = F.copy(order="F")
    assert di.cholesky_in_place(F, block, tile) == 0 and di.lapack("potrf", whole) == 0
    assert np.tril(F) == pytest.approx(np.tril(whole), abs=1e-12)


def test_no_blas_call_gets_more_rows_or_columns_than_a_tile_and_potrf_only_blocks(monkeypatch):
    """OpenBLAS's threaded level 3 crashed on large dimensions (potrf at 18,530, syrk at 24,500 rows):
    each call is given at most ``tile`` rows and columns, LAPACK's potrf only ``block``-sized
    factors, every call on the threads asked."""
    from threadpoolctl import threadpool_info, threadpool_limits

    calls = []
    blas, lapack = di._blas, di.lapack

    def recording_blas(routine, *args):
        ints = [a for a in args if type(a) is int]  # not the pointers (an int subclass) nor the flags
        dims = ints[: 3 if routine == "dgemm" else 2]  # the rest are leading dimensions
        calls.append((routine, dims, _threads(threadpool_info)))
        return blas(routine, *args)

    def recording_lapack(routine, F, at=0, n=None):
        calls.append((routine, [F.shape[0] - at if n is None else n], _threads(threadpool_info)))
        return lapack(routine, F, at, n)

    monkeypatch.setattr(di, "_blas", recording_blas)
    monkeypatch.setattr(di, "lapack", recording_lapack)
    G = penalised_gram(30, 0, users=60)
    with threadpool_limits(2, "blas"):
        P = di.spd_inverse(G.copy(), block=4, tile=7)
    assert P == pytest.approx(np.linalg.inv(G), abs=1e-10)
    factors = [c for c in calls if c[0] == "potrf"]
    assert len(factors) == 8 and all(sizes[0] <= 4 and threads == {2} for _, sizes, threads in factors)
    level3 = [c for c in calls if c[0] in ("dtrsm", "dsyrk", "dgemm")]
    assert {c[0] for c in level3} == {"dtrsm", "dsyrk", "dgemm"}
    assert all(max(sizes) <= 7 and threads == {2} for _, sizes, threads in level3), level3
    assert [c[2] for c in calls if c[0] == "potri"] == [{2}]


def _threads(threadpool_info) -> set:
    return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


def test_the_inverse_runs_on_the_threads_asked(monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    seen = []
    blas = di._blas
    monkeypatch.setattr(di, "_blas", lambda *a: (seen.append(_threads(threadpool_info)), blas(*a))[1])
    G = penalised_gram(12, 1)
    with threadpool_limits(2, "blas"):
        di.spd_inverse(G.copy(), threads=1, block=4)
        assert seen and all(t == {1} for t in seen)
        assert _threads(threadpool_info) == {2}  # the pool's size restored
        seen.clear()
        di.spd_inverse(G.copy(), block=4)
        assert seen and all(t == {2} for t in seen)


def test_the_inverse_releases_the_gil():
    """Every call runs through ctypes, without the GIL: a Python thread beside the inverse is never
    held up for long (its longest pause was 1-3 % of the inverse's time here; scipy's f2py wrappers
    held the GIL through each call: 39-61 %)."""
    rng = np.random.default_rng(0)
    X = (rng.random((2000, 2000)) < 0.05).astype(float)
    G = X.T @ X + 10.0 * np.eye(2000)
    di.spd_inverse(np.eye(2))  # the routines looked up before timing
    stop, longest = threading.Event(), [0.0]

    def spin():
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            longest[0], last = max(longest[0], now - last), now

    spinner = threading.Thread(target=spin)
    spinner.start()
    time.sleep(0.02)
    longest[0], start = 0.0, time.perf_counter()
    di.spd_inverse(G, threads=1)
    seconds = time.perf_counter() - start
    stop.set()
    spinner.join()
    assert longest[0] < 0.2 * seconds, (longest[0], seconds)


def test_an_indefinite_matrix_is_refused_by_name():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        di.spd_inverse(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        di.spd_inverse(-np.eye(9), block=4)


def test_a_matrix_of_the_wrong_layout_is_refused():
    with pytest.raises(ValueError, match="Fortran-ordered float64 or float32"):
        di.cholesky_in_place(np.eye(3, dtype=np.int64, order="F"))
    with pytest.raises(ValueError, match="Fortran-ordered"):
        di.cholesky_in_place(np.eye(3, order="C")[:, :2])
