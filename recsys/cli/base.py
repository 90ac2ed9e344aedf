"""The ``recsys`` Typer application, and how it reports a user's mistakes.

Errors a user can cause (the project's own :class:`recsys.errors.RecsysError` and
:class:`ingest.errors.DataError`: a missing or malformed file, an unknown id, a bad option value)
print one red line on stderr and exit with code 2, never a traceback; anything else is a bug and
keeps its traceback.
"""

from __future__ import annotations

import functools
import sys
import time

import typer
from typer.core import TyperCommand, TyperGroup

from .. import __version__


def _flags_as_flags(params: list) -> None:
    """A switch takes no value, so its help shows no type (Typer writes ``<bool>``, which reads as
    if ``--quiet true`` were accepted)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


class _FlagsAsFlags:
    """Switches shown as switches, ``--help`` too (mixed into the command classes)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _flags_as_flags(self.params)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            _flags_as_flags([option])
        return option


class Command(_FlagsAsFlags, TyperCommand):
    """Every ``recsys`` command."""


class Group(_FlagsAsFlags, TyperGroup):
    """The ``recsys`` group."""


class App(typer.Typer):
    """A Typer application whose commands are :class:`Command`."""

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or Command, **kwargs)


app = App(
    cls=Group,
    help="Explainable movie recommendations from co-clusters (HBLCoClust).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _user_error_types() -> tuple:
    from ingest.errors import DataError

    from ..errors import RecsysError

    types = [RecsysError, DataError]
    # a co-clustering budget exceeded by the user's parameters is their mistake too; the classes
    # are looked up only if coclust was loaded (importing it loads numba and scikit-learn)
    concepts = sys.modules.get("coclust.concepts")
    if concepts is not None:
        types.append(concepts.ConceptBudgetExceeded)
    backend = sys.modules.get("coclust.dask")  # an unreachable or failing Dask scheduler
    if backend is not None:
        types.append(backend.DaskBackendError)
    return tuple(types)


def fail(message: str, code: int = 2) -> None:
    """Print one error line on stderr and exit."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


def user_errors(fn):
    """Turn the user's mistakes raised inside ``fn`` into :func:`fail`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            typer.secho("interrupted", err=True, fg=typer.colors.RED)
            raise typer.Exit(130) from None
        except Exception as exc:
            if isinstance(exc, _user_error_types()):
                fail(str(exc))
            raise

    return wrapper


def progress(quiet: bool):
    """A callback printing each step with its elapsed time on stderr, and the share done and the
    time left of long steps (``None`` with --quiet)."""
    return None if quiet else Progress()


class Progress:
    """Steps on stderr: ``[  12.3s] message`` as each starts; while a long step reports how far it
    is (:func:`recsys.model.progress.tell`), ``  … relaxation 40 %, about 25 s left`` — redrawn in
    place on a terminal, otherwise a line at most every ``every`` seconds (logs stay short)."""

    def __init__(self, every: float = 10.0, stream=None, clock=time.perf_counter):
        self.clock = clock
        self.start = clock()
        self.every = every
        self.stream = stream
        self.detail, self.detail_start, self.last_line = None, self.start, -float("inf")
        self.drawn = False

    def _write(self, text: str, newline: bool = True) -> None:
        typer.secho(text, err=True, fg=typer.colors.BRIGHT_BLACK, nl=newline, file=self.stream)

    def _tty(self) -> bool:
        stream = self.stream or sys.stderr
        return bool(getattr(stream, "isatty", lambda: False)())

    def __call__(self, message: str) -> None:
        self._clear()
        self._write(f"[{self.clock() - self.start:6.1f}s] {message}")
        self.detail = None

    def fraction(self, done: float, detail: str = "") -> None:
        now = self.clock()
        if detail != self.detail:
            self.detail, self.detail_start = detail, now
        elapsed = now - self.detail_start
        if done <= 0 or elapsed < 1.0:  # nothing to extrapolate from yet, or too short to show
            return
        left = elapsed * (1 - done) / done
        line = f"         … {detail + ' ' if detail else ''}{100 * done:.0f} %"
        line += f", {_duration(left)} left" if done < 1 else ""
        if self._tty():
            self._write("\r\x1b[2K" + line, newline=False)
            self.drawn = True
        elif now - self.last_line >= self.every and done < 1:
            self._write(line)
            self.last_line = now

    def _clear(self) -> None:
        if self.drawn:
            self._write("\r\x1b[2K", newline=False)
            self.drawn = False


class StepProgress(Progress):
    """A few numbered steps on stderr (``[  12.3s] 2/5 message`` from :meth:`step`); the messages
    of the work inside a step are drawn in place on a terminal and left out of logs, so that a
    run reads in a handful of lines (``recsys demo``)."""

    def __init__(self, n_steps: int, **kwargs):
        super().__init__(**kwargs)
        self.n_steps, self.done_steps = n_steps, 0

    def step(self, message: str) -> None:
        self.done_steps += 1
        super().__call__(f"{self.done_steps}/{self.n_steps} {message}")

    def __call__(self, message: str) -> None:
        if self._tty():
            self._clear()
            self._write("\r\x1b[2K         " + message.strip()[:100], newline=False)
            self.drawn = True


def _duration(seconds: float) -> str:
    """``about 40 s``, ``about 3 min``, ``about 1 h 20 min``."""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min"
    return f"about {int(seconds // 3600)} h {round(seconds % 3600 / 60)} min"


def notes(quiet: bool):
    """A callback printing one-line notes (downloads, fallbacks) on stderr (``None`` with --quiet)."""
    if quiet:
        return None
    return lambda message: typer.secho(message, err=True, fg=typer.colors.BRIGHT_BLACK)


def echo_lines(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"recsys {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Explainable movie recommendations from co-clusters (HBLCoClust).

    Data sets are read from the data home: $RECSYS_DATA, or ~/recsys_data.
    """
