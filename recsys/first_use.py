"""Whether this process is about to compile the fit's kernels.

numba compiles the hot loops the first time a process needs them and caches them on disk; a fresh
install's first fit waits for it (about a minute on two cores, once: ``docs/install.md``).  The
command line says so before that fit starts, so that a first user does not take the wait for the
product's speed.
"""

from __future__ import annotations

import os

FIRST_USE_NOTE = (
    "note: first use: numba compiles the kernels once (about a minute on 2 cores); they are cached for every later run"
)


def kernels_cached() -> bool:
    """Whether numba's cache holds a kernel every fit runs (``coclust``'s float argsort), by its
    index file; True when the cache cannot be inspected (a numba without these internals), so
    that the note is never shown wrongly."""
    from coclust._kernels import argsort_float

    try:
        return os.path.exists(argsort_float._cache._cache_file._index_path)
    except AttributeError:
        return True
