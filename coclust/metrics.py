"""Quality measures of a set of co-clusters, as defined in the paper (§ Metrics).

Co-clusters are given as a sequence of ``(rows, cols)`` index arrays (the
``coclusters_`` attribute of :class:`~coclust.HBLCoClust`).

Formula choices where the paper leaves room.  Where the printed formula and the author's code
(``lib/evaluate.py`` of the HBLCoClust repository, which produced the paper's tables) differ,
we follow the code, so that our figures are comparable with the paper's:

* **purity** — the share of the most frequent label among a co-cluster's objects, *averaged
  over co-clusters*, unweighted ("This measure is averaged over all Co-Clusters").
* **NMI** — ``2 I(C; L) / (H_C H_L)`` with base-2 logarithms.  The printed formula divides by
  ``H_C H_L`` without the factor 2 the code has.  Co-clusters overlap, so ``P(c)`` and
  ``P(c, l)`` count (co-cluster, object) memberships (``|c| / sum |c'|``), while ``P(l)`` is the
  share of label ``l`` among all objects.  ``nmi(..., method="sqrt")`` gives the usual
  ``I / sqrt(H_C H_L)`` (Strehl & Ghosh) on the same joint distribution instead.
* **PMI** — the normalised PMI ``-log(P(f1,f2) / (P(f1) P(f2))) / log P(f1,f2)`` (Bouma), with
  ``P(f)`` and ``P(f1, f2)`` the shares of objects holding the feature(s), averaged over every
  pair of features of every co-cluster (the printed formula writes a sum; the paper's values are
  this average).  As in the code, a pair that never co-occurs adds 0 and a pair present in
  every object uses ``P = 0.99999``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ._validation import check_binary_matrix

CoClusters = Sequence[tuple[np.ndarray, np.ndarray]]


def _labels(labels) -> np.ndarray:
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.ravel()


def purity(coclusters: CoClusters, labels) -> float:
    """Mean over co-clusters of the share of their most frequent object label.

    Examples
    --------
    >>> purity([(np.array([0, 1, 2]), np.array([0]))], ["a", "a", "b"])
    0.6666666666666666
    """
    codes = _labels(labels)
    values = [np.bincount(codes[r]).max() / len(r) for r, _ in coclusters if len(r)]
    return float(np.mean(values)) if values else float("nan")


def nmi(coclusters: CoClusters, labels, method: str = "paper") -> float:
    """Normalised mutual information between co-cluster membership and labels.

    Examples
    --------
    >>> nmi([(np.array([0, 1]), np.array([0])), (np.array([2, 3]), np.array([0]))], [0, 0, 1, 1])
    2.0
    >>> nmi([(np.array([0, 1]), np.array([0])), (np.array([2, 3]), np.array([0]))], [0, 0, 1, 1], method="sqrt")
    1.0
    """
    if method not in ("paper", "sqrt"):
        raise ValueError(f"method must be 'paper' or 'sqrt', got {method!r}")
    codes = _labels(labels)
    n_labels = codes.max() + 1 if len(codes) else 0
    rows = [np.asarray(r) for r, _ in coclusters if len(r)]
    if not rows or n_labels == 0:
        return float("nan")
    cc = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    lab = codes[np.concatenate(rows)]
    joint = np.zeros((len(rows), n_labels))
    np.add.at(joint, (cc, lab), 1.0)
    joint /= joint.sum()
    pc = joint.sum(axis=1)
    pl = np.bincount(codes, minlength=n_labels) / len(codes) if method == "paper" else joint.sum(axis=0)
    nz = joint > 0
    mi = float((joint[nz] * np.log2(joint[nz] / np.outer(pc, pl)[nz])).sum())
    hc = float(-(pc[pc > 0] * np.log2(pc[pc > 0])).sum())
    hl = float(-(pl[pl > 0] * np.log2(pl[pl > 0])).sum())
    if hc == 0 or hl == 0:
        return 0.0
    return float(2 * mi / (hc * hl)) if method == "paper" else float(mi / np.sqrt(hc * hl))


def pmi(coclusters: CoClusters, X) -> float:
    """Mean normalised pointwise mutual information over the feature pairs of the co-clusters.

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> round(pmi([(np.array([0, 1]), np.array([0, 1]))], X), 6)
    1.0
    """
    X = check_binary_matrix(X)
    n = X.shape[0]
    Xc = X.tocsc().astype(np.float64)
    p_all = np.asarray(Xc.sum(axis=0)).ravel() / n
    total, count = 0.0, 0
    block = 1024  # co-occurrences of this many features at a time: memory stays bounded
    for _, cols in coclusters:
        cols = np.asarray(cols)
        m = len(cols)
        if m < 2:
            continue
        sub = Xc[:, cols]
        p = p_all[cols]
        for lo in range(0, m - 1, block):
            hi = min(lo + block, m)
            co = (sub[:, lo:hi].T @ sub[:, lo:]).toarray() / n  # features lo..hi × lo..m
            i, j = np.triu_indices(hi - lo, 1, m - lo)
            pj = co[i, j]
            pj = np.where(pj >= 1.0, 0.99999, pj)
            with np.errstate(divide="ignore", invalid="ignore"):
                npmi = np.where(pj > 0, -np.log(pj / (p[lo + i] * p[lo + j])) / np.log(pj), 0.0)
            total += float(npmi.sum())
            count += len(pj)
    return total / count if count else float("nan")


def coverage(coclusters: CoClusters, shape: tuple[int, int]) -> tuple[float, float]:
    """Fraction of objects and of features in at least one co-cluster."""
    n_rows, n_cols = shape
    if not len(coclusters):
        return 0.0, 0.0
    rows = np.unique(np.concatenate([np.asarray(r) for r, _ in coclusters]))
    cols = np.unique(np.concatenate([np.asarray(c) for _, c in coclusters]))
    return len(rows) / n_rows, len(cols) / n_cols


def mean_size(coclusters: CoClusters) -> float:
    """Mean number of cells (objects × features) of the co-clusters."""
    if not len(coclusters):
        return float("nan")
    return float(np.mean([len(r) * len(c) for r, c in coclusters]))


def density(cocluster: tuple[np.ndarray, np.ndarray], X) -> float:
    """Fraction of ones of ``X`` inside one co-cluster."""
    r, c = cocluster
    X = X if sp.issparse(X) else sp.csr_matrix(np.asarray(X))
    sub = sp.csr_matrix(X)[np.asarray(r)][:, np.asarray(c)]
    return sub.count_nonzero() / (len(r) * len(c))


def summary(coclusters: CoClusters, X, labels=None) -> dict:
    """Every statistic of the paper's tables in one dict."""
    X = check_binary_matrix(X)
    obj, feat = coverage(coclusters, X.shape)
    out = {
        "n_coclusters": len(coclusters),
        "objects_covered": obj,
        "features_covered": feat,
        "mean_size": mean_size(coclusters),
        "pmi": pmi(coclusters, X),
    }
    if labels is not None:
        out["purity"] = purity(coclusters, labels)
        out["nmi"] = nmi(coclusters, labels)
    return out
