"""The lists' blend (recsys.model.list_blend): its choice on held-out lists, and the lists it makes."""

import copy
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import FAST, list_total, taste_data

from recsys.model import ProfileRecommender
from recsys.model.list_blend import GRID, ListBlend, ValidationList, candidates, choose, log_likes, logit
from recsys.model.listing import list_key
from recsys.model.people import user_person
from recsys.model.topn import ndcg_per_user, top_k


@pytest.fixture(scope="module")
def fitted():
    train, test, attrs, items = taste_data()
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0).fit(train, attrs, items)
    return model, train


@pytest.fixture(scope="module")
def blended(fitted):
    """The fitted model with a blend set by hand: both parts in every list."""
    model = copy.copy(fitted[0])
    model.fitted_ = dataclasses.replace(model.fitted_, list_blend=ListBlend(popularity=0.3, like=0.7, candidates=5))
    return model, fitted[1]


def _rows(rng, n_users, n_cand, relevant_by):
    rows = []
    for _ in range(n_users):
        key, pop, like = rng.normal(size=(3, n_cand))
        rel = {"key": key, "popularity": pop, "like": like}[relevant_by] > 1.0
        rows.append(ValidationList(key, pop, like, rel, max(int(rel.sum()), 1)))
    return rows


def test_the_item_model_alone_when_it_ranks_best_else_the_feature_that_does():
    rng = np.random.default_rng(0)
    blend, report = choose(_rows(rng, 50, 40, "key"))
    assert blend.plain and report["chosen"]["ndcg"] == report["item_model_alone"]
    blend, report = choose(_rows(rng, 50, 40, "popularity"))
    assert blend.popularity > 0 and report["chosen"]["ndcg"] > report["item_model_alone"] + 0.2
    blend, _ = choose(_rows(rng, 50, 40, "like"))
    assert blend.like > 0 and blend.like > blend.popularity
    assert choose([])[0].plain


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), n_cand=st.integers(1, 30), ties=st.booleans())
def test_each_grid_points_ndcg_is_that_of_its_lists(seed, n_cand, ties):
    """The vectorised search scores every point as the evaluation's top_k and NDCG would."""
    rng = np.random.default_rng(seed)
    rows = _rows(rng, 4, n_cand, "key")
    if ties:  # integer features: many equal scores, ties broken by candidate order
        rows = [
            ValidationList(*(np.round(getattr(r, f)) for f in ("key", "popularity", "like")), r.relevant, r.n_relevant)
            for r in rows
        ]
    _, report = choose(rows)
    scale = report["scales"]
    relevant = [np.flatnonzero(r.relevant) for r in rows]  # n_relevant: all of them, or 1 when none
    for point in report["grid"]:
        b, c = point["popularity"] * scale["popularity"], point["like"] * scale["like"]
        lists = [top_k(r.key + b * r.popularity + c * r.like, 10) for r in rows]
        assert point["ndcg"] == pytest.approx(ndcg_per_user(lists, relevant).mean(), abs=1e-12)


def _numpy_ndcgs(rows, B, G, k):
    """The blend search's NDCGs as numpy defined them before they were compiled: a partition of
    each list's scores at every blend, its DCG rank by rank, the lists added in order."""
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    total = np.zeros(len(B))
    for r in rows:
        score = r.key[:, None] + r.popularity[:, None] * B[None, :] + r.like[:, None] * G[None, :]
        top = np.argsort(-score, axis=0, kind="stable")[:k]
        dcg = (r.relevant[top] * discount[: len(top), None]).sum(axis=0)
        total += dcg / discount[: min(k, r.n_relevant)].sum()
    return total / len(rows)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), n_cand=st.integers(0, 40), ties=st.booleans())
def test_the_compiled_blend_search_gives_numpys_floats(seed, n_cand, ties):
    """Every blend's mean NDCG, compiled, is the float of the numpy definition (ties by candidate
    order; lists shorter than k, and empty)."""
    from recsys.model.list_blend import _mean_ndcgs

    rng = np.random.default_rng(seed)
    rows = _rows(rng, 7, n_cand, "key")
    rows.append(_rows(rng, 1, int(rng.integers(0, 4)), "like")[0])
    if ties:
        rows = [
            ValidationList(*(np.round(getattr(r, f)) for f in ("key", "popularity", "like")), r.relevant, r.n_relevant)
            for r in rows
        ]
    B, G = rng.choice(GRID, size=(2, 30)) * rng.random(2)[:, None]
    want = _numpy_ndcgs(rows, B, G, 10)
    assert np.array_equal(_mean_ndcgs(rows, B, G, 10), want)


def test_candidates_are_the_best_by_score_and_by_popularity():
    key = np.array([5.0, 4, 3, 2, 1, 0, -np.inf])
    pop = np.array([0.0, 0, 0, 0, 9, 8, 7])
    listable = np.array([True, False, True, True, True, True, True])
    assert candidates(key, pop, listable, 2).tolist() == [0, 2, 4, 5]
    assert candidates(key, pop, listable, 10).tolist() == [0, 2, 3, 4, 5]
    # ties at the n-th value are taken by index (a person whose items all score 0, say)
    flat, same = np.zeros(8), np.ones(8)
    assert candidates(flat, same, np.ones(8, dtype=bool), 3).tolist() == [0, 1, 2]


def test_every_listed_score_is_its_parts(blended):
    model, train = blended
    fp = model.profiles_
    for user in (0, 1, 7):
        mine = train[train["user"] == user]
        recs = model.recommend(user, n=5)
        assert recs and [r["score"] for r in recs] == sorted((r["score"] for r in recs), reverse=True)
        p = model.predict_for(dict(zip(mine["item"], mine["rating"], strict=True)), [r["item"] for r in recs])
        for r, prob in zip(recs, p, strict=True):
            i = fp.item_index([r["item"]])[0]
            assert r["popularity"]["weight"] == pytest.approx(0.3 * log_likes(fp.item_counts[0][i]), abs=1e-12)
            # the like part reads the person's ratings, folded in: predict_for's probability
            assert r["like"]["probability"] == pytest.approx(prob, abs=1e-12) == r["like_probability"]
            assert r["like"]["weight"] == pytest.approx(0.7 * logit(np.array([prob]))[0], abs=1e-12)
            assert list_total(r) == pytest.approx(r["score"], abs=1e-9)
            assert any(t.startswith("liked by ") for t in r["reasons"])
            assert any(t.startswith("your like chance") for t in r["reasons"])


def test_blended_lists_are_the_same_in_the_model_folded_in_and_in_batch(blended):
    model, train = blended
    for user in (0, 3):
        mine = train[train["user"] == user]
        own = model.recommend(dict(zip(mine["item"], mine["rating"], strict=True)), n=8)
        assert [(r["item"], r["score"]) for r in own] == [(r["item"], r["score"]) for r in model.recommend(user, n=8)]
        assert model.lists([user], 8)[0] == [(r["item"], r["score"]) for r in own]
    # only candidates are listed: the n (at least 5) best by the item model and the n most liked
    assert len(model.recommend(0, n=2)) == 2 and len(list_key(model, user_person(model, 0), [], 2).top(100)) <= 10
    unrated = model.profiles_.n_items - len(model.profiles_.ratings.row(0))
    assert len(model.recommend(0, n=1000)) == unrated  # asked for every item: every item a candidate


def test_the_blend_is_fitted_reported_saved_and_switched_off(fitted, tmp_path):
    from recsys import store

    model, train = fitted
    report = model.report_["lists"]
    assert report["users"] > 0 and len(report["grid"]) == len(GRID) ** 2
    assert report["chosen"]["ndcg"] == max(g["ndcg"] for g in report["grid"]) >= report["item_model_alone"]
    loaded = store.load(store.save(model, tmp_path / "m"))
    assert loaded.list_blend_ == model.list_blend_
    off = ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, list_score="item_model")
    off.fit(train)
    assert off.list_blend_.plain and off.report_["lists"] == {"list_score": "item_model"}
    assert all(r["popularity"]["weight"] == 0 == r["like"]["weight"] for r in off.recommend(0, n=5))
