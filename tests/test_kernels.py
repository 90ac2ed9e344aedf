"""Compiled helpers against numpy's definitions: a partition's threshold, the positions of the
smallest keys, sorts and uniques of indices, on arrays with many ties (and NaN, which numpy sorts last)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from coclust._kernels import argsort_float, kth_smallest, sorted_nonnegative, unique_nonnegative
from recsys.model._batch_kernels import smallest

# few distinct values, so that ties are the rule
small_ints = hnp.arrays(np.int64, st.integers(1, 60), elements=st.integers(-3, 3))
floats_with_nan = hnp.arrays(
    np.float64, st.integers(1, 60), elements=st.sampled_from([-1.5, 0.0, 0.25, 2.0, np.inf, -np.inf, np.nan])
)


@given(st.one_of(small_ints, floats_with_nan), st.data())
def test_kth_smallest_is_numpys_partition(values, data):
    k = data.draw(st.integers(0, len(values) - 1))
    before = values.copy()
    expected = np.partition(values, k)[k]
    got = kth_smallest(values, k)
    assert got == expected or (np.isnan(got) and np.isnan(expected))
    np.testing.assert_array_equal(values, before)  # the input is left as it was


@given(hnp.arrays(np.float64, st.integers(1, 60), elements=st.sampled_from([-2.0, -1.0, 0.0, 0.5, 3.0])), st.data())
def test_smallest_is_a_stable_sort_cut(keys, data):
    m = data.draw(st.integers(1, len(keys) + 2))
    np.testing.assert_array_equal(smallest(keys, m), np.argsort(keys, kind="stable")[:m])


# short arrays take the insertion sort, long ones the radix passes (large values: several passes)
indices = hnp.arrays(np.int64, st.integers(0, 200), elements=st.one_of(st.integers(0, 40), st.integers(0, 1 << 40)))


@given(indices)
def test_sorts_and_uniques_of_indices_are_numpys(values):
    np.testing.assert_array_equal(sorted_nonnegative(values), np.sort(values))
    np.testing.assert_array_equal(sorted_nonnegative(values[::2]), np.sort(values[::2]))  # a strided view
    np.testing.assert_array_equal(unique_nonnegative(values), np.unique(values))


@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_pair_order_is_numpys_lexsort_duplicates_and_all(n_rows, n_cols, data):
    from recsys.model._csr_kernels import pair_order

    n = data.draw(st.integers(0, 80))
    rows = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_rows - 1)))
    cols = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_cols - 1)))
    np.testing.assert_array_equal(pair_order(rows, cols, n_rows, n_cols), np.lexsort((cols, rows)))


def test_from_pairs_sorts_large_inputs_by_counting_and_refuses_pairs_outside_the_shape():
    import pytest

    from recsys.model.csr import COUNTING_SORT_FROM, Csr

    rng = np.random.default_rng(0)
    n = COUNTING_SORT_FROM + 1000
    flat = rng.choice(3000 * 500, size=n, replace=False)
    rows, cols = flat // 500, flat % 500
    values = rng.random(n)
    m = Csr.from_pairs(rows, cols, (3000, 500), values)
    order = np.lexsort((cols, rows))
    np.testing.assert_array_equal(m.idx, cols[order])
    np.testing.assert_array_equal(m.values, values[order])
    np.testing.assert_array_equal(m.ptr, np.r_[0, np.cumsum(np.bincount(rows, minlength=3000))])
    with pytest.raises(ValueError, match="outside the shape"):
        Csr.from_pairs(rows, cols, (3000, 499))


@st.composite
def binary_csr(draw, max_rows: int = 30, max_cols: int = 40, n_rows: int | None = None):
    """A random 0/1 matrix as a :class:`Csr` with int32 or int64 indices, some rows and columns
    empty (``n_rows`` of them if given)."""
    from recsys.model.csr import Csr

    n_rows = draw(st.integers(0, max_rows)) if n_rows is None else n_rows
    n_cols = draw(st.integers(0, max_cols))
    dense = draw(hnp.arrays(np.bool_, (n_rows, n_cols), elements=st.booleans()))
    rows, cols = np.nonzero(dense)
    m = Csr.from_pairs(rows, cols, (n_rows, n_cols))
    dtype = draw(st.sampled_from([np.int32, np.int64]))
    return Csr(m.ptr, m.idx.astype(dtype), None, m.shape), dense


@given(binary_csr(), st.data())
def test_transpose_is_the_stable_sort_by_column(pair, data):
    from recsys.model.csr import Csr

    m, dense = pair
    values = data.draw(hnp.arrays(np.float64, m.nnz, elements=st.floats(-5, 5)))
    t = Csr(m.ptr, m.idx, values, m.shape).transpose()
    order = np.argsort(m.idx, kind="stable")  # the definition it replaced
    np.testing.assert_array_equal(t.idx, m.row_of[order])
    np.testing.assert_array_equal(t.values, values[order])
    np.testing.assert_array_equal(np.diff(t.ptr), dense.sum(axis=0))
    assert t.shape == m.shape[::-1] and t.idx.dtype == np.int64
    binary = m.transpose()
    assert binary.values is None and np.array_equal(binary.idx, t.idx) and np.array_equal(binary.ptr, t.ptr)


@given(binary_csr(max_cols=12), st.data())
def test_union_of_rows_is_the_pattern_of_the_product(pair, data):
    from recsys.model._csr_kernels import union_of_bitsets, union_of_rows
    from recsys.model.csr import Csr
    from recsys.model.profiles import _union_by_user

    m, dense = pair  # users × co-clusters
    part, part_dense = data.draw(binary_csr(max_cols=150, n_rows=m.shape[1]))  # co-clusters × columns
    expected = (dense.astype(np.int64) @ part_dense.astype(np.int64)) > 0
    want = Csr.from_pairs(*np.nonzero(expected), expected.shape)
    args = (m.ptr, np.ascontiguousarray(m.idx), part.ptr, np.ascontiguousarray(part.idx), np.int64(part.shape[1]))
    for ptr, idx in (union_of_rows(*args), union_of_bitsets(*args)):  # both ways, whichever is chosen
        np.testing.assert_array_equal(ptr, want.ptr)
        np.testing.assert_array_equal(idx, want.idx)
    union = _union_by_user(m, part)
    assert union.shape == expected.shape and np.array_equal(union.idx, want.idx)


@given(binary_csr(max_rows=40, max_cols=200))
def test_the_pair_support_is_the_product_off_its_diagonal(pair):
    """Co-clusters × items in, items × items out: how many rows hold each pair of distinct columns,
    a row's columns increasing — read back from the counter in order (rows touching many columns)
    or sorted (few); the ranges on threads join in order."""
    from recsys.model.item_model import support_of

    m, dense = pair
    expected = dense.astype(np.int64).T @ dense.astype(np.int64)
    np.fill_diagonal(expected, 0)
    got = support_of(m, m.shape[1])
    rows, cols = np.nonzero(expected)
    np.testing.assert_array_equal(got.ptr, np.r_[0, np.cumsum(np.count_nonzero(expected, axis=1))])
    np.testing.assert_array_equal(got.idx, cols)
    np.testing.assert_array_equal(got.values, expected[rows, cols].astype(np.float64))
    assert got.shape == expected.shape and got.idx.dtype == np.int64


@given(binary_csr(max_cols=200))
def test_ranked_bitsets_hold_each_row_and_find_each_entry(pair):
    """The rows as bitsets (bit ``j & 63`` of word ``j >> 6``), and each entry's position in its row
    found from its column alone: ``ptr + before[word] + (bits of the row below it in the word)``."""
    from recsys.model._csr_kernels import ranked_row_bitsets

    m, dense = pair
    n_cols = m.shape[1]
    bits, before = ranked_row_bitsets(m.ptr, np.ascontiguousarray(m.idx), np.int64(n_cols))
    unpacked = np.unpackbits(bits.view(np.uint8), axis=1, bitorder="little")[:, :n_cols]
    np.testing.assert_array_equal(unpacked.astype(bool), dense)
    for u in range(m.shape[0]):
        for pos in range(m.ptr[u], m.ptr[u + 1]):
            j = int(m.idx[pos])
            below = bits[u, j >> 6] & np.uint64((1 << (j & 63)) - 1)
            assert m.ptr[u] + before[u, j >> 6] + bin(int(below)).count("1") == pos


# every kind of float numpy orders: signed zeros (equal), infinities, NaN (last), subnormals, ties;
# short arrays take the insertion sort, long ones the radix passes
float_keys = hnp.arrays(
    st.sampled_from([np.float64, np.float32]),
    st.integers(0, 200),
    elements=st.one_of(
        st.sampled_from([-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324]),
        st.floats(width=32, allow_nan=True),
    ),
)


@given(float_keys)
def test_argsort_float_is_numpys_stable_argsort(keys):
    np.testing.assert_array_equal(argsort_float(keys), np.argsort(keys, kind="stable"))


@given(small_ints)
def test_argsort_float_orders_integer_keys_too(keys):
    np.testing.assert_array_equal(argsort_float(keys), np.argsort(keys, kind="stable"))
