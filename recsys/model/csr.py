"""A compressed-sparse-row matrix in plain numpy arrays.

Prediction must start fast: scipy.sparse and pandas together take longer to import than the
whole ``recsys predict`` budget, so the fitted model keeps its sparse state in this small
container, and only fitting converts from and to :mod:`scipy.sparse`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True, eq=False)
class Csr:
    """Rows of column indices, sorted within each row, with optional values (``None``: all ones).

    Examples
    --------
    >>> m = Csr.from_pairs([0, 0, 2], [3, 1, 0], shape=(3, 4), values=[5.0, 4.0, 1.0])
    >>> m.row(0).tolist(), m.row_values(0).tolist(), m.lengths.tolist()
    ([1, 3], [4.0, 5.0], [2, 0, 1])
    >>> found, values = m.lookup([0, 1, 2], [3, 3, 0])
    >>> found.tolist(), values.tolist()
    ([True, False, True], [5.0, 0.0, 1.0])
    """

    ptr: np.ndarray
    idx: np.ndarray
    values: np.ndarray | None
    shape: tuple[int, int]

    @classmethod
    def from_pairs(cls, rows, cols, shape: tuple[int, int], values=None) -> Csr:
        """From (row, column[, value]) triples with no repeated (row, column)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)  # one compiled signature for every caller
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        order = _pair_order(rows, cols, int(shape[0]), int(shape[1]))
        ptr = np.zeros(shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=shape[0]), out=ptr[1:])
        vals = None if values is None else np.asarray(values, dtype=np.float64)[order]
        return cls(ptr, cols[order], vals, (int(shape[0]), int(shape[1])))

    @classmethod
    def from_lists(cls, lists, n_cols: int) -> Csr:
        """From one sorted index array per row."""
        lengths = np.array([len(x) for x in lists], dtype=np.int64)
        ptr = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        idx = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists]) if len(lists) else np.zeros(0, np.int64)
        return cls(ptr, idx, None, (len(lists), int(n_cols)))

    def to_scipy(self):
        import scipy.sparse as sp

        data = np.ones(len(self.idx), dtype=np.float64) if self.values is None else self.values
        return sp.csr_matrix((data, self.idx, self.ptr), shape=self.shape)

    @property
    def n_rows(self) -> int:
        return self.shape[0]

    @property
    def nnz(self) -> int:
        return len(self.idx)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.ptr)

    @cached_property
    def row_of(self) -> np.ndarray:
        """The row of every stored entry."""
        return np.repeat(np.arange(self.n_rows, dtype=np.int64), self.lengths)

    def row(self, i: int) -> np.ndarray:
        return self.idx[self.ptr[i] : self.ptr[i + 1]]

    def row_values(self, i: int) -> np.ndarray:
        if self.values is None:
            return np.ones(self.ptr[i + 1] - self.ptr[i])
        return self.values[self.ptr[i] : self.ptr[i + 1]]

    def rows_entries(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(which, positions)``: for every stored entry of the given rows, the index into ``rows``
        it belongs to and its position in ``idx``/``values`` (rows in the order given)."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.ptr[rows + 1] - self.ptr[rows]
        which = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        starts = np.cumsum(lengths) - lengths
        pos = np.arange(lengths.sum(), dtype=np.int64) - np.repeat(starts - self.ptr[rows], lengths)
        return which, pos

    @cached_property
    def keys(self) -> np.ndarray:
        """``row * n_cols + col`` of every entry: sorted, since rows and indices are."""
        return self.row_of * np.int64(self.shape[1]) + self.idx

    # Matrices up to this many cells are looked up through a dense table (fast), larger ones by
    # binary search within each query's row (memory grows with the entries, not rows × columns).
    DENSE_CELLS = 1 << 24

    @cached_property
    def _dense_positions(self) -> np.ndarray:
        table = np.full(self.shape[0] * self.shape[1], -1, dtype=np.int32 if self.nnz < 2**31 else np.int64)
        table[self.keys] = np.arange(self.nnz)
        return table

    def positions(self, keys) -> np.ndarray:
        """The position in ``idx``/``values`` of each entry ``row * n_cols + col`` (-1: not stored)."""
        q = np.asarray(keys, dtype=np.int64)
        if self.shape[0] * self.shape[1] <= self.DENSE_CELLS:
            return self._dense_positions[q]
        if not self.nnz:
            return np.full(len(q), -1, dtype=np.int64)
        from ._lookup import positions_in_rows

        return positions_in_rows(*self._int64_rows, np.int64(self.shape[1]), np.ascontiguousarray(q))

    @cached_property
    def _int64_rows(self) -> tuple[np.ndarray, np.ndarray]:
        return np.ascontiguousarray(self.ptr, dtype=np.int64), np.ascontiguousarray(self.idx, dtype=np.int64)

    def lookup(self, rows, cols) -> tuple[np.ndarray, np.ndarray]:
        """Whether each (row, col) is stored, and its value (0 where not; 1 for binary matrices)."""
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        j = self.positions(rows * np.int64(self.shape[1]) + cols)
        found = j >= 0
        if self.values is None:
            return found, found.astype(np.float64)
        return found, np.where(found, self.values[j] if self.nnz else 0.0, 0.0)

    def transpose(self) -> Csr:
        # entries are in row order already: a stable counting sort by column transposes
        from ._csr_kernels import transpose_rows

        values = np.zeros(0) if self.values is None else np.ascontiguousarray(self.values)
        ptr, rows, t_values = transpose_rows(*self._int64_rows, values, np.int64(self.shape[1]))
        return Csr(ptr, rows, None if self.values is None else t_values, (self.shape[1], self.shape[0]))

    def with_values(self, values: np.ndarray | None) -> Csr:
        return Csr(self.ptr, self.idx, values, self.shape)

    def select(self, mask: np.ndarray) -> Csr:
        """The entries where ``mask`` (one flag per stored entry) is True."""
        ptr = np.zeros(self.n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.row_of[mask], minlength=self.n_rows), out=ptr[1:])
        vals = None if self.values is None else self.values[mask]
        return Csr(ptr, self.idx[mask], vals, self.shape)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        idx = self.idx.astype(np.int32) if self.shape[1] < 2**31 else self.idx
        out = {f"{prefix}.ptr": self.ptr, f"{prefix}.idx": idx, f"{prefix}.shape": np.array(self.shape)}
        if self.values is not None:
            out[f"{prefix}.values"] = self.values
        return out

    @classmethod
    def from_arrays(cls, arrays, prefix: str) -> Csr:
        shape = tuple(int(x) for x in arrays[f"{prefix}.shape"])
        vals = arrays.get(f"{prefix}.values")
        m = cls(
            np.asarray(arrays[f"{prefix}.ptr"], dtype=np.int64),
            np.asarray(arrays[f"{prefix}.idx"], dtype=np.int64),
            None if vals is None else np.asarray(vals, dtype=np.float64),
            (shape[0], shape[1]),
        )
        m.check()
        return m

    def check(self) -> None:
        """Raise ValueError unless the arrays form a valid matrix (a corrupt file must not crash later)."""
        n, m = self.shape
        ok = (
            self.ptr.ndim == 1
            and len(self.ptr) == n + 1
            and self.ptr[0] == 0
            and self.ptr[-1] == len(self.idx)
            and (np.diff(self.ptr) >= 0).all()
            and (len(self.idx) == 0 or (self.idx.min() >= 0 and self.idx.max() < m))
            and (self.values is None or len(self.values) == len(self.idx))
        )
        if not ok:
            raise ValueError(f"inconsistent sparse arrays of shape {self.shape}")


# below this many pairs, or with more columns than a few times the pairs, numpy's comparison sort
COUNTING_SORT_FROM = 1 << 16


def _pair_order(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    """``np.lexsort((cols, rows))``: by counting sorts (:func:`~recsys.model._csr_kernels.pair_order`)
    where they are linear, which needs every index inside the shape (checked: a pair outside it is
    the caller's error, not memory written out of bounds)."""
    n = len(rows)
    if n < COUNTING_SORT_FROM or n_cols > 4 * n or n_rows > 4 * n:
        return np.lexsort((cols, rows))
    if rows.min() < 0 or cols.min() < 0 or rows.max() >= n_rows or cols.max() >= n_cols:
        raise ValueError(f"pairs outside the shape {(n_rows, n_cols)}")
    from ._csr_kernels import pair_order

    return pair_order(rows, cols, n_rows, n_cols)
