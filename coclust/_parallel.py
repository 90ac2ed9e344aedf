"""Run a ``nogil`` compiled function over slices of work on a thread pool."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np


def n_threads() -> int:
    """numba's thread count (``NUMBA_NUM_THREADS``, by default the machine's cores; lowered by
    ``numba.set_num_threads``)."""
    return max(1, numba.get_num_threads())


def chunk_bounds(weights: np.ndarray, n_chunks: int) -> list[tuple[int, int]]:
    """Split ``range(len(weights))`` into about ``n_chunks`` contiguous slices of similar total weight."""
    n = len(weights)
    if n == 0:
        return []
    cum = np.cumsum(np.asarray(weights, dtype=np.float64) + 1.0)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_chunks) / n_chunks)
    edges = np.unique(np.r_[0, cuts, n])
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def map_chunks(fn, bounds: list[tuple[int, int]], done=None) -> list:
    """``[fn(lo, hi) for lo, hi in bounds]``, on threads when there are several; ``done(k, n)``
    (optional) is told as the first ``k`` of the ``n`` results are in.  The first item runs on this
    thread before the others start: a kernel's first call compiles it (or loads it from numba's
    cache), and two threads doing that at once crash numba.  It runs alone as a chunk of its own
    (one result more): a whole first chunk alone was a sixteenth of the work on one thread (the
    25 M-rating like relation's relaxation: 1.3 s)."""
    tell = done or (lambda k, n: None)
    if bounds and bounds[0][1] - bounds[0][0] > 1:
        (lo, hi), *rest = bounds
        bounds = [(lo, lo + 1), (lo + 1, hi), *rest]
    out = []
    if bounds:
        out.append(fn(*bounds[0]))
        tell(1, len(bounds))
    rest = bounds[1:]
    if len(rest) <= 1 or n_threads() == 1:
        for lo, hi in rest:
            out.append(fn(lo, hi))
            tell(len(out), len(bounds))
        return out
    with ThreadPoolExecutor(max_workers=n_threads()) as pool:
        for result in pool.map(lambda b: fn(*b), rest):
            out.append(result)
            tell(len(out), len(bounds))
        return out


_POOL: list = [None, 0]  # (executor, its number of threads)


def _pool() -> ThreadPoolExecutor:
    n = n_threads()
    if _POOL[0] is None or _POOL[1] != n:
        if _POOL[0] is not None:
            _POOL[0].shutdown(wait=True)
        _POOL[0], _POOL[1] = ThreadPoolExecutor(max_workers=n, thread_name_prefix="coclust"), n
    return _POOL[0]


def for_ranges(kernel, n: int, *args, tasks_per_thread: int = 4) -> None:
    """``kernel(*args, lo, hi)`` over contiguous ranges that cover ``range(n)``, on the thread pool.

    The kernels are plain ``nogil`` compiled functions: numba's ``parallel=True`` would add
    seconds of compilation to each, which every new user waits for on first use.
    """
    tasks = max(1, min(n, n_threads() * tasks_per_thread))
    bounds = [(n * t // tasks, n * (t + 1) // tasks) for t in range(tasks)]
    bounds = [b for b in bounds if b[1] > b[0]]
    if len(bounds) <= 1 or n_threads() == 1:
        for lo, hi in bounds:
            kernel(*args, lo, hi)
        return
    for f in [_pool().submit(kernel, *args, lo, hi) for lo, hi in bounds]:
        f.result()


def for_strided(kernel, n_tasks: int, *args) -> None:
    """``kernel(*args, task, n_tasks)`` for every task, on the thread pool: a task that takes every
    ``n_tasks``-th item spreads costly items (hubs of power-law data) over every thread."""
    if n_tasks <= 1 or n_threads() == 1:
        for t in range(n_tasks):
            kernel(*args, t, n_tasks)
        return
    for f in [_pool().submit(kernel, *args, t, n_tasks) for t in range(n_tasks)]:
        f.result()
