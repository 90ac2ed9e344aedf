"""What many test modules share: fast co-clustering parameters, the synthetic taste data, the
checks that a list's parts add up, and ``recsys`` run as a user runs it (a child process) or in
this process.  Not a test module: pytest collects nothing here."""

import os
import time

import numpy as np
import pandas as pd
import pytest

from experiments.runner import run_child
from recsys.evaluation import Setup

# the co-clustering fast (HBLCoClust parameters), and the same as `recsys` options
FAST = dict(n_bands=60, band_size=2, min_rows=2, min_cols=2, min_density=0.8, skip_covered=True)


def list_total(rec: dict) -> float:
    """The parts of a listed item's score: the named contributions, the rest, popularity and like."""
    named = sum(c["weight"] for c in rec["contributions"])
    return named + rec["others"]["weight"] + rec["popularity"]["weight"] + rec["like"]["weight"]


def taste_data(seed=0, n_users=80, n_items=60):
    """Two taste groups: even users like genre g0 (director d0) and dislike g1, odd users the reverse; 10 % noise."""
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
    items = pd.DataFrame({"item": np.arange(n_items), "title": [f"Movie {i} (2000)" for i in range(n_items)]})
    rows = []
    for u in range(n_users):
        fav = "g0" if u % 2 == 0 else "g1"
        for i in rng.choice(n_items, 30, replace=False):
            liked = (genre[i] == fav) ^ (rng.random() < 0.1)
            rows.append((u, int(i), int(rng.integers(4, 6) if liked else rng.integers(1, 3))))
    r = pd.DataFrame(rows, columns=["user", "item", "rating"]).sample(frac=1, random_state=seed)
    cut = int(len(r) * 0.8)
    return r.iloc[:cut], r.iloc[cut:], attrs, items


def scored_pairs(model, test: pd.DataFrame):
    """The model's predictions for the ``test`` pairs, the mask of those with a known user and item
    that are covered, and the scored terms of these."""
    from recsys.model.scoring import scored_terms

    p = model.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
    fp = model.profiles_
    u, i = fp.user_index(test["user"].to_numpy()), fp.item_index(test["item"].to_numpy())
    ok = (u >= 0) & (i >= 0) & p.covered
    return p, ok, scored_terms(model, u[ok], i[ok])


def written(path, text: str):
    """``path`` with ``text`` written to it."""
    path.write_text(text)
    return path


def adds_up(d: dict) -> None:
    for r in d["items"]:
        blend = sum(t["weight"] for t in r["blend"])
        assert r["own"] + blend == pytest.approx(r["score"], abs=1e-9)
        assert sum(t["weight"] for t in r["shown"]) + r["more"]["weight"] == pytest.approx(r["own"], abs=1e-9)
        weights = [abs(t["weight"]) for t in r["shown"] + r["more"]["terms_listed"][:-1]]
        assert weights == sorted(weights, reverse=True)  # the heaviest shown first


def recsys(*args, home=None):
    """``recsys ARGS`` in a child process, as a user runs it (with ``RECSYS_DATA=home`` if given)."""
    env = {"RECSYS_DATA": str(home)} if home is not None else None
    return run_child(["-m", "recsys.cli", *args], env=env, timeout=600)


def recsys_here(*args, home=None):
    """``recsys ARGS`` in this process (Typer's runner): the same exit code, output and error
    stream as :func:`recsys`, without a child's start-up (imports, compiled kernels loaded)."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from recsys.cli import app

    env = {"RECSYS_DATA": str(home)} if home is not None else None
    res = CliRunner().invoke(app, [str(a) for a in args], env=env)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception  # a traceback a user would see: the test fails on it, as on a child's
    return SimpleNamespace(returncode=res.exit_code, stdout=res.stdout, stderr=res.stderr)


FAST_FLAGS = ["--n-bands", "60", "--band-size", "2", "--min-rows", "2", "--min-cols", "2"]


COLS = ["--ratings-columns", "user=reader,item=book,rating=stars,timestamp=when", "--items-columns", "item=book"]


# small grids of two points where the declared ones are large: the protocol, not the search, is under test
SMALL = {
    "ials": [
        {"factors": 8, "regularization": 1.0, "alpha": 1.0, "iterations": 5, "input": "likes"},
        {"factors": 8, "regularization": 10.0, "alpha": 1.0, "iterations": 5, "input": "all"},
    ],
    "bpr": [{"factors": 8, "learning_rate": 0.05, "regularization": 0.01, "iterations": 20, "input": "likes"}],
    "rp3beta": [
        {"alpha": 1.0, "beta": 0.3, "k": 50, "input": "likes"},
        {"alpha": 0.5, "beta": 0.6, "k": 50, "input": "all"},
    ],
}


def evaluation_setup(**kw):
    return Setup(profile=dict(like_params=FAST, dislike_params=FAST), paper=FAST, grids=SMALL, **kw)


def claimed(beside, *pieces: int) -> None:
    """Wait until the process beside a :class:`~recsys.evaluation.beside.Beside` has claimed
    ``pieces`` (their files in the shared folder)."""
    deadline = time.monotonic() + 60
    while not all(os.path.exists(os.path.join(beside._claims, str(k))) for k in pieces):
        assert time.monotonic() < deadline, "the other process never started"
        time.sleep(0.02)
