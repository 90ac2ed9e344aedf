"""experiments.movielens_pages and experiments.seeds: seed 0 from the table, the seeds' spread said
only for the code the table measured, words by the pooled interval's rule."""

import json
import subprocess
from pathlib import Path

from experiments.common import measured_code
from experiments.movielens_pages import _seeds_sentence, _versus
from experiments.seeds import runs_in

ROOT = Path(__file__).resolve().parent.parent


def _table(commit: str) -> dict:
    topn = {m: {"ndcg@10": v, "params": {}} for m, v in (("ease", 0.40), ("ials", 0.39), ("profile", 0.41))}
    return {"folds": ["u1"], "results": {"u1": {"topn": {"methods": topn}}}, "_provenance": {"commit": commit}}


def test_seed_zero_is_the_tables_run_unless_a_run_of_it_is_there(tmp_path):
    (tmp_path / "movielens.json").write_text(json.dumps(_table("abc")))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "1-u1.json").write_text(json.dumps({"seed": 1, "fold": "u1", "ndcg@10": {"profile": 0.4}}))
    runs = runs_in(seeds)
    assert sorted((r["seed"], r["fold"]) for r in runs) == [(0, "u1"), (1, "u1")]
    assert next(r for r in runs if r["seed"] == 0)["ndcg@10"]["profile"] == 0.41
    (seeds / "0-u1.json").write_text(json.dumps({"seed": 0, "fold": "u1", "ndcg@10": {"profile": 0.5}}))
    assert [r["ndcg@10"]["profile"] for r in runs_in(seeds) if r["seed"] == 0] == [0.5]


def test_the_seed_spread_is_said_only_for_the_code_the_table_measured():
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert measured_code(head) is not None and measured_code(head + "-dirty") is None
    assert measured_code("0" * 40) is None
    runs = [{"seed": s, "fold": f, "commit": "0" * 40, "ndcg@10": {}} for s in (0, 1) for f in ("u1",)]
    assert "not with the code measured above" in _seeds_sentence(runs, head)


def test_the_words_follow_the_pooled_interval():
    pooled = {
        "a": {"diff": 0.01, "diff_ci": [0.002, 0.02]},
        "b": {"diff": -0.01, "diff_ci": [-0.02, -0.001]},
        "c": {"diff": 0.01, "diff_ci": [-0.001, 0.02]},
    }
    assert _versus(pooled, "a", "A").startswith("**above A**")
    assert _versus(pooled, "b", "B").startswith("**below B**")
    assert _versus(pooled, "c", "C").startswith("**level with C**")
