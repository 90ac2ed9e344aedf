"""How many threads the fit's parallel steps use, and how they run."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator


def cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's or ``taskset``'s
    share; else every core of the machine)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def in_threads(
    fn: Callable, items: Iterable, workers: int | None = None, window: int | None = None, first_alone: bool = True
) -> Iterator:
    """``fn(x)`` for each of ``items`` on ``workers`` threads (default: every core), the results
    yielded in order as they come, at most ``window`` (default: twice the workers) computed ahead of
    the one yielded.  The first item runs on this thread before the others start (unless
    ``first_alone`` is False: ``fn`` has run before): a compiled kernel's first call compiles it (or
    loads it from numba's cache) for its argument types, and two threads doing that at once crash
    numba."""
    items = list(items)
    if not items:
        return
    if first_alone:
        yield fn(items[0])
        items = items[1:]
    rest = items
    n = min(workers or cores(), len(rest))
    if n <= 1:
        yield from map(fn, rest)
        return
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    ahead = max(window or 2 * n, 1)
    with ThreadPoolExecutor(max_workers=n) as pool:
        pending = deque(pool.submit(fn, x) for x in rest[:ahead])
        for x in rest[ahead:]:
            yield pending.popleft().result()
            pending.append(pool.submit(fn, x))
        while pending:
            yield pending.popleft().result()
