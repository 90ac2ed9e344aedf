"""Compiled helpers against numpy's definitions: a partition's threshold, the positions of the
smallest keys, sorts and uniques of indices, on arrays with many ties (and NaN, which numpy sorts last)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from coclust._kernels import kth_smallest, sorted_nonnegative, unique_nonnegative
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
