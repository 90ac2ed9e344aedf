"""The first use: numba compiles the fit's kernels once, on every core.

numba compiles the hot loops the first time a process needs them and caches them on disk; a fresh
install's first fit would wait for it, one kernel after another (a 1 M-rating train that takes 7-8 s
warm took 44-47 s on two cores).  Before such a fit the command line compiles the kernels the fit
will need, from a recorded list (``recsys/kernels/``: ``fit.txt``, a fit on small data;
``scaled.txt``, where the scaling rules apply; ``evaluate.txt``, the demo's fits, evaluation and
lists), in one process per core (27-29 s for that train): each process takes the next kernel not
yet taken, the costliest first, and the compiled code goes to numba's cache, from which the fit
then loads it.  It says so in one line, so that a first user does not take the wait for the product's speed.

A list that has gone stale costs time, never a result: a kernel or signature it names that no longer
exists is skipped, and one it lacks is compiled when the fit first calls it.  The lists are recorded
from a cache that the listed commands filled (``docs/install.md``)::

    export NUMBA_CACHE_DIR=$(mktemp -d) && recsys train --dataset demo -o /tmp/m
    python -m recsys.first_use record "$NUMBA_CACHE_DIR" recsys/kernels/fit.txt

``python -m recsys.first_use compile fit scaled`` fills a cache ahead of time (a container image, say).
"""

from __future__ import annotations

import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

LISTS = Path(__file__).with_name("kernels")
PACKAGES = ("coclust", "ingest", "recsys")
ROOT = Path(os.path.abspath(__file__)).parent.parent  # the packages' directory, as Python found it

# each helper holds numba and LLVM (~200 MB after six kernels); beyond a few, the costliest
# kernels (3-4 s each) and the helpers' imports bound the wait, not the cores
MAX_PROCESSES = 8
FIRST_USE_NOTE = (
    "note: first use: numba compiles {kernels} kernels once, on {processes} processes "
    "(about half a minute on 2 cores); they are cached for every later run"
)


def _cached(dispatcher) -> bool:
    """Whether numba's cache holds a signature of ``dispatcher``, by its index file; True when the
    cache cannot be inspected (a numba without these internals): nothing is then compiled ahead
    and no note is shown wrongly."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return True


def listed(name: str) -> dict[str, list[str]]:
    """The kernels of the list ``name`` (``fit``, ``scaled`` or ``evaluate``): ``module:function`` → the
    signatures, each an expression of :mod:`numba.core.types` (:func:`decode`)."""
    return read_list(LISTS / f"{name}.txt")


def missing(kernels: dict[str, list[str]]) -> dict[str, list[str]]:
    """The ``kernels`` numba's cache holds nothing of (by their index files; importing their
    modules, which the fit does anyway), costliest first (:func:`cost`)."""
    absent = {k: s for k, s in kernels.items() if (d := dispatcher(k)) is not None and not _cached(d)}
    return dict(sorted(absent.items(), key=lambda kv: -cost(*kv)))


def dispatcher(kernel: str):
    """The compiled function ``module:function`` names, or None when there is no longer one."""
    module, name = kernel.split(":")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return found if hasattr(found, "py_func") and hasattr(found, "compile") else None


def cost(kernel: str, signatures: list[str]) -> int:
    """A guess at a kernel's compile time: its source lines times its signatures (0 for a name that
    is no longer a compiled kernel)."""
    found = dispatcher(kernel)
    return len(inspect.getsource(found.py_func).splitlines()) * len(signatures) if found is not None else 0


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


def entry(kernel: str, signature: tuple) -> str:
    """A list's line: the kernel, a tab, its signature as :func:`decode` reads it back."""
    return f"{kernel}\t({''.join(encode(t) + ', ' for t in signature)})"


def decode(text: str) -> tuple:
    from numba.core import types

    return eval(text, {"__builtins__": {}}, vars(types))  # our own lists: names of numba types only


def compile_kernel(kernel: str, signatures: list[str]) -> None:
    """Compile one kernel's signatures (into numba's cache), skipping a kernel or a signature that
    no longer exists (or one given in the source, compiled at import)."""
    found = dispatcher(kernel)
    for signature in signatures if found is not None else []:
        try:
            found.compile(decode(signature))
        except Exception:  # a signature the kernel no longer takes
            continue


def compile_claimed(kernels: list[str], signatures: dict[str, list[str]], claims: Path) -> None:
    """Compile, in order, each of ``kernels`` that no other process has claimed: a kernel is
    claimed by creating its file in ``claims`` (atomic), so that every process takes the next
    one free and none waits while another still has work."""
    for kernel in kernels:
        try:
            os.close(os.open(claims / kernel.replace(":", "."), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        compile_kernel(kernel, signatures[kernel])


def precompile(kernels: dict[str, list[str]], processes: int) -> None:
    """Compile ``kernels`` (in the order given) in this process and ``processes - 1`` others, each
    taking the next kernel free (:func:`compile_claimed`).  This process's compiled kernels are
    ready in it; the others' are read from numba's cache when the fit first calls them.  A helper
    that fails only leaves its kernel to be compiled when it is called."""
    order = list(kernels)
    with tempfile.TemporaryDirectory(prefix="recsys-kernels-") as claims:
        names = Path(claims) / "kernels.txt"
        names.write_text("".join(f"{k}\t{s}\n" for k in order for s in kernels[k]))
        # the helpers import these very modules (a checkout's, say, not an installed copy's): numba
        # keys its cache by the source file
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        helpers = [_helper(claims, env) for _ in range(max(processes - 1, 0))]
        helpers = [h for h in helpers if h is not None]
        try:
            compile_claimed(order, kernels, Path(claims))
        finally:
            for helper in helpers:
                helper.wait()


def _helper(claims: str, env: dict):
    """A process compiling the kernels it claims; None when one cannot be started (this process
    then compiles them all)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "recsys.first_use", "claim", claims],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def load_ahead(names: list[str]) -> threading.Thread:
    """Start loading from numba's cache, on a thread beside the caller's work (importing pandas and
    reading the ratings: 0.7-1.0 s at 1 M), the kernels that every one of the lists ``names`` holds,
    which the fit would otherwise load one at a time as it first calls them (~10 ms each, 0.35 s
    in all).  The overlap is what releases the GIL on either side (Arrow parsing the file, LLVM
    mapping the object code).  Only what the cache holds is loaded, never compiled (the first use
    compiles the rest, :func:`precompile`); what fails to load here is left to the fit, which loads
    or compiles it when it first calls it.  The reading's own kernels (:mod:`ingest`) are left to
    it, and the caller joins the thread before the fit: no kernel is ever loaded by two threads at
    once (:func:`recsys.model.threads.in_threads` says why)."""
    common = [listed(name) for name in names]
    kernels = {
        k: [s for s in sigs if all(s in other.get(k, ()) for other in common)]
        for k, sigs in common[0].items()
        if not k.startswith("ingest.")
    }
    thread = threading.Thread(target=_load_cached, args=(kernels,), name="recsys-load-kernels", daemon=True)
    thread.start()
    return thread


def _load_cached(kernels: dict[str, list[str]]) -> None:
    try:
        found = {k: dispatcher(k) for k, s in kernels.items() if s}  # the imports first, outside numba's lock
        for kernel, d in found.items():
            for signature in _cached_signatures(d, [decode(s) for s in kernels[kernel]]):
                d.compile(signature)  # read from the cache, not compiled: its index holds it
    except Exception:  # noqa: BLE001 - an optimisation only: the fit loads what it needs
        return


def _cached_signatures(d, signatures: list[tuple]) -> list[tuple]:
    """Those of ``signatures`` that numba's cache holds for ``d``, by numba's own look-up (the key of
    the function's bytecode and the machine, in an index whose source stamp is current); none when
    the cache cannot be inspected so (a numba without these internals)."""
    if d is None:
        return []
    try:
        cache, codegen = d._cache, d.targetctx.codegen()
        index = cache._cache_file._load_index()
        return [s for s in signatures if cache._index_key(s, codegen) in index]
    except AttributeError:
        return []


def read_list(path: Path) -> dict[str, list[str]]:
    by_kernel: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        kernel, signature = line.split("\t")
        by_kernel.setdefault(kernel, []).append(signature)
    return by_kernel


def record(cache: Path, out: Path) -> int:
    """Write to ``out`` every signature of our kernels that numba's ``cache`` holds (the kernels
    and signatures the commands that filled it compiled); the number written."""
    lines = set()
    for index in Path(cache).glob("*/*.nbi"):
        match = re.match(r"(\w+)\.(\w+)-\d+\.py\d+\.nbi$", index.name)
        module = match and _module_of(index.parent.name, match.group(1))
        if module is None:
            continue
        with open(index, "rb") as f:
            pickle.load(f)  # numba's version
            overloads = pickle.loads(f.read())[1]
        for signature, *_target in overloads:
            if isinstance(signature, tuple):  # a signature given in the source is compiled at import
                try:
                    lines.add(entry(f"{module}:{match.group(2)}", signature))
                except TypeError as error:
                    print(f"{module}:{match.group(2)}: {error}", file=sys.stderr)
    Path(out).write_text("".join(line + "\n" for line in sorted(lines)))
    return len(lines)


def _module_of(folder: str, stem: str) -> str | None:
    """The module of a cache file: numba names its folder after the source's directory."""
    name = folder.rsplit("_", 1)[0]
    for package in PACKAGES:
        for d in [ROOT / package, *(p for p in (ROOT / package).rglob("*") if p.is_dir())]:
            if d.name == name and (d / f"{stem}.py").exists():
                return ".".join(d.relative_to(ROOT).parts + (stem,))
    return None


def main(argv: list[str]) -> None:
    """``claim DIR``: a helper of :func:`precompile`; ``compile LIST…``: fill the cache with the
    lists' kernels on every core; ``record CACHE OUT``: write a list from a filled cache."""
    from .model.threads import cores

    if argv[:1] == ["claim"]:
        claims = Path(argv[1])
        kernels = read_list(claims / "kernels.txt")
        compile_claimed(list(kernels), kernels, claims)
    elif argv[:1] == ["compile"]:
        kernels = {k: s for name in argv[1:] for k, s in listed(name).items()}
        precompile(missing(kernels), min(cores(), MAX_PROCESSES))
    elif argv[:1] == ["record"]:
        print(f"{record(Path(argv[1]), Path(argv[2]))} signatures → {argv[2]}")
    else:
        raise SystemExit("usage: python -m recsys.first_use claim DIR | compile LIST… | record CACHE OUT")


if __name__ == "__main__":
    main(sys.argv[1:])
