"""Input checks shared by the estimators and functions of :mod:`coclust`."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def check_binary_matrix(X, name: str = "X") -> sp.csr_matrix:
    """Validate a binary objects × features matrix and return it as CSR.

    Accepts a scipy.sparse matrix/array or a dense 2-D array-like of 0/1 (or
    booleans).  Returns a canonical ``csr_matrix`` of ``int8`` ones with sorted
    indices and no explicit zeros.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()
        X.eliminate_zeros()
        values = X.data
    else:
        try:
            arr = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{name} must be a 2-D binary array or sparse matrix: {exc}") from None
        if arr.dtype == object:
            raise ValueError(f"{name} must be numeric 0/1, got an object array")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D (objects × features), got shape {arr.shape}")
        values = arr
        X = None
    if values.size and not (np.issubdtype(values.dtype, np.number) or values.dtype == bool):
        raise ValueError(f"{name} must be numeric 0/1, got dtype {values.dtype}")
    if values.size and values.dtype != bool:
        if np.isnan(values).any() if np.issubdtype(values.dtype, np.floating) else False:
            raise ValueError(f"{name} contains NaN; encode missing relations as 0")
        bad = (values != 0) & (values != 1)
        if bad.any():
            v = values[bad].flat[0]
            raise ValueError(f"{name} must be binary (0/1), found value {v!r}")
    if X is None:
        X = sp.csr_matrix(np.asarray(values) != 0)
    shape = X.shape
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {shape}")
    if X.nnz == 0:
        raise ValueError(f"{name} has no relations (all zeros)")
    X = sp.csr_matrix(
        (np.ones(X.nnz, dtype=np.int8), X.indices.astype(np.int32), X.indptr.astype(np.int64)), shape=shape
    )
    X.sort_indices()
    return X
