"""One-call loaders: ratings (train/test), items and their attributes, from a known data set or
from your own files.

Known data sets: ``ml-100k`` (predefined splits ``u1``..``u5``, ``ua``, ``ub``; IMDb director,
writer and cast from the details file), ``ml-1m``, ``ml-latest-small`` (genres and user tags),
``ml-25m``, and ``demo`` (a small synthetic data set the package generates: works offline).
Any data set also takes a generic split (:mod:`ingest.splits`).  With ``download=True`` a missing
data set is fetched into the data home first (checksummed, with progress).

Attribute kinds default to everything the data set has (``kinds=None``); when part of it cannot
be had (the IMDb files of ml-100k, say, offline), the loader falls back to what is present and
says so in :attr:`MovieData.notes`.  Kinds asked for explicitly must be present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .datahome import data_home, dataset, fetch, require
from .errors import DataError, DataRequestError, MissingDataError
from .imdb import DETAILS_KINDS, PRINCIPAL_KINDS, imdb_attributes, read_ml100k_details
from .linking import LinkReport, link_items
from .movielens import (
    ML100K_SPLITS,
    load_ml100k_split,
    read_csv_links,
    read_csv_movies,
    read_csv_ratings,
    read_csv_tags,
    read_ml1m_movies,
    read_ml1m_ratings,
    read_ml100k_items,
    read_ml100k_ratings,
)
from .relations import Relations, build_relations
from .splits import split_ratings
from .userfiles import read_items, read_ratings

DATASETS = ("ml-100k", "ml-1m", "ml-latest-small", "ml-25m", "demo")
MOVIE_DATASETS = DATASETS  # kept for callers of the first release
DEFAULT_KINDS = ("genre", "director", "writer", "cast")
TAG_MIN_MOVIES = 2


@dataclass
class MovieData:
    """Ratings, items and their attributes of one data set and split."""

    name: str
    split: str
    train: pd.DataFrame
    test: pd.DataFrame | None
    items: pd.DataFrame  # item, title
    attributes: pd.DataFrame  # item, kind, value
    links: LinkReport | None = None
    kinds: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def relations(self, kinds: list[str] | None = None, threshold: float = 2.0) -> Relations:
        """The paper's like/dislike relations of the training ratings."""
        return build_relations(self.train, self.attributes, threshold=threshold, kinds=kinds)


def default_split(name: str, evaluating: bool = False) -> str:
    """``u1`` for ml-100k (the paper's split); otherwise ``all`` to train, ``random:0.2:0`` to evaluate."""
    if name == "ml-100k":
        return "u1"
    return "random:0.2:0" if evaluating else "all"


def _ensure(name: str, home: Path, marker: Path, download: bool, progress) -> None:
    """Fetch data set ``name`` when ``marker`` is missing and downloading is allowed."""
    if marker.exists() or not download:
        return
    if progress:
        progress(f"{name} is not in {home}: downloading it")
    fetch(name, home, progress=progress is not None)


def load_movies(
    name: str = "ml-100k",
    split: str | None = None,
    home: str | Path | None = None,
    kinds: tuple[str, ...] | list[str] | None = None,
    top_cast: int | None = None,
    *,
    duplicates: str = "error",
    download: bool = False,
    progress=None,
) -> MovieData:
    """Load a known data set with its attributes from the data home.

    Parameters
    ----------
    name : {"ml-100k", "ml-1m", "ml-latest-small", "ml-25m", "demo"}
    split : str, optional
        ``u1``..``u5``/``ua``/``ub`` (ml-100k's files) or a generic spec (``random:0.2:0``, …);
        default :func:`default_split`.
    kinds : list of str, optional
        Attribute kinds; default every kind the data set has (see the module docstring).
    top_cast : int, optional
        Keep the first billed cast members only (ml-100k).
    duplicates : {"error", "last", "mean"}
        What to do with a (user, item) pair rated twice.
    download : bool
        Fetch a missing data set into the data home first.
    progress : callable, optional
        Called with one-line messages (downloads, fallbacks).
    """
    if name not in DATASETS:
        raise DataRequestError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}, or give --ratings FILE")
    home = data_home(home)
    split = split or default_split(name)
    explicit = kinds is not None
    wanted = tuple(kinds) if explicit else None
    notes: list[str] = []
    links = None
    if name == "demo":
        from .demo import demo_files

        with demo_files() as (ratings_path, items_path):
            ratings = read_ratings(ratings_path, duplicates=duplicates)
            items, attrs = read_items(items_path)
        parts = [attrs]
    elif name == "ml-100k":
        folder = home / name
        needed = [f"{split}.base", f"{split}.test"] if split in ML100K_SPLITS else ["u.data"]
        for file in ("u.item", *needed):  # fetch only when a file this run needs is missing
            _ensure(name, home, folder / file, download, progress)
        items, genres = read_ml100k_items(require(folder / "u.item", name))
        parts = [genres]
        want_people = [k for k in (wanted or DEFAULT_KINDS) if k in DETAILS_KINDS]
        if want_people:
            details = home / "ml-100k-imdb" / "movielens100k_details.json"
            try:
                _ensure("ml-100k-imdb", home, details, download, progress)
                people, detail_links = read_ml100k_details(require(details, "ml-100k-imdb"), top_cast)
            except (MissingDataError, DataError) as exc:
                if explicit:
                    raise
                people = None
                notes.append(f"director, writer and cast unavailable ({_first_line(exc)}); using genres only")
            if people is not None:
                parts.append(people[people["kind"].isin(want_people)])
                _, links = link_items(items, details=detail_links)
        ratings = None
    else:
        folder = home / name
        marker = folder / dataset(name).marker
        _ensure(name, home, marker, download, progress)
        if name == "ml-1m":
            ratings = read_ml1m_ratings(require(folder / "ratings.dat", name), duplicates=duplicates)
            items, genres = read_ml1m_movies(require(folder / "movies.dat", name))
            parts = [genres]
        else:
            ratings = read_csv_ratings(require(folder / "ratings.csv", name), duplicates=duplicates)
            items, genres = read_csv_movies(require(folder / "movies.csv", name))
            parts = [genres]
            if (folder / "tags.csv").exists() and (wanted is None or "tag" in wanted):
                parts.append(read_csv_tags(folder / "tags.csv", min_movies=TAG_MIN_MOVIES))
        people = [k for k in (wanted or ()) if k in PRINCIPAL_KINDS]
        imdb_dir = home / "imdb"
        have_imdb = (folder / "links.csv").exists() and (imdb_dir / "title.principals.tsv.gz").exists()
        if have_imdb and (wanted is None or people):
            linked, links = link_items(items, links=read_csv_links(folder / "links.csv"))
            attrs = imdb_attributes(imdb_dir, linked["tconst"], people or PRINCIPAL_KINDS)
            attrs = attrs.merge(linked[["item", "tconst"]], on="tconst")
            parts.append(attrs[["item", "kind", "value"]])
        elif people:
            raise MissingDataError(
                f"attribute kinds {people} need IMDb's dumps in {imdb_dir} (run `recsys fetch imdb`) "
                f"and {folder / 'links.csv'}"
            )
    if name == "ml-100k":
        if split in ML100K_SPLITS:
            train, test = load_ml100k_split(split, home, duplicates=duplicates)
        else:
            train, test = split_ratings(read_ml100k_ratings(require(home / name / "u.data", name), duplicates), split)
    else:
        if split in ML100K_SPLITS:
            raise DataRequestError(f"{name} has no split {split!r}; use a generic split such as random:0.2:0")
        train, test = split_ratings(ratings, split)
    attributes = _attributes(parts, wanted, name)
    return MovieData(name, split, train, test, items[["item", "title"]], attributes, links,
                     sorted(attributes["kind"].unique()), notes)  # fmt: skip


def load_files(
    ratings: str | Path,
    items: str | Path | None = None,
    split: str = "all",
    kinds: tuple[str, ...] | list[str] | None = None,
    *,
    columns: dict | None = None,
    item_columns: dict | None = None,
    duplicates: str = "error",
) -> MovieData:
    """Your own ratings file and, optionally, item file (see :mod:`ingest.userfiles`)."""
    r = read_ratings(ratings, columns, duplicates)
    if items is not None:
        item_table, attrs = read_items(items, item_columns)
        if r["item"].dtype != item_table["item"].dtype:  # ids written differently in the two files
            r["item"] = r["item"].astype(str)
            item_table["item"] = item_table["item"].astype(str)
            attrs["item"] = attrs["item"].astype(str)
    else:
        item_table = pd.DataFrame({"item": pd.unique(r["item"]), "title": ""})
        attrs = pd.DataFrame(columns=["item", "kind", "value"])
    train, test = split_ratings(r, split)
    attributes = _attributes([attrs], tuple(kinds) if kinds is not None else None, str(items or ratings))
    return MovieData("files", split, train, test, item_table, attributes, None, sorted(attributes["kind"].unique()))


def _attributes(parts: list, wanted, name: str) -> pd.DataFrame:
    attributes = (
        pd.concat([p for p in parts if len(p)], ignore_index=True)
        if any(len(p) for p in parts)
        else (pd.DataFrame(columns=["item", "kind", "value"]))
    )
    if wanted is not None:
        missing = set(wanted) - set(attributes["kind"].unique())
        if missing:
            raise DataRequestError(
                f"{name} has no attributes of kind {sorted(missing)}; it has {sorted(attributes['kind'].unique())}"
            )
        attributes = attributes[attributes["kind"].isin(wanted)]
    return attributes.drop_duplicates().reset_index(drop=True)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
