"""Implicit feedback: interactions without ratings in (a file or a frame of ``user, item[, count]``),
lists with reasons naming co-clusters out; what needs dislikes is absent and says so."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from kit import FAST, recsys_here, written

from ingest.errors import DataFormatError
from ingest.userfiles import read_person, read_ratings
from recsys import store
from recsys.errors import NotFittedError, ParameterError, RatingsError
from recsys.evaluation.protocol import PER_LIKE
from recsys.model import ProfileRecommender


def plays(seed=0, n_users=90, n_items=60):
    """Three taste groups, each playing mostly its own third of the catalogue; counts heavy-tailed."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        mine = np.arange(n_items)[np.arange(n_items) % 3 == u % 3]
        chosen = np.r_[rng.choice(mine, 12, replace=False), rng.choice(n_items, 2, replace=False)]
        rows += [(f"u{u}", f"s{i}", int(rng.zipf(2.0))) for i in np.unique(chosen)]
    return pd.DataFrame(rows, columns=["user", "item", "count"])


@pytest.fixture(scope="module")
def model():
    return ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(plays())


@pytest.fixture(scope="module")
def counted():
    """The model of the same plays with their counts as confidence (``confidence="log"``)."""
    return ProfileRecommender(confidence="log", like_params=FAST, dislike_params=FAST).fit(plays())


# -- reading ------------------------------------------------------------------------------------
def test_a_file_without_ratings_is_read_as_interactions(tmp_path):
    p = written(tmp_path / "p.csv", "user,item,plays,timestamp\na,s1,3,10\na,s2,1,11\nb,s1,2,12\na,s1,4,20\n")
    r = read_ratings(p)
    assert "rating" not in r and list(r.columns) == ["user", "item", "count", "timestamp"]
    got = {(u, i): (c, t) for u, i, c, t in r.itertuples(index=False)}
    assert got == {("a", "s1"): (7.0, 20), ("a", "s2"): (1.0, 11), ("b", "s1"): (2.0, 12)}  # a repeated pair adds up
    assert read_ratings(written(tmp_path / "q.csv", "user,item\na,s1\n"))["count"].tolist() == [1.0]
    rated = written(tmp_path / "r.csv", "user,item,rating\na,s1,5\na,s2,1\n")
    assert "rating" not in read_ratings(rated, implicit=True)  # forced: every line one interaction
    with pytest.raises(DataFormatError, match=r"q.csv:1: the header \['user', 'item'\] has no rating column"):
        read_ratings(tmp_path / "q.csv", implicit=False)


def test_a_persons_items_need_no_rating(tmp_path):
    p = written(tmp_path / "me.csv", "item\ns1\ns2\ns1\n")
    me = read_person(p, implicit=True)
    assert me["item"].tolist() == ["s1", "s2"] and me["count"].tolist() == [2.0, 1.0]  # each line one play
    with pytest.raises(DataFormatError, match="no rating column"):
        read_person(p)
    counted = written(tmp_path / "c.csv", "item,plays\ns1,3\ns2,1\ns1,2\n")
    assert read_person(counted, implicit=True)["count"].tolist() == [5.0, 1.0]
    with pytest.raises(DataFormatError, match=r"bad.csv:3: count must be a positive number, got '0'"):
        read_person(written(tmp_path / "bad.csv", "item,count\ns1,3\ns2,0\n"), implicit=True)


# -- the model ----------------------------------------------------------------------------------
def test_no_rating_column_means_implicit_and_nothing_needs_dislikes(model):
    state = model.fitted_
    assert state.implicit and model.profiles_.feedback == "implicit"
    assert len(model.profiles_.like) > 0 and len(model.profiles_.dislike) == 0
    assert model.weights_ is None and model.list_blend_.like == 0.0
    assert model.report_["feedback"] == "implicit"
    with pytest.raises(NotFittedError, match="implicit feedback"):
        state.check_scored()
    with pytest.raises(ParameterError, match="paper's rule needs likes and dislikes"):
        model.predict("u0", "s3", mode="paper")


def test_explicit_feedback_needs_a_rating_column():
    with pytest.raises(RatingsError, match="no rating column"):
        ProfileRecommender(feedback="explicit", like_params=FAST, dislike_params=FAST).fit(plays())


def test_ratings_read_as_interactions_are_the_interactions():
    """``feedback="implicit"`` on a frame with ratings reads every row as one interaction: the same
    model as the frame without its ratings (or counts)."""
    frame = plays()
    with_ratings = frame.drop(columns="count").assign(rating=np.where(frame["count"] > 1, 5.0, 1.0))
    a = ProfileRecommender(feedback="implicit", like_params=FAST, dislike_params=FAST).fit(with_ratings)
    b = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(frame[["user", "item"]])
    users = [f"u{u}" for u in range(0, 90, 7)]
    assert a.lists(users, 5) == b.lists(users, 5)


def test_a_list_names_the_groups_and_its_parts_add_up(model):
    fp = model.profiles_
    recs = model.recommend("u0", 5)
    assert len(recs) == 5
    chosen = set(fp.items[fp.ratings.row(int(fp.user_index(["u0"])[0]))].tolist())
    assert not chosen & {r["item"] for r in recs}
    for r in recs:
        parts = sum(c["weight"] for c in r["contributions"]) + r["others"]["weight"] + r["popularity"]["weight"]
        assert parts == pytest.approx(r["score"], abs=1e-9) and r["like"]["weight"] == 0.0
        assert r["like_probability"] is None
        named = [c for c in r["contributions"] if c.get("cocluster")]
        assert named and all(c["text"].startswith("you chose ") for c in r["contributions"])
        assert all("people who chose both are in [L" in c["text"] for c in named)
    # the batch's lists are the lists' own items and scores
    assert model.lists(["u0"], 5)[0] == [(r["item"], pytest.approx(r["score"], abs=1e-12)) for r in recs]


def test_relevance_is_the_list_score_and_its_lines_add_up(model):
    recs = model.recommend("u3", 3)
    for r in recs:
        ex = model.predict("u3", r["item"])
        assert ex.prediction == "relevance" and ex.logit is None
        assert ex.score == pytest.approx(r["score"], abs=1e-9)
        assert sum(line.contribution for line in ex.lines) == pytest.approx(ex.score, abs=1e-9)
        item_line = ex.lines[0]
        assert sum(p["contribution"] for p in item_line.parts) == pytest.approx(item_line.contribution, abs=1e-9)
    p = model.predict_many(np.array(["u3", "u3", "nobody"]), np.array(["s0", "nothing", "s0"]))
    assert p.prediction.tolist() == ["relevance", "none", "none"]
    assert p.reason.tolist()[1:] == ["unknown item", "unknown user"]


def test_a_new_person_is_their_items_and_counts(counted):
    """A person given by the items they chose and how often gets the list a user with those
    interactions gets; items alone count once each, however they are given."""
    model = counted
    fp = model.profiles_
    u = int(fp.user_index(["u5"])[0])
    frame = plays()
    mine = frame[frame["user"] == "u5"]
    counts = dict(zip(mine["item"], mine["count"].astype(float), strict=True))
    as_user = model.recommend("u5", 5)
    assert model.recommend(counts, 5) == as_user
    assert model.recommend(mine[["item", "count"]], 5) == as_user
    assert model.recommend(list(counts.items()), 5) == as_user
    items = fp.items[fp.ratings.row(u)].tolist()
    once = [r["item"] for r in model.recommend(items, 5)]
    assert [r["item"] for r in model.recommend({i: 1 for i in items}, 5)] == once
    assert [r["item"] for r in model.recommend(pd.DataFrame({"item": items}), 5)] == once
    log = [items[0]] * 3 + items[1:]  # a play log: an item listed three times is three plays
    assert model.recommend(log, 5) == model.recommend({**{i: 1 for i in items}, items[0]: 3}, 5)
    with pytest.raises(ParameterError, match="counts must be positive numbers"):
        model.recommend({items[0]: 0}, 5)


# -- counts as confidence -----------------------------------------------------------------------
def test_counts_are_the_confidence_the_item_model_and_the_lists_read():
    """``confidence="log"``: each interaction weighs log2(1 + count) in the item model's regression
    and in the sum ``x_u W`` that scores a list (the batch's keys are that definition); ``"none"``
    is the model of the interactions without their counts, and counts of 1 change nothing."""
    from recsys.model.feedback import confidence_of
    from recsys.model.item_model import item_weights
    from recsys.model.listing import list_key, list_scores

    frame = plays()
    log = ProfileRecommender(confidence="log", like_params=FAST, dislike_params=FAST).fit(frame)
    none = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(frame)  # the default
    ones = ProfileRecommender(confidence="log", like_params=FAST, dislike_params=FAST).fit(frame.assign(count=1))
    fp = log.profiles_
    pairs = pd.Series(frame["count"].to_numpy(float), index=pd.MultiIndex.from_frame(frame[["user", "item"]]))
    r = fp.ratings
    want = confidence_of(pairs.loc[list(zip(fp.users[r.row_of], fp.items[r.idx], strict=True))].to_numpy())
    assert np.allclose(r.values, want) and fp.sources.values is not None
    assert none.profiles_.sources.values is None and ones.profiles_.sources.values is None
    assert np.array_equal(none.profiles_.item_weights.values, ones.profiles_.item_weights.values)
    W = item_weights(fp.sources, fp.item_weights.transpose().with_values(None), log.item_l2)
    assert np.allclose(W.values, fp.item_weights.values, rtol=1e-9, atol=1e-12)  # solved on the weighted rows
    u = int(fp.user_index(["u7"])[0])
    key = list_scores(log.fitted_, r.row(u), r.row_values(u))
    from recsys.model.fold_in import Rated

    got = list_key(log, Rated.of(fp, r.row(u), r.row_values(u)), r.row(u)).item
    assert np.allclose(got, key, rtol=0, atol=1e-12)
    assert not np.allclose(key, list_scores(log.fitted_, r.row(u)))  # the counts are read
    assert log.lists(["u7"], 5) != none.lists(["u7"], 5)


def test_an_explanation_shows_each_items_confidence_and_still_adds_up(counted, model):
    assert not [c for r in model.recommend("u0", 5) for c in r["contributions"] if "confidence" in c]
    model = counted
    recs = model.recommend("u0", 5)
    shown = [c for r in recs for c in r["contributions"] if "confidence" in c]
    assert shown, "u0 played some items more than once"
    for c in shown:
        assert f"× confidence {c['confidence']:.2f}" in c["text"] and c["confidence"] > 1
    ex = model.predict("u0", recs[0]["item"])
    assert sum(line.contribution for line in ex.lines) == pytest.approx(ex.score, abs=1e-9)


def test_counts_that_are_not_positive_numbers_are_an_error():
    frame = plays()
    for bad in (0, -2, np.nan):
        with pytest.raises(RatingsError, match=r"count must be positive numbers: row 3 has"):
            ProfileRecommender(confidence="log", like_params=FAST, dislike_params=FAST).fit(
                frame.assign(count=frame["count"].where(frame.index != 3, bad))
            )
    with pytest.raises(ParameterError, match="confidence"):
        ProfileRecommender(confidence="sqrt").fit(frame)


def test_the_profile_has_no_dislike_side(model):
    prof = model.explain("u1")
    assert prof["feedback"] == "implicit" and "dislike" not in prof and "dislike_coclusters" not in prof
    assert prof["like_coclusters"] > 0 and prof["like_movies"]


def test_saved_and_loaded_it_is_the_same_model(model, tmp_path):
    from recsys.store import load, save

    save(model, tmp_path / "m")
    again = load(tmp_path / "m")
    assert again.fitted_.implicit
    users = ["u0", "u1", "u2", "nobody"]
    assert again.lists(users, 5) == model.lists(users, 5)
    assert again.predict("u2", "s4").score == pytest.approx(model.predict("u2", "s4").score, abs=1e-12)


# -- the command line ---------------------------------------------------------------------------
def test_train_recommend_predict_explain_from_a_plays_file(tmp_path):
    frame = plays()
    frame.to_csv(tmp_path / "plays.csv", index=False)
    out = tmp_path / "model"
    fast = ["--n-bands", "60", "--band-size", "2", "--min-rows", "2", "--min-cols", "2"]
    options = ["--confidence", "log", "--item-l2-per-like", "1.5"]
    res = recsys_here("train", "--ratings", tmp_path / "plays.csv", "--out", out, *options, *fast)
    assert res.returncode == 0, res.stderr
    assert "has no rating column: read as interactions (implicit feedback)" in res.stderr
    trained = store.load(out)
    assert trained.item_l2_per_like == 1.5 and trained.report_["item_model"]["l2_per_like"] == 1.5
    assert "co-clusters of the interactions" in res.stdout and "dislike" not in res.stdout
    res = recsys_here("recommend", out, "u0", "-n", "3")
    assert res.returncode == 0, res.stderr
    assert "you chose" in res.stdout and "chose both" in res.stdout and "like chance" not in res.stdout
    assert "confidence" in res.stdout  # the counts weigh the items
    res = recsys_here("train", "--ratings", tmp_path / "plays.csv", "--out", tmp_path / "m2", "--confidence", "sqrt")
    assert res.returncode != 0 and "confidence" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "m2").exists()
    (tmp_path / "me.csv").write_text("item\ns0\ns3\ns6\n")
    res = recsys_here("recommend", out, "--ratings", tmp_path / "me.csv", "-n", "3")
    assert res.returncode == 0 and res.stdout.startswith("top 3 for you"), res.stderr
    res = recsys_here("predict", out, "u0", "s3")
    assert res.returncode == 0 and "relevance" in res.stdout and "DISLIKE" not in res.stdout, res.stderr
    res = recsys_here("explain", out, "u0")
    assert res.returncode == 0 and "PROFILE (the items they chose)" in res.stdout and "DISLIKE" not in res.stdout
    page = tmp_path / "u0.html"
    res = recsys_here("report", out, "u0", "--out", page)
    assert res.returncode == 0, res.stderr
    html = page.read_text()
    assert "implicit feedback" in html and "Dislikes" not in html and "dislike co-clusters" not in html


def test_ratings_under_another_name_are_an_error_not_interactions():
    frame = plays().rename(columns={"count": "stars"})
    with pytest.raises(RatingsError, match=r"got also \['stars'\]"):
        ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(frame)


def test_evaluate_interactions_measures_lists_only(tmp_path):
    import json

    plays(n_users=150).to_csv(tmp_path / "plays.csv", index=False)
    fast = ["--n-bands", "60", "--band-size", "2", "--min-rows", "2", "--min-cols", "2"]
    args = ["evaluate", "--ratings", tmp_path / "plays.csv", "--bootstrap", "50", "--strong-users", "0", *fast]
    res = recsys_here(*args, "--methods", "profile,popularity,ease", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["protocol"]["implicit"] and out["methods"] == {} and out["like_share_test"] is None
    t = out["topn"]
    assert set(t["methods"]) == {"popularity", "ease", "profile"} and t["relevant"] == "every held-out interaction"
    # one 0/1 input (the interactions), and the counts: each method that can read them chooses whether they help
    assert {p.get("input", "all") for p in t["methods"]["ease"]["grid"]} == {"all", "weighted"}
    assert {p["confidence"] for p in t["methods"]["profile"]["grid"]} == {"log", "none"}
    # the item model and EASE alike try a penalty per like (EDLAE's), 0 (EASE's) among them
    assert {p["item_l2_per_like"] for p in t["methods"]["profile"]["grid"]} == set(PER_LIKE["small"])
    assert {p["l2_per_like"] for p in t["methods"]["ease"]["grid"]} == set(PER_LIKE["small"])
    assert {p.get("input", "all") for p in t["methods"]["popularity"]["grid"]} == {"all"}
    assert t["methods"]["profile"]["ndcg@10"] > t["methods"]["popularity"]["ndcg@10"]  # three clear tastes
    assert "random_support" in t["controls"] and "ease" in t["ci"]["versus"]
    res = recsys_here(*args, "--methods", "profile,svd")
    assert res.returncode == 2 and "have lists only: svd predict likes and dislikes" in res.stderr


def test_export_has_the_like_side_alone(model, tmp_path):
    from recsys.present.export import write_profiles

    write_profiles(model, tmp_path / "p.csv", "csv")
    sides = pd.read_csv(tmp_path / "p.csv")["profile"]
    assert len(sides) and set(sides) == {"like"}


def test_the_blend_given_to_others_has_no_like_feature_from_interactions(model):
    """The evaluation's like-for-like blends read the profile model's like-probability; a model of
    interactions has none, so they get none (its relevance score is not a probability)."""
    from recsys.evaluation.methods import ProfileMethod

    method = ProfileMethod()
    method.model = model
    s = method.score(np.array(["u0", "u1"]), np.array(["s0", "s1"]))
    assert not s.covered.any()
