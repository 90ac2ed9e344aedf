"""experiments.confirm: the commands it runs and the page it renders (the run itself is the protocol's)."""

import json

import numpy as np
import pytest

from experiments import confirm


def _evaluation(rng, profile_shift: float) -> dict:
    users = 50
    per_user = {m: np.clip(rng.normal(0.4, 0.2, users), 0, 1) for m in ("ease", "ials", "ease_blend")}
    per_user["profile"] = np.clip(per_user["ease"] + profile_shift, 0, 1)
    return {
        "commit": "abc",
        "n_test": 1000,
        "like_share_test": 0.8,
        "methods": {"profile": {"auc_full": 0.83}, "svd": {"auc_full": 0.81}},
        "ci": {"versus": {"svd": {"auc_diff": 0.02, "auc_diff_ci": [0.01, 0.03]}}},
        "topn": {
            "methods": {m: {"ndcg@10": float(per_user[m].mean())} for m in ("profile", "ease", "ials")},
            "controls": {
                "ease_blend": {"ndcg@10": float(per_user["ease_blend"].mean())},
                "random_support": {"ndcg@10": 0.1},
            },
            "ci": {"versus": {"ease": {"diff": profile_shift, "diff_ci": [0.0, 0.1]}}},
            "per_user_ndcg": {m: v.tolist() for m, v in per_user.items()},
        },
    }


def test_the_page_shows_every_data_set_run_and_pools_the_movielens_splits(tmp_path):
    rng = np.random.default_rng(0)
    for name in list(confirm.ML_SPLITS)[:2]:
        payload = {"name": name, "spec": confirm.DATASETS[name], "seconds": 60.0, "evaluation": _evaluation(rng, 0.05)}
        (tmp_path / f"{name}.json").write_text(json.dumps(payload))
    md = confirm.render(tmp_path).read_text()
    assert md.count("## ml-100k-random-") == 2 and "Commit `abc`" in md
    assert "| ease_blend |" in md and "random_support" not in md  # the blends, not every control
    assert "| svd | 0.8100 | +0.0200 [+0.0100, +0.0300] |" in md
    pooled = md.split("## The three MovieLens 100K splits together")[1]
    row = next(line for line in pooled.splitlines() if line.startswith("| ease |"))
    assert row.startswith("| ease | +0.05")  # the shift given to the profile's per-user figures


def test_each_data_set_has_its_command():
    ml = confirm.command(confirm.DATASETS["ml-100k-random-7001"], None)
    assert ml[2:] == [
        "recsys.cli",
        "evaluate",
        "--grid",
        "full",
        "--split",
        "random:0.2:7001",
        "--format",
        "json",
        "--quiet",
        "--dataset",
        "ml-100k",
        "--top-cast",
        "3",
    ]
    small = confirm.command(confirm.DATASETS["ml-latest-small-random-7001"], None)
    assert small[-2:] == ["--dataset", "ml-latest-small"]


def test_the_new_content_shape_is_written_with_its_items(tmp_path):
    cmd = confirm.command(confirm.DATASETS["content-new-shape-9001"], tmp_path)
    ratings, items = cmd[cmd.index("--ratings") + 1], cmd[cmd.index("--items") + 1]
    import pandas as pd

    r = pd.read_csv(ratings)
    assert r["user"].nunique() <= 900 and 60_000 <= len(r) <= 70_000 and len(pd.read_csv(items)) <= 2_500


def test_the_seed_spread_is_of_five_fold_means():
    from experiments import seeds

    runs = [
        {
            "seed": s,
            "fold": f,
            "commit": "abc",
            "ndcg@10": {"ease": 0.40 + 0.01 * s + (f == "u2") * 0.02, "profile": 0.41, "ials": 0.39},
        }
        for s in (0, 1, 2)
        for f in ("u1", "u2")
    ]
    runs.append({"seed": 3, "fold": "u1", "commit": "abc", "ndcg@10": {"ease": 0.9}})  # a seed lacking a fold
    s = seeds.spread(runs, ["u1", "u2"])
    assert s["ease"]["by_seed"] == {0: pytest.approx(0.41), 1: pytest.approx(0.42), 2: pytest.approx(0.43)}
    assert s["ease"]["range"] == pytest.approx(0.02) and s["ease"]["std"] == pytest.approx(0.01)
    assert s["profile"]["range"] == 0.0
    md = seeds.markdown(runs, ["u1", "u2"])
    assert "| ease | 0.4100 | 0.4200 | 0.4300 | — | 0.0200 | 0.0100 |" in md


def test_the_words_are_the_protocols_rule():
    assert confirm.reading([0.001, 0.02]) == "above"
    assert confirm.reading([-0.02, -0.001]) == "below"
    assert confirm.reading([-0.01, 0.01]) == confirm.reading([0.0, 0.1]) == "level"  # 0 inside: level


def test_the_readme_tables_answer_the_three_questions(tmp_path):
    rng = np.random.default_rng(1)
    runs = {}
    for name in list(confirm.ML_SPLITS)[:2]:
        ev = _evaluation(rng, 0.05)
        per = ev["topn"]["per_user_ndcg"]
        per["item_model_blend"] = list(np.asarray(per["ease_blend"]) + 0.05)  # the item model adds 0.05
        per["ials_blend"] = list(per["ease_blend"])
        runs[name] = {"name": name, "evaluation": ev}
    text = confirm.readme_section(runs)
    lists, aucs = text.split("\n\n")
    first = lists.splitlines()[2]
    assert first.startswith(f"| {list(confirm.ML_SPLITS)[0]} | ")
    cells = [c.strip() for c in first.strip("|").split("|")]
    assert cells[2] == "+0.0500 [+0.0000, +0.1000] level"  # the evaluation's own interval for EASE
    assert cells[3] == "—"  # no interval for iALS in this evaluation
    assert cells[4].startswith("+0.0500 [+0.0500, +0.0500] above")  # item model + blend − EASE + blend
    assert cells[5].startswith("+0.0500") and cells[5].endswith("above")
    pooled = lists.splitlines()[-1]
    assert pooled.startswith("| the 2 MovieLens 100K splits' mean |") and pooled.count("above") == 4
    assert aucs.splitlines()[2].split("|")[3].strip() == "—"  # no attribute LR interval
    assert "+0.0200 [+0.0100, +0.0300] above" in aucs
