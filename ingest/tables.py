"""Strict reading of delimited text tables: every error names file and line.  A large *plain* file
(no quotes, no white space at a field's edge) is read by Arrow's CSV reader, anything else by
pandas (:func:`read_plain_csv`)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import DataFormatError  # noqa: F401  (re-exported: callers import it from here)
from .text import decode_text, first_line, read_text  # noqa: F401  (re-exported)


def read_csv_text(path: str | Path, sep: str = ",", text: str | None = None, **kwargs) -> pd.DataFrame:
    """A delimited file with a header, every field as text (nothing read as missing); a malformed
    line raises :class:`DataFormatError` naming file and line.  ``text``: the file's text, when
    the caller has read it already."""
    text = read_text(path) if text is None else text
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, **kwargs)
    except pd.errors.ParserError as exc:
        msg = str(exc)
        m = re.search(r"line (\d+)", msg)
        raise DataFormatError(f"{path}:{m.group(1) if m else '?'}: {msg.split(': ', 1)[-1]}") from None


# Smaller files are read by pandas: it reads a megabyte in 0.2 s, and a process's first compiled
# call (:func:`~ingest._kernels.plain_fields`'s) costs 0.3 s where nothing else compiles.
PLAIN_FROM_BYTES = 1 << 20


def read_plain_csv(raw: bytes, sep: str) -> pd.DataFrame | None:
    """The table :func:`read_csv_text` (with ``skipinitialspace``) reads from ``raw``, read by
    Arrow's multithreaded CSV reader instead when the file is *plain*: no quotes, and no field
    that opens or closes with white space (:func:`ingest._kernels.plain_fields`), so that every
    field is already stripped.  Without a Python string per field,
    :func:`~ingest.userfiles.read_ratings` reads 25 M ratings in 7-8 s rather than 18-23 s (in a
    fresh process).  ``None`` when pandas holds text otherwise than in Arrow, when the file is not
    plain, or when Arrow cannot read it as it stands (a row of another length, bytes that are not
    UTF-8, a header that pandas would rename), and below :data:`PLAIN_FROM_BYTES`: pandas then
    reads it, and its errors name the line."""
    if len(raw) < PLAIN_FROM_BYTES or not _arrow_strings() or len(sep) != 1:
        return None
    from ._kernels import plain_fields

    bom = len(_BOM) if raw.startswith(_BOM) else 0
    if not plain_fields(np.frombuffer(raw, dtype=np.uint8), bom, ord(sep)):
        return None
    import pyarrow as pa
    import pyarrow.csv as pv

    try:
        table = pv.read_csv(
            pa.py_buffer(raw),
            parse_options=pv.ParseOptions(delimiter=sep, quote_char=False),
            convert_options=pv.ConvertOptions(
                column_types=_all_text(raw, sep), strings_can_be_null=False, null_values=[]
            ),
        )
    except (pa.ArrowException, ValueError):
        return None
    names = table.column_names
    if len(set(names)) < len(names) or not all(names):  # pandas renames these ("a.1", "Unnamed: 0")
        return None
    if not all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in table.schema.types):
        return None
    dtype = pd.Series(["text"], dtype=str).dtype
    return table.to_pandas(types_mapper={pa.string(): dtype, pa.large_string(): dtype}.get)


_BOM = "\ufeff".encode()


def _arrow_strings() -> bool:
    """Whether pandas reads text into Arrow arrays (pandas ≥ 3 with pyarrow installed)."""
    return type(pd.Series(["text"], dtype=str).array).__name__ == "ArrowStringArray"


def _all_text(raw: bytes, sep: str) -> dict:
    """Every column of the header line as text (Arrow would otherwise infer numbers)."""
    import pyarrow as pa

    header = first_line(raw).removeprefix("\ufeff")
    return {name: pa.string() for name in header.split(sep)}


def read_table(
    path: str | Path,
    sep: str,
    names: list[str],
    *,
    encoding: str = "utf-8",
    header: bool = False,
    ints: tuple[str, ...] = (),
    floats: tuple[str, ...] = (),
    ranges: dict[str, tuple[float, float]] | None = None,
    required: tuple[str, ...] | None = None,
) -> pd.DataFrame:
    """Read a delimited file with exactly ``len(names)`` fields per line, validating types and ranges.

    Returns a DataFrame with the ``ints`` columns as int64, ``floats`` as float64 and the rest as str.
    Raises :class:`DataFormatError` with ``file:line`` on the first bad line.
    """
    path = Path(path)
    text = read_text(path, encoding)
    lines = text.splitlines()
    first = 1 if header else 0
    if header:
        got = [h.strip() for h in re.split(re.escape(sep), lines[0])]
        if got != names:
            raise DataFormatError(f"{path}:1: expected header {sep.join(names)!r}, got {lines[0]!r}")
    body = lines[first:]
    if not body:
        raise DataFormatError(f"{path}: no data rows")
    # field count per line, vectorised
    counts = np.fromiter((ln.count(sep) for ln in body), dtype=np.int64, count=len(body)) + 1
    bad = np.flatnonzero(counts != len(names))
    if len(bad):
        i = int(bad[0])
        raise DataFormatError(
            f"{path}:{i + first + 1}: expected {len(names)} fields separated by {sep!r}, got {counts[i]}: {body[i]!r}"
        )
    if len(sep) == 1:
        df = pd.read_csv(
            io.StringIO("\n".join(body)),
            sep=sep,
            header=None,
            names=names,
            dtype=str,
            keep_default_na=False,
            quoting=3,
            engine="c",
        )
    else:
        df = pd.DataFrame([ln.split(sep) for ln in body], columns=names)
    if len(df) != len(body):
        raise DataFormatError(f"{path}: expected {len(body)} rows, parsed {len(df)} (embedded line breaks?)")
    _check_values(df, path, first, ints, floats, ranges or {}, required or ())
    return df


def _check_values(df: pd.DataFrame, path: Path, first: int, ints, floats, ranges: dict, required) -> None:
    """Convert the ``ints`` and ``floats`` columns in place; the first bad value, one outside its
    range or an empty required field raises naming its line (``first``: lines before the data)."""
    for col in (*ints, *floats):
        values = pd.to_numeric(df[col].str.strip(), errors="coerce")
        if col in ints:
            values = values.where(values == np.floor(values))
        bad = np.flatnonzero(values.isna().to_numpy())
        if len(bad):
            i = int(bad[0])
            kind = "an integer" if col in ints else "a number"
            raise DataFormatError(f"{path}:{i + first + 1}: {col} must be {kind}, got {df[col].iloc[i]!r}")
        df[col] = values.astype(np.int64 if col in ints else np.float64)
    for col, (lo, hi) in ranges.items():
        bad = np.flatnonzero(((df[col] < lo) | (df[col] > hi)).to_numpy())
        if len(bad):
            i = int(bad[0])
            raise DataFormatError(f"{path}:{i + first + 1}: {col} {df[col].iloc[i]} outside [{lo}, {hi}]")
    for col in required:
        bad = np.flatnonzero((df[col].str.strip() == "").to_numpy())
        if len(bad):
            raise DataFormatError(f"{path}:{int(bad[0]) + first + 1}: {col} is empty")
