"""Readers of the secondary benchmark data sets, as labelled binary relations."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp


@dataclass
class LabelledRelation:
    """Objects × features binary matrix with vocabularies and object labels."""

    X: sp.csr_matrix
    objects: np.ndarray
    features: np.ndarray
    labels: np.ndarray

    @property
    def n_relations(self) -> int:
        return int(self.X.nnz)


def _from_pairs(objects: pd.Series, features: pd.Series, labels: pd.Series) -> LabelledRelation:
    o_codes, o_vocab = pd.factorize(objects)
    f_codes, f_vocab = pd.factorize(features)
    X = sp.csr_matrix((np.ones(len(o_codes), dtype=np.int8), (o_codes, f_codes)), shape=(len(o_vocab), len(f_vocab)))
    X.sum_duplicates()
    X.data[:] = 1
    first = pd.Series(labels.to_numpy()).groupby(o_codes).first()
    return LabelledRelation(X, np.asarray(o_vocab, dtype=object), np.asarray(f_vocab, dtype=object), first.to_numpy())


def read_classic3(path: str | Path) -> LabelledRelation:
    """Classic3 dyads (``docid.CLASS<TAB>term`` per line, CRLF), from the zip or the plain file.

    The label of a document is the part of its id after the dot (CISI, CRANFIELD, MEDLINE).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"Classic3 not found at {path}")
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if not n.endswith("/")]
            if len(names) != 1:
                raise ValueError(f"{path}: expected one member in the zip, found {names}")
            raw = z.read(names[0])
        source = f"{path}:{names[0]}"
    else:
        raw = path.read_bytes()
        source = str(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(f"{source}:{line}: not UTF-8 text") from None
    df = pd.read_csv(io.StringIO(text), sep="\t", header=None, names=["doc", "term"], dtype=str,
                     keep_default_na=False, on_bad_lines="error", engine="c")  # fmt: skip
    df["term"] = df["term"].str.strip()
    bad = df.index[(df["term"] == "") | ~df["doc"].str.contains(".", regex=False)]
    if len(bad):
        raise ValueError(f"{source}:{bad[0] + 1}: expected 'docid.CLASS<TAB>term', got {df.iloc[bad[0]].tolist()!r}")
    return _from_pairs(df["doc"], df["term"], df["doc"].str.split(".", n=1).str[1])
