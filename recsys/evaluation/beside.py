"""Work that runs on one core, shared with a second process while this one does the rest.

An evaluation's like/dislike anchors from Surprise are Cython on one thread; the paper's rule,
ItemKNN, RP3beta and BPR keep about one core busy too.  Done one after the other with the rest they
leave the second core idle for minutes.  :class:`Beside` starts a fresh Python interpreter (nothing
of this process's threads is copied, and the caller's script is not run again, as
``multiprocessing``'s ``spawn`` would run an unguarded one) that works through a queue of named
pieces of work from the front, at the lowest priority (on the time this process's threads leave
idle), while this process does its own work; when this one is done, it
takes the pieces the other has not started from the back (:meth:`Beside.take`).  Who does a piece
is decided by creating its file in a shared folder (``O_EXCL``: one of the two wins), so a piece is
done once and the two finish close together whatever the data make each piece cost.

The results are the same whoever computes them (every method is seeded; a test compares them);
only the seconds they report differ.  The other process's progress lines are passed on, marked,
when the results are taken.  Should it die (killed for memory, say), what it had taken and not
sent is done here, with one line saying so; an error it raises is raised here.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

# the other process's program: this module's main (not ``-m``: the package imports this module
# first), from the copy of the package this process runs (its folder, argv[1], searched first unless
# it is on the path already, as site-packages is: put first, that would shadow the standard library)
_CHILD = (
    "import sys\n"
    "if sys.argv[1] not in sys.path: sys.path.insert(0, sys.argv[1])\n"
    "from recsys.evaluation.beside import main\n"
    "main(int(sys.argv[2]))"
)


class BesideError(RuntimeError):
    """An error of the other process that could not be sent as itself; its traceback is the message."""


class Beside:
    """A queue of named pieces of work shared with another process (a context manager: leaving it
    stops the process).

    ``job(data, names, say)`` is a module-level generator function yielding ``(name, result)`` for
    each name it draws from the iterable ``names``, in order (the other process runs it; ``data``
    and the results must pickle); ``here(name)`` does one piece in this process (default: ``job``
    on that name alone).  The other process runs ``niceness`` below this one: by default 19, the
    lowest priority (it works on the time this one's threads leave idle; as an equal it slowed
    this one's two-thread solves, by about half of what it took off them on ml-latest-small), where
    this process may give it its priority back once it only waits for it (:meth:`_hurry`: root, or
    a nice limit that allows it); else 0, as an equal, lest another busy process starve it."""

    def __init__(
        self,
        job: Callable[..., Iterator],
        data: tuple,
        names: list[str],
        say: Callable[[str], None],
        here: Callable[[str], object] | None = None,
        niceness: int | None = None,
    ):
        self.job, self.data, self.names, self.say = job, data, list(names), say
        self.niceness = (19 if _may_raise_priority() else 0) if niceness is None else niceness
        self.here = here or (lambda name: dict(job(data, [name], say))[name])
        self._process: subprocess.Popen | None = None
        self._claims: str | None = None
        self._messages: queue.Queue = queue.Queue()

    def __enter__(self) -> Beside:
        if not self.names:
            return self
        package_home = str(Path(__file__).resolve().parents[2])
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _CHILD, package_home, str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError:  # no interpreter to start (an embedded Python, say): every piece is done here
            return self
        self._claims = tempfile.mkdtemp(prefix="recsys-beside-")
        work = (self.job, self.data, self.names, self._claims, self.niceness)
        work = pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL)
        # written and read on threads: a pipe holds 64 KB, and either side may be busy for minutes
        threading.Thread(target=_write_and_close, args=(self._process.stdin, work), daemon=True).start()
        threading.Thread(target=_read_all, args=(self._process.stdout, self._messages), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            self._process.stdout.close()
        if self._claims is not None:
            shutil.rmtree(self._claims, ignore_errors=True)

    def take(self) -> dict:
        """``name → result`` for every name: this process does the pieces the other has not
        started, the last first, then waits for the other's."""
        got: dict = {}
        if self._process is None:
            return {name: self.here(name) for name in self.names}
        for k in reversed(range(len(self.names))):
            if not _claim(self._claims, k):
                break  # the other process has this one, and every one before it
            self._pass_lines()
            got[self.names[k]] = self.here(self.names[k])
        theirs = [n for n in self.names if n not in got]
        if len(got) < len(self.names):
            self._hurry()
        while len(got) < len(self.names):
            message = self._messages.get()
            if message is None:
                break  # the other process is gone
            kind, *body = message
            if kind == "say":
                self.say(f"  (beside) {body[0]}")
            elif kind == "done":
                got[body[0]] = body[1]
            else:
                raise body[0]
        missing = [n for n in theirs if n not in got]
        if missing:
            code = self._process.wait()
            self.say(f"the process beside stopped (exit code {code}): {', '.join(missing)} measured here instead")
            got.update((name, self.here(name)) for name in missing)
        return {name: got[name] for name in self.names}

    def _hurry(self) -> None:
        """The other process at this one's priority again, every thread of it: from now on this one
        only waits for it (at the lowest priority, another busy process on the machine would leave
        it almost no time).  Raising a priority needs the right to, as root has; without it, the
        other keeps its own and works on the cores left idle."""
        with contextlib.suppress(OSError, AttributeError):
            mine, pid = os.getpriority(os.PRIO_PROCESS, 0), self._process.pid
            threads = os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else [pid]
            for tid in threads:
                with contextlib.suppress(OSError, ValueError):
                    os.setpriority(os.PRIO_PROCESS, int(tid), mine)

    def _pass_lines(self) -> None:
        """The other process's progress lines so far, passed on (its results are kept queued)."""
        kept = []
        while True:
            try:
                message = self._messages.get_nowait()
            except queue.Empty:
                break
            if message is not None and message[0] == "say":
                self.say(f"  (beside) {message[1]}")
            else:
                kept.append(message)
        for message in kept:
            self._messages.put(message)


def _may_raise_priority() -> bool:
    """Whether this process may set another's priority back up to its own: as root, or with a
    ``RLIMIT_NICE`` that reaches it."""
    try:
        import resource

        if os.geteuid() == 0:
            return True
        soft = resource.getrlimit(resource.RLIMIT_NICE)[0]
        return soft == resource.RLIM_INFINITY or 20 - soft <= os.getpriority(os.PRIO_PROCESS, 0)
    except (ImportError, AttributeError, OSError):
        return False


def _claim(folder: str, k: int) -> bool:
    """Whether this process is the first to claim piece ``k`` (its file created exclusively)."""
    try:
        os.close(os.open(os.path.join(folder, str(k)), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def _write_and_close(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # the other process is gone; take() says so
        pass


def _read_all(pipe, messages: queue.Queue) -> None:
    """Every message of the other process, then ``None`` when it is gone."""
    try:
        while True:
            messages.put(pickle.load(pipe))
    except (EOFError, OSError, pickle.UnpicklingError, ValueError):
        messages.put(None)


def _sendable(e: BaseException) -> BaseException:
    """``e`` if it survives pickling, else a :class:`BesideError` carrying its traceback."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001
        return BesideError("".join(traceback.format_exception(e)))


def _end_with(parent: int) -> None:
    """Ends this process once ``parent``, the process that started it, is gone (killed, say): an
    orphan would work on at full speed, for minutes, on results nobody reads."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def main(parent: int) -> None:
    """The other process: the work from stdin; results, progress lines and an error to stdout,
    pickled (anything the work prints goes to stderr).  It ends with ``parent``."""
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def send(*message) -> None:
        pickle.dump(message, channel, protocol=pickle.HIGHEST_PROTOCOL)
        channel.flush()

    def claimed(names: list[str], folder: str) -> Iterator[str]:
        for k, name in enumerate(names):
            if not _claim(folder, k):
                return  # the first process has taken this piece and every one after it
            yield name

    try:
        job, data, names, folder, niceness = pickle.load(sys.stdin.buffer)
        with contextlib.suppress(OSError, AttributeError):  # no nice() where there is no such thing
            os.nice(niceness)
        for name, result in job(data, claimed(names, folder), lambda line: send("say", line)):
            send("done", name, result)
    except BaseException as e:  # noqa: BLE001 - every error goes back to be raised there
        send("error", _sendable(e))
    finally:
        channel.close()


if __name__ == "__main__":
    main()
