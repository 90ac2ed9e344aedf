"""experiments.movielens --merge: fold runs made in parallel become one results file."""

import json
from pathlib import Path

import pytest

from experiments import movielens

RESULTS = Path(__file__).resolve().parent.parent / "experiments" / "results" / "movielens.json"


def _split(tmp_path, commits=("c", "c")):
    d = json.loads(RESULTS.read_text())
    parts = []
    for name, folds, commit in (("a", ["u3", "u4", "u5"], commits[0]), ("b", ["u1", "u2"], commits[1])):
        prov = {
            **d["_provenance"],
            "commit": commit,
            "folds": folds,
            "wall_seconds": 100.0 * len(folds),
            "command": f"python -m experiments.movielens --folds {','.join(folds)}",
        }
        payload = {
            **d,
            "_provenance": prov,
            "folds": folds,
            "results": {f: d["results"][f] for f in folds},
            "paper_variants": d["paper_variants"] if name == "a" else None,
        }
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(payload))
        parts.append(path)
    return d, parts


def test_merged_folds_render_as_one_run(tmp_path):
    d, parts = _split(tmp_path)
    movielens.merge(parts, tmp_path / "out")
    merged = json.loads((tmp_path / "out" / "movielens.json").read_text())
    assert merged["folds"] == ["u1", "u2", "u3", "u4", "u5"] and merged["results"] == d["results"]
    assert merged["paper_variants"] == d["paper_variants"]
    prov = merged["_provenance"]
    assert prov["wall_seconds"] == 300.0 and "--folds u3,u4,u5 & " in prov["command"] and prov["commit"] == "c"
    md = (tmp_path / "out" / "movielens.md").read_text()
    assert md.startswith("# MovieLens 100K") and "at commit `c`" in md and "| u1 | u2 | u3 | u4 | u5 |" in md


def test_runs_of_different_commits_are_not_merged(tmp_path):
    _, parts = _split(tmp_path, commits=("c", "d"))
    with pytest.raises(SystemExit, match="different commits"):
        movielens.merge(parts, tmp_path / "out")
