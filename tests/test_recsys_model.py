import json

import numpy as np
import pandas as pd
import pytest

from recsys import store
from recsys.evaluation import metrics, roc_auc
from recsys.model import ProfileRecommender, with_mode

FAST = dict(n_bands=60, band_size=2, min_rows=2, min_cols=2, min_density=0.8, skip_covered=True)


def taste_data(seed=0, n_users=80, n_items=60):
    """Two taste groups: group A likes genre g0 and director d0, dislikes g1; group B the reverse."""
    rng = np.random.default_rng(seed)
    genre = np.where(np.arange(n_items) % 2 == 0, "g0", "g1")
    director = np.where(np.arange(n_items) % 2 == 0, "d0", "d1")
    attrs = pd.DataFrame(
        {
            "item": np.r_[np.arange(n_items), np.arange(n_items)],
            "kind": ["genre"] * n_items + ["director"] * n_items,
            "value": np.r_[genre, director],
        }
    )
    rows = []
    for u in range(n_users):
        fav = "g0" if u % 2 == 0 else "g1"
        for i in rng.choice(n_items, 30, replace=False):
            liked = (genre[i] == fav) ^ (rng.random() < 0.1)
            rows.append((u, int(i), int(rng.integers(4, 6) if liked else rng.integers(1, 3))))
    r = pd.DataFrame(rows, columns=["user", "item", "rating"]).sample(frac=1, random_state=seed)
    cut = int(len(r) * 0.8)
    return r.iloc[:cut], r.iloc[cut:], attrs


@pytest.fixture(scope="module")
def fitted():
    train, test, attrs = taste_data()
    model = ProfileRecommender(mode="scored", like_params=FAST, dislike_params=FAST, fallback="svd").fit(train, attrs)
    return model, train, test, attrs


def test_paper_mode_rule_and_profiles(fitted):
    model, train, test, _ = fitted
    paper = with_mode(model, "paper")
    like, dislike = model.core_.paper_profiles()
    assert like.multiply(dislike).nnz == 0  # the intersection is removed from both
    p = paper.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    cov = p["covered"].to_numpy()
    assert cov.mean() > 0.5
    # the rule: like iff J(like) >= J(dislike), abstain iff both are 0
    jl, jd = p["jaccard_like"].to_numpy(), p["jaccard_dislike"].to_numpy()
    assert ((jl + jd > 0) == cov).all()
    assert (p.loc[cov, "label"].to_numpy() == np.where(jl >= jd, "like", "dislike")[cov]).all()
    assert (p.loc[~cov, "source"] == "fallback").all()  # this model has the SVD fallback
    paper.fallback = None
    q = paper.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    assert (q.loc[~cov, "label"] == "abstain").all() and (q.loc[cov, "label"] == p.loc[cov, "label"]).all()
    y = test["rating"].to_numpy() > 2
    acc = (p.loc[cov, "label"].to_numpy() == np.where(y, "like", "dislike")[cov]).mean()
    assert acc > 0.8  # the two taste groups are recoverable from co-clusters


def test_scored_mode_separates_tastes_with_evidence(fitted):
    model, _, test, _ = fitted
    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    y = test["rating"].to_numpy() > 2
    assert roc_auc(y, p["score"].to_numpy()) > 0.85
    assert set(model.weights_) == {
        "user_rate",
        "movie_rate",
        "like_neighbours",
        "dislike_neighbours",
        "profile_support",
        "jaccard",
    }
    row = test.iloc[0]
    pred = model.predict(row["user"], row["item"])
    assert pred.label in ("like", "dislike", "abstain")
    ev = pred.evidence
    assert set(ev) >= {"like_matches", "dislike_matches", "contributions", "neighbours"}
    for m in ev["like_matches"] + ev["dislike_matches"]:
        assert m["coclusters"] >= 1 and m["example_coclusters"]


def test_unknown_user_and_item(fitted):
    model = fitted[0]
    with pytest.raises(KeyError, match="unknown user"):
        model.predict(10_000, 1)
    with pytest.raises(KeyError, match="unknown item"):
        model.predict(0, 10_000)
    p = model.predict_many(np.array([10_000]), np.array([1]))
    assert p.loc[0, "source"] == "fallback"  # SVD covers what the profiles cannot


def test_recommend_and_explain(fitted):
    model, train, _, _ = fitted
    top = model.recommend(0, n=5)
    assert len(top) <= 5 and top["score"].is_monotonic_decreasing
    rated = set(train.loc[train["user"] == 0, "item"])
    assert not rated & set(top["item"])
    assert all("like_matches" in e for e in top["evidence"])
    prof = model.explain(0)
    assert set(prof) >= {"like", "dislike", "like_coclusters"}
    liked_genres = [v["value"] for v in prof["like"].get("genre", [])]
    assert "g0" in liked_genres  # user 0 is in the g0 group


def test_store_round_trip(fitted, tmp_path):
    model, _, test, attrs = fitted
    d = store.save(model, tmp_path / "model", store.fingerprint(fitted[1], attrs))
    assert sorted(p.name for p in d.iterdir()) == ["arrays.npz", "manifest.json", "vocab.json"]
    loaded = store.load(d)
    a = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    b = loaded.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    pd.testing.assert_frame_equal(a, b)
    assert loaded.explain(0) == model.explain(0)
    store.save(model, d)  # overwriting an existing model works


def test_store_errors(fitted, tmp_path):
    model = fitted[0]
    with pytest.raises(FileNotFoundError, match="no model directory"):
        store.load(tmp_path / "missing")
    d = store.save(model, tmp_path / "m")
    manifest = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(json.dumps({**manifest, "format_version": 99}))
    with pytest.raises(ValueError, match="newer"):
        store.load(d)
    (d / "manifest.json").write_text("{not json")
    with pytest.raises(ValueError, match="corrupt manifest"):
        store.load(d)
    d2 = store.save(model, tmp_path / "m2")
    (d2 / "arrays.npz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="corrupt"):
        store.load(d2)


def test_parameter_validation():
    train, _, attrs = taste_data()
    with pytest.raises(ValueError, match="mode"):
        ProfileRecommender(mode="magic").fit(train, attrs)
    with pytest.raises(ValueError, match="fallback"):
        ProfileRecommender(fallback="knn").fit(train, attrs)
    with pytest.raises(ValueError, match="columns"):
        ProfileRecommender().fit(train.rename(columns={"rating": "stars"}), attrs)
    with pytest.raises(AttributeError, match="not fitted"):
        ProfileRecommender().predict(1, 1)


def test_metrics_conventions():
    y = np.array([1, 1, 1, 0, 0], bool)
    like = np.array([1, 0, 1, 0, 1], bool)
    covered = np.array([1, 1, 0, 1, 1], bool)
    m = metrics(y, like, covered, np.array([0.9, 0.2, np.nan, 0.1, 0.6]))
    assert m["coverage"] == 0.8 and m["accuracy_covered"] == 0.5
    # uncovered rating 2 (a like) counts as a wrong "dislike"
    assert m["accuracy_full"] == 0.4
    assert m["balanced_accuracy_full"] == pytest.approx(0.5 * (1 / 3 + 1 / 2))
    assert m["dislike_recall_full"] == 0.5 and m["dislike_precision_full"] == pytest.approx(1 / 3)


def test_roc_auc_matches_pair_counting():
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.7
    s = np.round(rng.random(200) + y * 0.3, 1)
    pos, neg = s[y], s[~y]
    brute = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert roc_auc(y, s) == pytest.approx(brute)
