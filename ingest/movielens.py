"""MovieLens readers: 100K (``u.*``), 1M (``::`` separated ``.dat``) and the CSV releases.

Ratings come back as a DataFrame with columns ``user, item, rating, timestamp`` (item ids are
MovieLens movie ids); items as ``item, title, year`` plus a long table of ``(item, kind, value)``
attributes (kind ``genre`` here).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .datahome import data_home, require
from .errors import DataRequestError
from .tables import DataFormatError, read_csv_text, read_table
from .userfiles import resolve_duplicates

ML100K_GENRES = [
    "unknown",
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
]
ML100K_SPLITS = ("u1", "u2", "u3", "u4", "u5", "ua", "ub")
RATING_COLUMNS = ["user", "item", "rating", "timestamp"]


def _lines(df: pd.DataFrame, header: bool) -> np.ndarray:
    return np.arange(len(df)) + (2 if header else 1)


def read_ml100k_ratings(path: str | Path, duplicates: str = "error") -> pd.DataFrame:
    """``u.data`` or a split file (``u1.base`` …): tab-separated user, item, rating 1–5, timestamp."""
    df = read_table(
        path,
        "\t",
        RATING_COLUMNS,
        ints=("user", "item", "rating", "timestamp"),
        ranges={"rating": (1, 5), "user": (1, np.inf), "item": (1, np.inf)},
    )
    return resolve_duplicates(df, path, duplicates, _lines(df, False))


def read_ml100k_items(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``u.item`` (latin-1, ``|`` separated, 19 genre flags).

    Returns ``(items, genres)``: items with ``item, title, year, imdb_url``; genres as a long
    ``item, kind, value`` table.
    """
    names = ["item", "title", "release_date", "video_release_date", "imdb_url", *ML100K_GENRES]
    df = read_table(
        path, "|", names, encoding="latin-1", ints=("item", *ML100K_GENRES), ranges={g: (0, 1) for g in ML100K_GENRES}
    )
    items = pd.DataFrame(
        {
            "item": df["item"],
            "title": df["title"],
            "year": df["title"].str.extract(r"\((\d{4})\)\s*$")[0].astype("Int64"),
            "imdb_url": df["imdb_url"],
        }
    )
    flags = df[ML100K_GENRES].to_numpy()
    r, c = np.nonzero(flags)
    genres = pd.DataFrame({"item": df["item"].to_numpy()[r], "kind": "genre", "value": np.array(ML100K_GENRES)[c]})
    return items, genres


def load_ml100k_split(
    split: str = "u1", home: str | Path | None = None, duplicates: str = "error"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The predefined train/test split ``split`` (``u1``..``u5``, ``ua``, ``ub``) of MovieLens 100K."""
    if split not in ML100K_SPLITS:
        raise DataRequestError(f"unknown MovieLens 100K split {split!r}; choose from {', '.join(ML100K_SPLITS)}")
    folder = data_home(home) / "ml-100k"
    train = read_ml100k_ratings(require(folder / f"{split}.base", "ml-100k"), duplicates)
    test = read_ml100k_ratings(require(folder / f"{split}.test", "ml-100k"), duplicates)
    return train, test


def read_ml1m_ratings(path: str | Path, duplicates: str = "error") -> pd.DataFrame:
    """MovieLens 1M ``ratings.dat``: ``UserID::MovieID::Rating::Timestamp``."""
    df = read_table(path, "::", RATING_COLUMNS, ints=("user", "item", "rating", "timestamp"), ranges={"rating": (1, 5)})
    return resolve_duplicates(df, path, duplicates, _lines(df, False))


def read_ml1m_movies(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """MovieLens 1M ``movies.dat`` (latin-1): ``MovieID::Title::Genres`` (``|`` separated genres)."""
    df = read_table(path, "::", ["item", "title", "genres"], encoding="latin-1", ints=("item",))
    return _titles_and_genres(df)


def read_csv_ratings(path: str | Path, duplicates: str = "error") -> pd.DataFrame:
    """CSV release ``ratings.csv`` (ml-latest-small, 25M, 32M): half-star ratings 0.5–5."""
    df = read_table(
        path,
        ",",
        ["userId", "movieId", "rating", "timestamp"],
        header=True,
        ints=("userId", "movieId", "timestamp"),
        floats=("rating",),
        ranges={"rating": (0.5, 5)},
    )
    df = df.rename(columns={"userId": "user", "movieId": "item"})
    return resolve_duplicates(df, path, duplicates, _lines(df, True))


def read_csv_tags(path: str | Path, min_movies: int = 2) -> pd.DataFrame:
    """CSV release ``tags.csv`` (userId, movieId, tag, timestamp) as ``item, kind='tag', value``.

    Tags are normalised (lower case, inner blanks collapsed, stripped) and kept when at least
    ``min_movies`` distinct movies carry them: a tag on one movie says nothing the movie itself
    does not.  Tags are item content here, like genres; they hold no rating.
    """
    path = Path(require(path))
    df = read_csv_text(path)
    if not {"movieId", "tag"} <= set(df.columns):
        raise DataFormatError(f"{path}:1: expected a header with movieId and tag, got {','.join(df.columns)}")
    ids = _movie_ids(df, path)
    tag = df["tag"].str.lower().str.replace(r"\s+", " ", regex=True).str.strip()
    tags = pd.DataFrame({"item": ids, "value": tag.to_numpy()})
    tags = tags[tags["value"] != ""].drop_duplicates()
    per_tag = tags.groupby("value")["item"].transform("nunique")
    tags = tags[per_tag >= min_movies]
    return pd.DataFrame({"item": tags["item"].to_numpy(), "kind": "tag", "value": tags["value"].to_numpy()})


def read_csv_movies(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CSV release ``movies.csv``: movieId, title (may be quoted), genres."""
    path = Path(require(path))
    df = read_csv_text(path)
    if list(df.columns) != ["movieId", "title", "genres"]:
        raise DataFormatError(f"{path}:1: expected header movieId,title,genres, got {','.join(df.columns)}")
    ids = _movie_ids(df, path)
    df["item"] = ids
    return _titles_and_genres(df[["item", "title", "genres"]])


def read_csv_links(path: str | Path) -> pd.DataFrame:
    """CSV release ``links.csv``: movieId → IMDb title id (``tt`` + 7+ digits)."""
    df = read_table(path, ",", ["movieId", "imdbId", "tmdbId"], header=True, ints=("movieId",))
    bad = np.flatnonzero(~df["imdbId"].str.fullmatch(r"\d+").to_numpy())
    if len(bad):
        raise DataFormatError(f"{path}:{bad[0] + 2}: imdbId must be digits, got {df['imdbId'].iloc[bad[0]]!r}")
    return pd.DataFrame({"item": df["movieId"], "tconst": "tt" + df["imdbId"].str.zfill(7)})


def _movie_ids(df: pd.DataFrame, path: Path) -> np.ndarray:
    """The ``movieId`` column as integers; a bad one raises naming its line (the header is line 1)."""
    ids = pd.to_numeric(df["movieId"], errors="coerce")
    bad = np.flatnonzero(ids.isna().to_numpy())
    if len(bad):
        raise DataFormatError(f"{path}:{bad[0] + 2}: movieId must be an integer, got {df['movieId'].iloc[bad[0]]!r}")
    return ids.astype(np.int64).to_numpy()


def _titles_and_genres(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    items = pd.DataFrame(
        {
            "item": df["item"].to_numpy(),
            "title": df["title"].to_numpy(),
            "year": df["title"].str.extract(r"\((\d{4})\)\s*$")[0].astype("Int64").to_numpy(),
        }
    )
    g = df[["item", "genres"]].assign(value=df["genres"].str.split("|")).explode("value")
    g = g[(g["value"] != "") & (g["value"] != "(no genres listed)")]
    genres = pd.DataFrame({"item": g["item"].to_numpy(), "kind": "genre", "value": g["value"].to_numpy()})
    return items, genres
