"""The co-cluster item model: weights only on co-clustered pairs, lists whose reasons add up to
their scores, new people folded in without refitting, and the support controls."""

import copy
import dataclasses
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import FAST, list_total, scored_pairs, taste_data

from recsys.errors import UnknownIdError
from recsys.model import ProfileRecommender
from recsys.model.csr import Csr
from recsys.model.item_model import ease_on_support, full_weights, item_weights, random_support, support_of
from recsys.model.list_blend import ListBlend
from recsys.model.listing import list_key
from recsys.model.people import user_person


@pytest.fixture(scope="module")
def fitted():
    train, test, attrs, items = taste_data()
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0).fit(train, attrs, items)
    return model, train, test


def test_weights_live_on_the_support_only(fitted):
    model = fitted[0]
    fp = model.profiles_
    W, S = fp.item_weights, fp.pair_support
    found, _ = S.lookup(W.row_of, W.idx)
    assert W.nnz > 0 and found.all(), "no weight outside the co-clustered pairs"
    assert (S.to_scipy() != S.to_scipy().T).nnz == 0 and S.lookup(np.arange(5), np.arange(5))[0].sum() == 0


def test_new_item_weights_keep_what_the_co_clusters_gave_and_drop_what_the_weights_gave(fitted):
    """The item model's weights replaced: the pair support (a product of the co-clusters) is carried
    over, not computed again; what was read from the old weights (the shared co-clusters of each
    weight, the memos) is not."""
    fp = copy.copy(fitted[0].profiles_)
    support, _ = fp.pair_support, fp.shared_coclusters
    fp.memo("anything", 10)["x"] = 1
    W = fp.item_weights.with_values(2 * fp.item_weights.values)
    new = fp.with_item_model(W, fp.residual_weights)
    assert new.item_weights is W and new.residual_weights is fp.residual_weights
    assert new.__dict__["pair_support"] is support
    assert "shared_coclusters" not in new.__dict__ and "_memos" not in new.__dict__
    count, largest = new.shared_coclusters  # recomputed for the new weights, in their order
    assert len(count) == W.nnz == len(largest)


@pytest.mark.parametrize("valued", [False, True], ids=["likes", "residuals"])
def test_each_weight_is_the_ridge_regression_on_the_support(valued):
    rng = np.random.default_rng(0)
    X = (rng.random((40, 12)) < 0.4).astype(float)
    if valued:  # the residual model's input: real values (its Gram matrix is not kept in float32)
        X[X > 0] = rng.normal(size=int((X > 0).sum()))
    liked = Csr.from_pairs(*np.nonzero(X), X.shape, X[np.nonzero(X)] if valued else None)
    M = (rng.random((6, 12)) < 0.4).astype(float)  # six "co-clusters"
    M[:, 10:] = 0  # items 10 and 11 in none: no support, no weights, and left out of G
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), 12)
    W = item_weights(liked, support, 3.0).to_scipy().toarray()
    G = X.T @ X
    for j in range(12):
        S = support.row(j)
        if len(S):
            w = np.linalg.solve(G[np.ix_(S, S)] + 3.0 * np.eye(len(S)), G[S, j])
            assert W[S, j] == pytest.approx(w, rel=1e-9, abs=1e-12)
            assert not np.delete(W[:, j], S).any()
    E = full_weights(liked, 3.0).to_scipy().toarray()
    P = np.linalg.inv(G + 3.0 * np.eye(12))
    B = P / -np.diag(P)
    np.fill_diagonal(B, 0)
    assert E == pytest.approx(B), "every pair: EASE's closed form"
    R = random_support(support, 1)
    assert (R.lengths == support.lengths).all() and not R.lookup(np.arange(12), np.arange(12))[0].any()


@pytest.mark.parametrize("gram", ["dense", "sparse"])
@pytest.mark.parametrize("per_like", [0.0, 0.5, 3.0])
def test_a_penalty_per_like_grows_each_input_items_penalty_with_its_likes(monkeypatch, gram, per_like):
    """With ``l2_per_like`` δ, input item ``i``'s penalty is ``λ + δ G[i, i]`` in every path: the
    per-item solves (dense and sparse Gram), EASE on the support, and every pair (EDLAE's closed
    form ``-P[i, j] / P[j, j]``, ``P = (G + Λ)^-1``)."""
    import recsys.model.item_model as im

    rng = np.random.default_rng(3)
    X = (rng.random((50, 14)) < 0.35).astype(float)
    liked = Csr.from_pairs(*np.nonzero(X), X.shape)
    M = (rng.random((7, 14)) < 0.4).astype(float)
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), 14)
    if gram == "sparse":
        monkeypatch.setattr(im, "DENSE_GRAM_ITEMS", 0)
        monkeypatch.setattr(im, "DENSE_GRAM_SHARE", 2.0)
    G = X.T @ X
    penalty = 2.0 + per_like * np.diag(G)
    W = item_weights(liked, support, 2.0, l2_per_like=per_like).to_scipy().toarray()
    for j in range(14):
        S = support.row(j)
        if len(S):
            w = np.linalg.solve(G[np.ix_(S, S)] + np.diag(penalty[S]), G[S, j])
            assert W[S, j] == pytest.approx(w, rel=1e-6, abs=1e-9)
    P = np.linalg.inv(G + np.diag(penalty))
    B = P / -np.diag(P)
    np.fill_diagonal(B, 0)
    assert full_weights(liked, 2.0, per_like).to_scipy().toarray() == pytest.approx(B)
    assert im.ease_weights(liked.to_scipy(), 2.0, np.float64, per_like) == pytest.approx(B)
    on_support = ease_on_support(liked, support, 2.0, symmetric=True, l2_per_like=per_like).weights
    active = im.active_items(support)
    P = np.linalg.inv(G[np.ix_(active, active)] + np.diag(penalty[active]))
    want = np.zeros((14, 14))
    want[np.ix_(active, active)] = -P / np.diag(P)
    want[support.to_scipy().toarray() == 0] = 0.0
    assert on_support.to_scipy().toarray() == pytest.approx(want, rel=1e-6, abs=1e-9)
    if per_like:
        plain = item_weights(liked, support, 2.0).to_scipy().toarray()
        assert not np.allclose(W, plain), "the penalty per like moves the weights"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 14), st.integers(0, 6), st.booleans(), st.integers(0, 2**32 - 1))
def test_eases_weights_on_the_support_are_eases_own_on_its_items(n_users, n_items, n_coclusters, valued, seed):
    """Every weight :func:`ease_on_support` keeps is EASE's (``-P[i, j] / P[j, j]`` of the items with a
    support), every other is 0; the co-clusters' (symmetric) support and a random one, rows the
    items liked, columns the items scored, as :func:`item_weights` gives them; and the capped pairs
    it gives are those :func:`item_weights` solves on."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n_users, n_items)) < 0.4).astype(float)
    if valued:
        X[X > 0] = rng.normal(size=int((X > 0).sum()))
    liked = Csr.from_pairs(*np.nonzero(X), X.shape, X[np.nonzero(X)] if valued else None)
    M = (rng.random((n_coclusters, n_items)) < 0.5).astype(float)
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), n_items)
    for pairs, symmetric in [(support, True), (random_support(support, seed), False)]:
        result = ease_on_support(liked, pairs, 2.0, symmetric=symmetric, max_partners=2)
        W = result.weights.to_scipy().toarray()
        # the pairs the per-item solves would take, for the residual model: theirs
        solved = item_weights(liked, pairs, 2.0, max_partners=2).transpose()
        assert np.array_equal(result.capped.ptr, solved.ptr) and np.array_equal(result.capped.idx, solved.idx)
        S = pairs.to_scipy().toarray() > 0  # row: the item scored, column: its partner
        active = np.flatnonzero(S.any(axis=0) | S.any(axis=1))
        want = np.zeros((n_items, n_items))
        if len(active):
            P = np.linalg.inv(X[:, active].T @ X[:, active] + 2.0 * np.eye(len(active)))
            want[np.ix_(active, active)] = -P / np.diag(P)
        want[~S.T] = 0.0
        assert W == pytest.approx(want, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 9), st.integers(0, 9), st.floats(0, 1), st.integers(0, 2**32 - 1))
def test_a_dense_matrix_becomes_the_csr_of_its_nonzero_entries(n_rows, n_cols, density, seed):
    from recsys.model.item_model import _dense_to_csr

    rng = np.random.default_rng(seed)
    W = np.where(rng.random((n_rows, n_cols)) < density, rng.normal(size=(n_rows, n_cols)), 0.0)
    got = _dense_to_csr(W)
    want = Csr.from_pairs(*np.nonzero(W), W.shape, W[np.nonzero(W)])
    assert got.shape == want.shape
    assert np.array_equal(got.ptr, want.ptr) and np.array_equal(got.idx, want.idx)
    assert np.array_equal(got.values, want.values)


def test_a_sparse_gram_and_a_capped_support_keep_the_definition(monkeypatch):
    import recsys.model.item_model as im

    rng = np.random.default_rng(1)
    X = (rng.random((60, 30)) < 0.3).astype(float)
    liked = Csr.from_pairs(*np.nonzero(X), X.shape)
    M = (rng.random((8, 30)) < 0.5).astype(float)
    M[:, :3] = 0
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), 30)
    dense = item_weights(liked, support, 2.0).to_scipy().toarray()
    monkeypatch.setattr(im, "DENSE_GRAM_ITEMS", 0)
    monkeypatch.setattr(im, "DENSE_GRAM_SHARE", 2.0)  # never dense: the sparse path
    assert item_weights(liked, support, 2.0).to_scipy().toarray() == pytest.approx(dense)
    # a budget for partners of at most 5: each item keeps the 5 it is most co-liked with
    budget = 30 * 5**3 / 3
    assert (support.lengths[support.lengths > 0] > 5).all()  # every supported item is cut
    W = item_weights(liked, support, 2.0, budget=budget).to_scipy().toarray()
    G = X.T @ X
    for j in range(30):
        S = support.row(j)
        if len(S) > 5:
            S = np.sort(S[np.argsort(-G[S, j], kind="stable")[:5]])
        assert np.flatnonzero(W[:, j]).tolist() == S.tolist()
        if len(S):
            assert W[S, j] == pytest.approx(np.linalg.solve(G[np.ix_(S, S)] + 2.0 * np.eye(len(S)), G[S, j]))


def test_a_large_gram_is_dense_when_mostly_full_and_within_memory(monkeypatch):
    import scipy.sparse as sparse

    import recsys.model.item_model as im

    monkeypatch.setattr(im, "DENSE_GRAM_ITEMS", 10)
    full = sparse.csc_matrix(np.ones((5, 40)))
    diagonal = sparse.csc_matrix(np.eye(40))
    assert isinstance(im.gram(full), np.ndarray)
    assert isinstance(im.gram(diagonal), im.SparseGram)  # 1 in 40 cells
    assert np.array_equal(im.gram(full), (full.T @ full).toarray())
    monkeypatch.setattr(im, "DENSE_GRAM_BYTES", 8 * 40 * 40 - 1)
    assert isinstance(im.gram(full), im.SparseGram)  # would not fit
    monkeypatch.setattr(im, "DENSE_GRAM_ITEMS", 40)
    assert isinstance(im.gram(diagonal), np.ndarray)  # small catalogues: always dense


def test_list_reasons_add_up_to_the_scores(fitted):
    model, train, _ = fitted
    for user in (0, 1, 7):
        recs = model.recommend(user, n=5)
        assert [r["score"] for r in recs] == sorted((r["score"] for r in recs), reverse=True)
        assert not set(train.loc[train["user"] == user, "item"]) & {r["item"] for r in recs}
        for r in recs:
            assert list_total(r) == pytest.approx(r["score"], abs=1e-6)
            assert r["reasons"] and r["reasons"][0].startswith("you liked Movie ")
            assert all("people who liked both are in [L" in c["text"] for c in r["contributions"] if c["coclusters"])


def test_a_training_user_folded_in_gets_the_same_list(fitted):
    model, train, _ = fitted
    for user in (0, 3):
        mine = train[train["user"] == user]
        own = model.recommend(dict(zip(mine["item"], mine["rating"], strict=True)), n=8)
        assert [(r["item"], r["score"]) for r in own] == [(r["item"], r["score"]) for r in model.recommend(user, n=8)]
        assert [item for item, _ in model.lists([user], 8)[0]] == [r["item"] for r in own]


def test_a_new_person(fitted):
    model, _, _ = fitted
    likes_even = {0: 5, 2: 5, 4: 4, 6: 5, 1: 1, 3: 2, "no-such-movie": 5}
    recs = model.recommend(likes_even, n=10)
    assert len(recs) == 10 and not {0, 1, 2, 3, 4, 6} & {r["item"] for r in recs}
    assert sum(r["item"] % 2 == 0 for r in recs) >= 8, "a person who likes the even movies gets even movies"
    p = model.predict_for(pd.DataFrame({"item": [0, 2, 4, 1, 3], "rating": [5, 5, 4, 1, 1]}), [8, 10, 9, 11, "x"])
    assert min(p[:2]) > max(p[2:4]) and np.isnan(p[4]), "the even movies are likelier likes"
    with pytest.raises(UnknownIdError, match="none of the rated items"):
        model.recommend({"x": 5})
    # a person who liked nothing has nothing to score from: no list, not the first movies of a tie
    assert model.recommend({1: 1, 3: 2}, n=5) == []
    assert np.isfinite(model.predict_for({1: 1, 3: 2}, [8, 9])).all()


def test_the_model_directory_keeps_the_item_model(fitted, tmp_path):
    from recsys import store

    model = fitted[0]
    loaded = store.load(store.save(model, tmp_path / "m"))
    assert loaded.recommend(0, n=5) == model.recommend(0, n=5)
    assert loaded.recommend({0: 5, 2: 5, 1: 1}, n=5) == model.recommend({0: 5, 2: 5, 1: 1}, n=5)
    assert sp.issparse(loaded.profiles_.item_weights.to_scipy())
    # the explanations' pair table is stored, not recomputed, and checked at load
    assert "shared_coclusters" in loaded.profiles_.__dict__
    for mine, theirs in zip(loaded.profiles_.shared_coclusters, model.profiles_.shared_coclusters, strict=True):
        assert np.array_equal(mine, theirs)
    arrays = dict(np.load(tmp_path / "m" / "arrays.npz"))
    arrays["shared_coclusters.largest"][0] = len(model.profiles_.like)
    np.savez(tmp_path / "m" / "arrays.npz", **arrays)
    with pytest.raises(store.ModelFileError, match="shared_coclusters names co-cluster"):
        store.load(tmp_path / "m")


def test_item_terms_enter_the_score_and_their_ablation(fitted):
    model, _, test = fitted
    assert {"item_model", "item_residuals"} <= set(model.weights_.coef)
    without = model.with_evidence(("like_shares", "baseline", "like_coclusters", "dislike_coclusters"))
    b = without.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    # the score is the logistic of every term, the item terms among them, and theirs moves the logit
    # by more than a rounding error from pair to pair; the ablation has none of them
    a, ok, terms = scored_pairs(model, test)
    np.testing.assert_allclose(a.score[ok], model.weights_.probability(terms), rtol=1e-9)
    item_part = model.weights_.coef["item_model"] * terms["item_model"]
    assert item_part.std() > 0.05
    assert not {"item_model", "item_residuals"} & set(without.weights_.coef) and b.covered[ok].all()
    ex = model.predict(0, int(test["item"].iloc[0]))
    assert {"item_model", "item_residuals"} <= {line.term for line in ex.lines}


def test_list_rows_flag_users_without_a_list():
    from recsys.present.lists import list_rows

    rows = list_rows(["1", "nobody", "all-rated"], [[(50, 0.5), (181, 0.25)], None, []])
    assert rows == [
        {"user": "1", "rank": 1, "item": 50, "score": 0.5},
        {"user": "1", "rank": 2, "item": 181, "score": 0.25},
        {"user": "nobody", "reason": "unknown user"},
        {"user": "all-rated", "reason": "nothing to recommend"},
    ]
    new = list_rows(["1"], [[(50, 0.5), (181, 0.25)]], new_items={181})
    assert new[1]["reason"] == "new item: from its attributes alone" and "reason" not in new[0]


# -- the shortcuts that make lists and explanations fast give what the plain definitions give ----
def test_shared_coclusters_match_their_definition(fitted):
    fp = fitted[0].profiles_
    W, of_item, sizes = fp.item_weights, fp.like.of_item, fp.like.users.lengths
    count, largest = fp.shared_coclusters
    rows = np.repeat(np.arange(W.n_rows), W.lengths)
    for p in np.random.default_rng(0).choice(W.nnz, 300, replace=False):
        both = np.intersect1d(of_item.row(rows[p]), of_item.row(W.idx[p]))
        assert count[p] == len(both)
        best = both[np.lexsort((both, -sizes[both]))][0] if len(both) else -1
        assert largest[p] == best


def test_scores_of_a_few_items_are_the_full_scores(fitted):
    from recsys.model.item_model import scores, weighted_scores
    from recsys.model.terms import scores_of

    fp = fitted[0].profiles_
    rng = np.random.default_rng(1)
    for u in range(0, fp.n_users, 7):
        for items in (rng.choice(fp.n_items, 3, replace=False), np.arange(fp.n_items)):  # lookups, then full rows
            liked, (src, values) = fp.liked.row(u), (fp.residuals.row(u), fp.residuals.row_values(u))
            assert np.array_equal(scores_of(fp.item_weights, liked, items), scores(fp.item_weights, liked)[items])
            full = weighted_scores(fp.residual_weights, src, values)[items]
            assert np.array_equal(scores_of(fp.residual_weights, src, items, values), full)


def test_profile_support_and_matches_match_their_definition(fitted):
    from recsys.model.explanation import profile_matches

    fp = fitted[0].profiles_
    for u in range(0, fp.n_users, 3):
        for side in ("like", "dislike"):
            cc = fp.coclusters(side)
            items = np.concatenate([cc.items.row(c) for c in cc.of_user.row(u)] + [np.zeros(0, np.int64)])
            got_items, got_counts = fp.support(side, u)[:2]
            want_items, want_counts = np.unique(items, return_counts=True)
            assert np.array_equal(got_items, want_items) and np.array_equal(got_counts, want_counts)
        profile, i = fp.paper_profile(u), int(u % fp.n_items)
        matches = profile_matches(fp, u, i)
        for side in ("like", "dislike"):
            p_items, p_attrs = profile[side]
            expected = {str(fp.attributes[a]) for a in np.intersect1d(fp.item_attributes.row(i), p_attrs)}
            expected |= {f"this movie ({fp.item_name(i)})"} if i in p_items else set()
            assert {r["attribute"] for r in matches[side]} == expected


def test_positions_by_binary_search_are_the_dense_tables(fitted, monkeypatch):
    W = fitted[0].profiles_.item_weights
    keys = np.random.default_rng(2).integers(0, W.n_rows * W.shape[1], 5000)
    keys = np.concatenate([keys, W.keys[::7]])
    dense = W.positions(keys)
    monkeypatch.setattr(Csr, "DENSE_CELLS", 0)  # large catalogues: no n × n table
    assert np.array_equal(Csr(W.ptr, W.idx, W.values, W.shape).positions(keys), dense)
    assert (dense >= 0).sum() >= len(W.keys[::7]) and np.array_equal(W.keys[dense[dense >= 0]], keys[dense >= 0])


def test_scores_of_adds_in_the_order_of_the_full_rows():
    from recsys.model.item_model import scores
    from recsys.model.terms import scores_of

    rng = np.random.default_rng(3)
    n_src = 300  # weights of very different sizes: any other order of the additions rounds differently
    values = rng.choice([-1.0, 1.0], n_src) * 10.0 ** rng.uniform(-8, 8, n_src)
    # each source weighs the target (item n_src) and five others: one asked item is looked up
    rows = np.repeat(np.arange(n_src), 6)
    cols = np.column_stack([np.full(n_src, n_src)] + [(np.arange(n_src) + k) % n_src for k in range(1, 6)]).ravel()
    vals = np.column_stack([values] + [np.ones(n_src)] * 5).ravel()
    W = Csr.from_pairs(rows, cols, (n_src + 1, n_src + 1), vals)
    src = rng.permutation(n_src)
    sequential = 0.0
    for j in src:
        sequential += values[j]
    assert scores_of(W, src, np.array([n_src]))[0] == sequential == scores(W, src)[n_src]


def test_a_new_person_joins_the_coclusters_they_fill_enough(fitted):
    from recsys.model.fold_in import _joined

    fp = fitted[0].profiles_
    rng = np.random.default_rng(4)
    for _ in range(20):
        mine = np.sort(rng.choice(fp.n_items, int(rng.integers(1, fp.n_items)), replace=False))
        got = _joined(fp.like, mine, 0.8)
        held = np.array([np.isin(fp.like.items.row(c), mine).sum() for c in range(len(fp.like))])
        sizes = fp.like.items.lengths
        assert np.array_equal(got, np.flatnonzero((sizes > 0) & (held >= 0.8 * sizes - 1e-9)))


def test_top_items_are_the_sorted_scores_ties_by_index(fitted):
    from recsys.model.item_model import scores

    model = copy.copy(fitted[0])
    fp = dataclasses.replace(  # weights rounded: many equal scores
        fitted[0].profiles_,
        item_weights=fitted[0].profiles_.item_weights.with_values(np.round(fitted[0].profiles_.item_weights.values, 2)),
    )
    model.fitted_ = dataclasses.replace(fitted[0].fitted_, profiles=fp, list_blend=ListBlend())  # the item model alone
    ties_at_the_cut = 0
    for u in range(fp.n_users):
        liked, rated = fp.liked.row(u), fp.ratings.row(u)
        key = scores(fp.item_weights, liked)
        want = np.lexsort((np.arange(fp.n_items), -key))
        want = want[~np.isin(want, rated)]
        for n in (1, 3, 10, 10_000):
            got = list_key(model, user_person(model, u), rated).top(n)
            assert np.array_equal(got, want[:n])
            ties_at_the_cut += n < len(want) and key[want[n - 1]] == key[want[n]]
    assert ties_at_the_cut > 0  # the case that needs care was met


@settings(max_examples=40, deadline=None)
@given(
    n_rows=st.integers(1, 30),
    n_cols=st.integers(1, 30),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_lookups_within_rows_find_every_entry_and_nothing_else(n_rows, n_cols, density, seed):
    rng = np.random.default_rng(seed)
    M = rng.random((n_rows, n_cols)) < density
    m = Csr.from_pairs(*np.nonzero(M), M.shape)
    keys = rng.integers(0, n_rows * n_cols + 5, 200)  # a few past the last row too
    expected = np.array([m.keys.tolist().index(k) if k in set(m.keys.tolist()) else -1 for k in keys.tolist()])
    with mock.patch.object(Csr, "DENSE_CELLS", 0):  # large matrices: no rows × columns table
        assert np.array_equal(m.positions(keys), expected)


def test_sparse_gram_rows_longer_than_the_support_give_the_dense_weights(monkeypatch):
    """Short supports against long Gram rows take the kernel's binary-search branch."""
    import recsys.model.item_model as im

    rng = np.random.default_rng(5)
    X = (rng.random((200, 100)) < 0.5).astype(float)  # every Gram row holds ~100 entries
    liked = Csr.from_pairs(*np.nonzero(X), X.shape)
    M = np.zeros((40, 100))
    for c in range(40):  # small co-clusters: a few partners per movie
        M[c, rng.choice(100, 3, replace=False)] = 1
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), 100)
    assert 0 < support.lengths.max() * 8 < 100
    dense = item_weights(liked, support, 2.0)
    monkeypatch.setattr(im, "DENSE_GRAM_ITEMS", 0)
    monkeypatch.setattr(im, "DENSE_GRAM_SHARE", 2.0)  # never dense: the sparse path
    sparse = item_weights(liked, support, 2.0)
    assert np.array_equal(sparse.idx, dense.idx) and np.array_equal(sparse.values, dense.values)


def test_refits_within_shared_fits_solve_each_item_model_once(monkeypatch):
    import recsys.model.item_model as im
    from recsys.model.shared import shared_fits

    train, _, attrs, items = taste_data()
    params = dict(like_params=FAST, dislike_params=FAST, item_l2=50.0)
    solves = []
    real = im._item_weights
    monkeypatch.setattr(im, "_item_weights", lambda *a: solves.append(1) or real(*a))
    alone = ProfileRecommender(**params).fit(train, attrs, items).profiles_
    n_fit = len(solves)  # a fit: the validation profiles and the final ones, likes and residuals
    with shared_fits():
        a = ProfileRecommender(**params).fit(train, attrs, items).profiles_
        b = ProfileRecommender(**params, neighbours="ratings").fit(train, attrs, items).profiles_
        c = ProfileRecommender(**{**params, "item_l2": 60.0}).fit(train, attrs, items).profiles_
    assert len(solves) == 3 * n_fit, "the neighbours' control solved again; the new penalty did not"
    assert a.item_weights is b.item_weights and a.residual_weights is b.residual_weights
    for got in (a, b):
        for name in ("item_weights", "residual_weights"):
            assert np.array_equal(getattr(got, name).values, getattr(alone, name).values)
            assert np.array_equal(getattr(got, name).idx, getattr(alone, name).idx)
    assert not np.array_equal(c.item_weights.values, a.item_weights.values)
    ProfileRecommender(**params).fit(train, attrs, items)
    assert len(solves) == 4 * n_fit, "outside the block nothing is kept"


def test_refits_within_shared_fits_learn_each_co_clustering_and_neighbourhood_once(monkeypatch):
    import recsys.model.learning as learning
    from recsys.model.shared import shared_fits

    train, _, attrs, items = taste_data()
    params = dict(like_params=FAST, dislike_params=FAST, item_l2=50.0)
    calls = {"co": 0, "nb": 0}
    co, nb = learning._cocluster, learning._neighbourhoods
    monkeypatch.setattr(learning, "_cocluster", lambda *a: calls.__setitem__("co", calls["co"] + 1) or co(*a))
    monkeypatch.setattr(learning, "_neighbourhoods", lambda *a: calls.__setitem__("nb", calls["nb"] + 1) or nb(*a))
    alone = ProfileRecommender(**params).fit(train, attrs, items)
    per_fit = dict(calls)  # the validation profiles and the final ones: two of each, two sides
    with shared_fits():
        a = ProfileRecommender(**params).fit(train, attrs, items)
        b = ProfileRecommender(**{**params, "item_l2": 60.0}).fit(train, attrs, items)
        c = ProfileRecommender(**params, neighbours="ratings").fit(train, attrs, items)
        d = ProfileRecommender(**{**params, "random_state": 1}).fit(train, attrs, items)
    assert calls["co"] == per_fit["co"] * 3, "the co-clusters of a, b and c are one; d's seed differs"
    assert calls["nb"] == per_fit["nb"] * 4, "c's neighbourhoods differ, d's co-clusters do"
    assert a.profiles_.like is b.profiles_.like and a.profiles_.neighbours is b.profiles_.neighbours
    assert a.profiles_.like is c.profiles_.like and a.profiles_.neighbours is not c.profiles_.neighbours
    users, found = train["user"].to_numpy(), train["item"].to_numpy()
    assert np.array_equal(a.predict_many(users, found).score, alone.predict_many(users, found).score)
    assert a.report_["like_coclusters"] == alone.report_["like_coclusters"]
    assert d.profiles_.like is not a.profiles_.like


def test_shared_fits_let_the_oldest_go_past_their_bytes(monkeypatch):

    rng = np.random.default_rng(3)
    X = (rng.random((30, 10)) < 0.4).astype(float)
    liked = Csr.from_pairs(*np.nonzero(X), X.shape)
    support = support_of(Csr.from_pairs(*np.nonzero(np.ones((1, 10))), (1, 10)), 10)
    import recsys.model.shared as shared

    monkeypatch.setattr(shared, "SHARED_BYTES", 1)
    with shared.shared_fits():
        first = item_weights(liked, support, 1.0)
        item_weights(liked, support, 2.0)  # the only one kept now
        assert item_weights(liked, support, 1.0) is not first


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 40), st.floats(0.05, 0.9), st.integers(0, 2**32 - 1))
def test_the_dense_gram_matrix_is_scipys_product_float_for_float(n_users, n_items, density, seed):
    """The compiled Gram matrix (its lower triangle, copied up) is ``X'X`` as scipy's sparse product
    makes it, float for float, in both triangles; in float32 it is symmetric float for float."""
    from recsys.model.item_model import _dense_gram

    rng = np.random.default_rng(seed)
    X = sp.random(n_users, n_items, density=density, random_state=rng, format="csr")
    X.data = rng.normal(size=X.nnz)
    G = _dense_gram(X)
    assert np.array_equal(G, (X.T @ X).toarray())
    G32 = _dense_gram(X, np.float32)
    assert G32.dtype == np.float32 and np.array_equal(G32, G32.T)
    assert G32 == pytest.approx(G.astype(np.float32), rel=1e-5, abs=1e-5)


def test_ease_on_support_leaves_the_capped_pairs_out_when_asked(monkeypatch):
    """An implicit model has no residual model: the capped pairs are not made (0.1 s at 1 M), the
    weights are the same."""
    import recsys.model.item_model as im

    rng = np.random.default_rng(3)
    X = (rng.random((30, 9)) < 0.4).astype(float)
    liked = Csr.from_pairs(*np.nonzero(X), X.shape)
    M = (rng.random((4, 9)) < 0.5).astype(float)
    support = support_of(Csr.from_pairs(*np.nonzero(M), M.shape), 9)
    made = []
    real = im.capped_support
    monkeypatch.setattr(im, "capped_support", lambda *a, **k: made.append(1) or real(*a, **k))
    full = ease_on_support(liked, support, 2.0, symmetric=True)
    bare = ease_on_support(liked, support, 2.0, symmetric=True, capped=False)
    assert made == [1] and full.capped.nnz > 0 and bare.capped.nnz == 0
    assert np.array_equal(full.weights.values, bare.weights.values)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.floats(0, 1), st.booleans(), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_eases_weights_read_from_the_inverse_are_numpys_gather_float_for_float(n, density, symmetric, pieces, seed):
    """The compiled reading of ``-P[i, j] / P[j, j]`` at a support's entries, in any ranges of rows, gives
    numpy's gather bit for bit (``j``: the entry's column for a symmetric support, its row otherwise)."""
    from recsys.model.item_model import _weights_of_inverse

    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    P = A @ A.T + n * np.eye(n)
    mask = rng.random((n, n)) < density
    local = Csr.from_pairs(*np.nonzero(mask), (n, n))
    scored = local.idx if symmetric else local.row_of
    want = -P[local.row_of, local.idx] / np.diagonal(P)[scored]
    with mock.patch("recsys.model.item_model.cores", return_value=pieces):
        got = _weights_of_inverse(P, local, symmetric)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("valued", [False, True])
def test_a_large_catalogues_inverse_is_single_precision_where_its_counts_are_exact(monkeypatch, valued):
    """From ``SINGLE_PRECISION_INVERSE_ITEMS`` items, 0/1 likes (counts exact in float32) are inverted
    in float32: EASE's weights, on the support and in full, to float32's precision; valued likes
    keep float64's."""
    import recsys.model.item_model as im
    from recsys.model.dense_inverse import spd_inverse

    rng = np.random.default_rng(5)
    X = (rng.random((200, 40)) < 0.3).astype(float)
    if valued:
        X[X > 0] = rng.normal(size=int((X > 0).sum()))
    liked = Csr.from_pairs(*np.nonzero(X), X.shape, X[np.nonzero(X)] if valued else None)
    support = support_of(Csr.from_pairs(*np.nonzero(rng.random((6, 40)) < 0.8), (6, 40)), 40)
    assert len(im.active_items(support)) == 40  # the support's inverse is over every item too
    inverted = []
    monkeypatch.setattr(im, "spd_inverse", lambda G, **k: inverted.append(G.dtype) or spd_inverse(G, **k))
    monkeypatch.setattr(im, "SINGLE_PRECISION_INVERSE_ITEMS", 40)
    W = im.ease_on_support(liked, support, 3.0, symmetric=True).weights.to_scipy().toarray()
    full = im.ease_weights(liked.to_scipy(), 3.0)
    assert inverted == [np.float32 if not valued else np.float64] * 2
    P = np.linalg.inv(X.T @ X + 3.0 * np.eye(40))
    want = -P / np.diag(P)
    np.fill_diagonal(want, 0.0)
    tolerance = 1e-5 if not valued else 1e-12
    assert full == pytest.approx(want, abs=tolerance * np.abs(want).max())
    on_support = support.to_scipy().toarray().T > 0
    assert W == pytest.approx(np.where(on_support, want, 0.0), abs=tolerance * np.abs(want).max())
    im.ease_weights(liked.to_scipy(), 3.0, np.float64)  # asked for: the evaluations' anchor
    assert inverted[-1] == np.float64
    im.full_weights(liked, 3.0)  # the full-support control: double, as the anchor
    assert inverted[-1] == np.float64
    monkeypatch.setattr(im, "SINGLE_PRECISION_INVERSE_ITEMS", 41)  # one item short: double precision
    im.ease_weights(liked.to_scipy(), 3.0)
    assert inverted[-1] == np.float64
