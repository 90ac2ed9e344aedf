"""IMDb metadata: the non-commercial TSV dumps (streamed) and the MovieLens-100K details file.

The TSV dumps (``title.basics``, ``title.principals``, ``name.basics``) are several GB
uncompressed; they are read in chunks and filtered to the wanted titles as they stream, so
memory stays bounded by the chunk size and the kept rows.  ``\\N`` is IMDb's missing value.
Attributes come back as a long ``(tconst, kind, value)`` table.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import MissingDataError
from .tables import DataFormatError, read_text

PRINCIPAL_KINDS = ("actor", "actress", "director", "writer")
_HEADERS = {
    "title.basics": [
        "tconst",
        "titleType",
        "primaryTitle",
        "originalTitle",
        "isAdult",
        "startYear",
        "endYear",
        "runtimeMinutes",
        "genres",
    ],
    "title.principals": ["tconst", "ordering", "nconst", "category", "job", "characters"],
    "name.basics": ["nconst", "primaryName", "birthYear", "deathYear", "primaryProfession", "knownForTitles"],
}


def _stream(path: str | Path, kind: str, usecols: list[str], chunksize: int) -> Iterable[pd.DataFrame]:
    path = Path(path)
    if not path.exists():
        raise MissingDataError(f"missing IMDb file {path}: download https://datasets.imdbws.com/{path.name}")
    expected = _HEADERS[kind]
    try:
        reader = pd.read_csv(
            path,
            sep="\t",
            dtype=str,
            usecols=usecols,
            chunksize=chunksize,
            quoting=csv.QUOTE_NONE,
            na_values=["\\N"],
            keep_default_na=False,
            encoding="utf-8",
            compression="infer",
        )
        header = pd.read_csv(path, sep="\t", nrows=0, quoting=csv.QUOTE_NONE, compression="infer").columns.tolist()
    except pd.errors.EmptyDataError:
        raise DataFormatError(f"{path}: file is empty") from None
    except ValueError as exc:  # usecols not in the header
        raise DataFormatError(f"{path}:1: not an IMDb {kind} file ({exc})") from None
    if header != expected:
        raise DataFormatError(f"{path}:1: expected the {kind} header {expected}, got {header}")
    line = 2
    try:
        for chunk in reader:
            chunk.index = np.arange(line, line + len(chunk))
            line += len(chunk)
            yield chunk
    except pd.errors.ParserError as exc:
        raise DataFormatError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise DataFormatError(f"{path}:~{line}: bytes not valid utf-8") from None


def read_principals(
    path: str | Path, tconsts: Iterable[str], kinds: Iterable[str] = PRINCIPAL_KINDS, chunksize: int = 200_000
) -> pd.DataFrame:
    """``title.principals``: the people of the wanted titles, as ``tconst, kind, nconst``."""
    wanted = pd.Index(pd.unique(np.asarray(list(tconsts), dtype=object)))
    kinds = tuple(kinds)
    parts = []
    for chunk in _stream(path, "title.principals", ["tconst", "nconst", "category"], chunksize):
        keep = chunk["tconst"].isin(wanted) & chunk["category"].isin(kinds)
        if keep.any():
            parts.append(chunk.loc[keep, ["tconst", "category", "nconst"]])
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["tconst", "category", "nconst"])
    return out.rename(columns={"category": "kind"})


def read_title_genres(path: str | Path, tconsts: Iterable[str], chunksize: int = 200_000) -> pd.DataFrame:
    """``title.basics``: the genres of the wanted titles, as ``tconst, kind='genre', value``."""
    wanted = pd.Index(pd.unique(np.asarray(list(tconsts), dtype=object)))
    parts = []
    for chunk in _stream(path, "title.basics", ["tconst", "genres"], chunksize):
        keep = chunk["tconst"].isin(wanted) & chunk["genres"].notna()
        if keep.any():
            parts.append(chunk.loc[keep])
    if not parts:
        return pd.DataFrame(columns=["tconst", "kind", "value"])
    g = pd.concat(parts, ignore_index=True)
    g = g.assign(value=g["genres"].str.split(",")).explode("value")
    return pd.DataFrame({"tconst": g["tconst"].to_numpy(), "kind": "genre", "value": g["value"].to_numpy()})


def read_names(path: str | Path, nconsts: Iterable[str], chunksize: int = 200_000) -> pd.Series:
    """``name.basics``: primary names of the wanted people, indexed by ``nconst``."""
    wanted = pd.Index(pd.unique(np.asarray(list(nconsts), dtype=object)))
    parts = []
    for chunk in _stream(path, "name.basics", ["nconst", "primaryName"], chunksize):
        keep = chunk["nconst"].isin(wanted)
        if keep.any():
            parts.append(chunk.loc[keep])
    if not parts:
        return pd.Series(dtype=object, name="primaryName")
    df = pd.concat(parts)
    return df.set_index("nconst")["primaryName"]


def imdb_attributes(folder: str | Path, tconsts: Iterable[str], kinds: Iterable[str] = ("genre", *PRINCIPAL_KINDS)):
    """All attributes of the wanted titles from the dumps in ``folder``: ``tconst, kind, value``.

    People are named ``Name (nconst)`` so that namesakes stay distinct.
    """
    folder = Path(folder)
    tconsts = list(tconsts)
    kinds = tuple(kinds)
    parts = []
    if "genre" in kinds:
        parts.append(read_title_genres(folder / "title.basics.tsv.gz", tconsts))
    people_kinds = [k for k in kinds if k in PRINCIPAL_KINDS]
    if people_kinds:
        p = read_principals(folder / "title.principals.tsv.gz", tconsts, people_kinds)
        names = read_names(folder / "name.basics.tsv.gz", p["nconst"])
        label = p["nconst"].map(names).fillna("?") + " (" + p["nconst"] + ")"
        parts.append(pd.DataFrame({"tconst": p["tconst"], "kind": p["kind"], "value": label}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["tconst", "kind", "value"])


DETAILS_KINDS = ("director", "writer", "cast")
_MISSING = {"nan", "none", "null", "n/a"}
_TITLE_YEAR = re.compile(r"\((\d{4})\)\s*$")


def _link_problem(rec: dict, people: list[tuple[str, str]]) -> str | None:
    """Why a scraped IMDb entry is not the MovieLens movie, or None when it passes the checks.

    The scrape followed IMDb's first search hit, which is sometimes a video game, a TV episode or
    a remake ("Return of the Jedi" -> a video game directed by "Peter Ross-Murray").  Its ``year``
    field holds the entry's year for a film and a kind otherwise ("Video Game", "TV Series",
    "Episode aired ..."); without a year the entry cannot be told apart from a wrong one.
    """
    if not people:
        return "no people (placeholders only)"
    year = rec.get("year")
    if year is None or (isinstance(year, str) and not year.strip()):
        return "no year to check"
    try:
        entry_year = int(float(year))
    except (TypeError, ValueError):
        return "not a film"
    title_year = _TITLE_YEAR.search(str(rec.get("movie_title") or "").strip())
    if title_year is None:
        return "no title year to check"
    if abs(entry_year - int(title_year.group(1))) > 1:
        return "year differs by more than 1"
    return None


def _people(rec: dict, top_cast: int | None) -> list[tuple[str, str]]:
    """``(kind, name)`` of a record's director, writer and cast, placeholders dropped."""
    out = []
    for kind in DETAILS_KINDS:
        values = rec.get(kind) or []
        if isinstance(values, str):
            values = [values]
        if kind == "cast" and top_cast is not None:
            values = values[:top_cast]
        for v in values:
            # the scrape writes missing people as "nan" or ""
            v = v.strip() if isinstance(v, str) else ""
            if v and v.lower() not in _MISSING:
                out.append((kind, v))
    return out


def read_ml100k_details(path: str | Path, top_cast: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``movielens100k_details.json``: per MovieLens-100K movie, IMDb director, writer and cast.

    Returns ``(attributes, links)``: a long ``item, kind, value`` table with kinds ``director``,
    ``writer``, ``cast`` (the file does not tell actors from actresses), and ``item, tconst,
    problem`` for every record with an IMDb URL.  An entry that is not the movie (``problem`` not
    null: not a film, no year, a year more than one off the MovieLens title's, or only placeholder
    people) contributes no attributes; the movie keeps its genres from ``u.item``.  ``top_cast``
    keeps the first billed cast members only.  The file's ``genre`` field is unreliable (see
    PROVENANCE), so genres are not read here; people written as ``nan`` or empty are skipped.
    """
    path = Path(path)
    if not path.exists():
        raise MissingDataError(f"missing {path}: the MovieLens-100K IMDb details file")
    try:
        records = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if not isinstance(records, list) or not records:
        raise DataFormatError(f"{path}: expected a non-empty JSON list of movie records")
    rows = []
    links = []
    for i, rec in enumerate(records):
        if not isinstance(rec, dict) or not isinstance(rec.get("movie_id"), int):
            raise DataFormatError(f"{path}: record {i} has no integer movie_id")
        url = rec.get("movie_url") or ""
        tconst = url.split("/title/")[1].split("/")[0] if "/title/tt" in url else None
        people = _people(rec, top_cast)
        problem = _link_problem(rec, people)
        links.append((rec["movie_id"], tconst, problem))
        if problem is None:
            rows += [(rec["movie_id"], kind, name) for kind, name in people]
    df = pd.DataFrame(rows, columns=["item", "kind", "value"])
    link_df = pd.DataFrame(links, columns=["item", "tconst", "problem"])
    link_df = link_df.dropna(subset=["tconst"]).drop_duplicates("item")
    return df.drop_duplicates().reset_index(drop=True), link_df.reset_index(drop=True)
