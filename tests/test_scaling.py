"""The rules for large data (``ProfileRecommender(scaling=...)``): one fit, a per-user budget of
co-clusters, the item penalty grown with the like counts; and the sparse similarity path."""

import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import FAST, taste_data

from recsys.errors import ParameterError
from recsys.model import ProfileRecommender
from recsys.model import neighbours as nbmod
from recsys.model.csr import Csr
from recsys.model.learning import Learning, add_ratings, fit_profiles, most_selective
from recsys.model.settings import COCLUSTERS_PER_USER, ITEM_L2_REFERENCE_LIKES
from recsys.model.training import dense_weights_limit


@st.composite
def memberships(draw):
    n_users = draw(st.integers(1, 12))
    n_cc = draw(st.integers(1, 15))
    rows = [
        np.array(sorted(draw(st.sets(st.integers(0, n_users - 1), min_size=1, max_size=n_users)))) for _ in range(n_cc)
    ]
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
@pytest.mark.slow
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
        # the sparse path's order is decreasing similarity, then increasing index
        assert all(ss[t] > ss[t + 1] or (ss[t] == ss[t + 1] and si[t] < si[t + 1]) for t in range(len(si) - 1))


def test_a_co_member_budget_reads_each_rows_smallest_co_clusters_first():
    """``budget``: a row whose co-clusters' sizes fit it is exact; one whose sizes do not reads its
    smallest co-clusters while they fit, and its similarities are those of that subset alone."""
    rng = np.random.default_rng(7)
    lists = [np.unique(rng.integers(0, 120, rng.integers(2, 40))) for _ in range(60)]
    members = Csr.from_lists(lists, 120)
    exact = nbmod.from_coclusters(members, 120, 30, block=32, sparse_up_to=1e9)
    roomy = nbmod.from_coclusters(members, 120, 30, block=32, sparse_up_to=1e9, budget=10**9)
    assert np.array_equal(exact.ptr, roomy.ptr) and np.array_equal(exact.idx, roomy.idx)
    assert np.array_equal(exact.sim, roomy.sim)
    budget = 60
    bounded = nbmod.from_coclusters(members, 120, 30, block=32, sparse_up_to=1e9, budget=budget)
    w = nbmod.cocluster_weights(members.lengths)
    norms = nbmod.membership_norms(members, 120)
    sizes = members.lengths
    of = [[c for c in range(len(lists)) if a in set(lists[c])] for a in range(120)]
    capped = 0
    for a in range(120):
        mine = sorted(of[a], key=lambda c: (sizes[c], c))
        if sizes[mine].sum() > budget:
            capped += 1
            kept, used = [], 0
            for c in mine:
                if kept and used + sizes[c] > budget:
                    break
                kept.append(c)
                used += sizes[c]
            mine = kept
        sim = np.zeros(120)
        for c in mine:
            sim[lists[c]] += w[c]
        sim = sim / (norms[a] * np.where(norms > 0, norms, 1.0))
        sim[a] = 0.0
        idx, got = bounded.of(a)
        assert np.allclose(got, sim[idx]) and (got > 0).all()
        assert len(idx) == min(30, int((sim > 0).sum()))
        assert got.min(initial=np.inf) >= np.sort(sim)[-len(idx)] - 1e-12 if len(idx) else True
    assert capped > 10  # the budget binds on many rows


def test_the_sparse_neighbourhoods_are_chosen_by_the_co_memberships_products(monkeypatch):
    """``sparse_up_to`` picks the path by ``sum_c |c|²`` against entities², not by the entity count."""
    rng = np.random.default_rng(5)
    lists = [np.unique(rng.integers(0, 50, rng.integers(2, 12))) for _ in range(30)]
    members = Csr.from_lists(lists, 50)
    products = float((members.lengths.astype(np.float64) ** 2).sum())
    chosen = []
    monkeypatch.setattr(
        nbmod, "_top_similar_sparse", lambda *a, **k: chosen.append("sparse") or nbmod.Neighbours.empty(50)
    )
    monkeypatch.setattr(
        nbmod,
        "_similar_block",
        lambda *a, **k: chosen.append("dense") or (np.zeros(0, np.int64),) * 2 + (np.zeros(0, np.int64),),
    )
    nbmod.from_coclusters(members, 50, 5, block=64, sparse_up_to=products / 50**2)
    nbmod.from_coclusters(members, 50, 5, block=64, sparse_up_to=0.99 * products / 50**2)
    nbmod.from_coclusters(members, 50, 5, block=64)  # by the entity count: 50 rows are dense
    assert chosen == ["sparse", "dense", "dense"]


@pytest.fixture(scope="module")
def data():
    return taste_data(n_users=120, n_items=60)


def fit(train, attrs, items, **params):
    return ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, **params).fit(train, attrs, items)


def test_auto_on_small_data_is_off(data):
    train, test, attrs, items = data
    auto, off = fit(train, attrs, items), fit(train, attrs, items, scaling="off")
    assert (
        auto.report_["scaling"]
        == off.report_["scaling"]
        == {
            "on": False,
            "item_l2": 50.0,
            "terms_left_out": [],
            "dense_weights_up_to": 0,
        }
    )
    u, i = test["user"].to_numpy(), test["item"].to_numpy()
    assert np.array_equal(auto.predict_many(u, i).score, off.predict_many(u, i).score, equal_nan=True)


def test_scaling_on_fits_once_and_keeps_every_rating(data):
    train, test, attrs, items = data
    messages = []
    on = ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, scaling="on").fit(
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
    assert on.report_["scaling"] == {
        "on": True,
        "item_l2": pytest.approx(50.0 * mean_likes / ITEM_L2_REFERENCE_LIKES),
        "terms_left_out": ["like_users", "dislike_users"],
        "dense_weights_up_to": dense_weights_limit(int((~_held(on, train)).sum())),
    }
    assert np.isfinite(on.predict_many(test["user"].to_numpy(), test["item"].to_numpy()).score).any()
    assert on.recommend(int(train["user"].iloc[0]), n=5)


def test_the_scaling_rules_reach_the_learning_and_only_with_scaling_on(data, monkeypatch):
    import recsys.model.settings as model_settings
    import recsys.model.training as training

    train, _, attrs, items = data
    seen, sizes = [], []

    def recording(ratings, item_attributes, items, learning, **kw):
        seen.append(learning)
        sizes.append(len(ratings))
        return fit_profiles(ratings, item_attributes, items, learning, **kw)

    monkeypatch.setattr(training, "fit_profiles", recording)
    on = fit(train, attrs, items, scaling="on")
    rules = {
        "user_budget": model_settings.COCLUSTERS_PER_USER,
        "max_partners": model_settings.ITEM_PARTNERS,
        "sparse_neighbours": model_settings.SPARSE_NEIGHBOURS_UP_TO,
        "neighbour_budget": model_settings.NEIGHBOUR_BUDGET,
        "dense_weights_up_to": training.dense_weights_limit(sizes[0]),  # the ratings that fit learns from
        "user_neighbours": False,
    }
    assert len(seen) == 1 and {k: getattr(seen[0], k) for k in rules} == rules
    assert sizes[0] < len(train) and on.report_["scaling"]["dense_weights_up_to"] == rules["dense_weights_up_to"]
    seen.clear()
    fit(train, attrs, items, scaling="off")
    defaults = Learning()
    assert seen and all({k: getattr(how, k) for k in rules} == {k: getattr(defaults, k) for k in rules} for how in seen)


def test_the_scaling_rules_take_more_regions_where_the_coclustering_is_left_at_its_defaults(data):
    """Under the scaling rules a side left at the recommender's co-clustering takes bands of 3 and
    region_cover 16 (with the work budget); a side the user set keeps what they set (and its budget)."""
    from recsys.model.settings import COCLUSTER_BUDGET, RECOMMENDER_PARAMS, SCALED_COCLUSTERING
    from recsys.model.training import learning_of

    train = data[0]
    default = learning_of(ProfileRecommender(), train)
    expected = {"budget": COCLUSTER_BUDGET, **RECOMMENDER_PARAMS, **SCALED_COCLUSTERING}
    assert default.like_params == expected and default.dislike_params == expected
    mine = {**RECOMMENDER_PARAMS, "n_bands": 60, "budget": 3.0}
    chosen = learning_of(ProfileRecommender(like_params=mine), train)
    assert chosen.like_params == mine and chosen.dislike_params == default.dislike_params
    unscaled = learning_of(ProfileRecommender(), None)  # the rules off: the parameters as they are
    assert unscaled.like_params in (None, RECOMMENDER_PARAMS)


def test_the_dense_weights_follow_the_ratings_within_the_dense_gram():
    """One inverse over n movies costs n³ flops: it is taken where that is within the flops a
    rating allows (so the cost follows the ratings), and never past a dense Gram matrix's memory."""
    from recsys.model.item_model import DENSE_GRAM_BYTES
    from recsys.model.settings import DENSE_INVERSE_FLOPS_PER_RATING

    for n_ratings in (0, 1, 810_000, 8_100_000, 20_250_000):
        n = dense_weights_limit(n_ratings)
        assert n**3 <= DENSE_INVERSE_FLOPS_PER_RATING * n_ratings < (n + 1) ** 3
    assert [dense_weights_limit(r) for r in (810_000, 8_100_000, 20_250_000)] == [6_569, 14_153, 19_208]
    huge = dense_weights_limit(10**12)
    assert 8 * huge**2 <= DENSE_GRAM_BYTES < 8 * (huge + 1) ** 2


def _held(model, ratings):
    import pandas as pd

    from recsys.model.ratings import holdout_mask

    return pd.Series(holdout_mask(ratings, model.validation_fraction, model.random_state), index=ratings.index)


def test_the_budget_bounds_each_users_coclusters(data):
    train, _, attrs, items = data
    budgeted = Learning(like_params=FAST, dislike_params=FAST, item_l2=None, user_budget=3)
    fp, report = fit_profiles(train, attrs, items, budgeted)
    for side in ("like", "dislike"):
        assert fp.coclusters(side).of_user.lengths.max() <= 3
        assert (fp.coclusters(side).users.lengths >= FAST["min_rows"]).all()
        assert report[f"{side}_budget"]["per_user"] == 3
    free, _ = fit_profiles(train, attrs, items, Learning(like_params=FAST, dislike_params=FAST, item_l2=None))
    assert free.like.of_user.lengths.max() > 3  # the budget did bind
    assert COCLUSTERS_PER_USER >= 100


def test_a_neighbour_budget_reaches_every_neighbourhood_and_changes_only_the_capped_rows(data):
    train, _, attrs, items = data
    how = Learning(like_params=FAST, dislike_params=FAST, item_l2=None, sparse_neighbours=1e9)
    free, _ = fit_profiles(train, attrs, items, how)
    roomy, _ = fit_profiles(train, attrs, items, dataclasses.replace(how, neighbour_budget=10**9))
    tight, _ = fit_profiles(train, attrs, items, dataclasses.replace(how, neighbour_budget=5))
    for key in free.neighbours:
        assert np.array_equal(free.neighbours[key].idx, roomy.neighbours[key].idx), key
    assert not np.array_equal(free.neighbours["like_users"].sim, tight.neighbours["like_users"].sim)


def test_add_ratings_refuses_strangers(data):
    train, _, attrs, items = data
    fp, _ = fit_profiles(train.iloc[:-50], attrs, items, Learning(like_params=FAST, dislike_params=FAST, item_l2=None))
    stranger = train.iloc[:1].assign(user=10_000)
    with pytest.raises(ValueError, match="not fitted with"):
        add_ratings(fp, stranger)


def test_scaling_must_be_a_known_rule(data):
    with pytest.raises(ParameterError, match="scaling"):
        ProfileRecommender(scaling="sometimes").fit(data[0])


class _Recorder:
    """A progress callback that also takes fractions (as the command line's does)."""

    def __init__(self):
        self.steps, self.fractions = [], []

    def __call__(self, message):
        self.steps.append(message)

    def fraction(self, done, detail=""):
        self.fractions.append((len(self.steps), detail, done))


def test_long_steps_tell_how_far_they_are(data):
    train, _, attrs, items = data
    rec = _Recorder()
    ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0).fit(train, attrs, items, progress=rec)
    details = {d for _, d, _ in rec.fractions}
    assert {"relaxation", "LSH seeds", "like users", "dislike items", "weights from the likes", "terms"} <= details
    assert all(0.0 <= f <= 1.0 for _, _, f in rec.fractions)
    for detail in ("like users", "weights from the likes", "terms"):
        seen = [f for _, d, f in rec.fractions if d == detail]
        assert seen[0] == 0.0 and seen[-1] == 1.0  # told as it starts and as it ends
    # a plain callable is told the steps only
    messages = []
    ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0).fit(train, progress=messages.append)
    assert all(isinstance(m, str) for m in messages)


def test_progress_lines_show_the_share_done_and_the_time_left():
    import io

    from recsys.cli.base import Progress

    now = [0.0]
    out = io.StringIO()
    p = Progress(every=5.0, stream=out, clock=lambda: now[0])
    p("co-clustering the like relation")
    p.fraction(0.0, "relaxation")
    for k in range(1, 5):
        now[0] += 3.0
        p.fraction(k / 4, "relaxation")
    p("neighbourhoods")
    lines = out.getvalue().splitlines()
    assert lines[0] == "[   0.0s] co-clustering the like relation"
    # 3 s for the first quarter: 9 s left; a line at most every 5 s; none at 100 %
    assert lines[1:] == [
        "         … relaxation 25 %, about 9 s left",
        "         … relaxation 75 %, about 3 s left",
        "[  12.0s] neighbourhoods",
    ]


def test_progress_redraws_in_place_on_a_terminal():
    import io

    from recsys.cli.base import Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    now = [0.0]
    out = Terminal()
    p = Progress(stream=out, clock=lambda: now[0])
    p("step")
    p.fraction(0.0, "x")
    for k in (1, 2):
        now[0] += 2.0
        p.fraction(k / 2, "x")
    p("next")
    text = out.getvalue()
    assert text.count("\r\x1b[2K") == 3  # two redraws and the clearing before the next step
    assert "x 50 %, about 2 s left" in text and "x 100 %\x1b" in text and text.endswith("next\x1b[0m\n")


@pytest.mark.data
@pytest.mark.slow
def test_train_stops_before_fitting_when_the_estimate_is_over_the_limit(shared_data, tmp_path):
    from kit import recsys_here as recsys  # in this process: the same CLI without a child's start-up

    out = tmp_path / "model"
    res = recsys("train", "--dataset", "ml-100k", "--max-memory", "0.5", "-o", str(out), home=shared_data)
    assert res.returncode == 2 and not out.exists()
    lines = res.stderr.strip().splitlines()
    assert "Traceback" not in res.stderr and "co-clustering" not in res.stderr  # stopped before the fit
    expected = r"error: training on 80,000 ratings \(943 users × 1,65\d movies\) needs about [\d.]+ GB"
    assert re.search(expected, lines[-1])
    assert "0.5 GB are the limit given (--max-memory)" in lines[-1]
    bad = recsys("train", "--dataset", "ml-100k", "--max-memory", "-1", "-o", str(out), home=shared_data)
    assert bad.returncode == 2 and "--max-memory must be a positive number" in bad.stderr


def test_the_memory_estimate_covers_the_measured_peaks():
    import json
    from pathlib import Path

    from recsys.model.memory import check_memory, fit_peak_bytes

    runs = json.loads((Path(__file__).parent.parent / "benchmarks/results/recsys_scale.json").read_text())["runs"]
    assert runs
    for run in runs:
        large = "--scaling off" not in run.get("train_args", "") and run["ratings"] >= 500_000
        estimate = fit_peak_bytes(run["ratings"], run["items"], large)
        # at or above the measured peak, and not wildly so (a useless estimate would pass the first)
        assert run["peak_mb"] * 2**20 <= estimate <= 2.5 * run["peak_mb"] * 2**20, run["ratings"]
    assert fit_peak_bytes(10**7, 5000, True) < fit_peak_bytes(10**7, 5000, False)
    with pytest.raises(MemoryError, match="needs about"):
        check_memory(10**9, 10**6, 50_000, True)  # a billion ratings: more than any machine here
    assert check_memory(1000, 10, 10, False, limit=1e12) > 0
    # the message says what would fit, and that much does by the same estimate
    with pytest.raises(MemoryError, match=r"about ([\d,]+) ratings of these movies would fit") as stop:
        check_memory(10**8, 480_000, 17_770, True, limit=8e9)
    fits = int(re.search(r"about ([\d,]+) ratings", str(stop.value)).group(1).replace(",", ""))
    assert 0 < fits < 10**8 and fit_peak_bytes(fits, 17_770, True) <= 8e9 < fit_peak_bytes(fits + 10**4, 17_770, True)
    with pytest.raises(MemoryError, match="no ratings of these movies would fit"):
        check_memory(10**6, 1000, 100_000, False, limit=0.5e9)  # below the fixed part


@pytest.mark.parametrize(
    "option, value, named",
    [
        ("--scaling", "sometimes", ("scaling", "sometimes")),
        ("--region-cover", "0", ("--region-cover",)),
        ("--item-l2-per-like", "-1", ("--item-l2-per-like",)),
    ],
)
def test_cli_stops_on_a_bad_scaling_option(tmp_path, option, value, named):
    """An unknown rule, a region cover below 1 or a negative penalty per like: one line naming it,
    exit 2, nothing written."""
    from kit import recsys_here as recsys  # in this process: the same CLI without a child's start-up

    ratings = tmp_path / "r.csv"
    ratings.write_text("user,item,rating\n1,1,5\n")
    out = tmp_path / "m"
    res = recsys("train", "--ratings", str(ratings), option, value, "-o", str(out))
    assert res.returncode == 2 and not out.exists() and "Traceback" not in res.stderr
    assert all(word in res.stderr for word in named)


def _ease_on_pairs(fp, likes, l2: float) -> np.ndarray:
    """EASE's weights (numpy's inverse over the items with a pair) from the users × items matrix of
    ``likes``, kept on ``fp``'s co-clustered pairs: the dense item model's definition."""
    X = np.zeros((fp.n_users, fp.n_items))
    X[fp.user_index(likes["user"].to_numpy()), fp.item_index(likes["item"].to_numpy())] = 1.0
    pairs = fp.pair_support.to_scipy().toarray() != 0
    a = np.flatnonzero(pairs.any(axis=1))
    P = np.linalg.inv(X[:, a].T @ X[:, a] + l2 * np.eye(len(a)))
    W = np.zeros((fp.n_items, fp.n_items))
    W[np.ix_(a, a)] = -P / np.diag(P)
    return np.where(pairs, W, 0.0)


@pytest.mark.parametrize("refit", [False, True])
def test_refit_item_model_learns_the_item_model_from_every_training_rating(data, refit):
    """Under the scaling rules the item model is learnt without the held-out ratings, unless
    ``refit_item_model``: then from every training like, on the same pairs and penalty. Both are
    checked against EASE's definition on the likes they should have read, and differ from the other."""
    train, _, attrs, items = data
    model = fit(train, attrs, items, scaling="on", refit_item_model=refit)
    fp, report = model.profiles_, model.report_
    liked = train[train["rating"] > 2]
    inner = liked[~_held(model, train).loc[liked.index].to_numpy()]
    read, other = (liked, inner) if refit else (inner, liked)
    got = fp.item_weights.to_scipy().toarray()
    assert np.allclose(got, _ease_on_pairs(fp, read, report["item_model"]["l2"]), rtol=1e-9, atol=1e-12)
    assert not np.allclose(got, _ease_on_pairs(fp, other, report["item_model"]["l2"]), atol=1e-3)
    assert report["item_model"].get("refit", False) is refit
    assert ("item_model_refit" in report["timings"]) is refit


def test_refit_item_model_changes_nothing_without_the_scaling_rules(data):
    """Without the rules every part is learnt again on every rating anyway: the option is a no-op."""
    train, test, attrs, items = data
    plain, refit = (
        fit(train, attrs, items, scaling="off"),
        fit(train, attrs, items, scaling="off", refit_item_model=True),
    )
    u, i = test["user"].to_numpy(), test["item"].to_numpy()
    assert np.array_equal(plain.predict_many(u, i).score, refit.predict_many(u, i).score, equal_nan=True)
    assert np.array_equal(plain.profiles_.item_weights.values, refit.profiles_.item_weights.values)


def test_cli_refit_item_model_reaches_the_model(data, tmp_path):
    """``recsys train --refit-item-model``: the saved model's parameter and its report say so; a
    value given to the flag stops with exit 2, nothing written."""
    from kit import recsys_here as recsys

    from recsys import store

    train, _, _, _ = data
    ratings = tmp_path / "r.csv"
    train.to_csv(ratings, index=False)
    fast = ["--n-bands", "60", "--band-size", "2", "--min-rows", "2", "--min-cols", "2"]
    res = recsys("train", "--ratings", ratings, "--scaling", "on", "--refit-item-model", *fast, "-o", tmp_path / "m")
    assert res.returncode == 0, res.stderr
    trained = store.load(tmp_path / "m")
    assert trained.refit_item_model is True and trained.report_["item_model"]["refit"] is True
    bad = recsys("train", "--ratings", ratings, "--refit-item-model", "yes", "-o", tmp_path / "n")
    assert bad.returncode == 2 and not (tmp_path / "n").exists() and "Traceback" not in bad.stderr


def test_small_catalogues_take_eases_weights_on_the_pairs_and_others_the_per_item_solves(data):
    """``dense_weights_up_to`` (a scaling rule): at or under it, the item model's weights are EASE's
    kept on the co-clustered pairs, nothing capped, and the residual model's the per-item solves on
    the capped pairs, as without it; over it, the per-item solves on at most ``max_partners``
    partners for both, as without the rule."""
    from recsys.model.item_model import ease_on_support, item_weights

    train, _, attrs, items = data
    how = Learning(like_params=FAST, dislike_params=FAST, item_l2=50.0, residual_model=True, max_partners=3)
    solved, _ = fit_profiles(train, attrs, items, how)
    n_supported = int(np.count_nonzero(solved.pair_support.lengths))
    over, _ = fit_profiles(train, attrs, items, dataclasses.replace(how, dense_weights_up_to=n_supported - 1))
    dense, _ = fit_profiles(train, attrs, items, dataclasses.replace(how, dense_weights_up_to=n_supported))
    pairs = solved.pair_support
    for got, want in [
        (solved.item_weights, item_weights(solved.sources, pairs, 50.0, max_partners=3)),
        (over.item_weights, solved.item_weights),
        (over.residual_weights, solved.residual_weights),
        (dense.item_weights, ease_on_support(solved.sources, pairs, 50.0, symmetric=True).weights),
        (dense.residual_weights, solved.residual_weights),
    ]:
        assert np.array_equal(got.ptr, want.ptr) and np.array_equal(got.idx, want.idx)
        assert np.allclose(got.values, want.values, rtol=1e-12, atol=1e-15)
    assert solved.item_weights.nnz < pairs.nnz == dense.item_weights.nnz


def test_the_item_model_learnt_beside_the_dislike_side_is_the_one_learnt_after_it(data, monkeypatch):
    """Where the dense inverse applies, the item model is learnt on a thread while the dislike side
    and the neighbourhoods are (and says so); the profiles are float for float those of learning it
    after them, and the rule that sends it there is the item model's own (the items with a partner)."""
    from contextlib import contextmanager

    from recsys.model import learning
    from recsys.model.item_model import active_items

    train, _, attrs, items = data
    how = Learning(like_params=FAST, dislike_params=FAST, item_l2=50.0, residual_model=True, max_partners=3)
    solved, _ = fit_profiles(train, attrs, items, how)
    n_supported = len(active_items(solved.pair_support))
    for limit in (n_supported - 1, n_supported):
        assert learning._dense_item_model(solved.like, dataclasses.replace(how, dense_weights_up_to=limit)) == (
            limit >= n_supported
        )
    how = dataclasses.replace(how, dense_weights_up_to=n_supported)
    said = []
    beside, _ = fit_profiles(train, attrs, items, how, progress=said.append)
    assert any("beside the next steps" in line for line in said), said

    @contextmanager
    def after(*args):
        yield None

    monkeypatch.setattr(learning, "_item_model_beside", after)
    sequential, _ = fit_profiles(train, attrs, items, how)
    for name in ("item_weights", "residual_weights", "pair_support", "sources", "residuals"):
        got, want = getattr(beside, name), getattr(sequential, name)
        assert np.array_equal(got.ptr, want.ptr) and np.array_equal(got.idx, want.idx), name
        assert np.array_equal(got.values, want.values), name


def test_the_residual_solves_run_after_the_inverse_where_two_gram_matrices_would_not_fit(data, monkeypatch):
    """Above settings.SOLVES_BESIDE_INVERSE_GRAM_BYTES the residual model's per-movie solves wait for
    the like weights' inverse (their Gram matrix and its are not alive together): the same residual
    weights, the like weights those of an inverse on every BLAS thread instead of one."""
    from recsys.model import learning
    from recsys.model.item_model import active_items

    train, _, attrs, items = data
    how = Learning(like_params=FAST, dislike_params=FAST, item_l2=50.0, residual_model=True, max_partners=3)
    solved, _ = fit_profiles(train, attrs, items, how)
    how = dataclasses.replace(how, dense_weights_up_to=len(active_items(solved.pair_support)))
    overlapping, _ = fit_profiles(train, attrs, items, how)
    calls = []
    monkeypatch.setattr(learning, "SOLVES_BESIDE_INVERSE_GRAM_BYTES", 0.0)
    real = learning.ease_on_support
    monkeypatch.setattr(learning, "ease_on_support", lambda *a, **k: calls.append(k["meanwhile"]) or real(*a, **k))
    after, _ = fit_profiles(train, attrs, items, how)
    assert calls == [None]
    for name, exact in (("residual_weights", True), ("item_weights", False)):
        got, want = getattr(after, name), getattr(overlapping, name)
        assert np.array_equal(got.ptr, want.ptr) and np.array_equal(got.idx, want.idx), name
        assert np.array_equal(got.values, want.values) if exact else np.allclose(got.values, want.values, rtol=1e-9)
