"""The ``recsys`` command line."""

from __future__ import annotations

import typer

from . import __version__

app = typer.Typer(help="Explainable movie recommendations from co-clusters (HBLCoClust).", no_args_is_help=True)


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
    """Explainable movie recommendations from co-clusters (HBLCoClust)."""
