"""End-to-end: `recsys train` → predict / recommend / explain / export / evaluate on MovieLens 100K u1.

Small co-clustering parameters keep the suite short; the paper's parameters are exercised by
`recsys evaluate` in experiments/movielens.py and reported in the closing notes.
"""

import json
import shutil

import pytest
from test_cli_relations import recsys

pytestmark = pytest.mark.data
FAST = ["--n-bands", "100", "--band-size", "3", "--min-rows", "4", "--min-cols", "4"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("models") / "u1"
    res = recsys(
        "train",
        "--dataset",
        "ml-100k",
        "--split",
        "u1",
        "--out",
        str(out),
        *FAST,
        "--fallback",
        "svd",
        home=shared_data,
    )
    assert res.returncode == 0, res.stderr
    assert "co-clusters" in res.stdout
    return out


def test_predict(model_dir):
    res = recsys("predict", str(model_dir), "1", "20", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["label"] in ("like", "dislike") and out["source"] in ("profile", "fallback")
    assert "like_matches" in out["evidence"] and "contributions" in out["evidence"]
    text = recsys("predict", str(model_dir), "1", "20")
    assert text.returncode == 0 and "matches your like profile" in text.stdout


def test_recommend_and_explain(model_dir):
    res = recsys("recommend", str(model_dir), "1", "-n", "3", "--json")
    assert res.returncode == 0, res.stderr
    recs = json.loads(res.stdout)
    assert 1 <= len(recs) <= 3 and all("evidence" in r for r in recs)
    res = recsys("explain", str(model_dir), "1", "--json")
    prof = json.loads(res.stdout)
    assert prof["user"] == 1 and "genre" in prof["like"]
    assert recsys("explain", str(model_dir), "1").stdout.startswith("user 1:")


def test_export_json_and_csv(model_dir, tmp_path):
    res = recsys("export", str(model_dir), "--format", "json", "--out", str(tmp_path / "p.json"))
    assert res.returncode == 0, res.stderr
    data = json.loads((tmp_path / "p.json").read_text())
    assert len(data["profiles"]) == 943
    res = recsys("export", str(model_dir), "--format", "csv", "--out", str(tmp_path / "p.csv"))
    assert res.returncode == 0
    head = (tmp_path / "p.csv").read_text().splitlines()[0]
    assert head == "user,profile,kind,value,coclusters"
    bad = recsys("export", str(model_dir), "--format", "xml", "--out", str(tmp_path / "p.xml"))
    assert bad.returncode == 2 and not (tmp_path / "p.xml").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["predict", "{model}", "99999", "1"], "unknown user 99999"),
        (["predict", "{model}", "1", "99999"], "unknown item 99999"),
        (["recommend", "{model}", "99999"], "unknown user"),
        (["explain", "{missing}", "1"], "no model directory"),
    ],
)
def test_user_errors_are_one_line_exit_2(model_dir, tmp_path, args, message):
    args = [a.format(model=model_dir, missing=tmp_path / "none") for a in args]
    res = recsys(*args)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in res.stderr


def test_corrupt_and_newer_models(model_dir, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    (broken / "arrays.npz").write_bytes(b"not a zip")
    res = recsys("predict", str(broken), "1", "1")
    assert res.returncode == 2 and "corrupt" in res.stderr
    newer = tmp_path / "newer"
    shutil.copytree(model_dir, newer)
    mf = json.loads((newer / "manifest.json").read_text())
    (newer / "manifest.json").write_text(json.dumps({**mf, "format_version": mf["format_version"] + 1}))
    res = recsys("predict", str(newer), "1", "1")
    assert res.returncode == 2 and "newer" in res.stderr


def test_evaluate_json(shared_data):
    res = recsys("evaluate", "--dataset", "ml-100k", "--split", "u1", *FAST, "--json", "--quiet", home=shared_data)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["dataset"] == "ml-100k" and out["split"] == "u1" and out["n_test"] == 20_000
    assert set(out["relations"]) >= {"users", "attributes", "relations"}
    assert set(out["methods"]) == {"profile_paper", "profile", "profile+svd", "svd", "naive_bayes", "majority"}
    for m in out["methods"].values():
        assert set(m) >= {
            "coverage",
            "accuracy_covered",
            "accuracy_full",
            "balanced_accuracy_full",
            "dislike_recall_full",
            "auc_full",
        }
    assert out["methods"]["majority"]["accuracy_full"] == pytest.approx(0.82085)
    assert out["methods"]["profile+svd"]["coverage"] == 1.0
    assert out["seconds"] > 0
