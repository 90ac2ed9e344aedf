"""Work shared with a second process (:mod:`recsys.evaluation.beside`): each piece done once, by
whichever process is free; results in order; the other's errors raised here; what a process that
died had taken done here instead."""

import os
import time
from pathlib import Path

import pytest
from kit import claimed

from recsys.evaluation.beside import Beside


def where_job(data, names, say):
    """Each name with the process it was done in (the other exits at ``data[1]``; each piece takes
    ``data[2]`` seconds there)."""
    parent, stop_at, seconds = data
    for name in names:
        here = os.getpid() == parent
        if not here and name == stop_at:
            os._exit(3)
        if not here:
            time.sleep(seconds)
        say(f"{name} done")
        yield name, "here" if here else "beside"


def niceness_job(data, names, say):
    """The other process's priority after ``data[0]`` seconds on its piece."""
    for name in names:
        time.sleep(data[0])
        yield name, os.nice(0)


def failing_job(data, names, say):
    for name in names:
        raise ValueError(f"no such thing as {name!r}")
        yield


@pytest.fixture
def importable(monkeypatch):
    """The process beside imports the jobs from this file."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))


def test_the_other_process_does_what_it_starts_first(importable):
    lines = []
    with Beside(where_job, (os.getpid(), None, 0.0), ["a", "b", "c"], lines.append, niceness=0) as beside:
        claimed(beside, 0, 1, 2)
        assert beside.take() == {"a": "beside", "b": "beside", "c": "beside"}
    assert lines == ["  (beside) a done", "  (beside) b done", "  (beside) c done"]


def test_this_process_takes_from_the_back_what_the_other_has_not_started(importable):
    with Beside(where_job, (os.getpid(), None, 2.0), list("abcdef"), print, niceness=0) as beside:
        claimed(beside, 0)  # the other spends 2 s on its first piece: this one does the rest meanwhile
        got = beside.take()
    assert got == {"a": "beside", "b": "here", "c": "here", "d": "here", "e": "here", "f": "here"}
    assert list(got) == list("abcdef")


def test_a_process_that_died_leaves_what_it_had_taken_done_here(importable):
    lines = []
    with Beside(where_job, (os.getpid(), "b", 0.0), ["a", "b", "c"], lines.append, niceness=0) as beside:
        claimed(beside, 0, 1)
        beside._process.wait()
        assert beside.take() == {"a": "beside", "b": "here", "c": "here"}
    assert "the process beside stopped (exit code 3): b measured here instead" in lines


def test_its_error_is_raised_here(importable):
    with Beside(failing_job, (), ["a"], print, niceness=0) as beside:
        claimed(beside, 0)
        with pytest.raises(ValueError, match="no such thing as 'a'"):
            beside.take()


def test_nothing_to_do_starts_nothing():
    with Beside(where_job, (os.getpid(), None, 0.0), [], print) as beside:
        assert beside.take() == {} and beside._process is None


def test_without_an_interpreter_to_start_everything_is_done_here(monkeypatch):
    monkeypatch.setattr("sys.executable", "/nonexistent/python")
    with Beside(where_job, (os.getpid(), None, 0.0), ["a", "b"], print) as beside:
        assert beside.take() == {"a": "here", "b": "here"}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="raising a priority needs root")
def test_once_this_process_only_waits_the_other_gets_its_priority_back(importable):
    with Beside(niceness_job, (2.0,), ["a"], print) as beside:
        claimed(beside, 0)
        assert beside.take() == {"a": 0}


def test_without_the_right_to_raise_a_priority_the_other_runs_as_an_equal(monkeypatch):
    import resource

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (0, 0))
    assert Beside(where_job, (), ["a"], print).niceness == 0  # at 19 another busy process could starve it
    monkeypatch.setattr(resource, "getrlimit", lambda which: (20, 20))
    assert Beside(where_job, (), ["a"], print).niceness == 19


def pid_job(data, names, say):
    """Says its process id, then sleeps on each piece."""
    for name in names:
        say(str(os.getpid()))
        time.sleep(data[0])
        yield name, None


def test_the_other_process_ends_when_this_one_is_killed(tmp_path):
    import signal
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(
        "import sys\n"
        "from recsys.evaluation.beside import Beside\n"
        "from kit import claimed\n"
        "from test_beside import pid_job\n"
        "with Beside(pid_job, (60.0,), ['a'], lambda line: print(line, flush=True), niceness=0) as beside:\n"
        "    claimed(beside, 0)\n"
        "    beside.take()\n"
    )
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), str(here.parent)])}
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        child = int(parent.stdout.readline().split()[-1])  # "  (beside) <pid>"
        assert child != parent.pid
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "an orphan kept working on results nobody reads"


def _alive(pid: int) -> bool:
    try:  # a zombie (ended, not yet reaped by init) counts as ended
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
