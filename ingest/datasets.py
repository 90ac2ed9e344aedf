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
        """The paper's like/dislike relations of the training ratings; of interactions (no rating
        column: implicit feedback), every one a like."""
        train = self.train
        if "rating" not in train.columns:
            train, threshold = train.assign(rating=1.0), 0.0
        return build_relations(train, self.attributes, threshold=threshold, kinds=kinds)


def default_split(name: str, evaluating: bool = False) -> str:
    """``u1`` for ml-100k (the paper's split); otherwise ``all`` to train, ``random:0.2:0`` to evaluate."""
    if name == "ml-100k":
        return "u1"
    return "random:0.2:0" if evaluating else "all"


@dataclass
class _Request:
    """What :func:`load_movies` was asked for, as the per-data-set readers need it."""

    name: str
    home: Path
    split: str
    wanted: tuple | None  # attribute kinds asked for explicitly, None: every kind present
    top_cast: int | None
    duplicates: str
    download: bool
    progress: object

    def ensure(self, name: str, marker: Path) -> None:
        """Fetch data set ``name`` when ``marker`` is missing and downloading is allowed."""
        if marker.exists() or not self.download:
            return
        if self.progress:
            self.progress(f"{name} is not in {self.home}: downloading it")
        fetch(name, self.home, progress=self.progress is not None)


@dataclass
class _Read:
    """What a reader found: the ratings, items and attribute tables, IMDb links, notes."""

    ratings: pd.DataFrame
    items: pd.DataFrame
    parts: list
    links: LinkReport | None = None
    notes: list = field(default_factory=list)
    test: pd.DataFrame | None = None  # a predefined split's test ratings (ratings is then the training)


def _read_demo(req: _Request) -> _Read:
    from .demo import demo_files

    with demo_files() as (ratings_path, items_path):
        ratings = read_ratings(ratings_path, duplicates=req.duplicates)
        items, attrs = read_items(items_path)
    return _Read(ratings, items, [attrs])


def _read_ml100k(req: _Request) -> _Read:
    folder = req.home / req.name
    predefined = req.split in ML100K_SPLITS
    needed = [f"{req.split}.base", f"{req.split}.test"] if predefined else ["u.data"]
    for file in ("u.item", *needed):  # fetch only when a file this run needs is missing
        req.ensure(req.name, folder / file)
    items, genres = read_ml100k_items(require(folder / "u.item", req.name))
    out = _Read(None, items, [genres])
    want_people = [k for k in (req.wanted or DEFAULT_KINDS) if k in DETAILS_KINDS]
    if want_people:
        details = req.home / "ml-100k-imdb" / "movielens100k_details.json"
        try:
            req.ensure("ml-100k-imdb", details)
            people, detail_links = read_ml100k_details(require(details, "ml-100k-imdb"), req.top_cast)
        except (MissingDataError, DataError) as exc:
            if req.wanted is not None:
                raise
            out.notes.append(f"director, writer and cast unavailable ({_first_line(exc)}); using genres only")
        else:
            out.parts.append(people[people["kind"].isin(want_people)])
            _, out.links = link_items(items, details=detail_links)
    if predefined:
        out.ratings, out.test = load_ml100k_split(req.split, req.home, duplicates=req.duplicates)
    else:
        out.ratings = read_ml100k_ratings(require(folder / "u.data", req.name), req.duplicates)
    return out


# a release's ratings and movies files, and their readers
_RELEASE_FILES = {
    "ml-1m": ("ratings.dat", read_ml1m_ratings, "movies.dat", read_ml1m_movies),
    "ml-latest-small": ("ratings.csv", read_csv_ratings, "movies.csv", read_csv_movies),
    "ml-25m": ("ratings.csv", read_csv_ratings, "movies.csv", read_csv_movies),
}


def _read_release(req: _Request) -> _Read:
    """ML-1M and the CSV releases: ratings, genres, user tags when present, IMDb when present."""
    folder = req.home / req.name
    req.ensure(req.name, folder / dataset(req.name).marker)
    ratings_file, read_ratings_file, movies_file, read_movies_file = _RELEASE_FILES[req.name]
    ratings = read_ratings_file(require(folder / ratings_file, req.name), duplicates=req.duplicates)
    items, genres = read_movies_file(require(folder / movies_file, req.name))
    out = _Read(ratings, items, [genres])
    if (folder / "tags.csv").exists() and (req.wanted is None or "tag" in req.wanted):
        out.parts.append(read_csv_tags(folder / "tags.csv", min_movies=TAG_MIN_MOVIES))
    _add_imdb(req, out)
    return out


def _add_imdb(req: _Request, out: _Read) -> None:
    """IMDb's principals (and genres) of a release with ``links.csv``, when the dumps are present."""
    folder = req.home / req.name
    people = [k for k in (req.wanted or ()) if k in PRINCIPAL_KINDS]
    imdb_dir = req.home / "imdb"
    have_imdb = (folder / "links.csv").exists() and (imdb_dir / "title.principals.tsv.gz").exists()
    if have_imdb and (req.wanted is None or people):
        linked, out.links = link_items(out.items, links=read_csv_links(folder / "links.csv"))
        attrs = imdb_attributes(imdb_dir, linked["tconst"], people or PRINCIPAL_KINDS)
        attrs = attrs.merge(linked[["item", "tconst"]], on="tconst")
        out.parts.append(attrs[["item", "kind", "value"]])
    elif people:
        raise MissingDataError(
            f"attribute kinds {people} need IMDb's dumps in {imdb_dir} (run `recsys fetch imdb`) "
            f"and {folder / 'links.csv'}"
        )


# the reader of each known data set (their files are in the data home's registry, ingest.datahome)
READERS = {"ml-100k": _read_ml100k, "demo": _read_demo, **dict.fromkeys(_RELEASE_FILES, _read_release)}


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
    if name not in READERS:
        raise DataRequestError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}, or give --ratings FILE")
    split = split or default_split(name)
    if split in ML100K_SPLITS and name != "ml-100k":
        raise DataRequestError(f"{name} has no split {split!r}; use a generic split such as random:0.2:0")
    wanted = tuple(kinds) if kinds is not None else None
    req = _Request(name, data_home(home), split, wanted, top_cast, duplicates, download, progress)
    got = READERS[name](req)
    train, test = (got.ratings, got.test) if got.test is not None else split_ratings(got.ratings, split)
    attributes = _attributes(got.parts, wanted, name)
    return MovieData(
        name,
        split,
        train,
        test,
        got.items[["item", "title"]],
        attributes,
        got.links,
        sorted(attributes["kind"].unique()),
        got.notes,
    )


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


@dataclass
class DataSource:
    """Where ratings come from: a known data set (``dataset``, default ml-100k) or your own files
    (``ratings`` and optionally ``items``), with the split, attribute kinds and reading options
    of :func:`load_movies` and :func:`load_files`."""

    dataset: str | None = None
    ratings: str | Path | None = None
    items: str | Path | None = None
    split: str | None = None
    kinds: list[str] | None = None
    top_cast: int | None = 3  # 0 or None keeps every billed cast member
    ratings_columns: dict | None = None
    item_columns: dict | None = None
    duplicates: str = "error"
    download: bool = True
    home: str | Path | None = None

    def describe(self) -> dict:
        """Where the data came from, for a model's or a result's provenance."""
        if self.ratings is not None:
            return {"ratings_file": str(self.ratings), "items_file": str(self.items) if self.items else None}
        return {"dataset": self.dataset or "ml-100k"}

    def load(self, evaluating: bool = False, progress=None) -> MovieData:
        """The data; the default split is the data set's own (:func:`default_split`), ``evaluating``
        choosing one with test ratings."""
        from .userfiles import DUPLICATES

        if self.duplicates not in DUPLICATES:
            raise DataRequestError(f"--duplicates must be one of {', '.join(DUPLICATES)}, got {self.duplicates!r}")
        if self.top_cast is not None and self.top_cast < 0:
            raise DataRequestError(f"--top-cast must be 0 (all) or more, got {self.top_cast}")
        if self.kinds is not None and not self.kinds:
            raise DataRequestError("--attributes is empty; give e.g. genre,director,writer,cast")
        if self.ratings is not None:
            if self.dataset is not None:
                raise DataRequestError("give either --dataset or --ratings, not both")
            return load_files(
                self.ratings,
                self.items,
                self.split or default_split("files", evaluating),
                self.kinds,
                columns=self.ratings_columns,
                item_columns=self.item_columns,
                duplicates=self.duplicates,
            )
        if self.items is not None:
            raise DataRequestError("--items goes with --ratings (your own data)")
        name = self.dataset or "ml-100k"
        return load_movies(
            name,
            self.split or default_split(name, evaluating),
            self.home,
            self.kinds,
            self.top_cast or None,
            duplicates=self.duplicates,
            download=self.download,
            progress=progress,
        )


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
