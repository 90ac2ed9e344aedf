"""The first use: the kernels a fit needs are compiled ahead, on every core, while numba's cache
lacks them, with one line saying so; the recorded lists name what a fit compiles."""

import os
import subprocess
import sys

import pytest

CHECK = "from recsys.first_use import _cached, dispatcher; print(_cached(dispatcher('coclust._kernels:argsort_float')))"
COMPILE = "from coclust._kernels import argsort_float; import numpy as np; argsort_float(np.ones(3))"
# two cheap kernels and two entries a stale list could hold: they are skipped, nothing fails
SMALL = {
    "coclust._kernels:sorted_nonnegative": ["(Array(int64, 1, 'C', readonly=False), )"],
    "coclust._kernels:unique_nonnegative": ["(Array(int64, 1, 'C', readonly=False), )"],
    "coclust._kernels:no_such_kernel": ["(int64, )"],
    "coclust._kernels:kth_smallest": ["(float64, )"],
}
CACHED = (
    "from recsys.first_use import dispatcher, _cached; import sys; "
    "print(' '.join(str(_cached(dispatcher(k))) for k in sys.argv[1:]))"
)
# the signatures a command compiled or loaded in this process, as the lists write them
USED = """
import sys
from recsys.cli import app
from recsys.first_use import PACKAGES, entry
sys.argv = ["recsys", *sys.argv[1:]]
try:
    app()
except SystemExit as stop:
    assert not stop.code, stop.code
for name, module in list(sys.modules.items()):
    if name.split(".")[0] not in PACKAGES:
        continue
    for attr, obj in vars(module).items():
        if getattr(obj, "__module__", None) == name and hasattr(obj, "signatures") and obj._can_compile:
            for sig in obj.signatures:
                print(entry(f"{name}:{attr}", sig))
"""


def _python(code: str, cache, *args: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    ).stdout


def test_an_empty_cache_is_seen_and_a_compiled_kernel_ends_it(tmp_path):
    assert _python(CHECK, tmp_path).strip() == "False"
    _python(COMPILE, tmp_path)
    assert _python(CHECK, tmp_path).strip() == "True"


def test_listed_kernels_are_compiled_into_the_cache_by_two_processes_and_stale_entries_skipped(tmp_path):
    kernels = list(SMALL)[:2]
    assert _python(CACHED, tmp_path, *kernels).split() == ["False", "False"]
    code = (
        "from recsys import first_use; import sys; from pathlib import Path; "
        f"first_use.precompile({SMALL!r}, 2); "
        "print(first_use.missing({k: v for k, v in " + repr(SMALL) + ".items()}))"
    )
    # what is left missing: the two compiled kernels are not; the stale entries name no kernel
    # (skipped) or a signature the kernel does not take (its cache stays empty, nothing raised)
    assert _python(code, tmp_path).strip() == "{'coclust._kernels:kth_smallest': ['(float64, )']}"
    assert _python(CACHED, tmp_path, *kernels).split() == ["True", "True"]


LOAD = (
    "from recsys.first_use import _load_cached, dispatcher; import sys; "
    "kernel = 'coclust._kernels:argsort_float'; d = dispatcher(kernel); "
    "_load_cached({kernel: [\"(Array(float64, 1, 'C', readonly=False), )\"]}); "
    "print(len(d.signatures), sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values()))"
)


def test_kernels_are_loaded_ahead_from_the_cache_and_never_compiled_there(tmp_path):
    """``load_ahead``'s work: a kernel the cache lacks is left alone (the first use compiles it, not
    a thread beside the data's reading); one it holds is loaded, a cache hit."""
    assert _python(LOAD, tmp_path).split() == ["0", "0", "0"]
    assert not list(tmp_path.rglob("*argsort_float*"))
    _python(COMPILE, tmp_path)
    assert _python(LOAD, tmp_path).split() == ["1", "1", "0"]


def test_each_kernel_is_compiled_by_the_first_process_to_claim_it(tmp_path, monkeypatch):
    from recsys import first_use

    compiled = []
    monkeypatch.setattr(first_use, "compile_kernel", lambda kernel, signatures: compiled.append(kernel))
    (tmp_path / "coclust._kernels.unique_nonnegative").touch()  # another process has it
    first_use.compile_claimed(list(SMALL)[:2], SMALL, tmp_path)
    assert compiled == ["coclust._kernels:sorted_nonnegative"]
    first_use.compile_claimed(list(SMALL)[:2], SMALL, tmp_path)
    assert compiled == ["coclust._kernels:sorted_nonnegative"]  # claimed by this process now


def test_the_note_goes_to_stderr_before_the_fit_and_not_with_quiet(monkeypatch):
    from recsys import first_use
    from recsys.cli import commands

    asked, compiled = [], []
    monkeypatch.setattr(first_use, "missing", lambda kernels: {"m:k": ["(int64, )"]})
    monkeypatch.setattr(first_use, "listed", lambda name: asked.append(name) or {})
    monkeypatch.setattr(first_use, "precompile", lambda kernels, processes: compiled.append((kernels, processes)))
    shown = []
    monkeypatch.setattr(commands.typer, "secho", lambda message, **kw: shown.append((message, kw.get("err"))))
    commands._first_use(quiet=True)
    assert shown == [] and compiled == [({"m:k": ["(int64, )"]}, 1)]
    commands._first_use(quiet=False, scaled=True)
    commands._first_use(quiet=True, evaluating=True)
    commands._first_use(quiet=True, scaled=True, evaluating=True)
    assert asked == ["fit", "scaled", "evaluate", "scaled", "evaluate"]
    assert shown == [(first_use.FIRST_USE_NOTE.format(kernels=1, processes=1), True)]


def test_nothing_is_compiled_or_said_when_the_cache_holds_the_fits_kernels(monkeypatch):
    from recsys import first_use
    from recsys.cli import commands

    monkeypatch.setattr(first_use, "missing", lambda kernels: {})
    monkeypatch.setattr(first_use, "precompile", lambda *a: pytest.fail("compiled with a full cache"))
    monkeypatch.setattr(commands.typer, "secho", lambda *a, **kw: pytest.fail("said something"))
    commands._first_use(quiet=False)


@pytest.mark.parametrize(("name", "options"), [("fit", []), ("scaled", ["--scaling", "on"])])
def test_the_lists_name_every_kernel_a_demo_train_compiles(tmp_path, name, options):
    """A kernel or signature a fit needs that its list lacks would be compiled during the fit, one
    at a time: record the lists anew (``recsys/first_use.py``) when this fails."""
    from recsys.first_use import LISTS

    cache = os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # the suite's, filled by CI
    command = ["train", "--dataset", "demo", "-q", "-o", str(tmp_path / "m"), *options]
    used = set(_python(USED, cache, *command).splitlines())
    listed = set((LISTS / f"{name}.txt").read_text().splitlines())
    assert len(used) > 30 and not used - listed, sorted(used - listed)
