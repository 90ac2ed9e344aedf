import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from coclust import ConceptBudgetExceeded, inclose


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
