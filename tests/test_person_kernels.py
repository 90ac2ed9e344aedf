"""The compiled per-person parts (votes, row sums, co-clusters joined, members holding an attribute)
against the vectorised definitions they replace: the same numbers, to the last bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recsys.model.csr import Csr
from recsys.model.neighbours import Neighbours, person_votes, votes, votes_on_person


def _random_csr(rng, n_rows: int, n_cols: int, density: float, values: bool = True) -> Csr:
    mask = rng.random((n_rows, n_cols)) < density
    r, c = np.nonzero(mask)
    return Csr.from_pairs(r, c, (n_rows, n_cols), rng.normal(size=len(r)) if values else None)


def _random_neighbours(rng, n_rows: int, n_others: int, most: int) -> Neighbours:
    """Each row's neighbours in decreasing similarity (ties kept: the order is the list's)."""
    lengths = rng.integers(0, most + 1, size=n_rows)
    idx = [rng.choice(n_others, size=min(n, n_others), replace=False) for n in lengths]
    sim = [np.sort(rng.choice([0.25, 0.5, 1.0], size=len(i)) * rng.random(len(i)).round(2))[::-1] for i in idx]
    ptr = np.r_[0, np.cumsum([len(i) for i in idx])].astype(np.int64)
    return Neighbours(ptr, np.concatenate(idx).astype(np.int64), np.concatenate(sim).astype(np.float64))


def _same(want, got) -> None:
    assert np.array_equal(want.value, got.value)
    assert np.array_equal(want.weight, got.weight) and np.array_equal(want.count, got.count)
    assert np.all(want.value[want.count == 0] == 0)  # no neighbour voted: 0, also without shrinkage


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), shrinkage=st.sampled_from([0.0, 1.0, 2.5]))
def test_person_votes_are_the_votes_of_one_anchor(seed, k, shrinkage):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 12)), int(rng.integers(1, 15))
    table = _random_csr(rng, n_users, n_items, float(rng.random()))
    person = _random_neighbours(rng, 1, n_users, n_users)
    items = rng.integers(0, n_items, size=int(rng.integers(0, 20)))  # repeats allowed
    want = votes(person, np.zeros(len(items), dtype=np.int64), items, table, True, k, shrinkage)
    got = person_votes(person, items, table, k, shrinkage)
    _same(want, got)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), shrinkage=st.sampled_from([0.0, 1.0, 2.5]))
def test_votes_on_a_person_are_the_votes_on_row_zero(seed, k, shrinkage):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 15))
    person = _random_csr(rng, 1, n_items, float(rng.random()))
    nb = _random_neighbours(rng, n_items, n_items, n_items)
    items = rng.integers(0, n_items, size=int(rng.integers(0, 20)))
    want = votes(nb, items, np.zeros(len(items), dtype=np.int64), person, False, k, shrinkage)
    got = votes_on_person(nb, items, person, k, shrinkage)
    _same(want, got)


@given(seed=st.integers(0, 2**32 - 1))
def test_row_sums_are_bincounts(seed):
    from recsys.model.item_model import scores, weighted_scores

    rng = np.random.default_rng(seed)
    W = _random_csr(rng, int(rng.integers(1, 12)), int(rng.integers(1, 12)), float(rng.random()))
    rows = rng.integers(0, W.n_rows, size=int(rng.integers(0, 10)))
    values = rng.normal(size=len(rows))
    which, pos = W.rows_entries(rows)
    assert np.array_equal(scores(W, rows), np.bincount(W.idx[pos], W.values[pos], minlength=W.shape[1]))
    want = np.bincount(W.idx[pos], W.values[pos] * values[which], minlength=W.shape[1])
    assert np.array_equal(weighted_scores(W, rows, values), want)


@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.0, 0.5, 0.8, 1.0]))
def test_coclusters_joined_by_density(seed, density):
    from coclust.params import DENSITY_TOLERANCE
    from recsys.model.fold_in import _joined
    from recsys.model.profiles import CoClusters

    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 10))
    items = _random_csr(rng, int(rng.integers(1, 8)), n_items, float(rng.random()), values=False)
    users = _random_csr(rng, items.n_rows, 5, 0.5, values=False)
    cc = CoClusters(users, items, Csr.from_pairs([], [], (items.n_rows, 1)))
    mine = np.flatnonzero(rng.random(n_items) < 0.5)
    held = [np.isin(items.row(c), mine).sum() for c in range(items.n_rows)]
    want = [c for c, h in enumerate(held) if items.lengths[c] and h >= density * items.lengths[c] - DENSITY_TOLERANCE]
    assert _joined(cc, mine, density).tolist() == (want if len(mine) else [])


@given(seed=st.integers(0, 2**32 - 1))
def test_members_holding_counts_every_member(seed):
    from recsys.model.learning import _members_holding

    rng = np.random.default_rng(seed)
    n_users, n_groups, n_cols = int(rng.integers(1, 40)), int(rng.integers(1, 10)), int(rng.integers(1, 10))
    members = _random_csr(rng, n_groups, n_users, float(rng.random()), values=False)
    held = _random_csr(rng, n_users, n_cols, float(rng.random()), values=False)
    cand = _random_csr(rng, n_groups, n_cols, float(rng.random()), values=False)
    H = held.to_scipy().toarray() > 0
    want = [int(H[members.row(g), c].sum()) for g, c in zip(cand.row_of, cand.idx, strict=True)]
    seen = []
    assert _members_holding(members, held, cand, done=seen.append).tolist() == want
    # every user in one call, as a block of many users does (the marks of one cleared for the next)
    from recsys.model._lookup import members_holding

    groups, count = members.transpose(), np.zeros(cand.nnz, dtype=np.int32)
    members_holding(groups.ptr, groups.idx, *held._int64_rows, cand.ptr, cand.idx, n_cols, 0, n_users, count)
    assert count.tolist() == want
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(1, 6),
    shrinkage=st.sampled_from([0.0, 1.0, 2.5]),
    anchor_is_row=st.booleans(),
)
def test_compiled_pair_votes_are_the_vectorised_votes(seed, k, shrinkage, anchor_is_row):
    """Many pairs (the held-out terms): each pair's walk stops at its k-th neighbour with a value;
    the vectorised definition (kept as the path that also returns the neighbours used) expands
    them all.  The same floats."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 12)), int(rng.integers(1, 15))
    table = _random_csr(rng, n_users, n_items, float(rng.random()))
    n_anchors = n_users if anchor_is_row else n_items
    nb = _random_neighbours(rng, n_anchors, n_anchors, n_anchors)
    n_pairs = int(rng.integers(0, 30))
    anchor = rng.integers(0, n_anchors, size=n_pairs)
    other = rng.integers(0, n_items if anchor_is_row else n_users, size=n_pairs)
    compiled = votes(nb, anchor, other, table, anchor_is_row, k, shrinkage)
    vectorised, _ = votes(nb, anchor, other, table, anchor_is_row, k, shrinkage, detail=True)
    _same(vectorised, compiled)


@given(seed=st.integers(0, 2**32 - 1), weighted=st.booleans(), group_by=st.sampled_from([None, "user", "item"]))
def test_compiled_pair_sums_are_the_item_models_scores(seed, weighted, group_by):
    """Grouped by user (each pair walks its item's column) or by item (its user's row), the sums are
    the item model's scores float for float."""
    from recsys.model._pair_kernels import sums_of_pairs
    from recsys.model.item_model import scores, weighted_scores

    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 10)), int(rng.integers(1, 15))
    W = _random_csr(rng, n_items, n_items, float(rng.random()))
    sources = _random_csr(rng, n_users, n_items, float(rng.random()), values=weighted)
    users = rng.integers(0, n_users, size=int(rng.integers(0, 30)))
    items = rng.integers(0, n_items, size=len(users))
    got = sums_of_pairs(W, sources, users, items, group_by)
    for t, (u, i) in enumerate(zip(users, items, strict=True)):
        row = weighted_scores(W, sources.row(u), sources.row_values(u)) if weighted else scores(W, sources.row(u))
        assert got[t] == row[i]


@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_user_attribute_table_is_the_sorted_key_sums(seed):
    """Users × attributes of the attribute evidence: the compiled walk of each user's ratings gives
    the entries and floats of the definition by one sort of every (user, attribute) key."""
    from recsys.model.attributes import ATTRIBUTE_SHRINKAGE, user_table

    rng = np.random.default_rng(seed)
    n_users, n_items, n_attr = int(rng.integers(1, 10)), int(rng.integers(1, 15)), int(rng.integers(1, 8))
    residuals = _random_csr(rng, n_users, n_items, float(rng.random()))
    attributes = _random_csr(rng, n_items, n_attr, float(rng.random()), values=False)
    which, pos = attributes.rows_entries(residuals.idx)
    keys = residuals.row_of[which] * np.int64(n_attr) + attributes.idx[pos]
    pairs, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse, weights=residuals.values[which], minlength=len(pairs))
    counts = np.bincount(inverse, minlength=len(pairs))
    got = user_table(residuals, attributes)
    assert got.shape == (n_users, n_attr)
    assert np.array_equal(got.row_of * np.int64(n_attr) + got.idx, pairs)
    assert np.array_equal(got.values, sums / (counts + ATTRIBUTE_SHRINKAGE))


@pytest.mark.parametrize("joint", [False, True])
def test_the_user_attribute_table_on_every_core_is_the_one_thread_table(monkeypatch, joint):
    """Past a few users the table's rows are fitted in ranges on every core: the same rows and
    floats as one thread's walk of every user (each row is its user's alone)."""
    import recsys.model.attributes as attributes

    rng = np.random.default_rng(7)
    residuals = _random_csr(rng, 400, 60, 0.2)
    items = _random_csr(rng, 60, 12, 0.3, values=False)
    assert residuals.n_rows > attributes._USERS_ON_ONE_THREAD
    threaded = attributes.user_table(residuals, items, joint)
    monkeypatch.setattr(attributes, "_USERS_ON_ONE_THREAD", residuals.n_rows)
    alone = attributes.user_table(residuals, items, joint)
    for a, b in ((threaded.ptr, alone.ptr), (threaded.idx, alone.idx), (threaded.values, alone.values)):
        assert np.array_equal(a, b)
