"""How many threads the fit's parallel steps use."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's or ``taskset``'s
    share; else every core of the machine)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
