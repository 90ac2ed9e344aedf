import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.imdb import imdb_attributes, read_ml100k_details, read_principals
from ingest.linking import link_items, normalise_title
from ingest.movielens import read_csv_links, read_csv_ratings, read_ml1m_ratings, read_ml100k_items, read_ml100k_ratings
from ingest.relations import build_relations
from ingest.tables import DataFormatError


def write(tmp_path, name, data: bytes | str):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


GOOD = "1\t10\t5\t881250949\n1\t11\t2\t881250950\n2\t10\t3\t881250951\n"


def test_reads_ratings(tmp_path):
    df = read_ml100k_ratings(write(tmp_path, "u.data", GOOD))
    assert df.dtypes["rating"] == np.int64 and len(df) == 3 and df["rating"].tolist() == [5, 2, 3]


@pytest.mark.parametrize(
    "content, match",
    [
        ("1\t10\t5\t881250949\n1\t11\t2\n", r"u\.data:2: expected 4 fields"),
        ("1\t10\t5\t881250949\n1\t11\t2\t5\t7\n", r"u\.data:2: expected 4 fields"),
        ("1\t10\t5\t881250949\n1\t11\tfive\t881250950\n", r"u\.data:2: rating must be an integer, got 'five'"),
        ("1\t10\t5\t881250949\n2\t10\t3\t1\n1\t11\t9\t881250950\n", r"u\.data:3: rating 9 outside \[1, 5\]"),
        ("1\t10\t4.5\t881250949\n", r"u\.data:1: rating must be an integer"),
        (b"1\t10\t5\t881250949\n1\t1\xff\t2\t881250950\n", r"u\.data:2: bytes not valid utf-8"),
        ("", r"u\.data: file is empty"),
        ("\n\n", r"u\.data: file is empty"),
    ],
)
def test_malformed_ratings_name_file_and_line(tmp_path, content, match):
    with pytest.raises(DataFormatError, match=match):
        read_ml100k_ratings(write(tmp_path, "u.data", content))


def test_ml1m_and_csv_releases(tmp_path):
    df = read_ml1m_ratings(write(tmp_path, "ratings.dat", "1::1193::5::978300760\n1::661::3::978302109\n"))
    assert df["item"].tolist() == [1193, 661]
    csv = "userId,movieId,rating,timestamp\r\n1,1,4.0,964982703\r\n1,3,0.5,964981247\r\n"
    assert read_csv_ratings(write(tmp_path, "ratings.csv", csv))["rating"].tolist() == [4.0, 0.5]
    with pytest.raises(DataFormatError, match=r"ratings\.csv:3: rating 7\.0 outside"):
        read_csv_ratings(write(tmp_path, "ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,9\n1,2,7.0,9\n"))
    with pytest.raises(DataFormatError, match=r"ratings\.csv:1: expected header"):
        read_csv_ratings(write(tmp_path, "ratings.csv", "user,movie,rating,timestamp\n1,1,4.0,9\n"))
    links = read_csv_links(write(tmp_path, "links.csv", "movieId,imdbId,tmdbId\n1,0114709,862\n2,113497,\n"))
    assert links["tconst"].tolist() == ["tt0114709", "tt0113497"]


def test_ml100k_items_latin1_and_genres(tmp_path):
    flags = "|".join(["0"] * 5 + ["1"] + ["0"] * 13)
    content = f"1|Café (1995)|01-Jan-1995||http://x|{flags}\n".encode("latin-1")
    items, genres = read_ml100k_items(write(tmp_path, "u.item", content))
    assert items.loc[0, "title"] == "Café (1995)" and items.loc[0, "year"] == 1995
    assert genres.to_dict("records") == [{"item": 1, "kind": "genre", "value": "Comedy"}]


def test_relation_builder_follows_the_paper():
    ratings = pd.DataFrame({"user": [1, 1, 1, 2], "item": [10, 11, 12, 10], "rating": [5, 1, 3, 2]})
    attrs = pd.DataFrame(
        {
            "item": [10, 11, 12, 10],
            "kind": ["genre", "genre", "genre", "director"],
            "value": ["Drama", "Drama", "Comedy", "Lean"],
        }
    )
    rel = build_relations(ratings, attrs)
    got = set(rel.frame().itertuples(index=False, name=None))
    assert got == {
        (1, "movie:10:Y"),
        (1, "movie:11:N"),
        (1, "movie:12:Y"),
        (2, "movie:10:N"),
        (1, "genre:Drama:Y"),  # mean(5, 1) = 3 > 2
        (1, "genre:Comedy:Y"),
        (1, "director:Lean:Y"),
        (2, "genre:Drama:N"),
        (2, "director:Lean:N"),  # 2 is not above 2
    }
    s = rel.summary()
    assert (s["users"], s["movies"], s["attributes"], s["relations"]) == (2, 3, 3, 9)
    assert s["like_relations"] + s["dislike_relations"] == 9
    assert set(rel.like().features) == {f for f in rel.features if f.endswith(":Y")}
    assert build_relations(ratings, attrs, threshold=4).summary()["like_relations"] == 2  # movie 10, Lean
    assert len(build_relations(ratings, attrs, kinds=["director"]).features) == 6


def test_relations_use_training_ratings_only():
    train = pd.DataFrame({"user": [1, 2], "item": [10, 11], "rating": [5, 1]})
    attrs = pd.DataFrame({"item": [10, 11, 12], "kind": "genre", "value": ["A", "B", "C"]})
    rel = build_relations(train, attrs)
    assert not any("12" in f or ":C:" in f for f in rel.features)  # movie 12 only rated in a test set


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([1, 2, 3, 40]), st.sampled_from([10, 11, 12, 7]), st.sampled_from([1, 2, 2.5, 5, np.nan])
        ),
        min_size=1,
        max_size=15,
        unique_by=lambda t: t[:2],
    ),
    st.lists(
        st.tuples(
            st.sampled_from([10, 11, 12, 99]),
            st.sampled_from(["genre", "cast"]),
            st.sampled_from(["A", "B", "10", "x:y"]),
        ),
        max_size=8,
    ),
    st.booleans(),
)
@pytest.mark.slow
def test_relations_are_their_definition(rows, attr_rows, text_ids):
    """Every (user, feature) pair as the module docstring defines it, computed the plain way."""
    ratings = pd.DataFrame(rows, columns=["user", "item", "rating"])
    if text_ids:
        ratings["item"] = ratings["item"].astype(str).radd("m")
    attrs = pd.DataFrame(attr_rows, columns=["item", "kind", "value"])
    if text_ids:
        attrs["item"] = attrs["item"].astype(str).radd("m")
    want = {(u, f"movie:{i}:{'Y' if r > 2 else 'N'}") for u, i, r in ratings.itertuples(index=False)}
    joined = ratings.merge(attrs.drop_duplicates(), on="item")
    for (u, kind, value), g in joined.groupby(["user", "kind", "value"]):
        want.add((u, f"{kind}:{value}:{'Y' if g['rating'].mean() > 2 else 'N'}"))
    rel = build_relations(ratings, attrs if len(attrs) else None)
    assert set(rel.frame().itertuples(index=False, name=None)) == want
    assert list(rel.features) == sorted(rel.features) and list(rel.objects) == sorted(set(ratings["user"]))
    assert rel.matrix.nnz == len(want) and set(rel.matrix.data) == {1}


def test_linking_and_titles():
    assert normalise_title("Usual Suspects, The (1995)") == "the usual suspects"
    items = pd.DataFrame(
        {"item": [1, 2, 3], "title": ["Heat (1995)", "Alien (1979)", "Nowhere (2001)"], "year": [1995, 1979, 2001]}
    )
    details = pd.DataFrame({"item": [1], "tconst": ["tt0113277"]})
    titles = pd.DataFrame(
        {"tconst": ["tt0078748", "tt9", "tt8"], "title": ["Alien", "Nowhere", "Nowhere"], "year": [1979, 2001, 2001]}
    )
    linked, report = link_items(items, details=details, titles=titles)
    assert dict(zip(linked["item"], linked["tconst"])) == {1: "tt0113277", 2: "tt0078748"}
    assert report.by_method == {"imdb url": 1, "title+year": 1} and report.unlinked == [3]


def _gz(path, header, rows):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    return path


PRINCIPALS = ["tconst", "ordering", "nconst", "category", "job", "characters"]


def test_imdb_dumps_streamed_and_filtered(tmp_path):
    _gz(
        tmp_path / "title.basics.tsv.gz",
        "tconst titleType primaryTitle originalTitle isAdult startYear endYear runtimeMinutes genres".split(),
        [
            ["tt1", "movie", "A", "A", "0", "1995", "\\N", "90", "Drama,Crime"],
            ["tt2", "movie", "B", "B", "0", "1996", "\\N", "90", "\\N"],
            ["tt3", "movie", "C", "C", "0", "1997", "\\N", "90", "Comedy"],
        ],
    )
    _gz(
        tmp_path / "title.principals.tsv.gz",
        PRINCIPALS,
        [
            ["tt1", "1", "nm1", "actor", "\\N", '["X"]'],
            ["tt1", "2", "nm2", "actress", "\\N", "\\N"],
            ["tt1", "3", "nm3", "composer", "\\N", "\\N"],
            ["tt3", "1", "nm1", "director", "\\N", "\\N"],
        ],
    )
    _gz(
        tmp_path / "name.basics.tsv.gz",
        ["nconst", "primaryName", "birthYear", "deathYear", "primaryProfession", "knownForTitles"],
        [["nm1", "Ann Lee", "1950", "\\N", "actor", "tt1"], ["nm2", "Bo Ray", "\\N", "\\N", "actress", "tt1"]],
    )
    attrs = imdb_attributes(tmp_path, ["tt1", "tt2"])
    got = set(attrs.itertuples(index=False, name=None))
    assert got == {
        ("tt1", "genre", "Drama"),
        ("tt1", "genre", "Crime"),
        ("tt1", "actor", "Ann Lee (nm1)"),
        ("tt1", "actress", "Bo Ray (nm2)"),
    }
    small_chunks = read_principals(tmp_path / "title.principals.tsv.gz", ["tt1", "tt3"], chunksize=1)
    assert len(small_chunks) == 3


def test_imdb_bad_header_and_missing(tmp_path):
    _gz(tmp_path / "title.principals.tsv.gz", ["tconst", "nconst", "category"], [["tt1", "nm1", "actor"]])
    with pytest.raises(DataFormatError, match=r"title\.principals\.tsv\.gz:1:"):
        read_principals(tmp_path / "title.principals.tsv.gz", ["tt1"])
    with pytest.raises(FileNotFoundError, match="datasets.imdbws.com"):
        read_principals(tmp_path / "nothing.tsv.gz", ["tt1"])


def _details_record(movie_id, title, year, director=("D",), url_id=None, **more):
    url = f"http://www.imdb.com/title/tt{url_id or movie_id:07d}/?ref_=x"
    return {
        "movie_id": movie_id,
        "movie_title": title,
        "year": year,
        "movie_url": url,
        "director": list(director),
        "writer": more.get("writer", []),
        "cast": more.get("cast", []),
    }


def test_ml100k_details(tmp_path):
    recs = [
        _details_record(1, "Toy Story (1995)", 1995.0, ["John L"], 114709, writer=["W1", "W2"], cast=list("ABCD")),
        _details_record(2, "Star Wars (1977)", None, ["nan"], writer=["", ""], cast=["nan"]),
    ]
    df, links = read_ml100k_details(write(tmp_path, "d.json", json.dumps(recs)), top_cast=2)
    assert set(df["kind"]) == {"director", "writer", "cast"} and set(df["item"]) == {1}
    assert links[["item", "tconst"]].to_dict("records") == [
        {"item": 1, "tconst": "tt0114709"},
        {"item": 2, "tconst": "tt0000002"},
    ]
    assert df.loc[df["kind"] == "cast", "value"].tolist() == ["A", "B"]
    with pytest.raises(DataFormatError, match=r"d\.json:1: invalid JSON"):
        read_ml100k_details(write(tmp_path, "d.json", "[{"))


@pytest.mark.parametrize(
    "title, year, director, problem",
    [
        ("Toy Story (1995)", "1996", ["J"], None),  # a year off: release dates straddle new year
        ("Return of the Jedi (1983)", "Video Game", ["Peter Ross-Murray"], "not a film"),
        ("Houseguest (1994)", "Episode aired May 24, 1994", ["J"], "not a film"),
        ("Magnificent Seven, The (1954)", 2016, ["Antoine Fuqua"], "year differs by more than 1"),
        ("Nutty Professor, The (1996)", None, ["Don DuPree"], "no year to check"),
        ("Crow, The (1994)", 1994, ["nan"], "no people (placeholders only)"),
        ("unknown", "2011", ["J"], "no title year to check"),
    ],
)
def test_ml100k_details_refuse_entries_that_are_not_the_movie(tmp_path, title, year, director, problem):
    recs = [_details_record(7, title, year, director)]
    attrs, links = read_ml100k_details(write(tmp_path, "d.json", json.dumps(recs)))
    assert links["problem"].tolist() == [problem]
    assert attrs.empty == (problem is not None)
    _, report = link_items(pd.DataFrame({"item": [7, 8], "title": [title, "x"]}), details=links)
    assert report.n_linked == (problem is None) and report.rejected == ({} if problem is None else {problem: 1})
    assert ("refused" in str(report)) == (problem is not None)


def test_benchmark_readers_say_where_to_get_missing_files(tmp_path):
    from ingest.corpora import read_corpus

    for name, where in (("zoo", "archive.ics.uci.edu"), ("classic3", "folivetti/HBLCoClust"), ("multi5", "qwone.com")):
        with pytest.raises(FileNotFoundError, match=where):
            read_corpus(name, tmp_path)


@pytest.mark.slow
def test_newsgroups_columns_do_not_depend_on_the_hash_seed(tmp_path):
    """The same tarball gives the same matrix in every process (word order was a set's order)."""
    words = " ".join(f"word{i}" for i in range(40))
    with tarfile.open(tmp_path / "news.tar.gz", "w:gz") as tar:
        for i, group in enumerate(["sci.space", "rec.autos"] * 3):
            body = f"Subject: s\n\n{words} extra{i}\n".encode()
            info = tarfile.TarInfo(f"20_newsgroups/{group}/{i}")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    code = (
        "import sys; from ingest.corpora import read_newsgroups;"
        "r = read_newsgroups(['sci.space', 'rec.autos'], path=sys.argv[1]);"
        "print(list(r.features)); print(r.matrix.indices.tolist())"
    )
    root = Path(__file__).resolve().parent.parent
    outs = {
        subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "news.tar.gz")],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outs) == 1
