"""The evaluation protocol: no test rating reaches fitting or tuning, every baseline on small
fixtures, ranking metrics by hand, the bootstrap, and the whole protocol end to end."""

import numpy as np
import pandas as pd
import pytest
from test_recsys_model import FAST, taste_data

import recsys.evaluation as ev
import recsys.evaluation.intervals as intervals
import recsys.evaluation.metrics as metrics
import recsys.evaluation.protocol as protocol
from recsys.evaluation.methods import Majority, Method, NaiveBayes, Popularity, Training
from recsys.evaluation.surprise_methods import SURPRISE_METHODS, SurpriseMethod
from recsys.evaluation.topn import TOPN_METHODS, top_k


@pytest.fixture(scope="module")
def run():
    train, test, attrs, items = taste_data()
    res = ev.evaluate(
        train, test, attrs, items, protocol=ev.Protocol(n_boot=200),
        setup=ev.Setup(profile=dict(like_params=FAST, dislike_params=FAST), paper=FAST),
    )  # fmt: skip
    return res, train, test


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_no_test_rating_reaches_fitting_or_tuning(monkeypatch):
    """Every ratings frame any method is fitted on, and every score the cut-off tuner sees, comes
    from the training ratings; the test pairs never appear there."""
    train, test, attrs, items = taste_data(seed=3)
    test_pairs = set(map(tuple, test[["user", "item"]].to_numpy()))
    seen_fit, tuned = [], []

    def pairs(frame):
        return set(map(tuple, frame[["user", "item"]].to_numpy()))

    for cls in _subclasses(Method):
        real = cls.fit

        def spy(self, data, _real=real):
            seen_fit.append(pairs(data.ratings))
            return _real(self, data)

        monkeypatch.setattr(cls, "fit", spy)
    real_tune = protocol.tune_threshold

    def spy_tune(score, covered, y):
        tuned.append(len(y))
        return real_tune(score, covered, y)

    from recsys.model import ProfileRecommender

    real_fit = ProfileRecommender.fit

    def spy_model_fit(self, ratings, *a, **k):
        seen_fit.append(pairs(ratings))
        return real_fit(self, ratings, *a, **k)

    monkeypatch.setattr(protocol, "tune_threshold", spy_tune)
    monkeypatch.setattr(ProfileRecommender, "fit", spy_model_fit)
    res = ev.evaluate(
        train, test, attrs, items, protocol=ev.Protocol(n_boot=0, topn=False),
        setup=ev.Setup(profile=dict(like_params=FAST, dislike_params=FAST), paper=FAST),
    )  # fmt: skip
    n_tune = res["protocol"]["n_tune"]
    assert len(seen_fit) > 10 and all(not (s & test_pairs) for s in seen_fit)
    assert tuned and all(n == n_tune for n in tuned), "the tuner saw something other than the tuning ratings"
    # and the tuning part is part of training, disjoint from the fit part
    fit_part, tune_part = ev.split_for_tuning(train, 0.1, 0)
    assert len(tune_part) == n_tune and not pairs(fit_part) & pairs(tune_part)


def test_report_schema(run):
    res = run[0]
    assert list(res["methods"]) == list(ev.METHODS)
    for name, r in res["methods"].items():
        keys = {"auc_full", "balanced_accuracy_full", "accuracy_full", "majority_accuracy_full", "dislike_recall_full",
                "dislike_precision_full", "coverage", "threshold", "fit_seconds", "predict_seconds"}  # fmt: skip
        assert keys <= set(r)
        assert (r["threshold"] is None) == (name in ("majority", "profile_paper"))
    assert set(res["ablations"]) == set(ev.ABLATIONS) | set(ev.CONTROLS)
    assert set(res["ci"]["versus"]) == set(ev.METHODS) - {"profile"}
    for c in res["ci"]["versus"].values():
        lo, hi = c["auc_diff_ci"]
        assert lo <= c["auc_diff"] <= hi
    assert set(res["topn"]["methods"]) == set(TOPN_METHODS)


def test_profile_beats_chance_and_ablations_differ(run):
    res = run[0]
    assert res["methods"]["profile"]["auc_full"] > 0.85
    assert res["methods"]["majority"]["auc_full"] == 0.5
    assert res["ablations"]["no_coclusters"]["auc_full"] != res["methods"]["profile"]["auc_full"]


def test_surprise_methods_score_as_surprise_predicts():
    train, test, _, _ = taste_data()
    for name in SURPRISE_METHODS:
        m = SurpriseMethod(name, 0).fit(Training(train))
        s = m.score(test["user"].to_numpy()[:50], test["item"].to_numpy()[:50])
        expected = [m.algo_.predict(u, i).est for u, i in test[["user", "item"]].to_numpy()[:50]]
        assert s.covered.all() and np.allclose(s.score, expected)


@pytest.mark.parametrize("name", ["bias", "svd", "knn_baseline", "svdpp", "coclustering"])
def test_vectorised_rankings_equal_surprise_unclipped(name):
    train, test, _, _ = taste_data()
    m = SurpriseMethod(name, 0).fit(Training(train))
    items = np.arange(0, 62)  # two items unknown to the trainset
    for user in (0, 1, 7):
        got = m.rank(user, items)
        want = [m.algo_.predict(user, i, clip=False).est for i in items]
        assert np.allclose(got, want)


def test_naive_bayes_by_hand():
    # one user: liked items 1, 2 (attribute a), disliked item 3 (attribute b)
    ratings = pd.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "rating": [5, 4, 1]})
    attrs = pd.DataFrame({"item": [1, 2, 3, 4], "kind": "genre", "value": ["a", "a", "b", "a"]})
    nb = NaiveBayes(2.0).fit(Training(ratings, attrs))
    s = nb.score(np.array([1, 2]), np.array([4, 4]))
    p, known = s.score, s.covered
    assert known.tolist() == [True, False] and np.isnan(p[1])
    # seen attributes: genre:a, genre:b, movie:1, movie:2, movie:3 (item 4's own attribute is unseen)
    # like (n=2): prior 3/5; P(a)=3/4 present; absent: b (1 - 1/4), movie:1 and movie:2 (1 - 2/4), movie:3 (1 - 1/4)
    like = (3 / 5) * (3 / 4) * (3 / 4) * (1 / 2) * (1 / 2) * (3 / 4)
    # dislike (n=1): prior 2/5; P(a)=1/3 present; absent: b (1 - 2/3), movie:1 and movie:2 (1 - 1/3), movie:3 (1 - 2/3)
    dis = (2 / 5) * (1 / 3) * (1 / 3) * (2 / 3) * (2 / 3) * (1 / 3)
    assert p[0] == pytest.approx(like / (like + dis))


def test_majority_and_popularity():
    ratings = pd.DataFrame({"user": [1, 2, 3, 1], "item": [1, 1, 2, 3], "rating": [5, 4, 1, 3]})
    s = Majority().fit(Training(ratings)).score([1, 2], [1, 2])
    assert s.covered.all() and (s.score == 1).all()
    pop = Popularity(2.0).fit(Training(ratings))
    assert pop.rank(1, np.array([1, 2, 3, 9])).tolist() == [2.0, 0.0, 1.0, 0.0]
    assert top_k(pop.rank(1, np.array([1, 2, 3, 9])), np.array([1, 2, 3, 9]), 2) == [1, 3]


def test_ranking_metrics_by_hand():
    rec = [[1, 2, 3, 4], [5, 6, 7, 8]]
    rel = [{2, 4, 9}, {10}]
    m = metrics.ranking_metrics(rec, rel, n_catalogue=20, k=4)
    assert m["precision@4"] == pytest.approx((2 / 4 + 0) / 2)
    assert m["recall@4"] == pytest.approx((2 / 3 + 0) / 2)
    dcg = 1 / np.log2(3) + 1 / np.log2(5)
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert m["ndcg@4"] == pytest.approx((dcg / idcg + 0) / 2)
    assert m["hit_rate@4"] == 0.5 and m["catalogue_coverage"] == 8 / 20


def test_weighted_auc_and_bootstrap():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.6
    s = np.round(rng.random(300) + 0.4 * y, 1)
    assert intervals.weighted_auc(y, s, np.ones((1, 300)))[0] == pytest.approx(metrics.roc_auc(y, s))
    W = np.zeros((1, 300))
    W[0, :150] = 2  # the first half counted twice, the second not at all
    assert intervals.weighted_auc(y, s, W)[0] == pytest.approx(metrics.roc_auc(y[:150], s[:150]))
    out = intervals.paired_bootstrap(y, {"a": (s, s > 0.5), "b": (rng.random(300), rng.random(300) > 0.5)}, "a", 200, 0)
    c = out["versus"]["b"]
    assert c["auc_diff_ci"][0] < c["auc_diff"] < c["auc_diff_ci"][1] and c["auc_diff_ci"][0] > 0
    same = intervals.paired_bootstrap(y, {"a": (s, s > 0.5), "b": (s, s > 0.5)}, "a", 50, 0)["versus"]["b"]
    assert same["auc_diff_ci"] == [0.0, 0.0] and same["balanced_accuracy_diff"] == 0.0  # paired: identical scores


def test_metrics_conventions():
    y = np.array([1, 1, 1, 0, 0], bool)
    like = np.array([1, 0, 1, 0, 1], bool)
    covered = np.array([1, 1, 0, 1, 1], bool)
    m = metrics.metrics(y, like, covered, np.array([0.9, 0.2, np.nan, 0.1, 0.6]))
    assert m["coverage"] == 0.8 and m["accuracy_covered"] == 0.5
    assert m["accuracy_full"] == 0.4  # the uncovered like counts as wrong
    assert m["majority_accuracy_full"] == 0.6
    assert m["balanced_accuracy_full"] == pytest.approx(0.5 * (1 / 3 + 1 / 2))
    assert m["dislike_recall_full"] == 0.5 and m["dislike_precision_full"] == pytest.approx(1 / 3)


def test_roc_auc_matches_pair_counting():
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.7
    s = np.round(rng.random(200) + y * 0.3, 1)
    pos, neg = s[y], s[~y]
    brute = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert metrics.roc_auc(y, s) == pytest.approx(brute)
