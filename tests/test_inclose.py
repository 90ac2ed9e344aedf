import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from coclust import ConceptBudgetExceeded, inclose
from coclust.concepts import BY_DEGREE, BY_DEGREE_WHERE_BOUND, BY_INDEX


def brute_force_concepts(X, min_rows, min_cols):
    """Every closed (rows, cols) pair, by closing every column subset."""
    m, n = X.shape
    out = set()
    for k in range(n + 1):
        for B in itertools.combinations(range(n), k):
            A = tuple(i for i in range(m) if all(X[i, j] for j in B))
            closed = tuple(j for j in range(n) if all(X[i, j] for i in A)) if A else tuple(range(n))
            if len(A) >= min_rows and len(closed) >= min_cols:
                out.add((A, closed))
    return out


matrices = st.integers(1, 9).flatmap(
    lambda m: st.integers(1, 8).flatmap(lambda n: arrays(np.int8, (m, n), elements=st.integers(0, 1)))
)


@given(X=matrices, min_rows=st.integers(1, 3), min_cols=st.integers(1, 3))
def test_inclose_equals_brute_force(X, min_rows, min_cols):
    assume(X.sum() > 0)  # an all-zero matrix is rejected by design (tested in test_estimator)
    got = [(tuple(r), tuple(c)) for r, c in inclose(X, min_rows=min_rows, min_cols=min_cols)]
    assert len(got) == len(set(got)), "a concept was generated twice"
    assert set(got) == brute_force_concepts(X, min_rows, min_cols)


@given(X=matrices)
def test_sparse_and_dense_agree(X):
    assume(X.sum() > 0)
    dense = {(tuple(r), tuple(c)) for r, c in inclose(X)}
    sparse = {(tuple(r), tuple(c)) for r, c in inclose(sp.csr_matrix(X))}
    assert dense == sparse


def test_more_than_64_rows_uses_several_words():
    rng = np.random.default_rng(0)
    X = (rng.random((150, 6)) < 0.6).astype(int)
    got = {(tuple(r), tuple(c)) for r, c in inclose(X, min_rows=2)}
    assert got == brute_force_concepts(X, 2, 1)


def test_budget_raises_and_warns():
    X = 1 - np.eye(12, dtype=int)  # 2**12 - 1 concepts: a classic worst case
    with pytest.raises(ConceptBudgetExceeded, match="max_concepts=100"):
        inclose(X, max_concepts=100)
    with pytest.warns(RuntimeWarning, match="max_concepts"):
        part = inclose(X, max_concepts=100, on_budget="warn")
    assert len(part) == 100


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"min_rows": -1}, "min_rows"),
        ({"min_cols": 1.5}, "min_cols"),
        ({"max_concepts": 0}, "max_concepts"),
        ({"on_budget": "ignore"}, "on_budget"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        inclose(np.eye(3), **kwargs)


def relaxed_reference(X, density, min_rows, min_cols):
    """The author's relaxed In-Close, read plainly with Python sets: at a node (extent A, intent
    B, next column y), a column held by at least ``density`` of A joins B without splitting A; a
    column held by fewer, but by at least ``min_rows`` rows of A, makes a child (those rows) unless
    an earlier column outside B holds ``density`` of them (not canonical).  Children get the
    node's final intent plus their column, and are visited depth first in column order."""
    m, n = X.shape
    cols = [set(np.flatnonzero(X[:, j]).tolist()) for j in range(n)]
    out = []

    def visit(A, B, y):
        B, children = list(B), []
        for j in range(y, n):
            if j in B:
                continue
            C = A & cols[j]
            if len(C) >= density * len(A) - 1e-9:
                B.append(j)
            elif len(C) >= min_rows:
                earlier = (k for k in range(j) if k not in B)
                if not any(len(C & cols[k]) >= density * len(C) - 1e-9 for k in earlier):
                    children.append((C, j))
        if len(B) >= min_cols and len(A) >= min_rows:
            out.append((tuple(sorted(A)), tuple(sorted(B))))
        for C, j in children:
            visit(C, B + [j], j + 1)

    if m >= min_rows:
        visit(set(range(m)), [], 0)
    return out


@given(
    X=matrices,
    density=st.sampled_from([0.5, 0.6, 0.75, 0.8, 0.9]),
    min_rows=st.integers(1, 3),
    min_cols=st.integers(1, 3),
)
def test_relaxed_inclose_equals_the_reference(X, density, min_rows, min_cols):
    """Step 4 below density 1 (the pipeline's kernel on one region, the whole matrix) finds what
    the plain reading finds, in the same order."""
    from coclust._validation import check_binary_matrix
    from coclust.concepts import _regions_concepts

    assume(X.sum() > 0)
    D = check_binary_matrix(X)
    m, n = D.shape
    row_ptr, row_idx, int_ptr, int_idx, complete = _regions_concepts(
        D.indptr,
        D.indices,
        n,
        np.array([0, m]),
        np.arange(m, dtype=np.int64),
        np.array([0, n]),
        np.arange(n, dtype=np.int64),
        0,
        1,
        min_rows,
        min_cols,
        10**9,
        float(density),
    )
    got = [
        (tuple(row_idx[row_ptr[i] : row_ptr[i + 1]].tolist()), tuple(int_idx[int_ptr[i] : int_ptr[i + 1]].tolist()))
        for i in range(len(row_ptr) - 1)
    ]
    assert complete and got == relaxed_reference(X, density, min_rows, min_cols)


def _step4_on_whole(X, density, min_rows, min_cols, order, keep=None):
    """Step 4's kernel on one region, the whole matrix, its columns in ``order`` (with ``keep``: the
    memberships the region's share keeps)."""
    from coclust._validation import check_binary_matrix
    from coclust.concepts import _regions_concepts

    D = check_binary_matrix(X)
    m, n = D.shape
    row_ptr, row_idx, int_ptr, int_idx, complete = _regions_concepts(
        D.indptr, D.indices, n, np.array([0, m]), np.arange(m, dtype=np.int64), np.array([0, n]),
        np.arange(n, dtype=np.int64), 0, 1, min_rows, min_cols, 10**9, float(density),
        keep=None if keep is None else np.array([keep], dtype=np.int64), order=order,
    )  # fmt: skip
    assert complete
    return [
        (tuple(row_idx[row_ptr[i] : row_ptr[i + 1]].tolist()), tuple(int_idx[int_ptr[i] : int_ptr[i + 1]].tolist()))
        for i in range(len(row_ptr) - 1)
    ]


@given(
    X=matrices,
    density=st.sampled_from([0.5, 0.6, 0.75, 0.8, 0.9, 1.0]),
    min_rows=st.integers(1, 3),
    min_cols=st.integers(1, 3),
)
def test_degree_order_is_the_reference_on_columns_sorted_by_degree(X, density, min_rows, min_cols):
    """``column_order="degree"``: step 4 finds what the plain reading finds on the matrix with its
    columns most held first (equal degrees by index), intents mapped back to the columns' indices
    and sorted; at density 1 that is the same set of concepts as by index (brute force)."""
    assume(X.sum() > 0)
    order = np.argsort(-X.sum(axis=0), kind="stable")
    expected = [
        (rows, tuple(sorted(int(order[j]) for j in cols)))
        for rows, cols in relaxed_reference(X[:, order], density, min_rows, min_cols)
    ]
    got = _step4_on_whole(X, density, min_rows, min_cols, BY_DEGREE)
    assert got == expected
    if density == 1.0:
        assert set(got) == set(_step4_on_whole(X, density, min_rows, min_cols, BY_INDEX))
        assert set(got) == brute_force_concepts(X, min_rows, min_cols)


@given(
    X=matrices,
    density=st.sampled_from([0.6, 0.8, 1.0]),
    min_rows=st.integers(1, 2),
    min_cols=st.integers(1, 2),
    keep=st.integers(0, 60),
)
def test_auto_order_is_by_index_where_the_share_keeps_every_concept(X, density, min_rows, min_cols, keep):
    """``column_order="auto"`` under a budget: a region whose concepts could all fit its share (no
    more of them than ``keep // (min_rows + min_cols)``) is searched by index, as without it;
    another by degree, a search that stops at ``_FALLBACK_FACTOR`` times that many concepts (the
    first found by degree).  Either way the share keeps the most selective of what was found."""
    from coclust.concepts import _FALLBACK_FACTOR

    assume(X.sum() > 0)
    found = _step4_on_whole(X, density, min_rows, min_cols, BY_INDEX)
    can_keep = keep // (min_rows + min_cols)
    if len(found) <= can_keep:
        expected = _step4_on_whole(X, density, min_rows, min_cols, BY_INDEX, keep)
    else:
        by_degree = _step4_on_whole(X, density, min_rows, min_cols, BY_DEGREE)[: _FALLBACK_FACTOR * max(can_keep, 1)]
        expected = _most_selective_of(by_degree, keep)
    assert _step4_on_whole(X, density, min_rows, min_cols, BY_DEGREE_WHERE_BOUND, keep) == expected


def _most_selective_of(concepts: list, keep: int) -> list:
    """The share's rule on concepts (rows, columns) in the order found: the fewest rows, then the
    fewest columns, then the order found, as many as fit ``keep`` memberships, at least one; all of
    them, as found, when they all fit."""
    order = sorted(range(len(concepts)), key=lambda c: (len(concepts[c][0]), len(concepts[c][1]), c))
    kept, used = [], 0
    for c in order:
        size = len(concepts[c][0]) + len(concepts[c][1])
        if kept and used + size > keep:
            break
        kept.append(c)
        used += size
    return concepts if len(kept) == len(concepts) else [concepts[c] for c in kept]


@pytest.mark.parametrize("seed", range(12))
def test_a_dense_regions_search_by_degree_stops_at_a_multiple_of_its_share(seed):
    """A dense region whose share keeps a few of its many relaxed concepts: the search by degree
    stops at ``_FALLBACK_FACTOR`` times the concepts the share could keep, and the share keeps the
    most selective of those first found."""
    from coclust.concepts import _FALLBACK_FACTOR

    rng = np.random.default_rng(seed)
    X = (rng.random((40, 14)) < 0.7).astype(np.int8)
    keep = int(rng.integers(4, 24))
    by_degree = _step4_on_whole(X, 0.8, 2, 2, BY_DEGREE)
    bound = _FALLBACK_FACTOR * max(keep // 4, 1)
    assert len(by_degree) > bound  # the bound binds: most of the search is cut
    expected = _most_selective_of(by_degree[:bound], keep)
    assert _step4_on_whole(X, 0.8, 2, 2, BY_DEGREE_WHERE_BOUND, keep) == expected
