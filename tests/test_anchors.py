"""The top-N anchors are not sandbagged: on MovieLens 100K u1, the lists of the cornac / implicit
anchors score within 0.01 NDCG@10 of a plain-numpy computation of the same model with the same
setting, on the same protocol (every user with a test rating >= 4; candidates: the catalogue
minus the user's training items; binary gain; ideal DCG over min(relevant, 10))."""

import numpy as np
import pytest

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def u1(shared_data):
    from ingest.datasets import load_movies

    d = load_movies("ml-100k", "u1", shared_data, ("genre",), 3)
    catalogue = np.unique(np.concatenate([d.train["item"].to_numpy(), d.items["item"].to_numpy()]))
    likes = d.train[d.train["rating"] > 2]
    users = np.unique(d.train["user"])
    X = np.zeros((len(users), len(catalogue)))
    X[np.searchsorted(users, likes["user"]), np.searchsorted(catalogue, likes["item"])] = 1.0
    seen = np.zeros_like(X, dtype=bool)
    seen[np.searchsorted(users, d.train["user"]), np.searchsorted(catalogue, d.train["item"])] = True
    return d, catalogue, users, X, seen


def plain_ndcg(S, u1):
    """NDCG@10 of the scores ``S`` (users × catalogue), computed here without the package."""
    d, catalogue, users, _, seen = u1
    rel = d.test[d.test["rating"] >= 4]
    S = np.where(seen, -np.inf, S)
    out = []
    for u, g in rel.groupby("user"):
        row = S[np.searchsorted(users, u)]
        top = np.argsort(-row, kind="stable")[:10]
        hits = np.isin(catalogue[top], g["item"].to_numpy())
        dcg = (hits / np.log2(np.arange(2, 12))).sum()
        idcg = (1 / np.log2(np.arange(2, 2 + min(10, len(g))))).sum()
        out.append(dcg / idcg)
    return float(np.mean(out))


def anchor_ndcg(method, u1):
    from recsys.evaluation.methods import Training
    from recsys.evaluation.ranking import RankingTask, list_metrics, top_lists

    d, catalogue, *_ = u1
    method.fit(Training(d.train))
    task = RankingTask.of(d.train, d.test, catalogue)
    return list_metrics(top_lists(method, task), task.relevant, len(catalogue))["ndcg@10"]


def test_ease_equals_its_closed_form(u1):
    from recsys.evaluation.anchors import EASE

    X = u1[3]
    G = X.T @ X + 400.0 * np.eye(X.shape[1])
    P = np.linalg.inv(G)
    B = P / -np.diag(P)
    np.fill_diagonal(B, 0.0)
    plain, ours = plain_ndcg(X @ B, u1), anchor_ndcg(EASE(2.0, 0, "likes", lamb=400), u1)
    assert abs(plain - ours) < 0.01 and ours > 0.44


def test_itemknn_equals_cosine_neighbourhoods(u1):
    from recsys.evaluation.anchors import ItemKNN

    X = u1[3]
    norms = np.sqrt(X.sum(axis=0))
    S = (X.T @ X) / np.maximum(np.outer(norms, norms), 1e-12)
    np.fill_diagonal(S, 0.0)
    k = 400
    drop = np.argsort(-S, axis=1)[:, k:]  # each item keeps its k most similar items
    np.put_along_axis(S, drop, 0.0, axis=1)
    plain, ours = plain_ndcg(X @ S, u1), anchor_ndcg(ItemKNN(2.0, 0, "likes", k=k), u1)
    assert abs(plain - ours) < 0.01 and ours > 0.38


@pytest.mark.parametrize("stars", [False, True])
def test_ease_is_cornacs(stars):
    """The closed form in place gives cornac's ``EASE`` weights, 0/1 or starred input."""
    import cornac
    import scipy.sparse as sp

    from recsys.model.item_model import ease_weights

    rng = np.random.default_rng(5)
    X = np.where(rng.random((40, 25)) < 0.3, rng.integers(1, 6, (40, 25)) if stars else 1, 0).astype(float)
    X[:, 7] = 0  # an item nobody rated: zero weights both ways
    rows, cols = np.nonzero(X)
    data = cornac.data.Dataset.from_uir(list(zip(rows.tolist(), cols.tolist(), X[rows, cols].tolist())), seed=0)
    theirs = cornac.models.EASE(lamb=30.0, posB=False, verbose=False, seed=0).fit(data).B
    seen = np.array(sorted(data.iid_map))
    order = np.array([data.iid_map[j] for j in seen])
    ours = ease_weights(sp.csr_matrix(X), 30.0)
    np.testing.assert_allclose(ours[np.ix_(seen, seen)], theirs[np.ix_(order, order)], atol=1e-12)
    assert not ours[7].any() and not ours[:, 7].any()


@pytest.mark.parametrize("per_like", [0.0, 2.0])
@pytest.mark.parametrize("kind", ["likes", "weighted"])
def test_ease_is_fitted_on_the_matrix_of_its_input(kind, per_like):
    """EASE's weights are the closed form of the users × items matrix its input makes: 0/1 for the
    likes, the stars for ``weighted`` (the Gram matrix of the stars, not of their pattern); with a
    penalty per like, item ``i``'s penalty is ``λ + δ (X'X)[i, i]`` (EDLAE)."""
    import pandas as pd

    from recsys.evaluation.anchors import EASE
    from recsys.evaluation.methods import Training

    rng = np.random.default_rng(3)
    cells = [(u, i) for u in range(12) for i in range(7) if rng.random() < 0.6]
    ratings = pd.DataFrame(cells, columns=["user", "item"]).assign(rating=rng.integers(1, 6, len(cells)))
    X = np.zeros((12, 7))
    values = ratings["rating"].to_numpy(dtype=float)
    keep = np.ones(len(values), bool) if kind == "weighted" else values > 2
    X[ratings["user"][keep], ratings["item"][keep]] = values[keep] if kind == "weighted" else 1.0
    G = X.T @ X
    P = np.linalg.inv(G + np.diag(5.0 + per_like * np.diag(G)))
    B = P / -np.diag(P)
    np.fill_diagonal(B, 0.0)
    model = EASE(2.0, 0, kind, lamb=5.0, l2_per_like=per_like).fit(Training(ratings))
    seen = model.items_.to_numpy()
    np.testing.assert_allclose(model.W_, B[np.ix_(seen, seen)], atol=1e-9)
