"""Run a ``nogil`` compiled function over slices of work on a thread pool."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np


def n_threads() -> int:
    return max(1, min(numba.get_num_threads(), os.cpu_count() or 1))


def chunk_bounds(weights: np.ndarray, n_chunks: int) -> list[tuple[int, int]]:
    """Split ``range(len(weights))`` into about ``n_chunks`` contiguous slices of similar total weight."""
    n = len(weights)
    if n == 0:
        return []
    cum = np.cumsum(np.asarray(weights, dtype=np.float64) + 1.0)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_chunks) / n_chunks)
    edges = np.unique(np.r_[0, cuts, n])
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def map_chunks(fn, bounds: list[tuple[int, int]]) -> list:
    """``[fn(lo, hi) for lo, hi in bounds]``, on threads when there are several."""
    if len(bounds) <= 1 or n_threads() == 1:
        return [fn(lo, hi) for lo, hi in bounds]
    with ThreadPoolExecutor(max_workers=n_threads()) as pool:
        return list(pool.map(lambda b: fn(*b), bounds))


def concat_csr_pairs(parts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Concatenate ``(row_ptr, row_idx, col_ptr, col_idx, ...)`` tuples into one."""

    def cat(ptrs, idxs):
        out_ptr = [np.zeros(1, dtype=np.int64)]
        offset = 0
        for p in ptrs:
            out_ptr.append(p[1:] + offset)
            offset += p[-1]
        idx = np.concatenate(idxs) if idxs else np.empty(0, dtype=np.int64)
        return np.concatenate(out_ptr), idx

    rp, ri = cat([p[0] for p in parts], [p[1] for p in parts])
    cp, ci = cat([p[2] for p in parts], [p[3] for p in parts])
    return rp, ri, cp, ci
