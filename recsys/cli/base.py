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

from .. import __version__

app = typer.Typer(
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
    """A callback printing each step with its elapsed time on stderr (``None`` with --quiet)."""
    start = time.perf_counter()
    if quiet:
        return None

    def say(message: str) -> None:
        typer.secho(f"[{time.perf_counter() - start:6.1f}s] {message}", err=True, fg=typer.colors.BRIGHT_BLACK)

    return say


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
