"""The ``recsys`` command line: a thin face over :mod:`ingest`, :mod:`coclust` and :mod:`recsys`.

Errors a user can cause (a missing or malformed file, an unknown name, a bad option value)
print one red line on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import typer

from . import __version__

app = typer.Typer(
    help="Explainable movie recommendations from co-clusters (HBLCoClust).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

USER_ERRORS = (ValueError, FileNotFoundError, NotADirectoryError, PermissionError, OSError, KeyError)


def fail(message: str) -> None:
    """Print one error line on stderr and exit 2."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(2)


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
        except USER_ERRORS as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            fail(str(msg))

    return wrapper


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


HOME = typer.Option(None, "--home", help="Data home (default: $RECSYS_DATA or ~/recsys_data).")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")


@app.command()
@user_errors
def fetch(
    name: str = typer.Argument(..., help="Data set: ml-100k, ml-1m, ml-latest-small, ml-25m, imdb."),
    home: Path = HOME,
    quiet: bool = QUIET,
) -> None:
    """Download a data set into the data home (checksummed; a re-run uses the cache)."""
    from ingest.datahome import data_home, dataset
    from ingest.datahome import fetch as do_fetch

    ds = dataset(name)
    target = data_home(home) / ds.folder
    already = (target / ds.marker).exists()
    path = do_fetch(name, home, progress=not quiet)
    if not quiet:
        typer.echo(f"{name}: {'already in' if already else 'fetched into'} {path}")
        if ds.note:
            typer.echo(ds.note)


def _kinds(attributes: str) -> list[str]:
    kinds = [k.strip() for k in attributes.split(",") if k.strip()]
    if not kinds:
        raise ValueError("--attributes is empty; give e.g. genre,director,writer,cast")
    return kinds


ATTRIBUTES = typer.Option(
    "genre,director,writer,cast", "--attributes", "-a",
    help="Attribute kinds, comma separated (ml-100k: genre, director, writer, cast; "
    "IMDb dumps: genre, actor, actress, director, writer).",
)  # fmt: skip
TOP_CAST = typer.Option(None, "--top-cast", help="Keep only the first N billed cast members (ml-100k).")


@app.command()
@user_errors
def relations(
    dataset: str = typer.Option("ml-100k", "--dataset", "-d", help="ml-100k, ml-1m, ml-latest-small or ml-25m."),
    split: str = typer.Option("u1", "--split", "-s", help="ml-100k: u1..u5, ua, ub; other releases: all."),
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST,
    threshold: float = typer.Option(2.0, "--threshold", help="A rating above it is a like."),
    home: Path = HOME,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Build the like/dislike user–attribute relations of a training split and summarise them."""
    from ingest.datasets import load_movies

    if top_cast is not None and top_cast < 1:
        raise ValueError(f"--top-cast must be at least 1, got {top_cast}")
    kinds = _kinds(attributes)
    data = load_movies(dataset, split, home, kinds, top_cast)
    summary = data.relations(kinds, threshold).summary()
    summary = {"dataset": dataset, "split": split, "attribute_kinds": kinds, **summary}
    if data.links is not None:
        summary["items_linked_to_imdb"] = data.links.n_linked
        summary["items"] = data.links.n_items
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{dataset} {split} — attributes: {', '.join(kinds)}")
    for key in ("users", "movies", "attributes", "features", "relations", "movie_relations", "attribute_relations",
                "like_relations", "dislike_relations"):  # fmt: skip
        typer.echo(f"  {key.replace('_', ' '):<20} {summary[key]:>10,}")
    typer.echo("  attributes by kind   " + ", ".join(f"{k} {v:,}" for k, v in summary["attributes_by_kind"].items()))
    if data.links is not None:
        typer.echo(f"  {data.links}")


def run() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
