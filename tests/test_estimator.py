import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from coclust import ConceptBudgetExceeded, HBLCoClust, inclose
from coclust.metrics import density


def planted(seed=0, n=60, m=40, blocks=3, noise=0.03):
    """Blocks of ones on a sparse noisy background."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < noise).astype(np.int8)
    rb = np.array_split(rng.permutation(n), blocks)
    cb = np.array_split(rng.permutation(m), blocks)
    for r, c in zip(rb, cb):
        X[np.ix_(r, c)] = 1
    return X, rb, cb


def test_finds_planted_blocks_exactly():
    X, _, cb = planted()
    model = HBLCoClust(n_bands=50, band_size=2, min_rows=5, min_cols=5, random_state=0).fit(X)
    found = {(tuple(r), tuple(c)) for r, c in model.coclusters_}
    for c in cb:
        # the block's closure in the noisy matrix
        rows = tuple(np.flatnonzero(X[:, np.sort(c)].all(axis=1)))
        cols = tuple(np.flatnonzero(X[list(rows)].all(axis=0)))
        assert (rows, cols) in found


small = st.tuples(st.integers(0, 10_000), st.integers(2, 4), st.integers(2, 4), st.sampled_from([1.0, 0.8, 0.5]))


@given(small)
def test_sizes_and_density_hold(args):
    seed, min_rows, min_cols, min_density = args
    X, _, _ = planted(seed, n=30, m=20, blocks=2, noise=0.15)
    model = HBLCoClust(
        n_bands=30, band_size=2, min_rows=min_rows, min_cols=min_cols, min_density=min_density, random_state=seed
    ).fit(X)
    for r, c in model.coclusters_:
        assert len(r) >= min_rows and len(c) >= min_cols
        assert np.all(np.diff(r) > 0) and np.all(np.diff(c) > 0)
        assert density((r, c), X) >= min_density - 1e-12
    feature_sets = [tuple(c) for _, c in model.coclusters_]
    assert len(feature_sets) == len(set(feature_sets)), "equal feature sets must be merged"


@given(st.integers(0, 10_000))
def test_exact_mode_gives_formal_concepts(seed):
    X, _, _ = planted(seed, n=25, m=15, blocks=2, noise=0.2)
    model = HBLCoClust(n_bands=40, band_size=2, min_rows=2, min_cols=2, random_state=seed).fit(X)
    concepts = {(tuple(r), tuple(c)) for r, c in inclose(X, min_rows=2, min_cols=2)}
    for r, c in model.coclusters_:
        assert X[np.ix_(r, c)].all()
        assert (tuple(r), tuple(c)) in concepts  # maximal: a concept of the whole matrix


def test_deterministic_for_fixed_random_state():
    X, _, _ = planted(3, n=80, m=50, blocks=4, noise=0.1)
    params = dict(n_bands=40, band_size=2, min_rows=3, min_cols=3, min_density=0.8)
    a = HBLCoClust(random_state=7, **params).fit(X).coclusters_
    b = HBLCoClust(random_state=7, **params).fit(sp.csr_matrix(X)).coclusters_
    assert len(a) == len(b) and all((ra == rb).all() and (ca == cb).all() for (ra, ca), (rb, cb) in zip(a, b))


def test_random_state_changes_the_coclusters():
    X, _, _ = planted(3, n=200, m=120, blocks=6, noise=0.05)
    params = dict(n_bands=3, band_size=3, min_rows=3, min_cols=3)
    found = {
        tuple((tuple(r), tuple(c)) for r, c in HBLCoClust(random_state=s, **params).fit(X).coclusters_)
        for s in range(6)
    }
    assert len(found) > 1, "six seeds, and every one found the same co-clusters: the seed reaches nothing"


def test_skip_covered_bounds_the_regions():
    X, _, _ = planted(5, n=60, m=40, blocks=3, noise=0.3)
    params = dict(n_bands=40, band_size=2, min_rows=2, min_cols=2, min_density=0.8, random_state=0)
    full = HBLCoClust(**params).fit(X)
    few = HBLCoClust(skip_covered=True, **params).fit(X)
    assert few.n_regions_ <= min(full.n_regions_, sum(X.shape))
    assert few.n_regions_ < full.n_regions_


def test_region_cover_grows_the_regions_to_all_of_them():
    """A region is kept while one of its rows or columns is held by fewer than ``region_cover`` kept
    regions: more regions as the cover grows, at most cover × (rows + columns), and all of them once
    no row or column is held that often."""
    X, _, _ = planted(5, n=60, m=40, blocks=3, noise=0.3)
    params = dict(n_bands=40, band_size=2, min_rows=2, min_cols=2, min_density=0.8, random_state=0)
    full = HBLCoClust(**params).fit(X).n_regions_
    counts = [HBLCoClust(skip_covered=True, region_cover=k, **params).fit(X).n_regions_ for k in (1, 2, 4, 10**6)]
    assert counts == sorted(counts) and counts[0] < counts[1]
    assert all(n <= k * sum(X.shape) for n, k in zip(counts, (1, 2, 4)))
    assert counts[-1] == full


@given(st.integers(0, 10_000), st.integers(1, 4))
def test_bring_new_keeps_a_region_while_a_member_is_held_fewer_than_cover_times(seed, cover):
    from coclust.regions import _bring_new

    rng = np.random.default_rng(seed)
    regions = [
        (rng.choice(8, rng.integers(1, 4), replace=False), rng.choice(6, rng.integers(1, 4), replace=False))
        for _ in range(rng.integers(1, 30))
    ]
    row_ptr = np.cumsum([0] + [len(r) for r, _ in regions])
    col_ptr = np.cumsum([0] + [len(c) for _, c in regions])
    rows = np.concatenate([r for r, _ in regions]).astype(np.int64)
    cols = np.concatenate([c for _, c in regions]).astype(np.int64)
    keep = np.zeros(len(regions), dtype=np.bool_)
    _bring_new(row_ptr, rows, col_ptr, cols, np.zeros(8, np.int64), np.zeros(6, np.int64), cover, keep)
    held_rows, held_cols, expected = np.zeros(8, int), np.zeros(6, int), []
    for r, c in regions:  # the rule, read literally
        expected.append(bool((held_rows[r] < cover).any() or (held_cols[c] < cover).any()))
        if expected[-1]:
            held_rows[r] += 1
            held_cols[c] += 1
    assert keep.tolist() == expected


def test_skip_covered_keeps_the_same_regions_whatever_the_chunk(monkeypatch):
    """The regions that bring a new row or column are found a chunk of seeds at a time (written on
    the thread pool, scanned in order): one seed a chunk keeps the same ones as one chunk for all."""
    import coclust.fitting as fitting
    import coclust.regions as regions

    X, _, _ = planted(5, n=60, m=40, blocks=3, noise=0.3)
    params = dict(n_bands=40, band_size=2, min_rows=2, min_cols=2, min_density=0.8, skip_covered=True, random_state=0)
    whole = HBLCoClust(**params).fit(X)
    monkeypatch.setattr(regions, "_MIN_CHUNK_BYTES", 8)  # with no memory: a chunk of 8 bytes, one seed
    real = fitting.find_regions
    monkeypatch.setattr(fitting, "find_regions", lambda *a, **k: real(*a, **{**k, "memory": 0}))
    seed_by_seed = HBLCoClust(**params).fit(X)
    assert whole.n_regions_ == seed_by_seed.n_regions_ > 1
    assert [_key(cc) for cc in whole.coclusters_] == [_key(cc) for cc in seed_by_seed.coclusters_]


def test_column_order_by_degree():
    """Exact co-clusters do not depend on the order In-Close takes the columns in; relaxed ones may,
    and stay within their density."""
    X, _, _ = planted(6, n=60, m=40, blocks=3, noise=0.2)
    params = dict(n_bands=40, band_size=2, min_rows=3, min_cols=3, random_state=0)
    exact = [HBLCoClust(column_order=o, **params).fit(X).coclusters_ for o in ("index", "degree")]
    assert {_key(cc) for cc in exact[0]} == {_key(cc) for cc in exact[1]}
    relaxed = HBLCoClust(column_order="degree", min_density=0.8, **params).fit(X)
    by_index = HBLCoClust(min_density=0.8, **params).fit(X)
    assert {_key(cc) for cc in relaxed.coclusters_} != {_key(cc) for cc in by_index.coclusters_}, "order unused"
    for rows, cols in relaxed.coclusters_:
        assert X[np.ix_(rows, cols)].mean() >= 0.8 - 1e-9


def _key(cocluster):
    rows, cols = cocluster
    return tuple(rows.tolist()), tuple(cols.tolist())


def test_assign_uncovered_covers_every_object_with_a_feature():
    X, _, _ = planted(4, n=40, m=30, blocks=2, noise=0.05)
    X[-1] = 0
    X[-1, :2] = 1  # an object too small for any co-cluster
    params = dict(n_bands=30, band_size=2, min_rows=4, min_cols=4, random_state=0)
    plain = HBLCoClust(**params).fit(X)
    covered = HBLCoClust(assign_uncovered=True, **params).fit(X)
    rows = np.unique(np.concatenate([r for r, _ in covered.coclusters_]))
    assert len(rows) == X.shape[0] > len(np.unique(np.concatenate([r for r, _ in plain.coclusters_])))
    assert [tuple(c) for _, c in covered.coclusters_] == [tuple(c) for _, c in plain.coclusters_]


def test_concept_budget_is_an_error_not_a_hang():
    rng = np.random.default_rng(0)
    X = (rng.random((60, 40)) < 0.7).astype(int)
    with pytest.raises(ConceptBudgetExceeded, match="max_concepts"):
        HBLCoClust(n_bands=30, band_size=2, min_rows=2, min_cols=2, max_concepts=50, random_state=0).fit(X)


def test_merge_of_equal_feature_sets():
    # two groups of rows sharing columns {0,1,2} but differing elsewhere: relaxed
    # co-clusters with equal columns must become one
    X = np.zeros((8, 6), dtype=int)
    X[:, :3] = 1
    X[:4, 3] = 1
    X[4:, 4] = 1
    model = HBLCoClust(n_bands=60, band_size=2, min_rows=2, min_cols=2, random_state=0).fit(X)
    cols = [tuple(c) for _, c in model.coclusters_]
    assert cols.count((0, 1, 2)) == 1
    r = model.coclusters_[cols.index((0, 1, 2))][0]
    assert r.tolist() == list(range(8))


def test_max_feature_freq_drops_common_features():
    X, _, _ = planted(1)
    X[:, 0] = 1
    model = HBLCoClust(n_bands=40, band_size=2, min_rows=4, min_cols=4, max_feature_freq=0.9, random_state=0).fit(X)
    assert not model.feature_mask_[0]
    assert all(0 not in c for _, c in model.coclusters_)


def test_transpose_adds_seeds():
    X, _, _ = planted(2, n=50, m=50, blocks=3, noise=0.05)
    one = HBLCoClust(n_bands=10, band_size=2, min_rows=4, min_cols=4, transpose=False, random_state=0).fit(X)
    both = HBLCoClust(n_bands=10, band_size=2, min_rows=4, min_cols=4, transpose=True, random_state=0).fit(X)
    assert both.n_seeds_ > one.n_seeds_


def test_sklearn_bicluster_interface():
    X, _, _ = planted()
    model = HBLCoClust(n_bands=50, band_size=2, min_rows=5, min_cols=5, random_state=0).fit(X)
    k = len(model.coclusters_)
    assert model.rows_.shape == (k, X.shape[0]) and model.columns_.shape == (k, X.shape[1])
    assert sp.issparse(model.rows_) and model.rows_.nnz == sum(len(r) for r, _ in model.coclusters_)
    rows, cols = model.biclusters_
    r, c = model.get_indices(0)
    assert (rows[0].indices == r).all() and (cols[0].indices == c).all()
    assert model.get_shape(0) == (len(r), len(c))
    assert model.get_submatrix(0, X).all()
    assert model.get_submatrix(0, sp.csr_matrix(X)).toarray().all()
    assert "min_rows=5" in repr(model)
    assert HBLCoClust().set_params(min_rows=3).min_rows == 3


def test_unfitted_access_raises_not_fitted_error():
    from sklearn.exceptions import NotFittedError

    for access in (lambda m: m.rows_, lambda m: m.columns_, lambda m: m.get_indices(0), lambda m: m.biclusters_):
        with pytest.raises(NotFittedError, match="not fitted"):
            access(HBLCoClust())


def test_scikit_learn_estimator_checks():
    """scikit-learn's own checks: none may fail.  They feed random real-valued matrices, which a
    relation of 0/1 cannot take by design (``binarize=None`` rejects them), so the checked instance
    binarizes at 0; the array-API check runs only when SCIPY_ARRAY_API is set before scipy loads."""
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator(HBLCoClust(n_bands=20, band_size=2, binarize=0.0, random_state=0), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in res if r["status"] == "failed"]
    assert failed == []
    assert {r["check_name"] for r in res if r["status"] == "skipped"} <= {"check_array_api_input"}
    assert sum(r["status"] == "passed" for r in res) >= 35


def test_clone_and_binarize():
    from sklearn.base import clone

    ratings = np.array([[5, 4, 0, 1], [4, 5, 0, 2], [1, 0, 5, 4], [0, 2, 4, 5]])
    with pytest.raises(ValueError, match="binary"):
        HBLCoClust().fit(ratings)  # strict by default: ratings are not a relation
    model = HBLCoClust(n_bands=20, band_size=2, binarize=3, random_state=0)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and not hasattr(copy, "coclusters_")
    found = {(tuple(r), tuple(c)) for r, c in copy.fit(ratings).coclusters_}
    assert ((0, 1), (0, 1)) in found and ((2, 3), (2, 3)) in found


@pytest.mark.parametrize(
    "X, match",
    [
        (np.zeros((0, 3)), "0 sample"),
        (np.zeros((3, 3)), "no relations"),
        (np.array([[1, -1], [0, 1]]), "binary"),
        (np.array([[1, 2], [0, 1]]), "binary"),
        (np.array([1, 0, 1]), "Expected 2D array"),
        (np.array([[1.0, np.nan]]), "NaN"),
        (sp.csr_matrix(np.array([[0.5, 1.0]])), "binary"),
        (np.array([["a", "b"]]), "numeric"),
    ],
)
def test_bad_input(X, match):
    with pytest.raises(ValueError, match=match):
        HBLCoClust().fit(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_bands": 0}, "n_bands"),
        ({"band_size": 2.5}, "band_size"),
        ({"min_rows": 0}, "min_rows"),
        ({"min_cols": -2}, "min_cols"),
        ({"max_feature_freq": 0.0}, "max_feature_freq"),
        ({"max_feature_freq": 1.5}, "max_feature_freq"),
        ({"min_density": 0}, "min_density"),
        ({"min_density": "high"}, "min_density"),
        ({"transpose": "yes"}, "transpose"),
        ({"skip_covered": 1}, "skip_covered"),
        ({"random_state": -1}, "random_state"),
        ({"min_bucket": 0}, "min_bucket"),
        ({"binarize": "yes"}, "binarize"),
        ({"lsh_memory": 10}, "lsh_memory"),
        ({"column_order": "popular"}, "column_order"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        HBLCoClust(**params).fit(np.eye(4))
    with pytest.raises(ValueError, match="Invalid parameter 'nhashes'"):
        HBLCoClust().set_params(nhashes=3)


@pytest.mark.parametrize("skip_covered", [False, True])
@pytest.mark.parametrize("memory", [0, 400, 1 << 20])
def test_regions_are_the_same_whatever_bitsets_fit(monkeypatch, skip_covered, memory):
    """Step 3 tests the heaviest rows and columns in bitsets, as many as ``lsh_memory`` holds, and
    the others in sorted lists: none (0 bytes), some (400: a few of the 3.6 kB), all."""
    import coclust.fitting as fitting

    rng = np.random.default_rng(0)
    X = (rng.random((80, 60)) < rng.uniform(0.02, 0.4, size=60)).astype(int)  # light and heavy columns
    params = dict(n_bands=40, band_size=2, min_rows=3, min_cols=3, skip_covered=skip_covered, random_state=0)
    with_bits = HBLCoClust(**params).fit(X).coclusters_
    real = fitting.find_regions
    monkeypatch.setattr(fitting, "find_regions", lambda *a, **k: real(*a, **{**k, "memory": memory}))
    other = HBLCoClust(**params).fit(X).coclusters_
    assert len(with_bits) == len(other) > 0
    assert all((a[0] == b[0]).all() and (a[1] == b[1]).all() for a, b in zip(with_bits, other))


@given(st.integers(0, 10_000), st.integers(0, 3000), st.integers(1, 5))
def test_mixed_intersection_is_the_set_intersection(seed, memory, k):
    """Lists intersected with some members in bitsets (the heaviest that fit) and the others
    searched: the common indices, increasing, counted and written alike."""
    from coclust.regions import _intersect, entity_bitsets, heavy_entities

    rng = np.random.default_rng(seed)
    n_rows, n_cols = int(rng.integers(1, 300)), int(rng.integers(k, 40))
    X = sp.csr_matrix((rng.random((n_rows, n_cols)) < rng.uniform(0.01, 0.9, size=n_cols)).astype(np.int8))
    Xt = X.T.tocsr()
    _, heavy = heavy_entities([np.diff(X.indptr), np.diff(Xt.indptr)], [n_cols, n_rows], memory)
    bits, slot = entity_bitsets(Xt, n_rows, heavy)
    members = rng.choice(n_cols, k, replace=False).astype(np.int64)
    out, scratch = np.empty(n_rows, dtype=np.int64), np.empty(bits.shape[1], dtype=np.uint64)
    args = (Xt.indptr, Xt.indices, bits, slot, members, 0, k, scratch)
    n = _intersect(*args, out, 0, True)
    assert _intersect(*args, out[:0].copy(), 0, False) == n
    expected = np.flatnonzero(X.toarray()[:, members].all(axis=1))
    assert np.array_equal(out[:n], expected)


@given(st.integers(0, 10_000), st.sampled_from([0.95, 0.8, 0.5]), st.integers(20, 150))
def test_relaxation_bitset_paths_equal_the_list_paths(seed, density, n_rows):
    """Below density 1, dense relations take the bit-sliced counter and the column-bitset scan
    where their columns have bitsets; sparse ones walk the index lists (the lightest columns' lists
    in step 1, the lightest rows' in step 2, then searches of the candidates).  All give the same
    co-clusters.  (Density 1 takes neither: it intersects lists, see the next test.)"""
    import coclust.relax as relax_mod

    rng = np.random.default_rng(seed)
    X = sp.csr_matrix((rng.random((n_rows, 40)) < rng.uniform(0.2, 0.7)).astype(np.int8))
    Xt = X.T.tocsr()
    # up to 39 columns: counts of up to six bit planes in the adder
    B = [np.sort(rng.choice(40, size=rng.integers(1, 12 if i % 3 else 40), replace=False)) for i in range(25)]
    ptr = np.r_[0, np.cumsum([len(b) for b in B])].astype(np.int64)
    idx = np.concatenate(B).astype(np.int64)
    with_bits = relax_mod.relax(X, Xt, ptr, idx, density, 1, 1, memory=1 << 30)
    without = relax_mod.relax(X, Xt, ptr, idx, density, 1, 1, memory=0)
    # the bitsets of the heaviest columns only (as on 25 M ratings, where not all fit)
    some = relax_mod.relax(X, Xt, ptr, idx, density, 1, 1, memory=2 * 8 * ((n_rows + 63) // 64) * (seed % 40))
    for name in ("row_ptr", "row_idx", "col_ptr", "col_idx"):
        assert np.array_equal(getattr(with_bits, name), getattr(without, name))
        assert np.array_equal(getattr(some, name), getattr(without, name))
    # and both are the definition: rows holding >= density of B, then columns held by >= density of them
    D = X.toarray().astype(bool)
    for i, b in enumerate(B):
        rows = np.flatnonzero(D[:, b].sum(axis=1) >= density * len(b) - 1e-9)
        cols = np.flatnonzero(D[rows].sum(axis=0) >= density * len(rows) - 1e-9)
        if len(rows) and len(cols):
            got = without.row_idx[without.row_ptr[i] : without.row_ptr[i + 1]]
            assert np.array_equal(got, rows)
            assert np.array_equal(without.col_idx[without.col_ptr[i] : without.col_ptr[i + 1]], cols)
            continue
        break  # an empty result is dropped and shifts the rest: enough checked


@given(st.integers(0, 10_000), st.integers(5, 120), st.floats(0.02, 0.6))
def test_relaxation_at_density_one_is_the_closure_of_the_columns(seed, n_rows, p):
    """Density 1 takes sorted-list intersections; they must give what the counting kernel gives,
    and both the definition: rows holding all of B, then columns all those rows hold."""
    import coclust.relax as relax_mod

    rng = np.random.default_rng(seed)
    n_cols = 30
    # a few hub columns, as on the power-law data where the counting walk was slow
    probs = np.minimum(1.0, p * rng.pareto(1.5, n_cols) + p / 4)
    X = sp.csr_matrix((rng.random((n_rows, n_cols)) < probs).astype(np.int8))
    Xt = X.T.tocsr()
    B = [np.sort(rng.choice(n_cols, size=rng.integers(1, 6), replace=False)) for _ in range(30)]
    ptr = np.r_[0, np.cumsum([len(b) for b in B])].astype(np.int64)
    idx = np.concatenate(B).astype(np.int64)
    min_rows, min_cols = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    got = relax_mod.relax(X, Xt, ptr, idx, 1.0, min_rows, min_cols, memory=1 << 30)
    counted = relax_mod._relax_chunk(
        X.indptr,
        X.indices,
        Xt.indptr,
        Xt.indices,
        n_rows,
        n_cols,
        ptr,
        idx,
        0,
        len(B),
        1.0,
        min_rows,
        min_cols,
        np.zeros((0, 1), dtype=np.uint64),
        np.zeros(n_cols, dtype=np.int64),  # no bitsets: every count walks lists
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )
    for name, ref in zip(("row_ptr", "row_idx", "col_ptr", "col_idx"), counted):
        assert np.array_equal(getattr(got, name), ref)
    D = X.toarray().astype(bool)
    expected = []
    for b in B:
        rows = np.flatnonzero(D[:, b].all(axis=1))
        cols = np.flatnonzero(D[rows].all(axis=0)) if len(rows) else np.zeros(0, dtype=np.int64)
        if len(rows) >= min_rows and len(cols) >= min_cols:
            expected.append((rows, cols))
    assert len(got) == len(expected)
    for i, (rows, cols) in enumerate(expected):
        assert np.array_equal(got.row_idx[got.row_ptr[i] : got.row_ptr[i + 1]], rows)
        assert np.array_equal(got.col_idx[got.col_ptr[i] : got.col_ptr[i + 1]], cols)


def test_coclustering_is_the_estimator_without_scikit_learn():
    """The recommender fits with :class:`coclust.fitting.CoClustering`: the estimator's co-clusters,
    its bad-input errors, and no scikit-learn import (about 2 s of every ``recsys train``)."""
    import subprocess
    import sys

    from coclust.fitting import CoClustering

    rng = np.random.default_rng(3)
    X = sp.csr_matrix((rng.random((120, 70)) < 0.15).astype(int))
    params = dict(n_bands=60, band_size=2, min_rows=3, min_cols=2, min_density=0.8, random_state=4)
    plain, sk = CoClustering(**params).fit(X).coclusters_, HBLCoClust(**params).fit(X).coclusters_
    assert len(plain) == len(sk) > 0
    assert all((a[0] == b[0]).all() and (a[1] == b[1]).all() for a, b in zip(plain, sk, strict=True))
    with pytest.raises(ValueError, match="binary"):
        CoClustering().fit(np.full((3, 3), 2))
    with pytest.raises(ValueError, match="n_bands"):
        CoClustering(n_bands=0).fit(np.eye(3))
    code = "import sys, recsys.model.learning, coclust.fitting; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
