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


def read_bytes(path: str | Path) -> bytes:
    """Whole file as bytes; an empty file (or one of white space only) is an error."""
    raw = Path(path).read_bytes()
    if raw.isspace() or not raw:
        raise DataFormatError(f"{path}: file is empty")
    return raw


def first_line(raw: bytes) -> str:
    """The first line of ``raw``, decoded as UTF-8 (bytes that are not: replaced), without copying
    the rest of a large file."""
    end = raw.find(b"\n")
    return (raw if end < 0 else raw[:end]).rstrip(b"\r").decode("utf-8", errors="replace")


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """Whole file as text; undecodable bytes and empty files are errors naming the line."""
    return decode_text(read_bytes(path), path, encoding)
