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


@pytest.mark.slow
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


@pytest.mark.slow
def test_scaling(tmp_path, shared_data):
    from experiments import scaling

    scaling.main(
        [
            "--sizes",
            "2e4,4e4",
            "--dask-sizes",
            "",
            "--datasets",
            "zoo,no-such-set",
            "--out",
            str(tmp_path),
            "--data",
            str(shared_data),
        ]
    )
    res = json.loads((tmp_path / "scaling.json").read_text())
    assert [p["name"] for p in res["points"]] == ["zoo", "no-such-set", "2e4", "4e4"]
    assert "error" in res["points"][1] and "seconds" in res["points"][2]
    assert {"slope", "intercept", "r2"} <= set(res) and res["_provenance"]["commit"]
    assert "| no-such-set | local | not run:" in (tmp_path / "scaling.md").read_text()
    assert (tmp_path / "scaling.png").stat().st_size > 0


@pytest.mark.slow
def test_scaling_with_one_size_plots_a_dot_and_fits_no_line(tmp_path, shared_data):
    from experiments import scaling

    scaling.main(
        ["--sizes", "2e4", "--dask-sizes", "", "--datasets", "", "--out", str(tmp_path), "--data", str(shared_data)]
    )
    assert "fewer than two points, no line fitted" in (tmp_path / "scaling.md").read_text()
    assert (tmp_path / "scaling.png").stat().st_size > 0


def test_synthetic_relation_has_the_size_asked():
    from experiments.scaling import synthetic

    X = synthetic(5000, seed=1)
    assert X.nnz == 5000 and X.max() == 1


def _fold(profile_auc, no_cc_auc, knn_auc=0.81):
    from recsys.evaluation import METHODS

    base = {
        "auc_full": 0.79,
        "balanced_accuracy_full": 0.72,
        "accuracy_full": 0.74,
        "majority_accuracy_full": 0.82,
        "dislike_recall_full": 0.7,
        "dislike_precision_full": 0.38,
        "coverage": 1.0,
        "threshold": 0.5,
        "fit_seconds": 1.0,
        "predict_seconds": 0.1,
    }
    methods = {m: dict(base) for m in METHODS}
    methods["profile"]["auc_full"] = profile_auc
    methods["knn_baseline"]["auc_full"] = knn_auc
    return {
        "methods": methods,
        "ablations": {"no_coclusters": {**base, "auc_full": no_cc_auc}},
        "n_test": 100,
        "like_share_test": 0.82,
        "protocol": {"cut_off": "best balanced accuracy", "seed": 0, "n_fit": 90, "n_tune": 10},
        "profile": {
            "params": {"features": "movies"},
            "report": {"like_coclusters": 5, "dislike_coclusters": 6, "like_params": {}},
        },
    }


def test_movielens_conclusions_follow_the_figures():
    from experiments.movielens import conclusions, markdown

    good = {"u1": _fold(0.82, 0.80), "u2": _fold(0.81, 0.79)}
    text = "\n".join(conclusions(good, ["u1", "u2"]))
    assert "highest AUC of all methods" in text and "0.0200 lower" in text and "lower on every fold" in text
    mixed = {"u1": _fold(0.80, 0.81), "u2": _fold(0.80, 0.79)}
    text = "\n".join(conclusions(mixed, ["u1", "u2"]))
    assert "Methods with a higher AUC than the profile model: knn_baseline" in text
    assert "not lower on every fold" in text
    md = markdown(good, ["u1", "u2"], None)
    assert "## 2 folds (u1, u2): mean ± std" in md and "| **profile** | 0.8150 ± 0.0050 |" in md
    assert md.count("| **") == 2, "one bold row per table: the best"
    text = "\n".join(conclusions(mixed, ["u1", "u2"]))
    assert "**Not beaten (like/dislike):** knn_baseline's AUC 0.8100 is at least the profile model's 0.8000" in text


def test_the_item_model_sentence_says_whether_it_earns_its_place():
    from experiments.movielens import conclusions

    def with_item_ablation(fold: dict, auc: float) -> dict:
        fold["ablations"]["no_item_model"] = {**fold["ablations"]["no_coclusters"], "auc_full": auc}
        return fold

    earns = {"u1": with_item_ablation(_fold(0.82, 0.80), 0.81), "u2": with_item_ablation(_fold(0.81, 0.79), 0.805)}
    text = "\n".join(conclusions(earns, ["u1", "u2"]))
    assert "add +0.0075 AUC" in text and "it earns its place; per fold +0.0100, +0.0050" in text
    mixed = {"u1": with_item_ablation(_fold(0.82, 0.80), 0.83), "u2": with_item_ablation(_fold(0.81, 0.79), 0.80)}
    assert "not on every fold; per fold -0.0100, +0.0100" in "\n".join(conclusions(mixed, ["u1", "u2"]))


def test_list_sentences_say_level_when_the_intervals_include_zero():
    from experiments.movielens import _list_sentences

    def fold(profile, ease, random, ease_ci, random_ci):
        ci = {
            "ease": {"diff": profile - ease, "diff_ci": ease_ci},
            "random_support": {"diff": profile - random, "diff_ci": random_ci},
        }
        return {
            "topn": {
                "methods": {"ease": {"ndcg@10": ease}, "profile": {"ndcg@10": profile}},
                "controls": {"random_support": {"ndcg@10": random}, "full_support": {"ndcg@10": ease}},
                "ci": {"versus": ci},
            }
        }

    level = {
        "u1": fold(0.412, 0.40, 0.36, [-0.01, 0.03], [0.03, 0.07]),
        "u2": fold(0.39, 0.40, 0.35, [-0.03, 0.01], [0.02, 0.06]),
    }
    text = "\n".join(_list_sentences(level, ["u1", "u2"]))
    assert "**Level, not ahead (lists):** the product's NDCG@10 0.4010 against ease's 0.4000" in text
    assert "lower on 1 of 2 folds, and 2 of 2 per-fold 95 % intervals" in text
    assert "scores 0.3550 NDCG@10, 0.0460 lower on the 2-fold mean (lower on every fold" in text
    ahead = {
        "u1": fold(0.45, 0.40, 0.36, [0.01, 0.09], [0.05, 0.13]),
        "u2": fold(0.44, 0.40, 0.35, [0.01, 0.07], [0.05, 0.13]),
    }
    assert "Level" not in "\n".join(_list_sentences(ahead, ["u1", "u2"]))


def test_attribute_fit_compares_the_two_fits_on_the_same_ratings(tmp_path):
    """experiments/attribute_fit.py on a small books data set: both AUCs, their difference inside
    its interval, and the table that says so."""
    import numpy as np

    from benchmarks.synthetic_books import Books, write
    from experiments.attribute_fit import run_one, table
    from ingest.datasets import load_files

    ratings, items = write(Books(n_readers=80, n_books=200, n_authors=40), tmp_path)
    row, draws = run_one("tiny books", load_files(ratings, items, "random:0.2:0"), np.random.default_rng(0))
    assert set(row["auc"]) == {"means", "joint"} and row["auc"]["means"] != row["auc"]["joint"]
    assert row["diff"] == row["auc"]["joint"] - row["auc"]["means"]
    assert row["diff_ci"][0] <= row["diff"] <= row["diff_ci"][1] and len(draws) == 1000
    text = table([row], None)
    assert f"| tiny books | {row['test_ratings']:,} | {row['auc']['means']:.4f} |" in text
