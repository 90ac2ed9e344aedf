"""Raw ids to indices (recsys.model.ids): the vectorised look-up gives what the one-by-one rules give."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from recsys.model.ids import IdIndex, distinct, id_array, positions


def one_by_one(index: IdIndex, ids) -> np.ndarray:
    return index(list(ids.tolist()))  # a list never takes the vectorised path


@settings(max_examples=60, deadline=None)
@given(
    vocab=st.lists(st.integers(-(2**62), 2**62), min_size=0, max_size=40),
    asked=st.lists(st.integers(-(2**62), 2**62), max_size=40),
    pick=st.lists(st.integers(0, 39), max_size=20),
)
def test_integer_ids_found_as_by_the_rules(vocab, asked, pick):
    ids = id_array(distinct(np.array(vocab, dtype=np.int64))) if vocab else np.zeros(0, dtype=np.int64)
    index = IdIndex(ids)
    queries = np.array(asked + [ids[p % len(ids)] for p in pick if len(ids)], dtype=np.int64)
    got = index(queries)
    assert np.array_equal(got, one_by_one(index, queries))
    assert np.array_equal(index(queries.astype(np.float64)), got) or np.abs(queries).max() >= 2**53
    known = got >= 0
    assert np.array_equal(ids[got[known]], queries[known])


@settings(max_examples=40, deadline=None)
@given(vocab=st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=30), asked=st.lists(st.text(max_size=4)))
def test_text_ids_found_as_by_the_rules(vocab, asked):
    ids = id_array(distinct(np.array(vocab, dtype=str)))
    index = IdIndex(ids)
    queries = np.array(asked + vocab[:5], dtype=str)
    assert np.array_equal(index(queries), one_by_one(index, queries))


def test_inputs_that_need_the_rules_still_get_them():
    index = IdIndex(id_array(np.array([10, 20, 30])))
    assert index(np.array(["20", "x", "010"])).tolist() == [1, -1, 0]  # text for integer ids: read one by one
    assert index(np.array([20.0, 20.5, np.nan])).tolist() == [1, -1, -1]
    assert index(np.array([2**64 - 1, 10], dtype=np.uint64)).tolist() == [-1, 0]
    assert index(np.zeros(0, dtype=np.int64)).tolist() == []
    assert IdIndex(np.zeros(0, dtype=np.int64))(np.array([1, 2])).tolist() == [-1, -1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=30, unique=True), st.integers(0, 2**32 - 1))
def test_positions_are_the_binary_searches(ids, seed):
    rng = np.random.default_rng(seed)
    wide = np.sort(np.array(ids, dtype=np.int64))
    narrow = np.unique(wide % 64)  # a range a table covers
    for vocab in (wide, narrow):
        asked = rng.choice(vocab, size=50)
        np.testing.assert_array_equal(positions(vocab, asked), np.searchsorted(vocab, asked))
