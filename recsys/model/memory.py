"""The memory a fit will need, estimated before it starts: a job too large for the machine stops
with one line naming the figures instead of being killed by the kernel hours later.

The estimate is the peak resident memory of ``recsys train`` measured on MovieLens-shaped
synthetic ratings (``benchmarks/bench_recsys_scale.py``, see its results file): a fixed part
(the interpreter, numpy, scipy, numba, the data frame of a small set) plus a part per rating, and
the item model's dense Gram matrix (``8 × movies²`` bytes, with its sparse product alongside
while it is built) when it is dense.  Constants are rounded up from the measured peaks so that
the estimate errs on the high side; the fit itself is unchanged by it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import MemoryEstimateError
from .item_model import DENSE_GRAM_BYTES, DENSE_GRAM_ITEMS

BASE_BYTES = 0.9e9
# per rating, with the scaling rules (one fit) and without them (two fits, the first kept alive
# while its weights are learnt).  With the rules: the scale benchmark's own peaks less the fixed part
# and the Gram matrix, 320 a rating at 10 M MovieLens-shaped (991f51b: 5.11 GiB, the co-clusters of
# region_cover 16; 300 held the peaks before it, 7597cd6: 3.63 → 7.79 GB between 10 M and 25 M),
# rounded up; without them, 700 measured between 1 M and 5 M ratings
BYTES_PER_RATING = {True: 350.0, False: 900.0}
GRAM_BYTES_PER_CELL = 10.0  # 8 dense, and a share of the sparse product it is made from


def fit_peak_bytes(n_ratings: int, n_items: int, large: bool) -> float:
    """The estimated peak memory of fitting ``n_ratings`` ratings of ``n_items`` movies
    (``large``: with the scaling rules)."""
    return BASE_BYTES + BYTES_PER_RATING[bool(large)] * n_ratings + _gram_bytes(n_items)


def ratings_that_fit(allowed: float, n_items: int, large: bool) -> int:
    """The most ratings of ``n_items`` movies whose estimated fit stays within ``allowed`` bytes (0
    when not even the fixed part and the movies' Gram matrix do)."""
    return max(0, int((allowed - BASE_BYTES - _gram_bytes(n_items)) / BYTES_PER_RATING[bool(large)]))


def _gram_bytes(n_items: int) -> float:
    m = n_items if n_items <= DENSE_GRAM_ITEMS or 8 * n_items**2 <= DENSE_GRAM_BYTES else 0
    return GRAM_BYTES_PER_CELL * m * m


def available_bytes() -> float | None:
    """The memory available to this process now: the kernel's ``MemAvailable``, lowered to the
    room left under a cgroup (container) limit; ``None`` where neither can be read."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(float(line.split()[1]) * 1024)
    except OSError:
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = float(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            found.append(float(limit) - used)
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def check_memory(n_ratings: int, n_users: int, n_items: int, large: bool, limit: float | None = None) -> float:
    """Raise :class:`~recsys.errors.MemoryEstimateError` when the estimated peak exceeds ``limit``
    bytes (default: :func:`available_bytes`); returns the estimate."""
    need = fit_peak_bytes(n_ratings, n_items, large)
    allowed = available_bytes() if limit is None else limit
    if allowed is not None and need > allowed:
        where = "the limit given (--max-memory)" if limit is not None else "available now"
        fits = ratings_that_fit(allowed, n_items, large)
        would = f"about {fits:,} ratings of these movies would fit" if fits else "no ratings of these movies would fit"
        raise MemoryEstimateError(
            f"training on {n_ratings:,} ratings ({n_users:,} users × {n_items:,} movies) needs about "
            f"{need / 1e9:.1f} GB of memory by the estimate, and {allowed / 1e9:.1f} GB are {where} ({would}); "
            "free memory, use a larger machine, or pass --max-memory to allow more"
        )
    return need
