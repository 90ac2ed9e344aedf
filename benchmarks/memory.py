"""Peak memory of the current process."""

from __future__ import annotations

import resource


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB.

    Reads ``VmHWM`` from ``/proc/self/status``: unlike ``getrusage().ru_maxrss``, it is reset by
    ``exec``, so a child started from a large parent reports its own peak, not the parent's.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
