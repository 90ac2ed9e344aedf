"""Whole text files read strictly: undecodable bytes and empty files are errors naming the line.

Apart from :mod:`ingest.tables` so that reading a list of ids does not import pandas (a quarter
of a second of a command's start).
"""

from __future__ import annotations

from pathlib import Path

from .errors import DataFormatError


def decode_text(raw: bytes, source: str | Path, encoding: str = "utf-8") -> str:
    """``raw`` decoded; undecodable bytes raise :class:`DataFormatError` naming ``source`` and the line."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataFormatError(
            f"{source}:{line}: bytes not valid {encoding} ({raw[exc.start : exc.start + 4]!r})"
        ) from None


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """Whole file as text; undecodable bytes and empty files are errors naming the line."""
    path = Path(path)
    raw = path.read_bytes()
    if not raw.strip():
        raise DataFormatError(f"{path}: file is empty")
    return decode_text(raw, path, encoding)
