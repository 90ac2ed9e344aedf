"""The MovieLens-shaped generator of the scaling benchmarks (benchmarks/synthetic_ratings.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.synthetic_ratings import STAR_SHARES, STRUCTURES, Shape, generate

ROOT = Path(__file__).resolve().parent.parent


@settings(max_examples=25, deadline=None)
@given(
    n_users=st.integers(2, 60),
    n_items=st.integers(4, 80),
    fill=st.floats(0.0, 1.0),
    sigma=st.floats(0.0, 2.0),
    exponent=st.floats(0.0, 1.5),
    seed=st.integers(0, 2**16),
)
def test_every_user_gets_distinct_items_near_the_count_asked(n_users, n_items, fill, sigma, exponent, seed):
    min_ratings = 2
    low, high = min_ratings * n_users, n_users * n_items // 2
    if low > high:
        return
    n = int(low + fill * (high - low))
    shape = Shape(n_users, n_items, n, min_ratings, activity_sigma=sigma, popularity_exponent=exponent, seed=seed)
    ratings, items = generate(shape)
    assert not ratings.duplicated(["user", "item"]).any()
    assert ratings["user"].between(1, n_users).all() and ratings["item"].between(1, n_items).all()
    assert set(ratings["rating"].unique()) <= {1, 2, 3, 4, 5}
    assert ratings.groupby("user").size().reindex(range(1, n_users + 1), fill_value=0).min() >= min_ratings
    assert len(ratings) <= n
    assert list(items["item"]) == list(range(1, n_items + 1))


def test_movielens_shape_at_100k():
    shape = Shape.like_movielens(100_000)
    ratings, items = generate(shape)
    assert 0.97 * shape.n_ratings <= len(ratings) <= shape.n_ratings
    shares = ratings["rating"].value_counts(normalize=True).sort_index().to_numpy()
    assert np.allclose(shares, STAR_SHARES, atol=0.005)
    per_user, per_item = ratings.groupby("user").size(), ratings.groupby("item").size()
    assert per_user.min() >= shape.min_ratings and per_user.max() > 3 * per_user.median()  # skewed activity
    assert per_item.max() > 5 * per_item.median()  # skewed popularity
    assert items["genres"].str.len().gt(0).all() and items["director"].nunique() > 1


def test_seeded_and_content_knob():
    shape = Shape.like_movielens(20_000, seed=3)
    a, _ = generate(shape)
    b, _ = generate(shape)
    pd.testing.assert_frame_equal(a, b)
    c, _ = generate(replace(shape, seed=4))
    assert not a.equals(c)

    # all the taste in the attributes: movies of the same director are rated alike by a user
    def director_agreement(content: float) -> float:
        ratings, items = generate(replace(shape, content=content, noise=0.1, n_directors=40))
        r = ratings.merge(items[["item", "director"]], on="item")
        spread = r.groupby(["user", "director"])["rating"].std().dropna().mean()
        return spread / r["rating"].std()

    assert director_agreement(1.0) < director_agreement(0.0) - 0.1


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="do not fit"):
        generate(Shape(n_users=10, n_items=10, n_ratings=90))
    with pytest.raises(ValueError, match="content"):
        generate(replace(Shape.like_movielens(10_000), content=1.5))


def generator(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "benchmarks.synthetic_ratings", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_command_line_writes_the_files(tmp_path):
    r = generator("--ratings", "5000", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    ratings = pd.read_csv(tmp_path / "ratings.csv")
    assert list(ratings.columns) == ["user", "item", "rating"] and len(ratings) > 4_000
    assert list(pd.read_csv(tmp_path / "items.csv").columns) == ["item", "title", "genres", "director"]
    r = generator("--ratings", "10", "--out", str(tmp_path))
    assert r.returncode == 2 and "do not fit" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_scale_benchmark_measures_a_small_run(tmp_path):
    out = tmp_path / "scale.json"
    script = ROOT / "benchmarks" / "bench_recsys_scale.py"
    command = [
        sys.executable,
        str(script),
        "--sizes",
        "20000",
        "--structures",
        "movielens,concentrated",
        "--peers",
        "ease,popular",
        "--max-fits",
        "3",
        "--json",
        str(out),
        "--plot",
        str(tmp_path / "a.png"),
    ]
    r = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "spread" in r.stdout  # the train times across structures, per size
    runs = json.loads(out.read_text())["runs"]
    assert {run["structure"] for run in runs} == {"movielens", "concentrated"}
    for run in runs:
        assert run["seconds"] > 0 and run["peak_mb"] > 50 and run["model_mb"] > 0
        assert run["provenance"]["commit"] and run["train_args"] == "" and run["shape"] == "movielens"
        assert any("item model" in phase for phase in run["phases"])
        assert 0.5 < run["auc"] <= 1 and 0 <= run["ndcg@10"] <= 1
        assert run["lists"]["users"] > 0 and run["lists"]["ms_per_user"] > 0
        ease, popular = run["peers"]["ease"], run["peers"]["popular"]
        assert 0 <= ease["ndcg@10"] <= 1 and ease["fit_seconds"] > 0 and ease["process_peak_mb"] > 50
        assert set(ease["axes"]) == {"lamb"} and ease["fits"] <= 3 and "open_edge" in ease["axes"]["lamb"]
        assert run["train_over_ease_fit"] == pytest.approx(run["seconds"] / ease["fit_seconds"])
        assert 0 <= popular["ndcg@10"] <= 1
        for name, peer in (("ease", ease), ("popular", popular)):  # paired over the same test users
            versus = run["ndcg@10_versus"][name]
            assert versus["diff"] == pytest.approx(run["ndcg@10"] - peer["ndcg@10"])
            low, high = versus["diff_ci"]
            assert low <= versus["diff"] <= high
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"


def test_a_peers_grid_grows_past_the_edge_its_choice_sits_on(tmp_path):
    """A peer whose best setting is at the end of its grid gets the grid extended (×4) until the
    choice is interior or the fits allowed run out; the report says which."""
    sys.path.insert(0, str(ROOT))
    from benchmarks import peers

    calls = []

    class Peaked:  # NDCG peaks at lamb = 1600, far above the grid's start
        def __init__(self, lamb):
            calls.append(lamb)
            self.lamb = lamb

    def fake_ndcg(peer, train, test, implicit=False):
        return -abs(np.log(peer.lamb / 1600.0)), 0.0

    import unittest.mock as mock

    train = pd.DataFrame({"user": np.repeat(np.arange(40), 5), "item": np.tile(np.arange(5), 40), "rating": 4})
    space = peers.Space({"lamb": 25.0}, {"lamb": ([6.25, 25.0, 100.0], peers.Axis(step=4.0))})
    with (
        mock.patch.dict(peers.MAKERS, {"ease": Peaked}),
        mock.patch.object(peers, "ndcg", fake_ndcg),
        mock.patch.object(peers, "spaces", lambda *a: {"ease": space}),
    ):
        grown = peers.tune("ease", train, max_fits=10)
        short = peers.tune("ease", train, max_fits=3)
    assert grown["chosen"]["lamb"] == 1600.0 and not grown["axes"]["lamb"]["open_edge"]
    assert 6400.0 in grown["axes"]["lamb"]["grid"]  # one step past the best, to see it is interior
    assert short["axes"]["lamb"]["open_edge"] and short["chosen"]["lamb"] == 100.0


def test_scale_results_keep_one_run_per_size_and_arguments(tmp_path):
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_recsys_scale import _merge, plot

    path = tmp_path / "runs.json"
    base = {"seconds": 1.0, "peak_mb": 100.0}
    _merge(path, {**base, "ratings": 1000, "train_args": ""})
    _merge(path, {**base, "ratings": 100, "train_args": ""})
    _merge(path, {**base, "ratings": 1000, "train_args": "--scaling off"})
    _merge(path, {**base, "seconds": 2.0, "ratings": 1000, "train_args": ""})  # replaces the first
    runs = json.loads(path.read_text())["runs"]
    assert [(r["ratings"], r["train_args"], r["seconds"]) for r in runs] == [
        (100, "", 1.0),
        (1000, "", 2.0),
        (1000, "--scaling off", 1.0),
    ]
    plot(runs, tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_growth_fits_a_power_law_and_extrapolates_it():
    """Time and memory measured at two sizes or more are fitted as ``c · ratings^b``: a run growing
    as ratings^1.2 and memory as ratings^0.5 is read back so, and extrapolated ten times further."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_recsys_scale import growth

    runs = [
        {
            "ratings": n,
            "seconds": 60 * (n / 1e6) ** 1.2,
            "peak_mb": 1024 * (n / 1e6) ** 0.5,
            "shape": "netflix",
            "structure": "movielens",
            "train_args": "",
        }
        for n in (1_000_000, 10_000_000)
    ]
    runs.append({**runs[0], "ratings": 100_000, "seconds": 1e6})  # below 1 M: not fitted
    runs.append({**runs[0], "structure": "popular"})  # one size only: no growth
    (line,) = growth(runs, 100_000_000)
    assert "movielens (netflix) from 1 M, 10 M: time ∝ ratings^1.20, memory ∝ ratings^0.50" in line
    assert f"{60 * 100**1.2 / 60:.0f} min, 10.0 GB" in line


@pytest.mark.parametrize("head", [0.4, 0.7, 0.95])
def test_the_head_is_rated_by_the_share_asked(head):
    ratings, _ = generate(Shape.like_movielens(60_000, head=head))
    share = ratings["item"].value_counts().iloc[0] / ratings["user"].nunique()
    assert abs(share - head) < 0.04


def test_like_share_and_tastes_are_knobs():
    base = Shape.like_movielens(40_000, seed=2)
    ratings, _ = generate(replace(base, like_share=0.6))
    assert abs((ratings["rating"] > 2).mean() - 0.6) < 0.01
    assert np.allclose(replace(base, like_share=0.6).star_shares().sum(), 1.0)

    # stronger tastes: a user's ratings depend more on the user (less on the movie's quality alone)
    def spread_within_items(taste: float) -> float:
        r, _ = generate(replace(base, taste=taste, noise=0.2))
        return r.groupby("item")["rating"].std().mean()

    assert spread_within_items(3.0) > spread_within_items(0.0) + 0.2
    for bad, match in ((dict(head=1.0), "head"), (dict(like_share=0.0), "like_share"), (dict(taste=-1.0), "taste")):
        with pytest.raises(ValueError, match=match):
            generate(replace(base, **bad))


def test_command_line_names_a_structure(tmp_path):
    r = generator("--ratings", "20000", "--structure", "concentrated", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    ratings = pd.read_csv(tmp_path / "ratings.csv")
    assert ratings["item"].value_counts().iloc[0] / ratings["user"].nunique() > 0.9
    assert abs((ratings["rating"] > 2).mean() - 0.86) < 0.01


@pytest.mark.parametrize("structure", sorted(STRUCTURES))
@pytest.mark.slow
def test_every_structure_delivers_the_ratings_asked(structure):
    """A steep head leaves the tail's movies almost never drawn: the draw still gives every user
    their count (a head of 98 % once delivered 65 % of the ratings asked), and the head asked."""
    shape = Shape.like_movielens(100_000, **STRUCTURES[structure])
    ratings, _ = generate(shape)
    assert len(ratings) >= 0.995 * shape.n_ratings
    assert not ratings.duplicated(["user", "item"]).any()
    share = ratings["item"].value_counts().iloc[0] / ratings["user"].nunique()
    assert abs(share - shape.head) < 0.04


def test_a_childs_peak_is_its_own_not_what_the_benchmark_held_when_it_forked(tmp_path):
    """The scale benchmark's children report their own peak (``VmHWM`` since their ``exec``):
    ``wait4``'s count starts from the parent's memory at the fork, and a benchmark holding 25 M
    generated ratings reported 13.3 GB for every command it ran after."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_recsys_scale import child

    held = np.ones(400 * 2**20 // 8)  # 400 MB in this process, as the generated ratings were
    seconds, peak_mb, text = child([sys.executable, "-m", "json.tool", "--help"], tmp_path / "c.log")
    assert held.sum() > 0 and "usage" in text and seconds > 0
    assert 5 < peak_mb < 200, peak_mb


def test_play_counts_are_seeded_heavy_tailed_and_follow_the_stars(tmp_path):
    from benchmarks.synthetic_ratings import MAX_PLAYS, Shape, plays_of, write

    stars = np.tile([1, 2, 3, 4, 5], 2000)
    ratings = pd.DataFrame(
        {"user": np.repeat(np.arange(2000), 5), "item": np.tile(np.arange(5), 2000), "rating": stars}
    )
    p = plays_of(ratings, seed=3)
    assert list(p.columns) == ["user", "item", "count"] and p["count"].between(1, MAX_PLAYS).all()
    assert p.equals(plays_of(ratings, seed=3)) and not p.equals(plays_of(ratings, seed=4))
    mean = p.groupby(stars)["count"].mean()
    assert mean.is_monotonic_increasing and p["count"].max() > 20 * p["count"].median()  # a heavy tail
    first, _ = write(Shape.like_movielens(20_000, seed=1), tmp_path, plays=True)
    written = pd.read_csv(first)
    assert first.name == "plays.csv" and "rating" not in written and len(written) > 15_000


def test_sansa_lists_score_the_product_of_its_factors():
    """SANSA's scores through its factors' dense product (made once) are those of the chained sparse
    products, its own ``forward``; past EASE's catalogue bound the chain is kept."""
    from unittest import mock

    import scipy.sparse as sp

    from benchmarks import peers

    rng = np.random.default_rng(0)
    A, B = (sp.random(40, 40, density=0.2, random_state=s, format="csr", dtype=np.float32) for s in (1, 2))
    rows = sp.csr_matrix((rng.random((7, 40)) < 0.3).astype(np.float32))
    model = peers.SANSA(l2=1.0)
    model.model = mock.Mock(weights=(A, B))
    want = (rows @ A @ B).toarray()
    np.testing.assert_allclose(model.scores(rows), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.scores(rows[:3]), want[:3], rtol=1e-5, atol=1e-6)  # the product kept
    assert model.W.shape == (40, 40)
    with mock.patch.object(peers, "EASE_MAX_ITEMS", 39):
        chained = peers.SANSA(l2=1.0)
        chained.model = mock.Mock(weights=(A, B))
        np.testing.assert_allclose(chained.scores(rows), want, rtol=1e-6)
        assert chained.W is None


def test_peers_learn_from_likes_or_with_implicit_from_every_rating():
    """The scale benchmark's peers get the product's input: likes (a rating above 2), or every
    rating when the product is trained with --implicit."""
    sys.path.insert(0, str(ROOT))
    from benchmarks import peers

    class Kept:
        def fit(self, X):
            self.X = X

    train = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [10, 11, 10, 12, 11], "rating": [5, 1, 2, 4, 3]})
    likes = peers.Ranker(Kept(), train).X.toarray()
    every = peers.Ranker(Kept(), train, implicit=True).X.toarray()
    assert likes.sum() == 3 and every.sum() == 5  # ratings 5, 4, 3 are likes; 1 and 2 are not
    assert ((every - likes) >= 0).all()
