import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from coclust.lsh import band_features, band_keys, find_seeds, key_bits, sketch_union
from coclust.minhash import HashFamily, minhash_features, minhash_values

P = (1 << 31) - 1


def random_csr(n_rows, n_cols, density, seed):
    return sp.random(n_rows, n_cols, density=density, format="csr", random_state=seed, data_rvs=np.ones)


def test_values_are_exact_mod_p_minima():
    X = random_csr(40, 300, 0.05, 1)
    H = HashFamily.sample(37, random_state=3)
    vals = minhash_values(X, H)
    feats = minhash_features(X, H)
    for r in range(X.shape[0]):
        xs = X.indices[X.indptr[r] : X.indptr[r + 1]]
        for h in range(len(H)):
            if len(xs) == 0:
                assert feats[r, h] == -1
                continue
            hv = [(int(H.a[h]) * int(x) + int(H.b[h])) % P for x in xs]
            assert vals[r, h] == min(hv)
            assert feats[r, h] == xs[int(np.argmin(hv))]


@given(st.lists(st.integers(0, P - 2), min_size=1, max_size=12, unique=True), st.integers(0, 2**32 - 1))
def test_values_are_exact_for_features_up_to_the_largest(features, seed):
    # the kernel multiplies in 32x32 -> 64 bits and keeps minima in 32 bits: check at the limits
    X = sp.csr_matrix((np.ones(len(features)), ([0] * len(features), features)), shape=(1, P - 1))
    H = HashFamily.sample(64, random_state=seed)
    vals = minhash_values(X, H)
    for h in range(len(H)):
        assert vals[0, h] == min((int(H.a[h]) * x + int(H.b[h])) % P for x in features)


@given(st.integers(0, 2**32 - 1))
def test_hash_family_inverses(seed):
    H = HashFamily.sample(50, random_state=seed)
    assert [int(v) for v in H.a_inv] == [pow(int(a), P - 2, P) for a in H.a]


@given(st.integers(0, 10_000), st.sampled_from([2, 3, 4]))
def test_band_features_decoded_from_keys_equal_recomputed(seed, band_size):
    X = random_csr(25, 150, 0.1, seed)
    H = HashFamily.sample(10 * band_size, random_state=seed)
    keys, rows, bands = band_keys(X, 10, band_size, H)
    decoded = band_features(X, rows, bands, band_size, H, keys)
    recomputed = band_features(X, rows, bands, band_size, H)
    assert all(np.array_equal(d, r) for d, r in zip(decoded, recomputed))


def test_collision_rate_estimates_jaccard():
    # the property MinHash exists for: P(equal minhash) = Jaccard similarity
    rng = np.random.default_rng(0)
    a = rng.choice(5000, 400, replace=False)
    b = np.concatenate([a[:200], rng.choice(np.setdiff1d(np.arange(5000), a), 200, replace=False)])
    X = sp.csr_matrix((np.ones(800), (np.repeat([0, 1], 400), np.concatenate([a, b]))), shape=(2, 5000))
    jaccard = 200 / 600
    F = minhash_features(X, HashFamily.sample(4000, random_state=1))
    est = (F[0] == F[1]).mean()
    assert abs(est - jaccard) < 4 * np.sqrt(jaccard * (1 - jaccard) / 4000)


def test_band_keys_bucket_identical_rows_and_recover_features():
    X = sp.csr_matrix(np.array([[1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [0, 0, 1, 1, 1]]))
    H = HashFamily.sample(8 * 2, random_state=0)
    seeds = find_seeds(X, 8, 2, 2, H)
    assert len(seeds) >= 1
    for s in range(len(seeds)):
        objs = seeds.row_idx[seeds.row_ptr[s] : seeds.row_ptr[s + 1]]
        feats = seeds.col_idx[seeds.col_ptr[s] : seeds.col_ptr[s + 1]]
        assert objs.tolist() == [0, 1]
        assert set(feats) <= {0, 1, 2}
    keys, rows, bands = band_keys(X, 8, 2, H)
    ptr, idx = band_features(X, rows, bands, 2, H)
    for i in range(len(rows)):
        row = set(X.indices[X.indptr[rows[i]] : X.indptr[rows[i] + 1]])
        assert set(idx[ptr[i] : ptr[i + 1]]) <= row


def test_rows_shorter_than_a_band_get_no_key():
    X = sp.csr_matrix(np.array([[1, 0, 0], [1, 1, 1]]))
    _, rows, _ = band_keys(X, 4, 2, HashFamily.sample(8, random_state=0))
    assert set(rows.tolist()) == {1}


def test_hashed_keys_when_packing_does_not_fit():
    # 2**30 features × band_size 3 needs 90 bits: keys are hashed, buckets unchanged
    n = 1 << 30
    X = sp.csr_matrix((np.ones(6), ([0, 0, 0, 1, 1, 1], [5, n - 2, 77, 5, n - 2, 77])), shape=(2, n))
    seeds = find_seeds(X, 5, 3, 2, HashFamily.sample(15, random_state=0))
    assert len(seeds) >= 1
    assert seeds.row_idx.tolist() == [0, 1] * len(seeds)
    assert set(seeds.col_idx.tolist()) <= {5, 77, n - 2}


def test_pipeline_keys_are_the_exact_minhash_keys():
    """The band keys fit computes (one inlined MinHash kernel) are the sorted, packed features of
    minimum hash, checked against exact big-integer minima."""
    X = random_csr(30, 200, 0.08, 4)
    n_bands, band_size = 12, 3
    H = HashFamily.sample(n_bands * band_size, random_state=5)
    keys, rows, bands = band_keys(X, n_bands, band_size, H)
    bits = key_bits(X.shape[1], band_size)
    expected = set()
    for r in range(X.shape[0]):
        xs = X.indices[X.indptr[r] : X.indptr[r + 1]]
        if len(xs) < band_size:
            continue
        for b in range(n_bands):
            feats = []
            for h in range(b * band_size, (b + 1) * band_size):
                hv = [(int(H.a[h]) * int(x) + int(H.b[h])) % P for x in xs]
                feats.append(int(xs[int(np.argmin(hv))]))
            key = 0
            for f in sorted(feats):
                key = (key << bits) | f
            expected.add((key, r))
    assert set(zip(keys.tolist(), rows.tolist())) == expected
    assert len(keys) == len(expected)  # distinct within each row


def _seed_set(seeds):
    return {
        (
            tuple(seeds.row_idx[seeds.row_ptr[s] : seeds.row_ptr[s + 1]]),
            tuple(seeds.col_idx[seeds.col_ptr[s] : seeds.col_ptr[s + 1]]),
        )
        for s in range(len(seeds))
    }


@given(st.integers(0, 10_000), st.integers(2, 4), st.sampled_from([0.03, 0.1, 0.3]))
def test_two_pass_lsh_gives_the_one_pass_seeds(seed, min_bucket, density):
    """Above the memory budget keys are counted in a sketch first and only those that can make a
    bucket are kept: the seeds must be exactly those of grouping every key."""
    X = random_csr(300, 120, density, seed)
    weights = np.ones(300, dtype=np.int64)
    weights[::7] = 2  # some rows stand for two identical ones
    H = HashFamily.sample(40 * 2, random_state=seed)
    stats = {}
    one = find_seeds(X, 40, 2, min_bucket, H, row_weight=weights)
    two = find_seeds(X, 40, 2, min_bucket, H, row_weight=weights, memory=1, stats=stats)
    assert stats["passes"] == 2
    assert _seed_set(one) == _seed_set(two)
    assert stats["candidate_pairs"] <= stats["estimated_pairs"] * 2


@given(st.binary(min_size=8, max_size=64).filter(lambda b: len(b) % 8 == 0), st.randoms())
def test_sketch_union_adds_every_cell_and_saturates_at_three(data, rnd):
    """The union of two sketches (the Dask backend's tree of partial sketches) is the cell-wise
    sum of their 2-bit counters, capped at 3."""
    a = np.frombuffer(data, dtype=np.uint8)
    b = np.array([rnd.randrange(256) for _ in range(len(a))], dtype=np.uint8)
    cells = lambda t: np.stack([(t >> s) & 3 for s in (0, 2, 4, 6)], axis=1).astype(int)  # noqa: E731
    assert (cells(sketch_union(a, b)) == np.minimum(cells(a) + cells(b), 3)).all()
    assert (sketch_union(a, b) == sketch_union(b, a)).all()


_THREADS_CHILD = """
import json, numba, numpy as np, scipy.sparse as sp
from coclust import HBLCoClust
from coclust._parallel import n_threads
rng = np.random.default_rng(9)
X = sp.csr_matrix((rng.random((400, 150)) < 0.06).astype(np.int8))
fits = {}
for threads in (1, 4):
    numba.set_num_threads(threads)
    assert n_threads() == threads
    m = HBLCoClust(n_bands=50, band_size=2, min_rows=3, min_cols=2, min_density=0.8, lsh_memory=1 << 20,
                   random_state=1).fit(X)
    fits[threads] = [(r.tolist(), c.tolist()) for r, c in m.coclusters_]
print(json.dumps({"same": fits[1] == fits[4], "found": len(fits[1])}))
"""


@pytest.mark.slow
def test_threads_do_not_change_the_result():
    """One thread and four (forced through NUMBA_NUM_THREADS, whatever the machine's cores, so
    the thread pool is used even on one core) give the same co-clusters."""
    from experiments.runner import child_json

    out = child_json(["-c", _THREADS_CHILD], env={"NUMBA_NUM_THREADS": "4"})
    assert out["same"] and out["found"] > 0
