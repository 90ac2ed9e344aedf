"""Scoring many (user, item) pairs from a file (``recsys predict MODEL --pairs FILE``).

Input: one pair per line, ``user<TAB>item``; a first line ``user<TAB>item`` is a header; further
fields (a MovieLens test file's rating and timestamp) are ignored; blank lines are skipped.
Output: one record per pair, in input order, with ``user, item, score, prediction, covered,
reason`` (``reason`` says why a pair is not covered, e.g. ``unknown user``), as JSON or CSV.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

from ..errors import InputFileError, ParameterError
from ..files import atomic_open

FORMATS = ("json", "csv")
COLUMNS = ("user", "item", "score", "prediction", "covered", "reason")


def read_pairs(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """``(users, items)`` as strings; a malformed line raises :class:`InputFileError` naming file:line."""
    from ingest.text import read_text

    path = Path(path)
    if not path.is_file():
        raise InputFileError(f"no pairs file at {path}")
    text = read_text(path)
    users, items = [], []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) < 2 or not fields[0].strip() or not fields[1].strip():
            raise InputFileError(f"{path}:{n}: expected user<TAB>item, got {line!r}")
        u, i = fields[0].strip(), fields[1].strip()
        if not users and n == _first_line(text) and (u.lower(), i.lower()) == ("user", "item"):
            continue
        users.append(u)
        items.append(i)
    if not users:
        raise InputFileError(f"{path}: no pairs")
    return np.array(users, dtype=object), np.array(items, dtype=object)


def _first_line(text: str) -> int:
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            return n
    return 1


def write_predictions(records: list[dict], out: str | Path | None, fmt: str) -> None:
    """Write the records as JSON (a list) or CSV to ``out`` (atomically), or to stdout."""
    if fmt not in FORMATS:
        raise ParameterError(f"--format must be json or csv, got {fmt!r}")

    def dump(f):
        if fmt == "json":
            json.dump(records, f)
            f.write("\n")
        else:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            for r in records:
                w.writerow(["" if r[c] is None else r[c] for c in COLUMNS])

    if out is None:
        dump(sys.stdout)
        return
    with atomic_open(out) as f:
        dump(f)
