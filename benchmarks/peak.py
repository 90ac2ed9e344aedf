"""Run a module as ``python -m`` would, and write this process's own peak resident memory at exit.

The kernel's count of a child's peak (``wait4``'s ``ru_maxrss``) starts from the memory its parent
held when it forked: the scale benchmark, having generated 25 M ratings in its own process,
reported 13.3 GB for every command it ran after that.  ``VmHWM`` in ``/proc/self/status`` is the
peak of the memory this process has mapped since its ``exec``, its own alone.

Usage: ``python -m benchmarks.peak FILE MODULE [ARGS...]`` (``FILE`` gets the peak in kB).
"""

from __future__ import annotations

import atexit
import runpy
import sys
from pathlib import Path


def own_peak_kb() -> int | None:
    """This process's peak resident memory since its ``exec`` (kB), where Linux tells it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def main() -> None:
    out, module, *args = sys.argv[1:]
    atexit.register(lambda: Path(out).write_text(str(own_peak_kb() or "")))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
