"""One-call loaders: ratings (train/test) and movie attributes of a data set in the data home."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .datahome import data_home, dataset, require
from .errors import DataRequestError, MissingDataError
from .imdb import DETAILS_KINDS, PRINCIPAL_KINDS, imdb_attributes, read_ml100k_details
from .linking import LinkReport, link_items
from .movielens import (
    ML100K_SPLITS,
    load_ml100k_split,
    read_csv_links,
    read_csv_movies,
    read_csv_ratings,
    read_ml1m_movies,
    read_ml1m_ratings,
    read_ml100k_items,
)
from .relations import Relations, build_relations

MOVIE_DATASETS = ("ml-100k", "ml-1m", "ml-latest-small", "ml-25m")
DEFAULT_KINDS = ("genre", "director", "writer", "cast")


@dataclass
class MovieData:
    """Ratings, movies and their attributes of one data set and split."""

    name: str
    split: str
    train: pd.DataFrame
    test: pd.DataFrame | None
    items: pd.DataFrame
    attributes: pd.DataFrame  # item, kind, value
    links: LinkReport | None = None

    def relations(self, kinds: list[str] | None = None, threshold: float = 2.0) -> Relations:
        """The paper's like/dislike relations of the training ratings."""
        return build_relations(self.train, self.attributes, threshold=threshold, kinds=kinds)


def load_movies(
    name: str = "ml-100k",
    split: str = "u1",
    home: str | Path | None = None,
    kinds: tuple[str, ...] | list[str] = DEFAULT_KINDS,
    top_cast: int | None = None,
) -> MovieData:
    """Load a MovieLens data set with its attributes from the data home.

    ``ml-100k`` uses its predefined splits (``u1``..``u5``, ``ua``, ``ub``) and the IMDb details
    file ``ml-100k-imdb/movielens100k_details.json`` (director, writer, cast) beside u.item's
    genres.  The other releases have no predefined split: ``split="all"`` uses every rating for
    training.  Their people attributes come from IMDb's TSV dumps in ``imdb/`` when present,
    linked through ``links.csv``.
    """
    dataset(name)  # validates the name
    if name not in MOVIE_DATASETS:
        raise DataRequestError(f"{name} is not a MovieLens data set; choose from {', '.join(MOVIE_DATASETS)}")
    home = data_home(home)
    folder = home / name
    kinds = tuple(kinds)
    links = None
    if name == "ml-100k":
        train, test = load_ml100k_split(split, home)
        items, genres = read_ml100k_items(require(folder / "u.item", name))
        parts = [genres]
        wanted = [k for k in kinds if k in DETAILS_KINDS]
        if wanted:
            details, detail_links = read_ml100k_details(
                require(home / "ml-100k-imdb" / "movielens100k_details.json"), top_cast
            )
            parts.append(details[details["kind"].isin(wanted)])
            _, links = link_items(items, details=detail_links)
    else:
        if split != "all":
            raise DataRequestError(
                f"{name} has no predefined splits; use split='all' (the ml-100k splits are {ML100K_SPLITS})"
            )
        if name == "ml-1m":
            train = read_ml1m_ratings(require(folder / "ratings.dat", name))
            items, genres = read_ml1m_movies(require(folder / "movies.dat", name))
        else:
            train = read_csv_ratings(require(folder / "ratings.csv", name))
            items, genres = read_csv_movies(require(folder / "movies.csv", name))
        test = None
        parts = [genres]
        people = [k for k in kinds if k in PRINCIPAL_KINDS]
        imdb_dir = home / "imdb"
        if people and (folder / "links.csv").exists() and (imdb_dir / "title.principals.tsv.gz").exists():
            linked, links = link_items(items, links=read_csv_links(folder / "links.csv"))
            attrs = imdb_attributes(imdb_dir, linked["tconst"], people)
            attrs = attrs.merge(linked[["item", "tconst"]], on="tconst")
            parts.append(attrs[["item", "kind", "value"]])
        elif people:
            raise MissingDataError(
                f"attribute kinds {people} need IMDb's dumps in {imdb_dir} (run `recsys fetch imdb`) "
                f"and {folder / 'links.csv'}"
            )
    attributes = pd.concat(parts, ignore_index=True)
    attributes = attributes[attributes["kind"].isin(kinds)].drop_duplicates().reset_index(drop=True)
    missing = set(kinds) - set(attributes["kind"].unique())
    if missing:
        raise DataRequestError(f"{name} has no attributes of kind {sorted(missing)}")
    return MovieData(name, split, train, test, items, attributes, links)
