"""Your own data: a ratings file and an item file in plain CSV or TSV.

**Ratings**: a header, then one rating per line with ``user, item, rating`` and optionally
``timestamp``.  Common header names are recognised (``userId``, ``movieId``, ``item_id``,
``score``, …); others are mapped with ``columns={"user": "reader", "item": "book", …}``.  Ratings
are numbers; ids are kept as text (``007`` stays ``007``) unless every id is an integer.

**Items**: a header, then either

* *wide*: ``item`` (required), ``title`` (optional), ``year`` (optional) and any attribute columns
  whose values are ``|``-separated (``genres``: ``Comedy|Drama``); the column name is the
  attribute kind (``genres`` → ``genre``, ``tags`` → ``tag``, … singular), or
* *long*: exactly ``item, kind, value``, one attribute per line.

The delimiter is a tab for ``.tsv``/``.tab`` files, else sniffed from the header (comma,
semicolon or tab).  Every error names the file and the line.

**Duplicates**: the same (user, item) rated twice is an error naming both lines, unless
``duplicates="last"`` (keep the later line) or ``"mean"`` (average them) says what to do.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import DataFormatError, DataRequestError, MissingDataError
from .tables import read_csv_text, read_text

DUPLICATES = ("error", "last", "mean")
ALIASES = {
    "user": ("user", "user_id", "userid", "uid", "customer", "customer_id", "reader", "reader_id"),
    "item": (
        "item",
        "item_id",
        "itemid",
        "iid",
        "movie",
        "movie_id",
        "movieid",
        "product",
        "product_id",
        "book",
        "book_id",
        "isbn",
        "course",
        "course_id",
    ),  # fmt: skip
    "rating": ("rating", "score", "stars", "value", "grade", "book_rating"),
    "timestamp": ("timestamp", "time", "date", "ts", "datetime"),
}
SINGULAR = {"genres": "genre", "tags": "tag", "directors": "director", "writers": "writer", "actors": "actor",
            "actresses": "actress", "keywords": "keyword", "authors": "author", "categories": "category",
            "publishers": "publisher", "languages": "language", "countries": "country"}  # fmt: skip
MULTI_SEP = "|"


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    counts = {sep: header.count(sep) for sep in (",", "\t", ";")}
    sep = max(counts, key=counts.get)
    return sep if counts[sep] > 0 else ","


def _read(path: str | Path, what: str) -> tuple[pd.DataFrame, Path]:
    """Every field as text; ``df.attrs['lines']`` holds each row's line number."""
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"no {what} file at {path}")
    text = read_text(path)
    header = text.splitlines()[0]
    sep = _delimiter(path, header)
    df = read_csv_text(path, sep, text, skipinitialspace=True)
    df.columns = [str(c).strip() for c in df.columns]
    if len(df) == 0:
        raise DataFormatError(f"{path}: no {what} after the header line")
    # line numbers of the rows (quoted fields may span lines: count them as the reader did)
    lines = np.array([n for n, _ in _record_lines(text, sep)], dtype=np.int64)
    df.attrs["lines"] = lines if len(lines) == len(df) else np.arange(2, len(df) + 2)
    df.attrs["path"] = str(path)
    return df, path


def _record_lines(text: str, sep: str):
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    next(reader, None)
    start = 2
    for row in reader:
        line = reader.line_num
        if any(field.strip() for field in row):
            yield start, row
        start = line + 1


def _map_columns(df: pd.DataFrame, path: Path, wanted: tuple, required: tuple, columns: dict | None) -> dict:
    """``{standard name: column in the file}``."""
    columns = dict(columns or {})
    unknown = set(columns) - set(wanted)
    if unknown:
        raise DataRequestError(f"unknown column roles {sorted(unknown)}; use {', '.join(wanted)}")
    lower = {c.lower(): c for c in df.columns}
    out = {}
    for role in wanted:
        if role in columns:
            if columns[role] not in df.columns:
                raise DataFormatError(
                    f"{path}:1: no column {columns[role]!r} (for {role}) in the header {list(df.columns)}"
                )
            out[role] = columns[role]
            continue
        for alias in ALIASES.get(role, (role,)):
            if alias in lower:
                out[role] = lower[alias]
                break
    missing = [r for r in required if r not in out]
    if missing:
        raise DataFormatError(
            f"{path}:1: the header {list(df.columns)} has no {' or '.join(missing)} column; name it so or map it "
            f"(e.g. --ratings-columns {missing[0]}=YOUR_NAME)"
        )
    return out


def _ids(values: pd.Series) -> np.ndarray:
    """Integers when every id is an integer written without leading zeros, else text."""
    s = values.str.strip()
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().all() and (num == np.floor(num)).all() and (s == num.astype(np.int64).astype(str)).all():
        return num.astype(np.int64).to_numpy()
    return s.to_numpy(dtype=object)


def read_ratings(path: str | Path, columns: dict | None = None, duplicates: str = "error") -> pd.DataFrame:
    """A ratings file as ``user, item, rating[, timestamp]`` (see the module docstring)."""
    df, path = _read(path, "ratings")
    cols = _map_columns(df, path, ("user", "item", "rating", "timestamp"), ("user", "item", "rating"), columns)
    lines = df.attrs["lines"]
    out = pd.DataFrame({role: df[col] for role, col in cols.items()})
    for role in ("user", "item"):
        empty = np.flatnonzero((out[role].str.strip() == "").to_numpy())
        if len(empty):
            raise DataFormatError(f"{path}:{lines[empty[0]]}: {role} is empty")
        out[role] = _ids(out[role])
    rating = pd.to_numeric(out["rating"].str.strip(), errors="coerce")
    bad = np.flatnonzero(~np.isfinite(rating.to_numpy(dtype=np.float64)))
    if len(bad):
        raise DataFormatError(
            f"{path}:{lines[bad[0]]}: rating must be a number, got {df[cols['rating']].iloc[bad[0]]!r}"
        )
    out["rating"] = rating.to_numpy(dtype=np.float64)
    if "timestamp" in out:
        raw = out["timestamp"].str.strip()
        ts = pd.to_numeric(raw, errors="coerce")  # seconds since the epoch, or …
        dates = ts.isna()
        if dates.any():  # … a date
            parsed = pd.to_datetime(raw[dates], errors="coerce", utc=True, format="mixed")
            bad = np.flatnonzero(dates.to_numpy())[parsed.isna().to_numpy()]
            if len(bad):
                raise DataFormatError(
                    f"{path}:{lines[bad[0]]}: timestamp must be a number or a date, got {raw.iloc[bad[0]]!r}"
                )
            ts[dates] = (parsed - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)
        out["timestamp"] = ts.to_numpy(dtype=np.int64)
    return resolve_duplicates(out, path, duplicates, lines)


def read_person(path: str | Path, columns: dict | None = None) -> pd.DataFrame:
    """One person's ratings, ``item, rating`` (a header, then a line per rating; the same names,
    delimiters and checks as :func:`read_ratings`)."""
    df, path = _read(path, "ratings")
    cols = _map_columns(df, path, ("item", "rating"), ("item", "rating"), columns)
    lines = df.attrs["lines"]
    out = pd.DataFrame({"item": df[cols["item"]].str.strip().to_numpy(dtype=object)})
    empty = np.flatnonzero((out["item"] == "").to_numpy())
    if len(empty):
        raise DataFormatError(f"{path}:{lines[empty[0]]}: item is empty")
    rating = pd.to_numeric(df[cols["rating"]].str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(rating))
    if len(bad):
        got = df[cols["rating"]].iloc[bad[0]]
        raise DataFormatError(f"{path}:{lines[bad[0]]}: rating must be a number, got {got!r}")
    out["rating"] = rating
    dup = out["item"].duplicated(keep=False).to_numpy()
    if dup.any():
        j = np.flatnonzero(dup)[:2]
        raise DataFormatError(f"{path}:{lines[j[1]]}: item {out['item'].iloc[j[0]]} rated twice (lines "
                              f"{lines[j[0]]}, {lines[j[1]]})")  # fmt: skip
    return out


def resolve_duplicates(ratings: pd.DataFrame, path, policy: str = "error", lines=None) -> pd.DataFrame:
    """Apply the duplicate policy to (user, item) pairs rated more than once (``lines[i]`` is row
    ``i``'s line in ``path``, for the error message)."""
    if policy not in DUPLICATES:
        raise DataRequestError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {policy!r}")
    dup = ratings.duplicated(["user", "item"], keep=False).to_numpy()
    if not dup.any():
        return ratings
    if policy == "error":
        first = np.flatnonzero(dup)[0]
        u, i = ratings["user"].iloc[first], ratings["item"].iloc[first]
        same = np.flatnonzero(((ratings["user"] == u) & (ratings["item"] == i)).to_numpy())
        where = ", ".join(str(lines[j] if lines is not None else j + 1) for j in same[:2])
        raise DataFormatError(
            f"{path}:{where}: user {u} rates item {i} twice (lines {where}); {int(dup.sum())} rows repeat a pair in "
            "all; choose --duplicates last or --duplicates mean"
        )
    if policy == "last":
        return ratings.drop_duplicates(["user", "item"], keep="last").reset_index(drop=True)
    agg = {"rating": "mean", **({"timestamp": "max"} if "timestamp" in ratings else {})}
    return ratings.groupby(["user", "item"], sort=False, as_index=False).agg(agg)


def read_items(path: str | Path, columns: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An item file as ``(items, attributes)``: ``items`` with ``item, title``, ``attributes`` long
    ``item, kind, value`` (see the module docstring for the wide and long layouts)."""
    df, path = _read(path, "items")
    lines = df.attrs["lines"]
    lower = {c.lower(): c for c in df.columns}
    cols = _map_columns(df, path, ("item",), ("item",), columns)
    item_col = cols["item"]
    empty = np.flatnonzero((df[item_col].str.strip() == "").to_numpy())
    if len(empty):
        raise DataFormatError(f"{path}:{lines[empty[0]]}: item is empty")
    ids = _ids(df[item_col])
    if {"kind", "value"} <= set(lower) and len(df.columns) == 3:
        kind = df[lower["kind"]].str.strip()
        bad = np.flatnonzero(((kind == "") | kind.str.contains(":")).to_numpy())
        if len(bad):
            raise DataFormatError(f"{path}:{lines[bad[0]]}: kind must be a name without ':', got {kind.iloc[bad[0]]!r}")
        long = pd.DataFrame({"item": ids, "kind": kind.to_numpy(), "value": df[lower["value"]].str.strip().to_numpy()})
        long = long[long["value"] != ""]
        titles = long[long["kind"] == "title"]
        attrs = long[long["kind"] != "title"].drop_duplicates().reset_index(drop=True)
        items = pd.DataFrame({"item": pd.unique(ids)})
        items = items.merge(titles.drop_duplicates("item")[["item", "value"]], on="item", how="left")
        items = items.rename(columns={"value": "title"}).fillna({"title": ""})
        return items, attrs
    dup = pd.Series(ids).duplicated(keep=False).to_numpy()
    if dup.any():
        j = np.flatnonzero(dup)[:2]
        raise DataFormatError(
            f"{path}:{lines[j[1]]}: item {ids[j[0]]} appears twice (lines {lines[j[0]]}, {lines[j[1]]})"
        )
    title_col = lower.get("title") or lower.get("name")
    year_col = lower.get("year")
    titles = df[title_col].str.strip() if title_col else pd.Series([""] * len(df))
    if year_col:
        year = df[year_col].str.strip()
        has_year = titles.str.contains(r"\(\d{4}\)\s*$", regex=True)
        titles = titles.where(has_year | (year == ""), titles + " (" + year + ")")
    items = pd.DataFrame({"item": ids, "title": titles.to_numpy()})
    parts = []
    for col in df.columns:
        if col in (item_col, title_col, year_col):
            continue
        kind = SINGULAR.get(col.strip().lower(), col.strip().lower().replace(" ", "_"))
        if ":" in kind or not kind:
            raise DataFormatError(f"{path}:1: column name {col!r} cannot be an attribute kind (no ':' allowed)")
        values = df[col].str.split(MULTI_SEP)
        long = pd.DataFrame({"item": ids, "value": values}).explode("value")
        long["value"] = long["value"].str.strip()
        long = long[(long["value"] != "") & long["value"].notna() & (long["value"] != "(no genres listed)")]
        parts.append(long.assign(kind=kind)[["item", "kind", "value"]])
    attrs = (
        pd.concat(parts, ignore_index=True).drop_duplicates()
        if parts
        else pd.DataFrame(columns=["item", "kind", "value"])
    )
    return items, attrs.reset_index(drop=True)


def parse_columns(spec: str | None) -> dict:
    """``"user=reader,item=book"`` → ``{"user": "reader", "item": "book"}``."""
    if not spec:
        return {}
    out = {}
    for part in spec.split(","):
        role, sep, name = part.partition("=")
        if not sep or not role.strip() or not name.strip():
            raise DataRequestError(f"bad column mapping {part!r}: use ROLE=NAME, e.g. user=reader,item=book")
        out[role.strip()] = name.strip()
    return out
