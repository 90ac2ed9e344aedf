"""ProfileRecommender on synthetic tastes: the paper's rule, the scored model, explanations that add
up, unknown ids, recommendations, profiles, ablations, and the model directory."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import FAST, scored_pairs, taste_data

from recsys import store
from recsys.errors import ModelFileError, NotFittedError, ParameterError
from recsys.evaluation.metrics import roc_auc
from recsys.model import ProfileRecommender


@pytest.fixture(scope="module")
def fitted():
    train, test, attrs, items = taste_data()
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(train, attrs, items)
    return model, train, test, attrs, items


def test_paper_rule(fitted):
    model, _, test, _, _ = fitted
    fp = model.profiles_
    for side, other in (("like", "dislike"), ("dislike", "like")):
        a, b = fp.paper_profiles[side][1], fp.paper_profiles[other][1]
        found, _ = b.lookup(a.row_of, a.idx)
        assert not found.any(), "the intersection is removed from both profiles"
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy(), mode="paper")
    from recsys.model.terms import paper_scores

    u, i = fp.user_index(test["user"]), fp.item_index(test["item"])
    jl, jd = paper_scores(fp, u, i)
    assert ((jl + jd > 0) == p.covered).all()  # abstains exactly when neither profile matches
    assert (p.prediction[p.covered] == np.where(jl >= jd, "like", "dislike")[p.covered]).all()
    assert (p.prediction[~p.covered] == "none").all()
    y = test["rating"].to_numpy() > 2
    acc = (p.prediction[p.covered] == np.where(y, "like", "dislike")[p.covered]).mean()
    assert p.covered.mean() > 0.5 and acc > 0.8  # the groups like half the movies each: chance is 0.5


def test_scored_mode_separates_tastes(fitted):
    model, _, test, _, _ = fitted
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    y = test["rating"].to_numpy() > 2
    assert p.covered.mean() > 0.95
    assert roc_auc(y[p.covered], p.score[p.covered]) > 0.85
    assert set(model.weights_.coef) == set(model.terms)
    assert (
        p.prediction[p.covered] == np.where(p.score >= model.weights_.threshold, "like", "dislike")[p.covered]
    ).all()


def test_explanations_add_up_to_the_logit(fitted):
    model, _, test, _, _ = fitted
    for user, item in test[["user", "item"]].to_numpy()[:40]:
        ex = model.predict(user, item)
        assert ex.covered and len(ex.lines) == len(model.terms) + 1
        total = sum(line.contribution for line in ex.lines)
        assert total == pytest.approx(ex.logit, abs=1e-6)
        assert 1 / (1 + np.exp(-ex.logit)) == pytest.approx(ex.score, abs=1e-9)
        for line in ex.lines:
            if line.parts:
                assert sum(p["contribution"] for p in line.parts) == pytest.approx(line.contribution, abs=1e-6)
        assert (ex.prediction == "like") == (ex.score >= ex.threshold)
        assert ex.item_name == f"Movie {item} (2000) [{item}]"


def test_unknown_ids_are_flagged_the_same_way(fitted):
    model = fitted[0]
    p = model.predict_many(np.array([10_000, 0, 0]), np.array([1, 10_000, 1]))
    assert p.prediction.tolist()[:2] == ["none", "none"] and p.reason.tolist()[:2] == ["unknown user", "unknown item"]
    assert p.covered.tolist() == [False, False, True]
    one = model.predict(10_000, 1)
    assert (one.prediction, one.reason, one.covered) == ("none", "unknown user", False)
    assert model.predict("0", "1").covered  # string ids find integer ids


def test_recommend_and_profiles(fitted):
    model, train, _, _, _ = fitted
    recs = model.recommend(0, n=5)
    assert len(recs) == 5
    scores = [r["score"] for r in recs]
    assert scores == sorted(scores, reverse=True)
    rated = set(train.loc[train["user"] == 0, "item"])
    assert not rated & {r["item"] for r in recs}
    assert all(r["reasons"] and r["name"].startswith("Movie ") for r in recs)
    assert all(r["item"] % 2 == 0 for r in recs), "user 0 likes the g0 (even) movies"
    prof = model.explain(0)
    genres = {v["value"] for v in prof["like"].get("genre", [])}
    assert "g0" in genres and "g1" not in genres
    assert prof["like_strongest"] and "users who liked" in prof["like_strongest"][0]["text"]
    with pytest.raises(KeyError, match="unknown user"):
        model.recommend(10_000)


def test_ablations_refit_the_weights(fitted):
    model, _, test, _, _ = fitted
    no_cc = model.with_evidence(("like_shares", "baseline"))
    assert set(no_cc.weights_.coef) == {"user_like_share", "item_like_share", "baseline"}
    assert no_cc.profiles_ is model.profiles_
    a = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    # the ablated score is its own three terms under its refitted weights, nothing else
    b, known, terms = scored_pairs(no_cc, test)
    assert set(terms) == set(no_cc.weights_.coef)
    np.testing.assert_allclose(b.score[known], no_cc.weights_.probability(terms), rtol=1e-9)
    # and on two taste groups the co-cluster evidence separates likes better than the shares alone
    y = test["rating"].to_numpy() > 2
    both = a.covered & b.covered
    assert roc_auc(y[both], a.score[both]) > roc_auc(y[both], b.score[both])


@pytest.mark.parametrize(
    "change", [{"n_votes": 3}, {"shrinkage": 50.0}, {"features": "all"}, {"neighbours": "ratings"}]
)
def test_each_parameter_changes_the_result(fitted, change):
    model, train, test, attrs, items = fitted
    other = ProfileRecommender(**{**model.get_params(), **change}).fit(train, attrs, items)
    a = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score
    b = other.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score
    assert not np.allclose(a, b, equal_nan=True)


def test_surprise_trainset_input(fitted):
    from surprise import Dataset, Reader

    model, train, test, attrs, items = fitted
    data = Dataset.load_from_df(train[["user", "item", "rating"]], Reader(rating_scale=(1, 5)))
    other = ProfileRecommender(**model.get_params()).fit(data.build_full_trainset(), attrs, items)
    a = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score
    b = other.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score
    assert np.allclose(a, b, equal_nan=True)


@pytest.mark.parametrize("mask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_saved_files_follow_the_umask(fitted, tmp_path, mask, file_mode, dir_mode):
    """A model directory and the files written atomically are as readable as the user's umask
    says (a temporary file or directory alone would be private whatever it says)."""
    import os
    import stat

    from recsys.files import atomic_open

    old = os.umask(mask)
    try:
        d = store.save(fitted[0], tmp_path / "model", {"dataset": "taste"})
        with atomic_open(tmp_path / "report.html") as f:
            f.write("<p>x</p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(d.stat().st_mode) == dir_mode
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == file_mode
    assert stat.S_IMODE((d / "manifest.json").stat().st_mode) == file_mode


def test_store_round_trip(fitted, tmp_path):
    model, _, test, _, _ = fitted
    d = store.save(model, tmp_path / "model", {"dataset": "taste"})
    assert sorted(p.name for p in d.iterdir()) == ["arrays.npz", "manifest.json"]
    with np.load(d / "arrays.npz", allow_pickle=False) as z:
        assert all(z[k].dtype != object for k in z.files)
    loaded = store.load(d)
    for mode in ("scored", "paper"):
        a = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy(), mode=mode)
        b = loaded.predict_many(test["user"].to_numpy(), test["item"].to_numpy(), mode=mode)
        assert np.array_equal(a.score, b.score, equal_nan=True) and np.array_equal(a.prediction, b.prediction)
    assert loaded.explain(0) == model.explain(0)
    assert loaded.predict(0, 2).to_dict() == model.predict(0, 2).to_dict()
    store.save(model, d)  # overwriting a model works


def test_a_model_that_cannot_be_mapped_is_read_as_copies(fitted, tmp_path, monkeypatch):
    """On a file system without mmap, store.load reads the arrays as np.load does (the same
    model), and a corrupt archive is still reported as corrupt, not as unmappable."""
    import errno
    import mmap

    import recsys.mapped_npz

    mmap_type = mmap.mmap

    def on_mmap(a) -> bool:
        while a is not None and not isinstance(a, mmap_type):  # array → array → memoryview → mmap
            a = a.obj if isinstance(a, memoryview) else a.base
        return a is not None

    def arrays(d):
        with open(d / "arrays.npz", "rb") as f:
            return store._arrays(f, mapped=True)

    def refuse(*args, **kwargs):
        raise OSError(errno.ENODEV, "No such device")

    model, _, test, _, _ = fitted
    d = store.save(model, tmp_path / "model")
    views = {k: a for k, a in arrays(d).items() if a.size}
    assert all(map(on_mmap, views.values()))  # the check below can tell a mapped array
    monkeypatch.setattr(recsys.mapped_npz.mmap, "mmap", refuse)
    copies = arrays(d)
    assert not any(map(on_mmap, copies.values()))
    assert all(np.array_equal(copies[k], a) for k, a in views.items())
    users, items = test["user"].to_numpy(), test["item"].to_numpy()
    scores = store.load(d).predict_many(users, items).score
    assert np.array_equal(scores, model.predict_many(users, items).score, equal_nan=True)
    (d / "arrays.npz").write_bytes(b"garbage")
    with pytest.raises(ModelFileError, match="corrupt model files"):
        store.load(d)


def test_store_errors(fitted, tmp_path):
    model = fitted[0]
    with pytest.raises(ModelFileError, match="no model directory"):
        store.load(tmp_path / "missing")
    d = store.save(model, tmp_path / "m")
    manifest = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(json.dumps({**manifest, "format_version": 99}))
    with pytest.raises(ModelFileError, match="newer"):
        store.load(d)
    (d / "manifest.json").write_text("{not json")
    with pytest.raises(ModelFileError, match="corrupt manifest"):
        store.load(d)
    d2 = store.save(model, tmp_path / "m2")
    (d2 / "arrays.npz").write_bytes(b"garbage")
    with pytest.raises(ModelFileError, match="corrupt"):
        store.load(d2)
    d3 = store.save(model, tmp_path / "m3")
    with np.load(d3 / "arrays.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["like.users.idx"] = arrays["like.users.idx"] + 10_000  # indices out of range
    np.savez(d3 / "arrays.npz", **arrays)
    with pytest.raises(ModelFileError, match="corrupt model"):
        store.load(d3)
    (tmp_path / "notamodel").mkdir()
    (tmp_path / "notamodel" / "keep.txt").write_text("user data")
    with pytest.raises(ModelFileError, match="not a model directory"):
        store.save(model, tmp_path / "notamodel")
    assert (tmp_path / "notamodel" / "keep.txt").exists()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"features": "magic"}, "features"),
        ({"evidence": ("like_shares", "horoscope")}, "evidence"),
        ({"n_votes": 0}, "n_votes"),
        ({"validation_fraction": 0.7}, "validation_fraction"),
        ({"like_params": {"min_rows": 0}}, "like_params: HBLCoClust: min_rows"),
        ({"neighbours": "friends"}, "neighbours"),
        ({"item_l2_per_like": -1.0}, "item_l2_per_like"),
    ],
)
def test_parameter_validation(params, match):
    train, _, attrs, _ = taste_data()
    with pytest.raises(ParameterError, match=match):
        ProfileRecommender(**params).fit(train, attrs)


def test_bad_ratings_and_not_fitted():
    train, _, attrs, _ = taste_data()
    with pytest.raises(ValueError, match="columns user, item, rating"):
        ProfileRecommender().fit(train.rename(columns={"rating": "stars"}), attrs)
    dup = pd.concat([train, train.iloc[:1]])
    with pytest.raises(ValueError, match="repeated"):
        ProfileRecommender().fit(dup, attrs)
    with pytest.raises(NotFittedError, match="not fitted"):
        ProfileRecommender().predict(1, 1)
    paper_only = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(train, attrs, scored=False)
    assert paper_only.predict_many([0], [0], mode="paper").prediction.shape == (1,)
    with pytest.raises(NotFittedError, match="paper's rule only"):
        paper_only.predict_many([0], [0])


def test_a_paper_only_model_saves_and_loads_as_it_was(tmp_path):
    """A model fitted for the paper's rule alone (no weights) is saved and loaded like any other
    (it raised a bare AttributeError on ``weights_``), predicts the paper's way, and says why not
    the scored way."""
    from recsys.store import load, save

    train, test, attrs, _ = taste_data()
    paper_only = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(train, attrs, scored=False)
    back = load(save(paper_only, tmp_path / "m"))
    users, items = test["user"].to_numpy()[:20], test["item"].to_numpy()[:20]
    a, b = paper_only.predict_many(users, items, mode="paper"), back.predict_many(users, items, mode="paper")
    assert list(a.prediction) == list(b.prediction)
    with pytest.raises(NotFittedError, match="paper's rule only"):
        back.predict_many(users, items)


def test_parameters_are_keyword_only_and_read_from_the_signature():
    import inspect

    from coclust import HBLCoClust

    for cls in (HBLCoClust, ProfileRecommender):
        params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
        assert params and all(p.kind is p.KEYWORD_ONLY for p in params)
        assert set(cls().get_params()) == {p.name for p in params}
        assert set(cls._constraints) == {p.name for p in params}, "every parameter has its constraints"
    with pytest.raises(TypeError):
        ProfileRecommender(2.0)
    with pytest.raises(ParameterError, match="invalid parameter 'n_vote'"):
        ProfileRecommender().set_params(n_vote=3)
    assert repr(ProfileRecommender(n_votes=3)) == "ProfileRecommender(n_votes=3)"


def test_holdout_mask_is_the_same_split_in_any_row_order():
    from recsys.model.ratings import holdout_mask

    train = taste_data()[0]
    mask = pd.Series(holdout_mask(train, 0.1, 5), index=train.index)
    shuffled = train.sample(frac=1, random_state=1)
    assert (pd.Series(holdout_mask(shuffled, 0.1, 5), index=shuffled.index) == mask.loc[shuffled.index]).all()
    assert 0.05 < mask.mean() < 0.15
    assert not (holdout_mask(train, 0.1, 6) == mask.to_numpy()).all(), "the seed changes the split"


@settings(max_examples=60, deadline=None)
@given(
    users=st.lists(st.integers(-3, 40), min_size=1, max_size=60),
    kind=st.sampled_from(["int", "str", "float", "category"]),
    seed=st.integers(0, 2**45),
)
def test_holdout_mask_hashes_as_pandas_hashes_every_row_as_a_string(users, kind, seed):
    """The split hashes each distinct id once; it must be the hash of every row's string exactly
    (the reference below), or every split, and every result, would move."""
    from recsys.model.ratings import holdout_mask

    items = [u * 7 % 11 for u in users]
    column = {
        "int": lambda v: pd.Series(v, dtype="int64"),
        "str": lambda v: pd.Series([f"u{x}" for x in v]),
        "float": lambda v: pd.Series([np.nan if x % 5 == 0 else x / 2 for x in v]),
        "category": lambda v: pd.Series(v).astype("category"),
    }[kind]
    frame = pd.DataFrame({"user": column(users), "item": column(items), "rating": 1.0})
    key = f"recsys{int(seed) & 0xFFFFFFFFFF:010d}"[-16:]
    h = pd.util.hash_pandas_object(frame[["user", "item"]].astype(str), index=False, hash_key=key).to_numpy()
    reference = (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) < 0.3
    assert (holdout_mask(frame, 0.3, seed) == reference).all()


def test_rating_baseline_is_surprise_baseline_only():
    from surprise import BaselineOnly, Dataset, Reader

    from recsys.model.csr import Csr
    from recsys.model.ratings import rating_baseline

    train = taste_data()[0]
    data = Dataset.load_from_df(train[["user", "item", "rating"]], Reader(rating_scale=(1, 5)))
    trainset = data.build_full_trainset()
    algo = BaselineOnly(verbose=False)
    algo.fit(trainset)
    users, items = np.unique(train["user"]), np.unique(train["item"])
    R = Csr.from_pairs(
        np.searchsorted(users, train["user"]),
        np.searchsorted(items, train["item"]),
        (len(users), len(items)),
        train["rating"].to_numpy(dtype=float),
    )
    mean, bu, bi = rating_baseline(R)
    assert mean == pytest.approx(trainset.global_mean)
    assert np.allclose(bu, [algo.bu[trainset.to_inner_uid(u)] for u in users], atol=1e-9)
    assert np.allclose(bi, [algo.bi[trainset.to_inner_iid(i)] for i in items], atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(1, 7), st.integers(0, 4))
def test_rating_baseline_is_the_alternating_means_bit_for_bit(seed, n_users, n_items, n_iter):
    """The compiled baseline adds in the order ``np.bincount`` adds: the same floats as the numpy form."""
    from recsys.model.csr import Csr
    from recsys.model.ratings import rating_baseline

    rng = np.random.default_rng(seed)
    cells = rng.permutation(n_users * n_items)[: rng.integers(1, n_users * n_items + 1)]
    R = Csr.from_pairs(cells // n_items, cells % n_items, (n_users, n_items), rng.uniform(0.5, 5, len(cells)))
    r, u, i = R.values, R.row_of, R.idx
    mean = float(r.mean())
    bu, bi = np.zeros(n_users), np.zeros(n_items)
    cu, ci = np.bincount(u, minlength=n_users), np.bincount(i, minlength=n_items)
    for _ in range(n_iter):
        bi = np.bincount(i, r - mean - bu[u], minlength=n_items) / (10.0 + ci)
        bu = np.bincount(u, r - mean - bi[i], minlength=n_users) / (15.0 + cu)
    got = rating_baseline(R, n_iter=n_iter)
    assert got[0] == mean and np.array_equal(got[1], bu) and np.array_equal(got[2], bi)


def test_features_attributes_coclusters_the_attributes_only():
    train, test, attrs, items = taste_data()
    model = ProfileRecommender(features="attributes", like_params=FAST, dislike_params=FAST).fit(train, attrs, items)
    fp = model.profiles_
    assert len(fp.like) > 0 and fp.like.items.nnz == 0 and fp.like.attributes.nnz > 0
    assert set(fp.attributes[fp.like.attributes.idx]) <= {"genre:g0", "genre:g1", "director:d0", "director:d1"}
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy(), mode="paper")
    y = test["rating"].to_numpy() > 2
    right = p.prediction[p.covered] == np.where(y, "like", "dislike")[p.covered]
    assert p.covered.mean() > 0.5 and right.mean() > 0.8


def test_paper_mode_recommend_ranks_by_the_jaccard_difference(fitted):
    from recsys.model.terms import paper_scores

    model, train, _, _, _ = fitted
    recs = model.recommend(0, n=8, mode="paper")
    fp = model.profiles_
    i = fp.item_index([r["item"] for r in recs])
    jl, jd = paper_scores(fp, np.zeros(len(i), dtype=np.int64), i)
    assert [r["score"] for r in recs] == pytest.approx((jl - jd).tolist())
    assert [r["score"] for r in recs] == sorted((r["score"] for r in recs), reverse=True)
    assert not set(train.loc[train["user"] == 0, "item"]) & {r["item"] for r in recs}
    assert all(r["like_probability"] is None for r in recs)


def test_attributes_attach_to_a_cocluster_by_density_and_by_its_movies():
    """An attribute joins a movie co-cluster when at least min_density of its users hold the
    attribute's like relation and one of its movies carries the attribute."""
    import scipy.sparse as sp

    from recsys.model.csr import Csr
    from recsys.model.learning import _attach_attributes

    # 5 users; relation columns: 0 = genre:a:Y (users 0-3), 1 = genre:b:Y (users 0-4), 2 = genre:c:Y (users 0, 1)
    X = sp.csr_matrix(np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 1, 0], [0, 1, 0]]))
    col_attr = np.array([0, 1, 2])
    item_attrs = Csr.from_pairs([0, 0, 1, 1], [0, 2, 1, 2], (2, 3))  # movie 0: a, c; movie 1: b, c
    rows = Csr.from_pairs([0] * 5 + [1] * 5 + [2] * 2, [*range(5), *range(5), 0, 1], (3, 5))
    items = Csr.from_pairs([0, 1, 1, 2], [0, 0, 1, 1], (3, 2))
    got = _attach_attributes(rows, items, X, np.array([0, 1, 2]), col_attr, item_attrs, {"min_density": 0.8})
    # co-cluster 0: a (4/5 >= 0.8, movie 0 has it); b held by all but no movie of it has b; c 2/5
    # co-cluster 1: a and b; co-cluster 2 (users 0, 1; movie 1): b and c (2/2), not a (movie 1 lacks it)
    assert [got.row(c).tolist() for c in range(got.n_rows)] == [[0], [0, 1], [1, 2]]
