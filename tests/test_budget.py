"""The co-clustering's work budget (coclust.budget): the admission levels by their definition, the
relaxation within a limit against relaxing exactly the admitted concepts, and the estimator."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from coclust import HBLCoClust, budget
from coclust.blocks import Blocks
from coclust.budget import admission_levels, relax_within, selectivity_order
from coclust.relax import relax


def random_blocks(rng, n_blocks: int, n_rows: int, n_cols: int) -> Blocks:
    rows = [np.sort(rng.choice(n_rows, rng.integers(1, n_rows + 1), replace=False)) for _ in range(n_blocks)]
    cols = [np.sort(rng.choice(n_cols, rng.integers(1, n_cols + 1), replace=False)) for _ in range(n_blocks)]
    return Blocks.from_lists(rows, cols)


def levels_by_definition(blocks: Blocks, n_rows: int, n_cols: int) -> list[int]:
    """The smallest cap K such that the block is among the first K, in selectivity order, of one
    of its rows and of one of its columns."""
    order = list(selectivity_order(blocks))
    rank = {b: r for r, b in enumerate(order)}
    out = []
    for b in range(len(blocks)):
        rows, cols = (
            blocks.row_idx[blocks.row_ptr[b] : blocks.row_ptr[b + 1]],
            blocks.col_idx[blocks.col_ptr[b] : blocks.col_ptr[b + 1]],
        )

        def first_k(entity: int, by_rows: bool, b: int = b) -> int:  # how many blocks before b hold the entity
            ptr, idx = (blocks.row_ptr, blocks.row_idx) if by_rows else (blocks.col_ptr, blocks.col_idx)
            return sum(1 for c in range(len(blocks)) if rank[c] < rank[b] and entity in idx[ptr[c] : ptr[c + 1]])

        out.append(max(min(first_k(r, True) for r in rows), min(first_k(c, False) for c in cols)))
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), n_blocks=st.integers(1, 25))
def test_levels_are_the_smallest_cap_that_keeps_a_block(seed, n_blocks):
    rng = np.random.default_rng(seed)
    blocks = random_blocks(rng, n_blocks, 8, 7)
    assert admission_levels(blocks, 8, 7).tolist() == levels_by_definition(blocks, 8, 7)


def _relation(rng, n_rows: int, n_cols: int):
    X = sp.csr_matrix((rng.random((n_rows, n_cols)) < rng.uniform(0.2, 0.7)).astype(np.int8))
    return X, X.T.tocsr()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    density=st.sampled_from([1.0, 0.8, 0.6]),
    share=st.floats(0.05, 1.5),
    min_wave=st.sampled_from([1, 4096]),
)
@pytest.mark.slow
def test_relaxation_within_a_limit_keeps_the_levels_that_fit(seed, density, share, min_wave):
    """Whatever the waves (``min_wave`` 1: many small ones, each at most twice the last), the
    co-clusters of the levels that fit, and no concept relaxed twice."""
    rng = np.random.default_rng(seed)
    X, Xt = _relation(rng, 30, 20)
    concepts = random_blocks(rng, int(rng.integers(1, 40)), 30, 20)

    def run(blocks, with_origin=True):
        return relax(X, Xt, blocks.col_ptr, blocks.col_idx, density, 2, 2, 1 << 30, with_origin=with_origin)

    everything, origin = run(concepts)
    r, c = everything.sizes()
    total = int((r + c).sum())
    limit = share * total
    report, waves = {}, []

    def counted(blocks):
        waves.append(len(blocks))
        return run(blocks)

    with mock.patch.object(budget, "MIN_WAVE", min_wave):
        got = relax_within(concepts, counted, limit, 30, 20, report)
    assert sum(waves) == report["concepts_relaxed"] <= len(concepts)
    assert all(b <= max(2 * a, min_wave) for a, b in zip(waves, waves[1:]))
    # the same co-clusters as relaxing exactly the concepts of the levels kept, in their order
    levels = admission_levels(concepts, 30, 20)
    cap = report["level"] if report["level"] is not None else levels.max() + 1
    kept = np.flatnonzero(levels < cap)
    want = run(concepts.select(kept), with_origin=False)
    for name in ("row_ptr", "row_idx", "col_ptr", "col_idx"):
        assert np.array_equal(getattr(got, name), getattr(want, name))
    r_kept, c_kept = got.sizes()
    assert (r_kept + c_kept).sum() <= limit
    # and no more: the next level would not fit
    size_of = np.zeros(len(concepts), dtype=np.int64)
    size_of[origin] = r + c
    if report["level"] is not None:  # levels need not be consecutive: the next one that exists
        assert size_of[levels <= levels[levels >= cap].min()].sum() > limit
    else:
        assert total <= limit and len(got) == len(everything)


@pytest.mark.slow
def test_a_budget_that_does_not_bind_changes_nothing():
    rng = np.random.default_rng(3)
    X = (rng.random((120, 40)) < 0.25).astype(int)
    X[:30, :8] = 1  # a block to find
    free = HBLCoClust(n_bands=60, band_size=2, min_density=0.8, random_state=0).fit(X)
    loose = HBLCoClust(n_bands=60, band_size=2, min_density=0.8, budget=1e6, random_state=0).fit(X)
    assert [(r.tolist(), c.tolist()) for r, c in free.coclusters_] == [
        (r.tolist(), c.tolist()) for r, c in loose.coclusters_
    ]
    assert loose.budget_stats_["level"] is None and free.budget_stats_ == {}


@pytest.mark.parametrize("budget", [0.5, 2.0])
def test_a_binding_budget_bounds_the_coclusters(budget):
    """A dense core (a few features held by almost every object) with many overlapping concepts:
    the co-clusters hold at most ``budget`` memberships per relation, and the run is deterministic."""
    rng = np.random.default_rng(0)
    X = (rng.random((300, 60)) < 0.15).astype(np.int8)
    X[:, :6] = rng.random((300, 6)) < 0.95
    X = sp.csr_matrix(X)
    params = dict(n_bands=200, band_size=2, min_density=0.8, random_state=0)
    free = HBLCoClust(**params).fit(X)
    bounded = HBLCoClust(**params, budget=budget).fit(X)
    again = HBLCoClust(**params, budget=budget).fit(X)
    held = sum(len(r) + len(c) for r, c in bounded.coclusters_)
    assert held <= budget * X.nnz
    assert bounded.budget_stats_["level"] is not None and len(bounded.coclusters_) < len(free.coclusters_)
    assert [(r.tolist(), c.tolist()) for r, c in bounded.coclusters_] == [
        (r.tolist(), c.tolist()) for r, c in again.coclusters_
    ]
    free_cols = {tuple(c) for _, c in free.coclusters_}
    assert {tuple(c) for _, c in bounded.coclusters_} <= free_cols  # the same co-clusters, fewer of them


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "8"])
def test_a_budget_must_be_a_positive_number(bad):
    with pytest.raises(ValueError, match="budget"):
        HBLCoClust(budget=bad).fit(np.eye(4, dtype=int))


def test_no_concept_no_work():
    got = relax_within(Blocks.empty(), lambda b: (b, np.zeros(0, dtype=np.int64)), 10.0, 3, 3, report := {})
    assert len(got) == 0 and report["concepts_relaxed"] == 0


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(0, 20), keep=st.integers(0, 200))
def test_a_region_keeps_its_most_selective_concepts_that_fit(seed, n, keep):
    """Step 4's share: the concepts by fewest rows, then fewest columns, then the order found, as
    many as fit ``keep`` memberships (rows + columns), at least one; their arrays carried along."""
    from coclust._kernels import bits_to_indices
    from coclust.concepts import _most_selective

    rng = np.random.default_rng(seed)
    n_rows, n_cols = 70, 12  # two words of extent bits
    rows = [np.sort(rng.choice(n_rows, rng.integers(1, n_rows + 1), replace=False)) for _ in range(n)]
    cols = [np.sort(rng.choice(n_cols, rng.integers(1, n_cols + 1), replace=False)) for _ in range(n)]
    ext = np.zeros((n, 2), dtype=np.uint64)
    for c, r in enumerate(rows):
        for i in r:
            ext[c, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    eptr, eidx = bits_to_indices(ext)
    iptr = np.concatenate([[0], np.cumsum([len(c) for c in cols])]).astype(np.int64)
    iidx = np.concatenate([np.zeros(0, dtype=np.int64), *cols]).astype(np.int64)

    o_ext, o_eptr, o_eidx, o_iptr, o_iidx = _most_selective(ext, eptr, eidx, iptr, iidx, keep)

    order = sorted(range(n), key=lambda c: (len(rows[c]), len(cols[c]), c))
    expected, used = [], 0
    for c in order:
        size = len(rows[c]) + len(cols[c])
        if expected and used + size > keep:
            break
        expected.append(c)
        used += size
    if len(expected) == n:
        expected = list(range(n))  # nothing dropped: the region as found
    got_rows = [o_eidx[o_eptr[k] : o_eptr[k + 1]].tolist() for k in range(len(o_ext))]
    got_cols = [o_iidx[o_iptr[k] : o_iptr[k + 1]].tolist() for k in range(len(o_ext))]
    assert got_rows == [rows[c].tolist() for c in expected]
    assert got_cols == [cols[c].tolist() for c in expected]
    assert bits_to_indices(o_ext)[1].tolist() == o_eidx.tolist()


def test_with_a_budget_a_region_past_max_concepts_stops_alone():
    """Without a budget, step 4 past ``max_concepts`` stops the fit; with one, each region's search
    stops at ``max_concepts`` and the fit goes on with what the regions found."""
    from coclust import ConceptBudgetExceeded

    rng = np.random.default_rng(1)
    X = (rng.random((200, 40)) < 0.5).astype(np.int8)
    params = dict(n_bands=60, band_size=2, min_density=0.9, max_concepts=50, random_state=0)
    with pytest.raises(ConceptBudgetExceeded):
        HBLCoClust(**params).fit(X)
    bounded = HBLCoClust(**params, budget=4.0).fit(X)
    assert 0 < len(bounded.coclusters_)
    assert sum(len(r) + len(c) for r, c in bounded.coclusters_) <= 4.0 * X.sum()
