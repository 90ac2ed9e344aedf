"""Running measured work: a fresh child process from the repository root, its JSON answer, its
peak memory, and the data home.  The one home of these for the experiments and the benchmarks
(``benchmarks/`` imports it; nothing here imports ``benchmarks/``)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_home(arg: Path | None = None) -> Path:
    """The data home: ``arg`` if given, else the project's rule (``$RECSYS_DATA``, else ``~/recsys_data``)."""
    from ingest.datahome import data_home as project_data_home

    return project_data_home(arg)


def run_child(
    args: list[str],
    *,
    env: dict | None = None,
    timeout: float | None = None,
    memory_gb: float | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """Run ``python args...`` in a fresh process from the repository root (its own peak memory,
    its own numba state), capturing text output; ``memory_gb`` caps its address space."""

    def limit():  # pragma: no cover - runs in the child
        if memory_gb:
            cap = int(memory_gb * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    child = {"cwd": ROOT, "env": {**os.environ, **(env or {})}, "preexec_fn": limit if memory_gb else None}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, check=check, **child
    )


def child_json(args: list[str], **kwargs) -> dict:
    """:func:`run_child`, then the JSON object the child printed last; its stderr on failure."""
    res = run_child(args, **kwargs)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed (exit {res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


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
