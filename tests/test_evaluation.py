"""The evaluation protocol: no test rating reaches a fit, a grid choice, a cut-off or a ranker;
every method on small fixtures; the anchors against their formulas; ranking metrics by hand; the
user-level bootstrap; strong generalisation; and the whole protocol end to end."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kit import FAST, claimed, taste_data
from kit import evaluation_setup as _setup

import recsys.evaluation as ev
import recsys.evaluation.beside as beside
import recsys.evaluation.intervals as intervals
import recsys.evaluation.metrics as metrics
import recsys.evaluation.protocol as protocol
import recsys.evaluation.selection as selection
from recsys.evaluation.methods import Majority, Method, NaiveBayes, Popularity, Training
from recsys.evaluation.ranking import RankingTask, list_metrics, ndcg_per_user, top_k
from recsys.evaluation.surprise_methods import SURPRISE_METHODS, SurpriseMethod


@pytest.fixture(scope="module")
def run():
    train, test, attrs, items = taste_data()
    res = ev.evaluate(train, test, attrs, items, protocol=ev.Protocol(n_boot=200), setup=_setup())
    return res, train, test


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@pytest.mark.slow
def test_no_test_rating_reaches_a_fit_a_choice_a_cut_off_or_a_ranker(monkeypatch):
    """Every ratings frame any method (the anchors and the profile model included, in the grid
    search, the final fits and the new-user lists) is fitted on, every tuning set a grid choice
    is made on and every score the cut-off tuner sees come from the training ratings: no test
    pair is there.  Rankers see test items only as the targets of their lists."""
    train, test, attrs, items = taste_data(seed=3)
    test_pairs = set(map(tuple, test[["user", "item"]].to_numpy()))
    fits, choices, tuned = [], [], []

    def pairs(frame):
        return set(map(tuple, frame[["user", "item"]].to_numpy()))

    for cls in _subclasses(Method):
        if "fit" in cls.__dict__:

            def spy(self, data, _real=cls.__dict__["fit"]):
                fits.append(pairs(data.ratings))
                return _real(self, data)

            monkeypatch.setattr(cls, "fit", spy)
    real_like, real_list, real_tune = selection.like_metric, selection.list_metric, protocol.tune_threshold

    def spy_like(method, tune, y):
        choices.append(pairs(tune))
        return real_like(method, tune, y)

    def spy_list(method, task):
        relevant = {(u, task.catalogue[i]) for u, rel in zip(task.users, task.relevant) for i in rel}
        known = {(u, task.catalogue[i]) for u, h in zip(task.users, task.history) for i in h}
        choices.append(relevant | known)
        return real_list(method, task)

    def spy_tune(score, covered, y):
        tuned.append(len(y))
        return real_tune(score, covered, y)

    from recsys.model import ProfileRecommender

    real_model_fit = ProfileRecommender.fit

    def spy_model_fit(self, ratings, *a, **k):
        fits.append(pairs(ratings))
        return real_model_fit(self, ratings, *a, **k)

    monkeypatch.setattr(selection, "like_metric", spy_like)
    monkeypatch.setattr(selection, "list_metric", spy_list)
    monkeypatch.setattr(protocol, "tune_threshold", spy_tune)
    monkeypatch.setattr(ProfileRecommender, "fit", spy_model_fit)
    # every method in this process, where the spies are
    res = ev.evaluate(train, test, attrs, items, protocol=ev.Protocol(n_boot=0, beside=False), setup=_setup())
    n_tune = res["protocol"]["n_tune"]
    assert len(fits) > 30 and all(not (s & test_pairs) for s in fits), "a test rating reached a fit"
    assert len(choices) > 20 and all(not (c & test_pairs) for c in choices), "a test rating reached a grid choice"
    assert tuned and all(n == n_tune for n in tuned), "the tuner saw something other than the tuning ratings"
    assert res["strong"]["methods"]["ease"]["supported"], "the new-user lists ran (and were spied on)"
    fit_part, tune_part = ev.split_for_tuning(train, 0.1, 0)
    assert len(tune_part) == n_tune and not pairs(fit_part) & pairs(tune_part)


def _without_seconds(x):
    if isinstance(x, dict):
        return {k: _without_seconds(v) for k, v in x.items() if "seconds" not in k and k != "timings"}
    if isinstance(x, list):
        return [_without_seconds(v) for v in x]
    return x


def test_the_methods_measured_beside_give_the_same_figures(run, monkeypatch):
    """The methods that keep one core busy, shared with a second process (the default from 20,000
    training ratings on two cores), give every figure they give here, in the same order — whoever
    measures each, and whenever the paper's rule comes."""
    first, train, test = run
    _, _, attrs, items = taste_data()
    real_take = beside.Beside.take

    def patient_take(self):  # however busy the machine, the other process measures something
        claimed(self, 0)
        return real_take(self)

    monkeypatch.setattr(beside.Beside, "take", patient_take)
    lines = []
    protocol = ev.Protocol(n_boot=200, beside=True)
    res = ev.evaluate(train, test, attrs, items, protocol=protocol, setup=_setup(), progress=lines.append)
    assert any(line.startswith("  (beside) ") for line in lines), "the other process measured something"
    assert _without_seconds(res) == _without_seconds(first)
    assert list(res["ci"]["versus"]) == list(first["ci"]["versus"])


def test_report_schema(run):
    res = run[0]
    assert list(res["methods"]) == list(ev.METHODS)
    from experiments.movielens import COLUMNS  # every figure the experiment's tables print

    for name, r in res["methods"].items():
        assert set(COLUMNS) <= set(r)
        assert (r["threshold"] is None) == (name in ("majority", "profile_paper"))
        assert "params" in r and "grid" in r
    for name in set(ev.METHODS) - {"majority", "profile_paper", "like_share"}:
        r = res["methods"][name]
        assert r["params"] in r["grid"] and len(r["tuning"]["values"]) == len(r["grid"])
        assert r["tuning"]["best"] == max(r["tuning"]["values"]) and r["tuning"]["metric"] == "auc"
    assert set(res["ablations"]) == set(ev.ABLATIONS) | set(ev.CONTROLS)
    # every other method, ablation and control, against the profile model
    versus = (set(ev.METHODS) | set(ev.ABLATIONS) | set(ev.CONTROLS)) - {"profile"}
    assert res["ci"]["unit"] == "user" and set(res["ci"]["versus"]) == versus
    assert not set(res["roc"]) & set(res["ablations"])  # curves of the methods only
    for c in res["ci"]["versus"].values():
        lo, hi = c["auc_diff_ci"]
        assert lo <= c["auc_diff"] <= hi
    topn = res["topn"]
    assert list(topn["methods"]) == list(ev.RANKERS)
    for r in topn["methods"].values():
        assert r["params"] in r["grid"] and r["tuning"]["metric"] == "ndcg@10"
    controls = {"random_support", "full_support", "no_attributes", "item_model_lists"}
    blended = {"item_model_blend", "ease_blend", "ials_blend"}
    assert set(topn["ci"]["versus"]) == set(ev.RANKERS) - {"profile"} | controls | blended
    assert set(topn["controls"]) == controls | blended
    for name in blended:
        c = topn["controls"][name]
        assert set(c["blend"]) == {"popularity", "like", "candidates"} and 0 <= c["ndcg@10"] <= 1
    assert set(topn["per_user_ndcg"]) == set(ev.RANKERS) | controls | blended
    assert {m for m, r in res["strong"]["methods"].items() if not r["supported"]} == {"bpr"}
    assert all("in_model_ndcg@10" in r for r in res["strong"]["methods"].values() if r["supported"])
    assert set(res["roc"]) >= {"profile", "svd", "majority"}


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
    assert top_k(pop.rank(1, np.array([1, 2, 3, 9])), 2).tolist() == [0, 2]
    assert Popularity(2.0, input="all").fit(Training(ratings)).rank(1, np.array([1, 2])).tolist() == [2.0, 1.0]


def test_ranking_metrics_by_hand():
    rec = [np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8])]
    rel = [np.array([2, 4, 9]), np.array([10])]
    m = list_metrics(rec, rel, n_catalogue=20, k=4)
    assert m["precision@4"] == pytest.approx((2 / 4 + 0) / 2)
    assert m["recall@4"] == pytest.approx((2 / 3 + 0) / 2)
    dcg = 1 / np.log2(3) + 1 / np.log2(5)
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert m["ndcg@4"] == pytest.approx((dcg / idcg + 0) / 2)
    assert ndcg_per_user(rec, rel, 4).tolist() == pytest.approx([dcg / idcg, 0.0])
    assert m["hit_rate@4"] == 0.5 and m["catalogue_coverage"] == 8 / 20


def test_ranking_task_and_lists():
    history = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [5, 1, 4]})
    target = pd.DataFrame({"user": [1, 2, 2, 3], "item": [12, 11, 12, 10], "rating": [5, 2, 4, 3]})
    task = RankingTask.of(history, target, np.array([10, 11, 12, 13]))
    assert task.users.tolist() == [1, 2]  # user 3 has no relevant (>= 4) rating
    assert [h.tolist() for h in task.history] == [[0, 1], [0]] and [r.tolist() for r in task.relevant] == [[2], [2]]
    pop = Popularity(2.0, input="all").fit(Training(pd.concat([history, target])))
    from recsys.evaluation.ranking import top_lists

    assert [x.tolist() for x in top_lists(pop, task, k=3)] == [[2, 3], [1, 2, 3]]  # history never listed, ties in order


def test_weighted_auc_and_the_user_bootstrap():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.6
    s = np.round(rng.random(300) + 0.4 * y, 1)
    assert intervals.weighted_auc(y, s, np.ones((1, 300)))[0] == pytest.approx(metrics.roc_auc(y, s))
    W = np.zeros((1, 300))
    W[0, :150] = 2  # the first half counted twice, the second not at all
    assert intervals.weighted_auc(y, s, W)[0] == pytest.approx(metrics.roc_auc(y[:150], s[:150]))
    users = np.repeat(np.arange(30), 10)
    W = intervals.user_weights(np.random.default_rng(1), users, 5)
    assert (W.reshape(5, 30, 10) == W.reshape(5, 30, 10)[:, :, :1]).all(), "a user's ratings go in or out together"
    assert (W.sum(axis=1) == 300).all()
    out = intervals.paired_bootstrap(
        y, {"a": (s, s > 0.5), "b": (rng.random(300), rng.random(300) > 0.5)}, "a", users, 200, 0
    )
    c = out["versus"]["b"]
    assert c["auc_diff_ci"][0] < c["auc_diff"] < c["auc_diff_ci"][1] and c["auc_diff_ci"][0] > 0
    same = intervals.paired_bootstrap(y, {"a": (s, s > 0.5), "b": (s, s > 0.5)}, "a", users, 50, 0)["versus"]["b"]
    assert same["auc_diff_ci"] == [0.0, 0.0] and same["balanced_accuracy_diff"] == 0.0  # paired: identical scores


@given(
    n=st.integers(1, 120),
    n_users=st.integers(1, 12),
    levels=st.sampled_from([2, 5, 1000]),
    like_share=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_the_by_user_bootstrap_gives_the_ratings_numbers_exactly(n, n_users, levels, like_share, seed):
    """Summed by user first (:class:`~recsys.evaluation.intervals.UserPairs`), every interval is the
    very float the ratings' form gives: ties, users without likes or dislikes, resamples of one class."""
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n)
    y = rng.random(n) < like_share
    scores = {m: (rng.integers(0, levels, n) / levels, rng.random(n) < 0.5) for m in "abc"}
    with np.errstate(invalid="ignore", divide="ignore"), pytest.MonkeyPatch.context() as patch:
        by_user = intervals.paired_bootstrap(y, scores, "a", users, 40, seed, chunk=15)
        patch.setattr(intervals, "BY_USER_CELLS", 0)
        by_rating = intervals.paired_bootstrap(y, scores, "a", users, 40, seed, chunk=15)
    assert repr(by_user) == repr(by_rating)  # nan included


def test_user_resampling_widens_the_interval_when_ratings_cluster_by_user():
    """When one method is better for some users and worse for others, ratings of a user move
    together: resampling users (honest) gives a wider interval than resampling ratings."""
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(40), 50)
    y = rng.random(len(users)) < 0.5
    good = np.repeat(rng.random(40) < 0.5, 50)  # method a informative for half of the users, b for the others
    a = np.where(good, y + rng.normal(0, 0.6, len(y)), rng.random(len(y)))
    b = np.where(~good, y + rng.normal(0, 0.6, len(y)), rng.random(len(y)))
    scores = {"a": (a, a > 0.5), "b": (b, b > 0.5)}
    by_user = intervals.paired_bootstrap(y, scores, "a", users, 300, 0)["versus"]["b"]["auc_diff_ci"]
    by_rating = intervals.paired_bootstrap(y, scores, "a", np.arange(len(y)), 300, 0)["versus"]["b"]["auc_diff_ci"]
    assert (by_user[1] - by_user[0]) > 2 * (by_rating[1] - by_rating[0])


def test_paired_means_bootstrap():
    v = {"p": np.array([0.5, 0.4, 0.6, 0.5]), "q": np.array([0.4, 0.4, 0.5, 0.3])}
    out = intervals.paired_bootstrap_means(v, "p", 500, 0)["versus"]["q"]
    assert out["diff"] == pytest.approx(0.1) and 0 <= out["diff_ci"][0] <= 0.1 <= out["diff_ci"][1] <= 0.2


def test_selection_takes_the_first_best_point():
    class Toy(Method):
        def __init__(self, v):
            self.v = v

        def fit(self, train):
            return self

        def score(self, users, items):
            return ev.methods.Scores(np.asarray(items, dtype=float) * self.v, np.ones(len(items), bool))

    tune = pd.DataFrame({"user": [1, 1, 1, 1], "item": [1, 2, 3, 4]})
    y = np.array([False, False, True, True])
    grid = [{"v": -1.0}, {"v": 1.0}, {"v": 2.0}]  # AUC 0, 1, 1: the first of the two best
    c = selection.sweep(lambda p: Toy(p["v"]), grid, Training(tune), {"like": (tune, y)})["like"]
    assert c.point == {"v": 1.0} and c.values == [0.0, 1.0, 1.0] and c.model.v == 1.0


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


def test_rp3beta_by_hand():
    """Three users: u0 rated items 0, 1; u1 items 1, 2; u2 item 0.  With alpha = beta = 1, the walk
    item -> user -> item gives W[0] = (3/4, 1/4, 0), W[1] = (1/4, 1/2, 1/4), W[2] = (0, 1/2, 1/2);
    dividing column j by the popularity of j (2, 2, 1) gives the weights below."""
    import scipy.sparse as sp

    from recsys.evaluation.anchors import rp3beta_weights

    X = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1], [1, 0, 0]]))
    W = rp3beta_weights(X, 1.0, 1.0, 3).toarray()
    assert W == pytest.approx(np.array([[3 / 8, 1 / 8, 0], [1 / 8, 1 / 4, 1 / 4], [0, 1 / 4, 1 / 2]]))
    assert rp3beta_weights(X, 1.0, 1.0, 2).toarray()[1] == pytest.approx([0, 1 / 4, 1 / 4])  # top 2 of row 1
    # alpha = 1/2, beta = 0: W[0, 0] = sqrt(1/2) sqrt(1/2) (through u0) + sqrt(1/2) * 1 (through u2)
    assert rp3beta_weights(X, 0.5, 0.0, 3)[0, 0] == pytest.approx(0.5 + np.sqrt(0.5))


def test_held_out_users_split():
    from recsys.evaluation.strong import held_out_users

    train = taste_data()[0]
    others, given, scored = held_out_users(train, 0.1, 0.8, 0)
    held = set(given["user"]) | set(scored["user"])
    assert len(held) == 8 and not held & set(others["user"])
    assert len(others) + len(given) + len(scored) == len(train)
    per_user = given.groupby("user").size() / (given.groupby("user").size() + scored.groupby("user").size())
    assert ((per_user > 0.7) & (per_user <= 0.8)).all()
    again = held_out_users(train, 0.1, 0.8, 0)[1]
    assert given.equals(again), "seeded"


def test_fold_in_scores_a_new_user_like_a_known_one():
    """An item-item anchor scores a user folded in from their ratings exactly as if they were in
    the training data (EASE's scores are x W whichever way x arrives)."""
    from recsys.evaluation.anchors import EASE, ItemKNN

    train = taste_data()[0]
    catalogue = np.unique(train["item"])
    user = train["user"].iloc[0]
    mine = train[train["user"] == user]
    idx = np.searchsorted(catalogue, mine["item"].to_numpy())
    for m in (EASE(2.0, 0, "likes", lamb=50), ItemKNN(2.0, 0, "all", k=20)):
        m.fit(Training(train))
        known = m.rank_block([user], catalogue)
        new = m.fold_in_block([(idx, mine["rating"].to_numpy(dtype=float))], catalogue)
        assert np.allclose(known, new)


def test_profile_lists_of_a_block_are_each_users_own():
    """ProfileMethod's block of lists (the catalogue looked up once) is its per-user ranking,
    stacked: unknown users and items -inf, and a user folded in from their ratings the same."""
    from recsys.evaluation.methods import ProfileMethod

    train = taste_data()[0]
    m = ProfileMethod().fit(Training(train))
    catalogue = np.r_[np.unique(train["item"]), -12345]  # and an item it never saw
    users = [*train["user"].unique()[:6], "nobody"]
    block = m.rank_block(users, catalogue)
    assert block.shape == (len(users), len(catalogue))
    np.testing.assert_array_equal(block, np.vstack([m.rank(u, catalogue) for u in users]))
    assert np.isneginf(block[-1]).all() and np.isneginf(block[:, -1]).all()
    for r, user in enumerate(users[:-1]):  # finite exactly on the items the user did not rate
        rated = np.isin(catalogue[:-1], train.loc[train["user"] == user, "item"])
        np.testing.assert_array_equal(np.isfinite(block[r, :-1]), ~rated)
    user = users[0]
    mine = train[train["user"] == user]
    idx = np.searchsorted(catalogue[:-1], mine["item"].to_numpy())
    folded = m.fold_in_block([(idx, mine["rating"].to_numpy(dtype=float))], catalogue)
    np.testing.assert_allclose(folded[0], block[0], rtol=0, atol=1e-12)  # summed in another order


def test_the_brief_summary_names_who_leads_and_says_ahead_only_when_the_interval_is_above_zero():
    from recsys.evaluation.summary import brief_lines, source_line

    def res(diff, ci):
        methods = {
            "profile": {"auc_full": 0.80, "balanced_accuracy_full": 0.7},
            "knn": {"auc_full": 0.80 - diff, "balanced_accuracy_full": 0.7},
        }
        ci_versus = {"knn": {"auc_diff": diff, "auc_diff_ci": ci}}
        return {
            "n_test": 10,
            "like_share_test": 0.8,
            "methods": methods,
            "ci": {"versus": ci_versus},
            "seconds": 12.3,
            "commit": None,
        }

    text = "\n".join(brief_lines(res(-0.02, [-0.03, -0.01])))
    assert "On AUC knn leads profile by 0.0200 [95 % 0.0100, 0.0300]: knn is ahead of profile" in text
    assert "knn is level with profile" in "\n".join(brief_lines(res(-0.02, [-0.03, 0.01])))
    assert "profile is ahead of knn" in "\n".join(brief_lines(res(0.02, [0.01, 0.03])))
    assert "profile is level with knn" in "\n".join(brief_lines(res(0.02, [-0.01, 0.03])))
    assert source_line(res(0.0, [0, 0])).endswith("(no git checkout)") and source_line(res(0, [0, 0]))[:4] == "12 s"


def test_pooled_interval_is_of_the_mean_over_folds():
    """Two folds: the difference is the mean of the folds' mean differences, its interval resamples
    users within each fold (a fold with no spread adds none), and it narrows with more users."""
    rng = np.random.default_rng(0)
    small = [{"p": rng.normal(0.1, 0.2, 30), "q": np.zeros(30)} for _ in range(2)]
    out = intervals.pooled_paired_means(small, "p", 2000, 0)["versus"]["q"]
    assert out["diff"] == pytest.approx(np.mean([f["p"].mean() for f in small]))
    lo, hi = out["diff_ci"]
    assert lo < out["diff"] < hi
    big = [{"p": rng.normal(0.1, 0.2, 3000), "q": np.zeros(3000)} for _ in range(2)]
    lo2, hi2 = intervals.pooled_paired_means(big, "p", 500, 0)["versus"]["q"]["diff_ci"]
    assert hi2 - lo2 < (hi - lo) / 5
    fixed = [{"p": np.full(10, 0.3), "q": np.full(10, 0.1)}] * 3
    assert intervals.pooled_paired_means(fixed, "p", 100, 0)["versus"]["q"]["diff_ci"] == pytest.approx([0.2, 0.2])
    # a method missing from a fold is left out rather than compared on part of the folds
    assert (
        "r"
        not in intervals.pooled_paired_means(
            [{"p": [1.0], "q": [0.0], "r": [0.0]}, {"p": [1.0], "q": [0.0]}], "p", 10, 0
        )["versus"]
    )


def test_a_blend_of_nothing_lists_as_the_ranker_and_a_heavy_popularity_weight_lists_by_popularity(run):
    """Blended (recsys.evaluation.blends) on the fixture's EASE: weights (0, 0) give EASE's own top 10
    (the candidates hold its best 100); a popularity weight that dwarfs the scores lists the most
    liked candidates first."""
    from recsys.evaluation.anchors import EASE
    from recsys.evaluation.blends import Blended, popularity_of
    from recsys.evaluation.methods import ProfileMethod
    from recsys.evaluation.ranking import catalogue_of, top_lists
    from recsys.model.list_blend import ListBlend

    _, train, test = run
    catalogue = catalogue_of(train)
    task = RankingTask.of(train, test, catalogue)
    ease = EASE(2.0, 0, "likes", lamb=50).fit(Training(train))
    profile = ProfileMethod({}, like_params=FAST, dislike_params=FAST).fit(Training(train))
    pop = popularity_of(train, catalogue, 2.0)
    plain = top_lists(ease, task)
    alone = top_lists(Blended(ease, profile, ListBlend(0.0, 0.0), pop, task), task)
    assert all(np.array_equal(a, b) for a, b in zip(plain, alone, strict=True))
    heavy = top_lists(Blended(ease, profile, ListBlend(1e9, 0.0), pop, task), task)
    for lst in heavy:
        assert np.all(np.diff(pop[lst]) <= 0)  # by popularity, best first


def test_knn_baselines_grid_shares_one_fit_and_predicts_as_a_fresh_fit():
    from recsys.evaluation.surprise_methods import shared_neighbourhoods

    train, test, _, _ = taste_data()
    pairs = test[["user", "item"]].to_numpy()[:80]
    with shared_neighbourhoods():
        first = SurpriseMethod("knn_baseline", 0, k=20).fit(Training(train))
        second = SurpriseMethod("knn_baseline", 0, k=3).fit(Training(train))
        other_data = SurpriseMethod("knn_baseline", 0, k=3).fit(Training(train.iloc[:-5]))
    assert second.algo_.sim is first.algo_.sim and first.algo_.k == 20, "the similarities computed once"
    assert other_data.algo_.sim is not first.algo_.sim, "other ratings: a fit of their own"
    fresh = SurpriseMethod("knn_baseline", 0, k=3).fit(Training(train))
    got = second.score(pairs[:, 0], pairs[:, 1]).score
    assert np.array_equal(got, fresh.score(pairs[:, 0], pairs[:, 1]).score)
    assert not np.array_equal(got, first.score(pairs[:, 0], pairs[:, 1]).score), "k changes the estimates"
