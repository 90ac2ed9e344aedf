"""Each experiment script runs end to end on a tiny configuration and writes its results."""

import json

import pytest

pytestmark = pytest.mark.data


def test_categorical(tmp_path, shared_data):
    from experiments import categorical

    categorical.main(["--runs", "2", "--datasets", "zoo", "--out", str(tmp_path), "--data", str(shared_data)])
    res = json.loads((tmp_path / "categorical.json").read_text())
    assert set(res["zoo"]) == {"hblcoclust", "inclose", "spectral"}
    assert res["zoo"]["hblcoclust"]["runs"] == 2 and "purity_std" in res["zoo"]["hblcoclust"]
    assert "| hblcoclust | paper |" in (tmp_path / "categorical.md").read_text()


def test_text(tmp_path, shared_data):
    from experiments import text

    text.main(
        [
            "--runs",
            "1",
            "--datasets",
            "classic3",
            "--n-bands",
            "200",
            "--out",
            str(tmp_path),
            "--data",
            str(shared_data),
        ]
    )
    res = json.loads((tmp_path / "text.json").read_text())
    assert res["classic3"]["hblcoclust"]["n_coclusters"] > 0 and "spectral" in res["classic3"]


def test_scaling(tmp_path, shared_data):
    from experiments import scaling

    scaling.main(["--sizes", "3e4", "--datasets", "zoo", "--out", str(tmp_path), "--data", str(shared_data)])
    res = json.loads((tmp_path / "scaling.json").read_text())
    assert len(res["points"]) == 2 and {"slope", "intercept", "r2"} <= set(res)
    assert (tmp_path / "scaling.png").stat().st_size > 0


def test_synthetic_relation_has_the_size_asked():
    from experiments.scaling import synthetic

    X = synthetic(5000, seed=1)
    assert X.nnz == 5000 and X.max() == 1


def test_movielens_markdown_from_results():
    from experiments.movielens import markdown

    m = {
        k: {"n": 10, "coverage": 1.0}
        for k in ("profile_paper", "profile", "profile+svd", "svd", "naive_bayes", "majority")
    }
    res = {
        "u1": {
            "methods": m,
            "relations": {"users": 1, "attributes": 2, "relations": 3},
            "like_share_test": 0.8,
            "model": {"like_coclusters": 5, "dislike_coclusters": 6},
        }
    }
    md = markdown(res, ["u1"])
    assert "| profile_paper |" in md and "Paper (u1)" in md
