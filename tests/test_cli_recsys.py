"""End to end: `recsys train` → predict (one pair, --pairs) / recommend / explain / export / evaluate
on MovieLens 100K u1: training as a user runs it (a child process), the commands on its model in
this process through Typer's runner (the same exit codes and streams, without 25 start-ups).

Small co-clustering parameters keep the suite short; the default parameters are measured by
benchmarks/bench_recsys.py and experiments/movielens.py.
"""

import csv
import json
import re
import shutil

import pytest
from kit import list_total, recsys_here

pytestmark = pytest.mark.data
FAST = ["--n-bands", "100", "--band-size", "3", "--min-rows", "3", "--min-cols", "3"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("models") / "u1"
    res = recsys_here("train", "--dataset", "ml-100k", "--split", "u1", "--out", str(out), *FAST, home=shared_data)
    assert res.returncode == 0, res.stderr
    assert "co-clusters" in res.stdout
    return out


def test_predict_shows_title_verdict_and_reasons(model_dir):
    res = recsys_here("predict", str(model_dir), "1", "20")
    assert res.returncode == 0, res.stderr
    head = res.stdout.splitlines()[0]
    assert head.startswith("user 1, Angels and Insects (1995) [20]: ")
    m = re.search(r"like-probability ([\d.]+); cut-off ([\d.]+)", res.stdout)
    assert m, res.stdout
    p, cut = float(m.group(1)), float(m.group(2))
    assert head.endswith("LIKE") == (p >= cut) and head.endswith("DISLIKE") == (p < cut)
    assert "users who share your like co-clusters" in res.stdout and "users who liked" in res.stdout


def test_predict_json_adds_up(model_dir):
    res = recsys_here("predict", str(model_dir), "1", "20", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["item_name"] == "Angels and Insects (1995) [20]"
    assert sum(line["contribution"] for line in out["lines"]) == pytest.approx(out["logit"], abs=1e-6)
    paper = json.loads(recsys_here("predict", str(model_dir), "1", "20", "--json", "--mode", "paper").stdout)
    assert paper["mode"] == "paper" and paper["lines"] == []


def test_predict_pairs(model_dir, tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("user\titem\n1\t20\n99999\t1\n1\tnot-a-movie\n\n2\t1\trating\tignored\n")
    res = recsys_here("predict", str(model_dir), "--pairs", str(pairs))
    assert res.returncode == 0, res.stderr
    recs = json.loads(res.stdout)
    assert [(r["user"], r["item"]) for r in recs] == [("1", "20"), ("99999", "1"), ("1", "not-a-movie"), ("2", "1")]
    assert [r["reason"] for r in recs[1:3]] == ["unknown user", "unknown item"]
    assert recs[0]["covered"] and 0 < recs[0]["score"] < 1 and recs[0]["prediction"] in ("like", "dislike")
    assert recs[1]["score"] is None and recs[1]["prediction"] == "none"
    out = tmp_path / "out" / "pred.csv"
    res = recsys_here("predict", str(model_dir), "--pairs", str(pairs), "--format", "csv", "--out", str(out))
    assert res.returncode == 0 and res.stdout == ""
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["user", "item", "score", "prediction", "covered", "reason"] and len(rows) == 4


@pytest.mark.parametrize(
    "content, where",
    [("1\t20\n2\n", ":2: expected user<TAB>item"), ("\t5\n", ":1: expected user<TAB>item"), ("", "file is empty")],
)
def test_malformed_pairs_file(model_dir, tmp_path, content, where):
    pairs = tmp_path / "bad.tsv"
    pairs.write_text(content)
    out = tmp_path / "never.json"
    res = recsys_here("predict", str(model_dir), "--pairs", str(pairs), "--out", str(out))
    assert res.returncode == 2 and not out.exists()
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and where in lines[0] and "Traceback" not in res.stderr


def test_recommend_and_explain(model_dir):
    res = recsys_here("recommend", str(model_dir), "1", "-n", "3", "--json")
    assert res.returncode == 0, res.stderr
    recs = json.loads(res.stdout)
    assert len(recs) == 3 and all(r["reasons"] and re.search(r"\(\d{4}\) \[\d+\]$", r["name"]) for r in recs)
    assert all(list_total(r) == pytest.approx(r["score"], abs=1e-6) for r in recs)  # the blend's parts too
    text = recsys_here("recommend", str(model_dir), "1", "-n", "3").stdout
    assert recs[0]["name"] in text
    assert ("like chance" in text) == any(r["like"]["weight"] for r in recs)  # a part of the score line
    prof = json.loads(recsys_here("explain", str(model_dir), "1", "--json").stdout)
    assert prof["user"] == 1 and "genre" in prof["like"] and prof["like_movies"]
    assert recsys_here("explain", str(model_dir), "1").stdout.startswith("user 1:")


@pytest.mark.slow
def test_export_json_and_csv(model_dir, tmp_path):
    res = recsys_here("export", str(model_dir), "--format", "json", "--out", str(tmp_path / "p.json"))
    assert res.returncode == 0, res.stderr
    text = (tmp_path / "p.json").read_text()
    data = json.loads(text)
    assert len(data["profiles"]) == 943
    assert text == json.dumps(data)  # json.dump's text, though written a profile at a time
    res = recsys_here("export", str(model_dir), "--format", "csv", "--out", str(tmp_path / "p.csv"))
    assert res.returncode == 0
    rows = list(csv.reader((tmp_path / "p.csv").open()))
    assert rows[0] == ["user", "profile", "kind", "value", "coclusters"] and len(rows) > 943
    bad = recsys_here("export", str(model_dir), "--format", "xml", "--out", str(tmp_path / "p.xml"))
    assert bad.returncode == 2 and not (tmp_path / "p.xml").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["predict", "{model}", "99999", "1"], "unknown user 99999"),
        (["predict", "{model}", "1", "99999"], "unknown item 99999"),
        (["predict", "{model}", "1"], "give USER and ITEM"),
        (["predict", "{model}", "1", "2", "--mode", "magic"], "mode must be"),
        (["recommend", "{model}", "99999"], "unknown user"),
        (["explain", "{missing}", "1"], "no model directory"),
    ],
)
def test_user_errors_are_one_line_exit_2(model_dir, tmp_path, args, message):
    args = [a.format(model=model_dir, missing=tmp_path / "none") for a in args]
    res = recsys_here(*args)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in res.stderr


def test_corrupt_and_newer_models(model_dir, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(model_dir, broken)
    (broken / "arrays.npz").write_bytes(b"not a zip")
    res = recsys_here("predict", str(broken), "1", "1")
    assert res.returncode == 2 and "corrupt" in res.stderr
    newer = tmp_path / "newer"
    shutil.copytree(model_dir, newer)
    mf = json.loads((newer / "manifest.json").read_text())
    (newer / "manifest.json").write_text(json.dumps({**mf, "format_version": mf["format_version"] + 1}))
    res = recsys_here("predict", str(newer), "1", "1")
    assert res.returncode == 2 and "newer" in res.stderr


def test_threshold_overrides_the_fitted_cut_off(model_dir):
    p = json.loads(recsys_here("predict", str(model_dir), "1", "20", "--json").stdout)["score"]
    for cut, verdict in ((p - 1e-4, "like"), (p + 1e-4, "dislike")):
        res = recsys_here("predict", str(model_dir), "1", "20", "--json", "--threshold", f"{cut:.6f}")
        out = json.loads(res.stdout)
        assert out["prediction"] == verdict and out["threshold"] == pytest.approx(cut)
        assert out["threshold_rule"] == "given"


def test_recommend_for_a_new_person_and_for_many_users(model_dir, tmp_path):
    mine = tmp_path / "me.csv"
    mine.write_text("movieId,rating\n50,5\n172,5\n181,4\n1,2\n99999,5\n")  # Star Wars, Empire, Jedi; Toy Story
    res = recsys_here("recommend", str(model_dir), "--ratings", str(mine), "-n", "5", "--format", "csv")
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(res.stdout.splitlines()))
    assert rows[0] == ["rank", "item", "score"] and len(rows) == 6
    assert not {"50", "172", "181", "1"} & {r[1] for r in rows[1:]}, "rated movies are never listed"
    assert "1 rated item(s) not in the model, ignored: 99999" in res.stderr
    text = recsys_here("recommend", str(model_dir), "--ratings", str(mine), "-n", "3").stdout
    assert "you liked Star Wars (1977) [50]" in text
    users = tmp_path / "users.txt"
    users.write_text("user\n1\n2\nnobody\n")
    res = recsys_here("recommend", str(model_dir), "--users", str(users), "-n", "4", "--out", str(tmp_path / "l.csv"))
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader((tmp_path / "l.csv").open()))
    assert [r["user"] for r in rows] == ["1"] * 4 + ["2"] * 4 + ["nobody"] and rows[-1]["reason"] == "unknown user"
    assert [r["item"] for r in rows[:4]] == [
        str(x["item"]) for x in json.loads(recsys_here("recommend", str(model_dir), "1", "-n", "4", "--json").stdout)
    ]
    bad = recsys_here("recommend", str(model_dir), "1", "--users", str(users))
    assert bad.returncode == 2 and "give one of USER, --ratings FILE or --users FILE" in bad.stderr


def test_new_items_are_scored_listed_and_flagged(model_dir, tmp_path):
    from recsys import store
    from recsys.model.settings import NEW_ITEM

    new = store.load(model_dir).fitted_.new_items()  # u1.base leaves some of the 1,682 movies unrated
    assert len(new), "u1.base rates every movie: no new item to check"
    out = json.loads(recsys_here("predict", str(model_dir), "1", str(new[0]), "--json").stdout)
    assert out["covered"] and out["reason"] == NEW_ITEM
    line = next(line for line in out["lines"] if line["term"] == "user_attributes")
    assert any(p.get("attribute", "").startswith(("genre:", "director:", "writer:", "cast:")) for p in line["parts"])
    assert sum(x["contribution"] for x in out["lines"]) == pytest.approx(out["logit"], abs=1e-6)
    users = tmp_path / "users.txt"
    users.write_text("user\n1\n")
    out = tmp_path / "all.csv"
    res = recsys_here("recommend", str(model_dir), "--users", str(users), "-n", "2000", "--out", str(out))
    assert res.returncode == 0, res.stderr
    flagged = {r["item"] for r in csv.DictReader((tmp_path / "all.csv").open()) if r["reason"] == NEW_ITEM}
    assert flagged == {str(i) for i in new}  # every new item is listed (user 1 rated none of them), flagged
