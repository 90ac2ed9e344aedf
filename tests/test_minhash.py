import numpy as np
import scipy.sparse as sp

from coclust.lsh import band_features, band_keys, find_seeds
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
        objs = seeds.obj_idx[seeds.obj_ptr[s] : seeds.obj_ptr[s + 1]]
        feats = seeds.feat_idx[seeds.feat_ptr[s] : seeds.feat_ptr[s + 1]]
        assert objs.tolist() == [0, 1]
        assert set(feats) <= {0, 1, 2}
    bk = band_keys(X, 8, 2, H)
    ptr, idx = band_features(X, bk.rows, bk.bands, 2, H)
    for i in range(len(bk.rows)):
        row = set(X.indices[X.indptr[bk.rows[i]] : X.indptr[bk.rows[i] + 1]])
        assert set(idx[ptr[i] : ptr[i + 1]]) <= row


def test_rows_shorter_than_a_band_get_no_key():
    X = sp.csr_matrix(np.array([[1, 0, 0], [1, 1, 1]]))
    bk = band_keys(X, 4, 2, HashFamily.sample(8, random_state=0))
    assert set(bk.rows.tolist()) == {1}


def test_hashed_keys_when_packing_does_not_fit():
    # 2**30 features × band_size 3 needs 90 bits: keys are hashed, buckets unchanged
    n = 1 << 30
    X = sp.csr_matrix((np.ones(6), ([0, 0, 0, 1, 1, 1], [5, n - 2, 77, 5, n - 2, 77])), shape=(2, n))
    seeds = find_seeds(X, 5, 3, 2, HashFamily.sample(15, random_state=0))
    assert len(seeds) >= 1
    assert seeds.obj_idx.tolist() == [0, 1] * len(seeds)
    assert set(seeds.feat_idx.tolist()) <= {5, 77, n - 2}
