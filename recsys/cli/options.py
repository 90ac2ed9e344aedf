"""The command line's options, each defined once, and the groups several commands share.

A group (:data:`DATA`, :data:`MODEL`) adds its options to every command decorated with
:func:`options`, and hands the command one object built from them (a
:class:`~ingest.datasets.DataSource`, a :class:`ModelChoice`) instead of a dozen arguments.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from pathlib import Path

import typer

HOME = typer.Option(None, "--home", help="Data home.", show_default="$RECSYS_DATA or ~/recsys_data")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")
JSON = typer.Option(False, "--json", hidden=True, help="The same as --format json (kept for scripts).")


def output_format(*choices: str, default: str | None = None, note: str = "") -> typer.Option:
    """``--format`` with its choices (the first is the default unless ``default`` says)."""
    listed = ", ".join(choices[:-1]) + f" or {choices[-1]}"
    return typer.Option(default or choices[0], "--format", "-f", help=f"{listed}{note}.")


def chosen_format(fmt: str, as_json: bool, choices: tuple[str, ...]) -> str:
    """The output format asked for (``--json`` is ``--format json``), checked against ``choices``."""
    from ..errors import ParameterError

    fmt = "json" if as_json else fmt
    if fmt not in choices:
        raise ParameterError(f"--format must be {', '.join(choices[:-1])} or {choices[-1]}, got {fmt!r}")
    return fmt


LIKE_THRESHOLD = typer.Option(
    2.0, "--like-threshold", help="A rating above it is a like (the paper's rule: rating > 2)."
)
MODE = typer.Option("scored", "--mode", help="scored (a like-probability) or paper (the paper's rule).")
MODEL_DIR = typer.Argument(..., help="A model directory written by `recsys train`.")
SCHEDULER = typer.Option(
    None,
    "--scheduler",
    metavar="ADDRESS",
    help="Run the co-clustering, the item model's solves, the neighbourhoods and the held-out terms on this Dask "
    "scheduler (tcp://host:8786; needs dask).",
)


@dataclass(frozen=True)
class Group:
    """Options several commands share: ``options`` maps each parameter name to its type and
    ``typer.Option``; ``build`` turns their values into the one object the command receives as
    its parameter ``name``."""

    name: str
    options: dict
    build: object


def options(group: Group):
    """Add ``group``'s options to a command, which receives them built, as ``group.name``."""

    def decorate(command):
        own = [p for p in inspect.signature(command).parameters.values() if p.name != group.name]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
            for name, (kind, option) in group.options.items()
        ]

        @functools.wraps(command)
        def wrapper(*args, **kwargs):
            values = {name: kwargs.pop(name) for name in group.options}
            return command(*args, **{group.name: group.build(**values)}, **kwargs)

        wrapper.__signature__ = inspect.Signature([*own, *added])
        wrapper.__annotations__ = {
            **{k: v for k, v in command.__annotations__.items() if k != group.name},
            **{name: kind for name, (kind, _) in group.options.items()},
        }
        return wrapper

    return decorate


def _data_source(attributes, ratings_columns, items_columns, no_download, **as_given):
    # as_given: dataset, split, top_cast, ratings, items, duplicates and home, DataSource's own names
    from ingest.datasets import DataSource
    from ingest.userfiles import parse_columns

    kinds = None if attributes is None else [k.strip() for k in attributes.split(",") if k.strip()]
    columns = {"ratings_columns": parse_columns(ratings_columns), "item_columns": parse_columns(items_columns)}
    return DataSource(**as_given, kinds=kinds, download=not no_download, **columns)


DATASET = typer.Option(
    None,
    "--dataset",
    "-d",
    help="ml-100k, ml-1m, ml-latest-small, ml-25m or demo (offline, generated).",
    show_default="ml-100k unless --ratings",
)
SPLIT = typer.Option(
    None,
    "--split",
    "-s",
    help="ml-100k: u1..u5, ua, ub. Any data: all, random:FRACTION:SEED, leave-k-out:K:SEED or temporal:FRACTION.",
    show_default="ml-100k: u1; else all to train, random:0.2:0 to evaluate",
)
ATTRIBUTES = typer.Option(
    None,
    "--attributes",
    "-a",
    help="Attribute kinds, comma separated (ml-100k has genre, director, writer, cast; ml-latest-small genre, tag).",
    show_default="every kind the data has",
)
TOP_CAST = typer.Option(3, "--top-cast", help="Keep the first N billed cast members (ml-100k); 0 keeps all.")
RATINGS = typer.Option(
    None, "--ratings", help="Your own ratings CSV/TSV (header; user, item, rating[, timestamp]) instead of --dataset."
)
ITEMS = typer.Option(
    None,
    "--items",
    help="Your own item table: wide (item, title, genres, … with |-separated values) or long (item, kind, value).",
)
RATINGS_COLUMNS = typer.Option(
    None, "--ratings-columns", help="Header names of your ratings file, e.g. user=reader, item=book, rating=stars."
)
ITEMS_COLUMNS = typer.Option(None, "--items-columns", help="Header name of the item id in your item file: item=NAME.")
DUPLICATES = typer.Option(
    "error", "--duplicates", help="A (user, item) rated twice: error, last (keep the later) or mean."
)
NO_DOWNLOAD = typer.Option(
    False, "--no-download", help="Never download: a missing data set is an error (without it: fetched on first use)."
)

DATA = Group(
    "data",
    {
        "dataset": (str, DATASET),
        "split": (str, SPLIT),
        "attributes": (str, ATTRIBUTES),
        "top_cast": (int, TOP_CAST),
        "ratings": (Path, RATINGS),
        "items": (Path, ITEMS),
        "ratings_columns": (str, RATINGS_COLUMNS),
        "items_columns": (str, ITEMS_COLUMNS),
        "duplicates": (str, DUPLICATES),
        "no_download": (bool, NO_DOWNLOAD),
        "home": (Path, HOME),
    },
    _data_source,
)


@dataclass(frozen=True)
class ModelChoice:
    """The model options of ``train`` and ``evaluate``: what is co-clustered, HBLCoClust overrides,
    the like threshold, the seed and the Dask scheduler."""

    features: str
    coclust: dict
    like_threshold: float
    seed: int
    scheduler: str | None
    scaling: str = "auto"
    implicit: bool = False
    confidence: str = "none"
    item_l2_per_like: float = 0.0
    refit_item_model: bool = False

    def params(self, paper: bool = False) -> dict:
        """:class:`~recsys.model.ProfileRecommender` parameters (``paper``: the paper's setting)."""
        from ..model.settings import recommender_params

        return recommender_params(
            features=self.features,
            paper=paper,
            coclust=self.coclust,
            like_threshold=self.like_threshold,
            random_state=self.seed,
            scheduler=self.scheduler,
            scaling=self.scaling,
            feedback="implicit" if self.implicit else "auto",
            confidence=self.confidence,
            item_l2_per_like=self.item_l2_per_like,
            refit_item_model=self.refit_item_model,
        )


def _model_choice(
    features,
    like_threshold,
    seed,
    scheduler,
    scaling,
    implicit,
    confidence,
    item_l2_per_like,
    refit_item_model,
    **coclust,
):
    # every other option of the group is an HBLCoClust override (n_bands, band_size, min_rows, …)
    choice = (scaling, implicit, confidence, item_l2_per_like, refit_item_model)
    return ModelChoice(features, coclust, like_threshold, seed, scheduler, *choice)


FEATURES = typer.Option(
    "movies", "--features", help="Co-cluster the users × movies relation (movies) or every feature as the paper (all)."
)
MODEL = Group(
    "model",
    {
        "features": (str, FEATURES),
        "n_bands": (
            int,
            typer.Option(None, "--n-bands", help="HBLCoClust nhashes (the paper: 5000).", show_default="300"),
        ),
        "band_size": (int, typer.Option(None, "--band-size", help="HBLCoClust nkeys.", show_default="4")),
        "min_rows": (int, typer.Option(None, "--min-rows", help="HBLCoClust minO.", show_default="2")),
        "min_cols": (int, typer.Option(None, "--min-cols", help="HBLCoClust minF.", show_default="2")),
        "min_density": (float, typer.Option(None, "--min-density", help="HBLCoClust spthr.", show_default="0.8")),
        "skip_covered": (
            bool,
            typer.Option(None, "--skip-covered/--all-regions", help="Region heuristic.", show_default="--skip-covered"),
        ),
        "region_cover": (
            int,
            typer.Option(
                None,
                "--region-cover",
                min=1,
                help="With --skip-covered, a region is co-clustered while it holds a user or movie that fewer "
                "than this many co-clustered regions hold.",
                show_default="1",
            ),
        ),
        "like_threshold": (float, LIKE_THRESHOLD),
        "seed": (int, typer.Option(0, "--seed", help="Random state.")),
        "scheduler": (str, SCHEDULER),
        "scaling": (
            str,
            typer.Option(
                "auto",
                "--scaling",
                help="The rules for large data: on (one fit; the item penalty grows with the like counts), "
                "off (MovieLens 100K's settings as they are), auto (on from 500,000 ratings).",
            ),
        ),
        "implicit": (
            bool,
            typer.Option(
                False,
                "--implicit",
                help="Read every rating as an interaction (implicit feedback: lists and reasons, no "
                "like-probability). A ratings file without a rating column is read so anyway.",
            ),
        ),
        "confidence": (
            str,
            typer.Option(
                "none",
                "--confidence",
                help="Interactions with a count column: none counts each once; log weighs each by log2(1 + count) "
                "in the item model and the lists (one play 1, three 2, seven 3).",
            ),
        ),
        "item_l2_per_like": (
            float,
            typer.Option(
                0.0,
                "--item-l2-per-like",
                min=0.0,
                help="Added to a movie's penalty in the item model per like it has (EDLAE's dropout emphasis; "
                "0: EASE's one penalty). evaluate searches it on interactions.",
            ),
        ),
        "refit_item_model": (
            bool,
            typer.Option(
                False,
                "--refit-item-model",
                help="Under the scaling rules, learn the item model again on every training rating once the "
                "weights are fitted (0.6-2.9 s more at 1 M ratings; 32 s and 1.4 GB more at 10 M); without, it misses "
                "the held-out tenth.",
            ),
        ),
    },
    _model_choice,
)
