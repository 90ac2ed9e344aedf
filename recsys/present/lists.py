"""Recommendation lists as files: a person's ratings in, lists for many users out.

``recsys recommend MODEL --ratings FILE`` reads one person's ``item,rating`` lines
(:func:`ingest.userfiles.read_person`) and writes ``rank,item,score``; ``recsys recommend MODEL
--users FILE`` reads one user id a line (a first line ``user`` is a header) and writes
``user,rank,item,score,reason`` for every user, ``reason`` naming a user it cannot list for.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from ..errors import InputFileError
from ..files import atomic_open, plain

FORMATS = ("text", "json", "csv")


def read_users(path: str | Path) -> list[str]:
    """The user ids of a file, one a line (blank lines skipped; a first line ``user`` is a header)."""
    from ingest.text import read_text

    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"no users file at {path}")
    users = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    if users and users[0].lower() == "user":
        users = users[1:]
    if not users:
        raise InputFileError(f"{path}: no user ids")
    return users


def list_rows(users: list[str], lists: list, new_items=frozenset()) -> list[dict]:
    """One row per listed movie, ``user, rank, item, score``; one row with a ``reason`` for a user
    without a list (``None``: not in the model; empty: no liked movie to score from, or every movie
    rated); a listed movie of ``new_items`` (ids of items scored from their attributes alone) says so
    in its ``reason``."""
    from ..model.settings import NEW_ITEM

    rows = []
    for user, items in zip(users, lists, strict=True):
        if items is None:
            rows.append({"user": user, "reason": "unknown user"})
        elif not items:
            rows.append({"user": user, "reason": "nothing to recommend"})
        else:
            for r, (i, s) in enumerate(items, 1):
                row = {"user": user, "rank": r, "item": i, "score": s}
                rows.append({**row, "reason": NEW_ITEM} if i in new_items else row)
    return rows


def _cell(value):
    """A CSV cell: empty for None, numpy scalars as the Python scalar they hold."""
    return "" if value is None else plain(value)


def write_rows(rows: list[dict], columns: tuple, out: str | Path | None, fmt: str) -> None:
    """``rows`` as CSV (``columns`` in order) or JSON, to ``out`` (atomically) or to stdout."""

    def dump(f):
        if fmt == "json":
            json.dump([{k: plain(r.get(k)) for k in columns} for r in rows], f)
            f.write("\n")
            return
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        w.writerows([_cell(r.get(c)) for c in columns] for r in rows)

    if out is None:
        dump(sys.stdout)
        return
    with atomic_open(out) as f:
        dump(f)
