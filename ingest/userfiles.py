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
semicolon or tab).  Every error names the file and the line.  A large file without quotes or
white space around its fields is read by Arrow's CSV reader (the same table; 25 M ratings in 7-8 s
rather than 18-23 s), any other by pandas.

**Duplicates**: the same (user, item) rated twice is an error naming both lines, unless
``duplicates="last"`` (keep the later line) or ``"mean"`` (average them) says what to do.

**Interactions** (implicit feedback: plays, views, clicks, purchases): a ratings file without a
rating column is read as ``user, item`` and optionally ``count`` (``plays``, ``clicks``, … ; a
positive number, 1 when absent) and ``timestamp``; a pair on several lines is several
interactions, their counts added.
"""

from __future__ import annotations

import csv
import io
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import DataFormatError, DataRequestError, MissingDataError
from .tables import read_csv_text, read_plain_csv
from .text import decode_text, first_line, read_bytes

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
    ),
    "rating": ("rating", "score", "stars", "value", "grade", "book_rating"),
    "count": ("count", "counts", "plays", "play_count", "playcount", "clicks", "views", "quantity", "weight"),
    "timestamp": ("timestamp", "time", "date", "ts", "datetime"),
}
SINGULAR = {
    "genres": "genre",
    "tags": "tag",
    "directors": "director",
    "writers": "writer",
    "actors": "actor",
    "actresses": "actress",
    "keywords": "keyword",
    "authors": "author",
    "categories": "category",
    "publishers": "publisher",
    "languages": "language",
    "countries": "country",
}
MULTI_SEP = "|"


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    counts = {sep: header.count(sep) for sep in (",", "\t", ";")}
    sep = max(counts, key=counts.get)
    return sep if counts[sep] > 0 else ","


def _read(path: str | Path, what: str) -> tuple[pd.DataFrame, Path, _LineNumbers, bool]:
    """Every field as text, each row's line number (for the error messages), and whether every
    field is stripped already (a plain file: :func:`~ingest.tables.read_plain_csv`)."""
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"no {what} file at {path}")
    raw = read_bytes(path)
    sep = _delimiter(path, first_line(raw))  # not splitting all 25 M lines for it
    df = read_plain_csv(raw, sep)
    plain = df is not None
    if not plain:
        df = read_csv_text(path, sep, decode_text(raw, path), skipinitialspace=True)
    df.columns = [str(c).strip() for c in df.columns]
    if len(df) == 0:
        raise DataFormatError(f"{path}: no {what} after the header line")
    return df, path, _LineNumbers(lambda: decode_text(raw, path), sep, len(df)), plain


class _LineNumbers:
    """Each row's line in the file, counted when an error message first asks (quoted fields may
    span lines and blank lines are skipped: counted as the reader did).  Counting walks the file
    in Python: 40 s of 25 M ratings, for messages that a valid file never shows.  ``text`` gives
    the file's text (decoded then too)."""

    def __init__(self, text, sep: str, n_rows: int):
        self._text, self._sep, self._n = text, sep, n_rows

    @cached_property
    def _lines(self) -> np.ndarray:
        lines = np.array([n for n, _ in _record_lines(self._text(), self._sep)], dtype=np.int64)
        return lines if len(lines) == self._n else np.arange(2, self._n + 2)

    def __getitem__(self, row):
        return self._lines[row]


def _record_lines(text: str, sep: str):
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    next(reader, None)
    start = 2
    for row in reader:
        line = reader.line_num
        if any(field.strip() for field in row):
            yield start, row
        start = line + 1


def _map_columns(
    df: pd.DataFrame, path: Path, wanted: tuple, required: tuple, columns: dict | None, option: str | None
) -> dict:
    """``{standard name: column in the file}``; ``option`` is the command-line option that maps
    columns for this kind of file (none for a file whose columns cannot be mapped)."""
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
        how = f"name it so or map it (e.g. {option} {missing[0]}=YOUR_NAME)" if option else "name it so"
        raise DataFormatError(f"{path}:1: the header {list(df.columns)} has no {' or '.join(missing)} column; {how}")
    return out


_INTEGER = "^(0|-?[1-9][0-9]*)$"  # an integer as Python writes it: no sign on 0, no leading zeros


def _ids(s: pd.Series) -> np.ndarray:
    """Integers when every (stripped) id is an integer written without leading zeros and fits 64
    bits, else text."""
    arrow = _arrow(s)
    try:
        if arrow is not None:  # Arrow's kernels: 1 s where pandas' to_numeric took 10 on 25 M ids
            import pyarrow as pa
            import pyarrow.compute as pc

            if pc.all(pc.match_substring_regex(arrow, _INTEGER)).as_py():
                return pc.cast(arrow, pa.int64()).to_numpy()
        elif s.str.fullmatch(_INTEGER).all():
            return s.astype(np.int64).to_numpy()
    except (OverflowError, ValueError):  # beyond 64 bits (pyarrow's ArrowInvalid is a ValueError)
        pass
    return s.to_numpy(dtype=object)


def _numbers(s: pd.Series) -> np.ndarray:
    """The stripped text ``s`` as float64, NaN where it is not a number."""
    arrow = _arrow(s)
    if arrow is not None:  # Arrow's parse when every value is a number: 1.5 s against 9 s on 25 M
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            return pc.cast(arrow, pa.float64()).to_numpy()
        except pa.ArrowInvalid:  # one is not: pandas marks which
            pass
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)


def _arrow(values: pd.Series):
    """The text column as a pyarrow array when pandas holds it in one (pandas ≥ 3 with pyarrow)."""
    if type(values.array).__name__ != "ArrowStringArray":
        return None
    import pyarrow as pa

    return pa.chunked_array(values.array.__arrow_array__())


def read_ratings(
    path: str | Path, columns: dict | None = None, duplicates: str = "error", implicit: bool | None = None
) -> pd.DataFrame:
    """A ratings file as ``user, item, rating[, timestamp]``, or a file of interactions as ``user,
    item, count[, timestamp]`` (see the module docstring).  ``implicit``: ``None`` reads a file
    without a rating column as interactions; ``False`` requires the rating column; ``True`` reads
    every line as an interaction whatever its columns."""
    df, path, lines, plain = _read(path, "ratings")
    strip = (lambda text: text) if plain else (lambda text: text.str.strip())  # 2 s of 25 M ratings
    wanted = ("user", "item", "rating", "count", "timestamp")
    required = ("user", "item") if implicit is not False else ("user", "item", "rating")
    cols = _map_columns(df, path, wanted, required, columns, "--ratings-columns")
    interactions = implicit is True or "rating" not in cols
    if interactions:
        cols.pop("rating", None)
    else:
        cols.pop("count", None)
    out = pd.DataFrame({role: df[col] for role, col in cols.items()})
    for role in ("user", "item"):
        ids = strip(out[role])
        empty = np.flatnonzero((ids == "").to_numpy())
        if len(empty):
            raise DataFormatError(f"{path}:{lines[empty[0]]}: {role} is empty")
        out[role] = _ids(ids)
    value = "count" if interactions else "rating"
    if value in out:
        numbers = _numbers(strip(out[value]))
        bad = np.flatnonzero(~np.isfinite(numbers) | ((numbers <= 0) if interactions else False))
        if len(bad):
            what = "a positive number" if interactions else "a number"
            raise DataFormatError(
                f"{path}:{lines[bad[0]]}: {value} must be {what}, got {df[cols[value]].iloc[bad[0]]!r}"
            )
        out[value] = numbers
    elif interactions:
        out["count"] = 1.0
    if "timestamp" in out:
        raw = strip(out["timestamp"])
        ts = pd.Series(_numbers(raw), index=raw.index)  # seconds since the epoch, or …
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
    if interactions:
        return interaction_counts(out)
    return resolve_duplicates(out, path, duplicates, lines)


def interaction_counts(interactions: pd.DataFrame) -> pd.DataFrame:
    """Interactions with each (user, item) pair once: a repeated pair is more of the same (a play
    log lists every play), its counts added and its latest timestamp kept."""
    if not any_repeated_pair(interactions):
        return interactions
    agg = {"count": "sum", **({"timestamp": "max"} if "timestamp" in interactions else {})}
    return interactions.groupby(["user", "item"], sort=False, as_index=False).agg(agg)


def read_person(path: str | Path, columns: dict | None = None, implicit: bool = False) -> pd.DataFrame:
    """One person's ratings, ``item, rating`` (a header, then a line per rating; the same names,
    delimiters and checks as :func:`read_ratings`); ``implicit``: their interactions, ``item,
    count`` (a count column is read when there is one, else each line counts 1; an item on several
    lines adds up, as in :func:`read_ratings`; a rating column is not read)."""
    df, path, lines, _ = _read(path, "ratings")
    wanted = ("item", "count") if implicit else ("item", "rating")
    cols = _map_columns(df, path, wanted, ("item",) if implicit else ("item", "rating"), columns, None)
    out = pd.DataFrame({"item": df[cols["item"]].str.strip().to_numpy(dtype=object)})
    empty = np.flatnonzero((out["item"] == "").to_numpy())
    if len(empty):
        raise DataFormatError(f"{path}:{lines[empty[0]]}: item is empty")
    if implicit:
        count = _numbers(df[cols["count"]].str.strip()) if "count" in cols else np.ones(len(out))
        bad = np.flatnonzero(~(np.isfinite(count) & (count > 0)))
        if len(bad):
            got = df[cols["count"]].iloc[bad[0]]
            raise DataFormatError(f"{path}:{lines[bad[0]]}: count must be a positive number, got {got!r}")
        return out.assign(count=count).groupby("item", sort=False, as_index=False)["count"].sum()
    rating = _numbers(df[cols["rating"]].str.strip())
    bad = np.flatnonzero(~np.isfinite(rating))
    if len(bad):
        got = df[cols["rating"]].iloc[bad[0]]
        raise DataFormatError(f"{path}:{lines[bad[0]]}: rating must be a number, got {got!r}")
    out["rating"] = rating
    dup = out["item"].duplicated(keep=False).to_numpy()
    if dup.any():
        j = np.flatnonzero(dup)[:2]
        raise DataFormatError(
            f"{path}:{lines[j[1]]}: item {out['item'].iloc[j[0]]} rated twice (lines {lines[j[0]]}, {lines[j[1]]})"
        )
    return out


def resolve_duplicates(ratings: pd.DataFrame, path, policy: str = "error", lines=None) -> pd.DataFrame:
    """Apply the duplicate policy to (user, item) pairs rated more than once (``lines[i]`` is row
    ``i``'s line in ``path``, for the error message)."""
    if policy not in DUPLICATES:
        raise DataRequestError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {policy!r}")
    if not any_repeated_pair(ratings):
        return ratings
    dup = ratings.duplicated(["user", "item"], keep=False).to_numpy()
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


def any_repeated_pair(ratings: pd.DataFrame) -> bool:
    """Whether a (user, item) pair occurs twice: one sorted integer key per pair (2 s on 25 M
    ratings, where ``DataFrame.duplicated`` over the two columns takes 10)."""
    codes, sizes = [], []
    for col in ("user", "item"):
        v = ratings[col].to_numpy()
        if v.dtype.kind in "iu" and len(v):
            lo, hi = int(v.min()), int(v.max())
            codes.append(np.subtract(v, lo, dtype=np.int64))
            sizes.append(hi - lo + 1)
        else:
            c, uniques = pd.factorize(v)
            codes.append(c.astype(np.int64))
            sizes.append(max(len(uniques), 1))
    if sizes[0] * sizes[1] >= 2**63:
        return bool(ratings.duplicated(["user", "item"]).any())
    key = codes[0]  # made here: computed in place (each new array of 25 M costs its page faults)
    key *= sizes[1]
    key += codes[1]
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def read_items(path: str | Path, columns: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An item file as ``(items, attributes)``: ``items`` with ``item, title``, ``attributes`` long
    ``item, kind, value`` (see the module docstring for the wide and long layouts)."""
    df, path, lines, _ = _read(path, "items")
    lower = {c.lower(): c for c in df.columns}
    cols = _map_columns(df, path, ("item",), ("item",), columns, "--items-columns")
    item_col = cols["item"]
    stripped = df[item_col].str.strip()
    empty = np.flatnonzero((stripped == "").to_numpy())
    if len(empty):
        raise DataFormatError(f"{path}:{lines[empty[0]]}: item is empty")
    ids = _ids(stripped)
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
