"""The suite's compiled kernels, compiled before it starts: numba compiles a kernel the first time it
is called with new argument types and caches it on disk; tests that each met a kernel first would
compile it while the other test process waits or compiles it too. Compiled here from a recorded
list instead, in one process per core, every signature once (the product's first use does the same
with the fit's lists: ``recsys/first_use.py``, whose functions this uses).

``python .ci/kernels.py compile N`` compiles every kernel of :data:`LIST` (into ``NUMBA_CACHE_DIR``),
``N`` processes at a time. ``python .ci/kernels.py record CACHE_DIR`` rewrites the list from a numba
cache that a whole run of the suite filled (every kernel and signature it compiled)::

    export NUMBA_CACHE_DIR=$(mktemp -d) && python -m pytest -q -n 2 --dist loadfile tests
    python .ci/kernels.py record "$NUMBA_CACHE_DIR"

A list that has gone stale only costs time (a test compiles what is missing), never a result: a
kernel or a signature that no longer exists is skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = Path(__file__).with_name("kernels.txt")


def compile_all(processes: int) -> None:
    """Compile every kernel of the list, ``processes`` at a time, the costliest first: each process
    takes the next kernel not yet taken, so that no core waits while another compiles."""
    from recsys.first_use import cost, precompile, read_list

    kernels = read_list(LIST)
    precompile(dict(sorted(kernels.items(), key=lambda kv: -cost(*kv))), processes)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1] == "record":
        from recsys.first_use import record

        print(f"{record(Path(sys.argv[2]), LIST)} signatures → {LIST.relative_to(ROOT)}")
    else:
        compile_all(int(sys.argv[2]))
