"""The attribute evidence (recsys.model.attributes): its tables against their definition, its terms
and their parts, new items scored from their attributes, explanations that name the attributes."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import FAST, list_total, taste_data

from recsys.evaluation.metrics import roc_auc
from recsys.model import ProfileRecommender
from recsys.model.attributes import ATTRIBUTE_SHRINKAGE, JOINT_L2, AttributeEvidence
from recsys.model.csr import Csr
from recsys.model.listing import list_scores
from recsys.model.settings import NEW_ITEM


@st.composite
def small_tables(draw):
    n_users, n_items, n_attrs = draw(st.integers(1, 6)), draw(st.integers(1, 7)), draw(st.integers(1, 5))
    rated = draw(
        st.lists(st.tuples(st.integers(0, n_users - 1), st.integers(0, n_items - 1)), max_size=25, unique=True)
    )
    values = draw(st.lists(st.integers(1, 5), min_size=len(rated), max_size=len(rated)))
    carried = draw(
        st.lists(st.tuples(st.integers(0, n_items - 1), st.integers(0, n_attrs - 1)), max_size=20, unique=True)
    )
    bias = draw(st.lists(st.floats(-2, 2), min_size=n_items, max_size=n_items))
    R = Csr.from_pairs([u for u, _ in rated], [i for _, i in rated], (n_users, n_items), np.array(values, float))
    IA = Csr.from_pairs([i for i, _ in carried], [a for _, a in carried], (n_items, n_attrs))
    residuals = R.with_values(R.values - 3.0) if R.nnz else R.with_values(np.zeros(0))
    bias = np.array(bias)
    return R, residuals, bias, IA, AttributeEvidence.of(R, residuals, bias, IA)


@settings(max_examples=150, deadline=None)
@given(small_tables())
def test_evidence_is_its_definition(tables):
    R, residuals, bias, IA, ev = tables
    n_users, n_items = R.shape
    n_attrs = IA.shape[1]
    carries = np.zeros((n_items, n_attrs), dtype=bool)
    carries[IA.row_of, IA.idx] = True
    rated = np.zeros(n_items, dtype=bool)
    rated[R.idx] = True
    described = max(int(carries.any(axis=1).sum()), 1)
    for a in range(n_attrs):
        n_a = int(carries[:, a].sum())
        assert ev.weight[a] == pytest.approx(np.log(described / max(n_a, 1)))
        holders = carries[:, a] & rated
        assert ev.items[a] == pytest.approx(bias[holders].sum() / (holders.sum() + ATTRIBUTE_SHRINKAGE))
        for u in range(n_users):
            mine = R.row(u)
            res = residuals.row_values(u)[carries[mine, a]]
            found, value = ev.users.lookup([u], [a])
            assert found[0] == (len(res) > 0)
            assert value[0] == pytest.approx(res.sum() / (len(res) + ATTRIBUTE_SHRINKAGE))
    for u in range(n_users):
        for i in range(n_items):
            a = np.flatnonzero(carries[i])
            w = ev.weight[a]
            user_values = np.array([ev.users.lookup([u], [x])[1][0] for x in a])
            want_user = (w * user_values).sum() / w.sum() if w.sum() > 0 else 0.0
            want_item = (w * ev.items[a]).sum() / w.sum() if w.sum() > 0 else 0.0
            got_user, got_item = ev.terms(IA, np.array([u]), np.array([i]))
            assert got_user[0] == pytest.approx(want_user) and got_item[0] == pytest.approx(want_item)
            parts = ev.parts(IA, u, i)
            assert sum(p["user"] for p in parts) == pytest.approx(got_user[0], abs=1e-12)
            assert sum(p["item"] for p in parts) == pytest.approx(got_item[0], abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(small_tables())
def test_joint_fit_is_each_users_ridge_regression(tables):
    """``attribute_fit="joint"``: each user's coefficients solve the ridge normal equations of their
    residuals on their items' attributes; the term is the sum of the item's coefficients, and its
    parts (one per attribute) add up to it."""
    R, residuals, bias, IA, _ = tables
    ev = AttributeEvidence.of(R, residuals, bias, IA, joint=True)
    n_users, n_items = R.shape
    carries = np.zeros((n_items, IA.shape[1]))
    carries[IA.row_of, IA.idx] = 1.0
    for u in range(n_users):
        X = carries[R.row(u)]
        seen = np.flatnonzero(X.sum(axis=0) > 0)
        X = X[:, seen]
        want = np.linalg.solve(X.T @ X + JOINT_L2 * np.eye(len(seen)), X.T @ residuals.row_values(u))
        assert np.array_equal(ev.users.row(u), seen)
        np.testing.assert_allclose(ev.users.row_values(u), want, atol=1e-7)
        for i in range(n_items):
            a = np.flatnonzero(carries[i])
            got_user, _ = ev.terms(IA, np.array([u]), np.array([i]))
            assert got_user[0] == pytest.approx(ev.users.lookup(np.full(len(a), u), a)[1].sum(), abs=1e-12)
            assert sum(p["user"] for p in ev.parts(IA, u, i)) == pytest.approx(got_user[0], abs=1e-12)


def test_joint_fit_of_a_lone_attribute_is_its_shrunk_mean():
    """An attribute that shares no item with another gets ``Σ residual / (count + JOINT_L2)``."""
    R = Csr.from_pairs([0, 0, 0], [0, 1, 2], (1, 3), np.array([5.0, 4.0, 1.0]))
    residuals = R.with_values(R.values - 3.0)
    IA = Csr.from_pairs([0, 1, 2], [0, 0, 1], (3, 2))
    ev = AttributeEvidence.of(R, residuals, np.zeros(3), IA, joint=True)
    assert ev.users.row_values(0) == pytest.approx([3.0 / (2 + JOINT_L2), -2.0 / (1 + JOINT_L2)])


@pytest.fixture(scope="module", params=["means", "joint"])
def cold(request):
    """taste_data with the ratings of the last ten movies taken out of training: new items whose
    attributes (genre; one of six directors, each of one genre) carry the taste; the user side of
    the attribute evidence fitted either way (``attribute_fit``)."""
    train, test, attrs, items = taste_data(n_users=100)
    directors = attrs["kind"] == "director"
    attrs.loc[directors, "value"] = "d" + (attrs.loc[directors, "item"] % 6).astype(str)
    new = set(range(50, 60))
    train = train[~train["item"].isin(new)]
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST, attribute_fit=request.param)
    model.fit(train, attrs, items)
    return model, train, test[test["item"].isin(new)], attrs, items


def test_the_attribute_fit_is_kept_with_a_saved_model(cold, tmp_path):
    from recsys.store import load, save

    model, _, test, _, _ = cold
    again = load(save(model, tmp_path / "m"))
    assert again.profiles_.attribute_fit == model.attribute_fit == again.attribute_fit
    assert again.profiles_.attribute_evidence.joint == (model.attribute_fit == "joint")
    users, items = test["user"].to_numpy(), test["item"].to_numpy()
    assert np.array_equal(again.predict_many(users, items).score, model.predict_many(users, items).score)


def test_new_items_are_scored_from_their_attributes(cold):
    model, _, test, _, _ = cold
    fp = model.profiles_
    assert not fp.item_rated[fp.item_index(test["item"])].any()
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    assert p.covered.all() and (p.reason == NEW_ITEM).all()
    y = test["rating"].to_numpy() > 2
    assert roc_auc(y, p.score) > 0.85  # the genre decides the taste; the item is unknown otherwise
    # without the attribute evidence the same pairs have nothing to be scored from
    without = model.with_evidence([g for g in model.evidence if g != "attributes"])
    q = without.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    assert not q.covered.any() and (q.reason == "no rating of the item").all()


def test_explanations_name_the_attributes_that_made_the_score(cold):
    model, _, test, _, _ = cold
    user, item = test[["user", "item"]].to_numpy()[0]
    ex = model.predict(user, item)
    assert ex.reason == NEW_ITEM
    assert sum(line.contribution for line in ex.lines) == pytest.approx(ex.logit, abs=1e-6)
    line = next(line for line in ex.lines if line.term == "user_attributes")
    named = {p["attribute"] for p in line.parts if "attribute" in p}
    fp = model.profiles_
    assert named == set(fp.attributes[fp.item_attributes.row(fp.item_index([item])[0])])
    assert sum(p["contribution"] for p in line.parts) == pytest.approx(line.contribution, abs=1e-6)


def test_a_new_person_gets_new_items_scored(cold):
    model, train, test, _, _ = cold
    user = test["user"].iloc[0]
    mine = train[train["user"] == user]
    p = model.predict_for(dict(zip(mine["item"], mine["rating"], strict=True)), test["item"].unique())
    assert np.isfinite(p).all()


def test_the_attribute_table_is_sized_by_the_ratings_not_users_times_attributes():
    # 3 users, 1,000 attributes: only the (user, attribute) pairs rated are stored
    R = Csr.from_pairs([0, 1, 2], [0, 1, 2], (3, 3), np.array([5.0, 1.0, 3.0]))
    IA = Csr.from_pairs([0, 1, 2], [7, 500, 999], (3, 1000))
    ev = AttributeEvidence.of(R, R.with_values(R.values - 3), np.zeros(3), IA)
    assert ev.users.nnz == 3
    frame = pd.DataFrame({"u": ev.users.row_of, "a": ev.users.idx})
    assert frame.values.tolist() == [[0, 7], [1, 500], [2, 999]]


def test_new_items_are_listed_from_their_attributes(cold):
    model, train, test, _, _ = cold
    fp = model.profiles_
    ev = fp.attribute_evidence
    user = test["user"].iloc[0]
    u = int(fp.user_index([user])[0])
    key = list_scores(model.fitted_, fp.liked.row(u))
    from recsys.model.item_model import scores

    plain = scores(fp.item_weights, fp.liked.row(u))
    rated = fp.item_rated
    assert np.array_equal(key[rated], plain[rated])  # the rated items keep the item model's scores
    carriers = np.zeros(fp.item_attributes.shape, dtype=bool)
    carriers[fp.item_attributes.row_of, fp.item_attributes.idx] = True
    for i in np.flatnonzero(~rated):  # a new item: the weighted mean of its attributes' mean scores
        a = np.flatnonzero(carriers[i])
        means = [plain[rated & carriers[:, x]].sum() / ((rated & carriers[:, x]).sum() + 2.0) for x in a]
        assert key[i] == pytest.approx((ev.weight[a] * means).sum() / ev.weight[a].sum(), abs=1e-12)
    recs = model.recommend(user, n=fp.n_items)
    new = [r for r in recs if r["new"]]
    assert {fp.item_index([r["item"]])[0] for r in new} == set(np.flatnonzero(~rated)) - set(fp.ratings.row(u))
    for r in recs:
        assert list_total(r) == pytest.approx(r["score"], abs=1e-9)
    assert all(c["attribute"] in fp.attributes for r in new for c in r["contributions"])
    # the model without the attribute evidence lists them at the item model's 0, not as new
    without = model.with_evidence([g for g in model.evidence if g != "attributes"])
    assert not any(r["new"] for r in without.recommend(user, n=fp.n_items))
    assert np.array_equal(list_scores(without.fitted_, fp.liked.row(u)), plain)


def test_the_report_flags_new_items(cold):
    from recsys.present.report import render_user

    model, _, test, _, _ = cold
    user = test["user"].iloc[0]
    html = render_user(model, user, n=model.profiles_.n_items)
    assert (
        html.count("new: no rating yet, scored from its attributes")
        == sum(r["new"] for r in model.recommend(user, n=model.profiles_.n_items))
        > 0
    )


@settings(max_examples=100, deadline=None)
@given(small_tables())
def test_leaving_an_item_out_is_the_evidence_without_its_ratings(tables):
    R, _, bias, IA, ev = tables
    for i in np.unique(R.idx):
        keep = R.idx != i  # nobody rated item i
        R2 = Csr.from_pairs(R.row_of[keep], R.idx[keep], R.shape, R.values[keep])
        ev2 = AttributeEvidence.of(R2, R2.with_values(R2.values - 3.0), bias, IA)
        u = np.zeros(1, dtype=np.int64)
        _, loo = ev.terms(IA, u, np.array([i]), leave_out=np.array([bias[i]]))
        _, want = ev2.terms(IA, u, np.array([i]))
        assert loo[0] == pytest.approx(want[0], abs=1e-12)
        _, same = ev.terms(IA, u, np.array([i]), leave_out=np.array([np.nan]))  # NaN: an unrated item, kept
        assert same[0] == ev.terms(IA, u, np.array([i]))[1][0]


def test_new_items_have_weights_of_their_own(cold, tmp_path):
    from recsys import store
    from recsys.model.terms import NEW_ITEM_TERMS

    model, _, test, _, _ = cold
    w = model.new_item_weights_
    assert w is not None and set(w.names) == set(NEW_ITEM_TERMS)
    user, item = test[["user", "item"]].to_numpy()[0]
    ex = model.predict(user, item)
    assert {line.term for line in ex.lines} == {"average", *NEW_ITEM_TERMS}  # the terms that made the score
    again = store.load(store.save(model, tmp_path / "m"))
    assert again.new_item_weights_ == w
    p = again.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    assert np.array_equal(p.score, model.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score)
    assert model.with_evidence(["like_shares", "baseline"]).new_item_weights_ is None


def test_a_new_movies_reasons_a_person_reads_are_its_attributes(cold):
    from kit import adds_up

    from recsys.present.digest import digest

    model, _, test, _, _ = cold
    recs = model.recommend(test["user"].iloc[0], n=model.profiles_.n_items)
    d = digest(recs)
    adds_up(d)
    new = [r for r in d["items"] if r["new"]]
    assert new and all(r["shown"] and all(t["group"] is None and ":" in t["text"] for t in r["shown"]) for r in new)
