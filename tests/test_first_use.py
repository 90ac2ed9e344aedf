"""The first-use note: shown before a fit only while numba's cache lacks the fit's kernels."""

import os
import subprocess
import sys

CHECK = "from recsys.first_use import kernels_cached; print(kernels_cached())"
COMPILE = "from coclust._kernels import argsort_float; import numpy as np; argsort_float(np.ones(3))"


def _python(code: str, cache) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_an_empty_cache_is_seen_and_a_compiled_kernel_ends_it(tmp_path):
    assert _python(CHECK, tmp_path).strip() == "False"
    _python(COMPILE, tmp_path)
    assert _python(CHECK, tmp_path).strip() == "True"


def test_the_note_goes_to_stderr_before_the_fit_and_not_with_quiet(monkeypatch):
    from recsys import first_use
    from recsys.cli import commands

    monkeypatch.setattr(first_use, "kernels_cached", lambda: False)
    shown = []
    monkeypatch.setattr(commands.typer, "secho", lambda message, **kw: shown.append((message, kw.get("err"))))
    commands._first_use(quiet=True)
    assert shown == []
    commands._first_use(quiet=False)
    assert shown == [(first_use.FIRST_USE_NOTE, True)]
