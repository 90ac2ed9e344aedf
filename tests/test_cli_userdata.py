"""The command line on data the project has never seen: a books data set with its own header
names, trained, evaluated and reported; malformed files; the demo set offline; ml-latest-small."""

import json

import pytest
from kit import COLS, recsys_here
from kit import FAST_FLAGS as FAST


@pytest.mark.slow
def test_own_data_trains_evaluates_and_reports(books, tmp_path):
    r, i = str(books / "ratings.csv"), str(books / "books.csv")
    model = tmp_path / "model"
    res = recsys_here("train", "--ratings", r, "--items", i, *COLS, *FAST, "--out", str(model), home=tmp_path / "empty")
    assert res.returncode == 0, res.stderr
    res = recsys_here(
        "evaluate",
        "--ratings",
        r,
        "--items",
        i,
        *COLS,
        *FAST,
        "--split",
        "random:0.2:0",
        "--json",
        "--quiet",
        "--bootstrap",
        "50",
        "--paper-n-bands",
        "60",
        "--report",
        str(tmp_path / "evaluation.html"),
        home=tmp_path / "empty",
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["split"] == "random:0.2:0" and out["ratings_file"] == r
    assert out["methods"]["profile"]["auc_full"] > 0.8  # two clear tastes
    assert out["commit"] and "ablations" in out and out["ci"]["unit"] == "user"
    assert list(out["topn"]["methods"]) == ["popularity", "ease", "itemknn", "rp3beta", "ials", "bpr", "profile"]
    assert all("params" in m and "grid" in m for m in [*out["methods"].values(), *out["topn"]["methods"].values()])
    html = (tmp_path / "evaluation.html").read_text()
    assert html.count('class="roc"') == len(out["methods"]) and "rp3beta" in html
    page = tmp_path / "reader01.html"
    res = recsys_here("report", str(model), "reader01", "--out", str(page))
    assert res.returncode == 0, res.stderr
    html = page.read_text()
    assert "Book number" in html and "reader01" in html
    pred = json.loads(recsys_here("predict", str(model), "reader01", "bk-001", "--json").stdout)
    assert pred["item_name"] == "Book number 1 [bk-001]"


@pytest.mark.parametrize(
    "ratings, items, where",
    [
        ("reader,book,stars\nr1,b1,5\nr1,b2,great\n", None, "ratings.csv:3: rating must be a number"),
        ("reader,book,stars\nr1,b1,5\nr2,b1,2\nr1,b1,3\n", None, "ratings.csv:2, 4: user r1 rates item b1 twice"),
        ("reader,book,stars\nr1,b1,5\n", "book,genres\nb1,x\nb1,y\n", "items.csv:3: item b1 appears twice"),
        ("reader,book,plays\nr1,b1,3\nr1,b2,-2\n", None, "ratings.csv:3: count must be a positive number, got '-2'"),
    ],
)
def test_malformed_files_one_line_exit_2_nothing_written(tmp_path, ratings, items, where):
    (tmp_path / "ratings.csv").write_text(ratings)
    args = ["train", "--ratings", str(tmp_path / "ratings.csv"), "--ratings-columns", "user=reader,item=book"]
    if "stars" in ratings:
        args[-1] += ",rating=stars"
    if items:
        (tmp_path / "items.csv").write_text(items)
        args += ["--items", str(tmp_path / "items.csv"), "--items-columns", "item=book"]
    out = tmp_path / "model"
    res = recsys_here(*args, "--out", str(out))
    assert res.returncode == 2 and not out.exists()
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and where in lines[0] and "Traceback" not in res.stderr


def test_duplicates_option(tmp_path):
    (tmp_path / "r.csv").write_text("user,item,rating\n1,1,5\n2,1,1\n1,1,4\n2,2,5\n1,2,1\n")
    res = recsys_here("relations", "--ratings", str(tmp_path / "r.csv"), "--duplicates", "mean", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["relations"] == 4
    res = recsys_here("relations", "--ratings", str(tmp_path / "r.csv"), "--duplicates", "first")
    assert res.returncode == 2 and "--duplicates must be one of" in res.stderr


@pytest.mark.slow
def test_demo_works_with_no_network_and_no_data_home(tmp_path):
    empty = tmp_path / "nothing-here"
    model = tmp_path / "demo-model"
    res = recsys_here("train", "--dataset", "demo", "--out", str(model), "--quiet", *FAST, home=empty)
    assert res.returncode == 0, res.stderr
    assert not empty.exists()  # nothing downloaded, nothing written to the data home
    res = recsys_here("report", str(model), "1", "--out", str(tmp_path / "r.html"))
    assert res.returncode == 0, res.stderr
    assert "<h1>User 1</h1>" in (tmp_path / "r.html").read_text()


@pytest.mark.data
@pytest.mark.slow
def test_ml_latest_small_out_of_the_box(shared_data, tmp_path):
    # co-clusters of three users and three movies at least, under the rules for large data (each
    # movie's solve capped at its 200 partners most liked together, 400 co-clusters a user): the
    # item model's solves on its 9,700 movies are what the train spends its time on (17 s by the
    # default rules, whose capped solves tests/test_item_model.py checks; 5 s so)
    fast = [*FAST[:2], "--band-size", "3", "--min-rows", "3", "--min-cols", "3", "--scaling", "on"]
    res = recsys_here(
        "train", "--dataset", "ml-latest-small", "--out", str(tmp_path / "m"), "--quiet", *fast, home=shared_data
    )
    assert res.returncode == 0, res.stderr
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["provenance"]["attribute_kinds"] == ["genre", "tag"] and manifest["provenance"]["split"] == "all"
    assert manifest["report"]["scaling"]["on"]
    res = recsys_here(
        "evaluate",
        "--dataset",
        "ml-latest-small",
        "--split",
        "random:0.2:0",
        "--json",
        "--quiet",
        *fast,
        "--bootstrap",
        "0",
        "--no-topn",
        "--methods",
        "majority,svd",
        home=shared_data,
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert list(out["methods"]) == ["majority", "svd"]
    assert out["n_test"] == 20_167 and out["methods"]["svd"]["auc_full"] > 0.7


def test_a_report_without_out_is_written_beside_you(tmp_path, monkeypatch):
    """`recsys report MODEL USER` as the README's first screen writes it: report-USER.html here."""
    from kit import FAST as FAST_PARAMS
    from typer.testing import CliRunner

    from ingest.datasets import load_movies
    from recsys.cli import app
    from recsys.model import ProfileRecommender
    from recsys.store import save

    data = load_movies("demo", "all")
    model = ProfileRecommender(like_params=FAST_PARAMS, dislike_params=FAST_PARAMS)
    save(model.fit(data.train, data.attributes, data.items), tmp_path / "m")
    monkeypatch.chdir(tmp_path)
    user = str(data.train["user"].iloc[0])
    res = CliRunner().invoke(app, ["report", "m", user])
    assert res.exit_code == 0, res.output
    assert (tmp_path / f"report-{user}.html").exists() and f"report-{user}.html" in res.output


@pytest.mark.slow
def test_evaluate_option_errors_come_before_the_data(tmp_path):
    for args, message in (
        (["--grid", "huge"], "--grid must be one of small, full"),
        (["--methods", "svd,magic"], "--methods must be among"),
        (["--strong-users", "1.5"], "--strong-users must be in"),
    ):
        res = recsys_here("evaluate", "--ratings", str(tmp_path / "none.csv"), *args)
        assert res.returncode == 2 and message in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.slow
def test_too_few_ratings_end_in_one_line_and_exit_2(tmp_path, n):
    """A ratings file of a handful of lines: train and evaluate say why in one line; nothing is written."""
    r = tmp_path / "r.csv"
    r.write_text("user,item,rating\n" + "".join(f"{k % 3},{10 + k % 4},{1 + (2 * k) % 5}\n" for k in range(n)))
    for args in (["train", "--out", str(tmp_path / "m")], ["evaluate", "--bootstrap", "50"]):
        res = recsys_here(*args, "--ratings", str(r), "--quiet")
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.stderr
    assert not (tmp_path / "m").exists()
