"""Where a result came from: the commit, the exact command, the versions and the time.

Every results file and every ``--json`` evaluation carries :func:`provenance`, so a figure can be
traced to the code that produced it (and found stale when the code changed).
"""

from __future__ import annotations

import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .model.threads import cores

# git pathspecs: the whole tree but the results (the experiments' and the benchmarks')
_CODE = (":(top)", ":(top,exclude)experiments/results", ":(top,exclude)benchmarks/results")


def commit(path: str | Path | None = None) -> str | None:
    """The git commit of the source tree holding ``path`` (this package by default), with
    ``-dirty`` appended when it has uncommitted changes; None outside a git checkout.

    Changes under ``experiments/results/`` and ``benchmarks/results/`` do not count: they are the
    outputs being written, and a run that regenerates several results files one after another
    measures the same code."""
    where = Path(path or Path(__file__).resolve().parent)
    try:
        head = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no", "--", *_CODE],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("-dirty" if dirty else "") if head else None


def command(argv: list[str] | None = None) -> str:
    """The command line of this process, as it could be typed again (``python -m module …`` kept)."""
    if argv is None:
        argv = list(getattr(sys, "orig_argv", sys.argv))
        if argv and Path(argv[0]).name.startswith("python"):
            argv[0] = "python"
        elif argv:
            argv[0] = Path(argv[0]).name
    return " ".join(shlex.quote(a) for a in argv)


def versions() -> dict:
    import numpy

    out = {"python": platform.python_version(), "numpy": numpy.__version__}
    for name in ("scipy", "pandas", "numba", "surprise"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    return out


def provenance(argv: list[str] | None = None, **extra) -> dict:
    """``commit``, ``command``, ``created`` (UTC), ``machine``, ``versions`` and ``extra``."""
    return {
        "commit": commit(),
        "command": command(argv),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": f"{platform.machine()}, {cores()} cores",
        "versions": versions(),
        **extra,
    }
