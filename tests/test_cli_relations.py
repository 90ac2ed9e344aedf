"""End-to-end tests of ``recsys relations`` as a user runs it (a subprocess), on real and broken data
homes; the broken homes' one-line errors and the help run the same CLI in this process."""

import json

import pytest
from kit import recsys, recsys_here

GENRE_FLAGS = "|".join(["0"] * 8 + ["1"] + ["0"] * 10)


@pytest.mark.data
def test_relations_json_on_ml100k_u1(shared_data):
    res = recsys("relations", "--dataset", "ml-100k", "--split", "u1", "--json", home=shared_data)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert {"users", "attributes", "relations", "like_relations", "dislike_relations", "movies"} <= out.keys()
    assert out["users"] == 943 and out["movie_relations"] == 80_000
    assert out["like_relations"] + out["dislike_relations"] == out["relations"]
    # 1,591 entries in the details file, 133 of them not the movie (a video game, an episode, a remake)
    assert out["items_linked_to_imdb"] + sum(out["imdb_links_refused"].values()) == 1591
    assert out["imdb_links_refused"]["not a film"] > 0


@pytest.mark.data
def test_relations_table(shared_data):
    res = recsys("relations", "-a", "genre,director", home=shared_data)
    assert res.returncode == 0, res.stderr
    assert "users" in res.stdout and "943" in res.stdout and "director" in res.stdout


def tiny_home(tmp_path, base: bytes):
    ml = tmp_path / "ml-100k"
    ml.mkdir()
    (ml / "u1.base").write_bytes(base)
    (ml / "u1.test").write_text("1\t2\t4\t5\n")
    (ml / "u.item").write_bytes(f"1|A (1990)|x||u|{GENRE_FLAGS}\n2|B (1991)|x||u|{GENRE_FLAGS}\n".encode("latin-1"))
    imdb = tmp_path / "ml-100k-imdb"
    imdb.mkdir()
    (imdb / "movielens100k_details.json").write_text(
        json.dumps(
            [
                {
                    "movie_id": 1,
                    "movie_title": "A (1990)",
                    "year": 1990,
                    "movie_url": "http://www.imdb.com/title/tt1/",
                    "director": ["D"],
                    "writer": [],
                    "cast": [],
                }
            ]
        )
    )
    return tmp_path


def test_tiny_home_works(tmp_path):
    res = recsys("relations", "--json", "-a", "genre,director", home=tiny_home(tmp_path, b"1\t1\t5\t1\n2\t1\t1\t2\n"))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["users"] == 2 and out["relations"] == 6


@pytest.mark.parametrize(
    "base, where",
    [
        (b"1\t1\t5\t1\n1\t2\t3\n", "u1.base:2"),
        (b"1\t1\tgood\t1\n", "u1.base:1"),
        (b"1\t1\t6\t1\n", "u1.base:1"),
        (b"1\t1\t5\t1\n\xfe\xff\n", "u1.base:2"),
        (b"", "u1.base: file is empty"),
    ],
)
def test_malformed_file_is_one_line_and_exit_2(tmp_path, base, where):
    res = recsys_here("relations", "--dataset", "ml-100k", "--split", "u1", home=tiny_home(tmp_path, base))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and where in lines[0] and "Traceback" not in res.stderr


def test_missing_data_home_names_path_and_url(tmp_path):
    res = recsys_here("relations", "--no-download", home=tmp_path / "empty")
    assert res.returncode == 2
    assert (
        "missing data file" in res.stderr
        and "/empty/ml-100k/" in res.stderr
        and "recsys fetch ml-100k" in res.stderr
        and len(res.stderr.strip().splitlines()) == 1
    )


def test_help_everywhere():
    for args in (["--help"], ["fetch", "--help"], ["relations", "--help"]):
        res = recsys_here(*args)
        assert res.returncode == 0 and "Usage" in res.stdout
