"""The suite's compiled kernels, compiled before it starts: numba compiles a kernel the first time it
is called with new argument types and caches it on disk; tests that each met a kernel first would
compile it while the other test process waits or compiles it too. Compiled here from a recorded
list instead, in one process per core, every signature once.

``python .ci/kernels.py compile N`` compiles every kernel of :data:`LIST` (into ``NUMBA_CACHE_DIR``),
``N`` processes at a time. ``python .ci/kernels.py record CACHE_DIR`` rewrites the list from a numba
cache that a whole run of the suite filled (every kernel and signature it compiled)::

    export NUMBA_CACHE_DIR=$(mktemp -d) && python -m pytest -q -n 2 --dist loadfile tests
    python .ci/kernels.py record "$NUMBA_CACHE_DIR"

A list that has gone stale only costs time (a test compiles what is missing), never a result: a
kernel or a signature that no longer exists is skipped.
"""

from __future__ import annotations

import importlib
import inspect
import multiprocessing
import pickle
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = Path(__file__).with_name("kernels.txt")
PACKAGES = ("coclust", "ingest", "recsys")


def encode(t) -> str:
    """A numba type as an expression of :mod:`numba.core.types` (what :func:`decode` reads back)."""
    from numba.core import types

    if isinstance(t, types.Array):
        return f"Array({encode(t.dtype)}, {t.ndim}, {t.layout!r}, readonly={not t.mutable})"
    if isinstance(t, types.UniTuple):
        return f"UniTuple({encode(t.dtype)}, {t.count})"
    if isinstance(t, types.Tuple):
        return f"Tuple(({''.join(encode(x) + ', ' for x in t.types)}))"
    if isinstance(t, types.Boolean):
        return "boolean"
    if isinstance(t, types.NoneType):
        return "none"
    if isinstance(t, types.Omitted):  # an argument left to its default
        return f"Omitted({t.value!r})"
    if isinstance(t, (types.Integer, types.Float)):
        return str(t)
    raise TypeError(f"not recorded: {t!r}")


def decode(text: str) -> tuple:
    from numba.core import types

    return eval(text, {"__builtins__": {}}, vars(types))  # the file is ours: names of numba types only


def module_of(folder: str, stem: str) -> str | None:
    """The module of a cache file: numba names its folder after the source's directory."""
    name = folder.rsplit("_", 1)[0]
    for package in PACKAGES:
        for d in [ROOT / package, *(p for p in (ROOT / package).rglob("*") if p.is_dir())]:
            if d.name == name and (d / f"{stem}.py").exists():
                return ".".join(d.relative_to(ROOT).parts + (stem,))
    return None


def record(cache: Path) -> None:
    lines = set()
    for index in cache.glob("*/*.nbi"):
        match = re.match(r"(\w+)\.(\w+)-\d+\.py\d+\.nbi$", index.name)
        module = match and module_of(index.parent.name, match.group(1))
        if module is None:
            continue
        with open(index, "rb") as f:
            pickle.load(f)  # numba's version
            overloads = pickle.loads(f.read())[1]
        for signature, *_target in overloads:
            if isinstance(signature, tuple):  # a signature given in the source is compiled at import
                try:
                    lines.add(f"{module}:{match.group(2)}\t({''.join(encode(t) + ', ' for t in signature)})")
                except TypeError as error:
                    print(f"{module}:{match.group(2)}: {error}", file=sys.stderr)
    LIST.write_text("".join(line + "\n" for line in sorted(lines)))
    print(f"{len(lines)} signatures → {LIST.relative_to(ROOT)}")


def _kernels() -> dict[str, list[str]]:
    by_kernel: dict[str, list[str]] = {}
    for line in LIST.read_text().splitlines():
        kernel, signature = line.split("\t")
        by_kernel.setdefault(kernel, []).append(signature)
    return by_kernel


def _dispatcher(kernel: str):
    module, name = kernel.split(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def _compile(kernel: str, signatures: list[str]) -> int:
    """Compile one kernel's signatures; the number skipped (a kernel or signature no longer there)."""
    dispatcher = _dispatcher(kernel)
    if dispatcher is None:
        return len(signatures)
    skipped = 0
    for signature in signatures:
        try:
            dispatcher.compile(decode(signature))
        except Exception:  # a signature the kernel no longer takes
            skipped += 1
    return skipped


def _cost(kernel: str, signatures: list[str]) -> int:
    """A guess at a kernel's compile time: its source lines times its signatures (0 for a name that
    is no longer a compiled kernel: the list is stale, and compiling it is skipped)."""
    source = getattr(_dispatcher(kernel), "py_func", None)
    return len(inspect.getsource(source).splitlines()) * len(signatures) if source is not None else 0


def compile_all(processes: int) -> None:
    """Compile every kernel of the list, ``processes`` at a time. The modules are imported once,
    before the worker processes are forked; each worker takes the next kernel when it is done with
    one, the costliest first (by :func:`_cost`): no core waits while the other compiles."""
    by_kernel = _kernels()
    work = sorted(by_kernel.items(), key=lambda kv: -_cost(*kv))
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        skipped = sum(pool.map(_compile, [k for k, _ in work], [s for _, s in work]))
    if skipped:
        print(f"kernels: {skipped} recorded signature(s) skipped (the list is stale)", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1] == "record":
        record(Path(sys.argv[2]))
    else:
        compile_all(int(sys.argv[2]))
