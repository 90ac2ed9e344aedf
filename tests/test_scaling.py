"""The rules for large data (``ProfileRecommender(scaling=...)``): one fit, a per-user budget of
co-clusters, the item penalty grown with the like counts; and the sparse similarity path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_recsys_model import FAST, taste_data

from recsys.errors import ParameterError
from recsys.model import ProfileRecommender
from recsys.model import neighbours as nbmod
from recsys.model.csr import Csr
from recsys.model.learning import add_ratings, fit_profiles, most_selective
from recsys.model.settings import COCLUSTERS_PER_USER, ITEM_L2_REFERENCE_LIKES


@st.composite
def memberships(draw):
    n_users = draw(st.integers(1, 12))
    n_cc = draw(st.integers(1, 15))
    rows = [np.array(sorted(draw(st.sets(st.integers(0, n_users - 1), min_size=1, max_size=n_users))))
            for _ in range(n_cc)]  # fmt: skip
    return rows, n_users, draw(st.integers(1, 6)), draw(st.integers(1, 3))


@settings(max_examples=150, deadline=None)
@given(memberships())
def test_most_selective_is_its_definition(case):
    rows, n_users, budget, min_rows = case
    left, kept = most_selective(rows, n_users, budget, min_rows)
    # the definition, one user at a time: their co-clusters by (size, index), the first `budget`
    stays = set()
    for u in range(n_users):
        mine = sorted((len(r), c) for c, r in enumerate(rows) if u in r)
        stays |= {(c, u) for _, c in mine[:budget]}
    expected = {c: sorted(u for cc, u in stays if cc == c) for c in range(len(rows))}
    expected_kept = [c for c in range(len(rows)) if len(expected[c]) >= min_rows]
    assert kept.tolist() == expected_kept
    assert [r.tolist() for r in left] == [expected[c] for c in expected_kept]
    per_user = np.bincount(np.concatenate(left), minlength=n_users) if left else np.zeros(n_users)
    assert per_user.max(initial=0) <= budget


def test_a_budget_no_user_reaches_changes_nothing():
    rows = [np.array([0, 1, 2]), np.array([1, 2]), np.array([0, 3])]
    left, kept = most_selective(rows, 4, budget=3, min_rows=2)
    assert kept.tolist() == [0, 1, 2] and [r.tolist() for r in left] == [r.tolist() for r in rows]


@pytest.mark.parametrize("n_neighbours", [1, 7, 500])
def test_sparse_similarities_are_the_dense_ones(monkeypatch, n_neighbours):
    rng = np.random.default_rng(3)
    # few distinct co-clusters, so that many similarities tie (ties go by index on both paths)
    lists = [np.unique(rng.integers(0, 300, rng.integers(2, 30))) for _ in range(40)]
    lists = [lists[j] for j in rng.integers(0, 40, 400)]
    members = Csr.from_lists(lists, 300)
    dense = nbmod.from_coclusters(members, 300, n_neighbours, block=64)
    monkeypatch.setattr(nbmod, "DENSE_SIMILARITY_ENTITIES", 0)
    sparse = nbmod.from_coclusters(members, 300, n_neighbours, block=64)
    assert np.array_equal(dense.ptr, sparse.ptr)
    assert np.array_equal(dense.sim, sparse.sim)
    # within a run of equal similarities the dense path's order is argpartition's: compare as sets
    for a in range(300):
        (di, ds), (si, ss) = dense.of(a), sparse.of(a)
        for v in np.unique(ds):
            assert set(di[ds == v]) == set(si[ss == v]) or v == ds[-1]
    assert (np.diff(sparse.sim[sparse.ptr[0] : sparse.ptr[1]]) <= 0).all()


@pytest.fixture(scope="module")
def data():
    return taste_data(n_users=120, n_items=60)


def fit(train, attrs, items, **params):
    return ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, **params).fit(train, attrs, items)


def test_auto_on_small_data_is_off(data):
    train, test, attrs, items = data
    auto, off = fit(train, attrs, items), fit(train, attrs, items, scaling="off")
    assert auto.report_["scaling"] == off.report_["scaling"] == {"on": False, "item_l2": 50.0}
    u, i = test["user"].to_numpy(), test["item"].to_numpy()
    assert np.array_equal(auto.predict_many(u, i).score, off.predict_many(u, i).score, equal_nan=True)


def test_scaling_on_fits_once_and_keeps_every_rating(data):
    train, test, attrs, items = data
    messages = []
    on = fit(train, attrs, items, scaling="on")
    ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, scaling="on").fit(
        train, attrs, items, progress=messages.append
    )
    assert sum("co-clustering the like relation" in m for m in messages) == 1
    assert any("held-out ratings added to the profiles" in m for m in messages)
    fp = on.profiles_
    assert fp.ratings.nnz == len(train)  # the held-out ratings are in the table the votes read
    u, i = fp.user_index(train["user"].to_numpy()), fp.item_index(train["item"].to_numpy())
    assert np.array_equal(fp.ratings.lookup(u, i)[1], train["rating"].to_numpy(dtype=float))
    liked = train[train["rating"] > 2]
    inner = liked[~_held(on, train).loc[liked.index]]
    mean_likes = len(inner) / inner["item"].nunique()
    assert on.report_["scaling"] == {"on": True, "item_l2": pytest.approx(50.0 * mean_likes / ITEM_L2_REFERENCE_LIKES)}
    assert np.isfinite(on.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score).any()
    assert on.recommend(int(train["user"].iloc[0]), n=5)


def _held(model, ratings):
    import pandas as pd

    from recsys.model.ratings import holdout_mask

    return pd.Series(holdout_mask(ratings, model.validation_fraction, model.random_state), index=ratings.index)


def test_the_budget_bounds_each_users_coclusters(data):
    train, _, attrs, items = data
    fp, report = fit_profiles(train, attrs, items, like_params=FAST, dislike_params=FAST, item_l2=None, user_budget=3)
    for side in ("like", "dislike"):
        assert fp.coclusters(side).of_user.lengths.max() <= 3
        assert (fp.coclusters(side).users.lengths >= FAST["min_rows"]).all()
        assert report[f"{side}_budget"]["per_user"] == 3
    free, _ = fit_profiles(train, attrs, items, like_params=FAST, dislike_params=FAST, item_l2=None)
    assert free.like.of_user.lengths.max() > 3  # the budget did bind
    assert COCLUSTERS_PER_USER >= 100


def test_add_ratings_refuses_strangers(data):
    train, _, attrs, items = data
    fp, _ = fit_profiles(train.iloc[:-50], attrs, items, like_params=FAST, dislike_params=FAST, item_l2=None)
    stranger = train.iloc[:1].assign(user=10_000)
    with pytest.raises(ValueError, match="not fitted with"):
        add_ratings(fp, stranger)


def test_scaling_must_be_a_known_rule(data):
    with pytest.raises(ParameterError, match="scaling"):
        ProfileRecommender(scaling="sometimes").fit(data[0])
