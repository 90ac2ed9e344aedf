"""Your own data: ratings and item files, duplicates, splits; MovieLens files and the demo set."""

import numpy as np
import pandas as pd
import pytest
from kit import written

from ingest.datasets import load_files, load_movies
from ingest.errors import DataFormatError, DataRequestError
from ingest.splits import parse_split, split_ratings
from ingest.userfiles import read_items, read_ratings


def test_ratings_headers_aliases_and_text_ids(tmp_path):
    p = written(tmp_path / "r.csv", "userId,movieId,rating,timestamp\nann,007,4.5,2020-01-02\nbob,12,2,1577836800\n")
    r = read_ratings(p)
    assert r["user"].tolist() == ["ann", "bob"] and r["item"].tolist() == ["007", "12"]  # 007 stays text
    assert r["rating"].tolist() == [4.5, 2.0] and r["timestamp"].tolist() == [1577923200, 1577836800]
    t = written(tmp_path / "r.tsv", "reader\tbook\tstars\n1\t10\t5\n2\t10\t1\n")
    r = read_ratings(t, columns={"user": "reader", "item": "book", "rating": "stars"})
    assert r["user"].dtype.kind == "i" and r["item"].tolist() == [10, 10]


@pytest.mark.parametrize(
    "text, where",
    [
        ("user,item,rating\n1,2,5\n1,3,good\n", "r.csv:3: rating must be a number, got 'good'"),
        ("user,item,rating\n1,2,5\n,3,4\n", "r.csv:3: user is empty"),
        ("user,item,rating\n", "r.csv: no ratings after the header line"),
        ("user,item,rating\n1,2,5\n3,4,4\n1,2,1\n", "r.csv:2, 4: user 1 rates item 2 twice"),
        # interactions (no rating column): a count must be a positive number
        ("user,item,count\na,s1,2\na,s2,0\n", "r.csv:3: count must be a positive number, got '0'"),
        ("user,item,count\na,s1,x\n", "r.csv:2: count must be a positive number, got 'x'"),
        ("user,item\na,\n", "r.csv:2: item is empty"),
    ],
)
def test_malformed_ratings_name_file_and_line(tmp_path, text, where):
    with pytest.raises(DataFormatError) as e:
        read_ratings(written(tmp_path / "r.csv", text))
    assert where in str(e.value)


def test_duplicate_policies(tmp_path):
    p = written(tmp_path / "r.csv", "user,item,rating\n1,2,5\n1,3,3\n1,2,2\n")
    assert read_ratings(p, duplicates="last").set_index("item")["rating"].to_dict() == {2: 2.0, 3: 3.0}
    assert read_ratings(p, duplicates="mean").set_index("item")["rating"].to_dict() == {2: 3.5, 3: 3.0}
    with pytest.raises(DataRequestError, match="duplicates must be"):
        read_ratings(p, duplicates="first")


def test_a_missing_column_points_to_the_option_that_maps_it(tmp_path):
    """The hint names the option of the file's own kind, and none for a file that cannot be mapped."""
    from ingest.userfiles import read_person

    written(tmp_path / "r.csv", "reader,book\nr1,b1\n")
    with pytest.raises(DataFormatError, match=r"no rating column; name it so or map it \(e.g. --ratings-columns"):
        read_ratings(tmp_path / "r.csv", {"user": "reader", "item": "book"}, implicit=False)
    written(tmp_path / "i.csv", "thing,genres\nb1,x\n")
    with pytest.raises(DataFormatError, match=r"no item column; name it so or map it \(e.g. --items-columns item="):
        read_items(tmp_path / "i.csv")
    written(tmp_path / "me.csv", "thing,verdict\n1,5\n")
    with pytest.raises(DataFormatError, match=r"no item or rating column; name it so$"):
        read_person(tmp_path / "me.csv")


def test_items_wide_and_long(tmp_path):
    wide = written(
        tmp_path / "i.csv",
        'item,title,year,genres,Authors\n1,"Dune, the book",1965,Sci-Fi|Classic,Frank Herbert\n'
        "2,Emma (1815),1815,,Jane Austen\n",
    )
    items, attrs = read_items(wide)
    assert items["title"].tolist() == ["Dune, the book (1965)", "Emma (1815)"]
    assert sorted(map(tuple, attrs.to_numpy().tolist())) == [
        (1, "author", "Frank Herbert"),
        (1, "genre", "Classic"),
        (1, "genre", "Sci-Fi"),
        (2, "author", "Jane Austen"),
    ]
    long = written(tmp_path / "l.tsv", "item\tkind\tvalue\n1\tgenre\tSci-Fi\n1\ttitle\tDune\n2\tgenre\tDrama\n")
    items, attrs = read_items(long)
    assert items.set_index("item")["title"].to_dict() == {1: "Dune", 2: ""} and len(attrs) == 2
    with pytest.raises(DataFormatError, match="i2.csv:3: item 1 appears twice"):
        read_items(written(tmp_path / "i2.csv", "item,genres\n1,a\n1,b\n"))


def test_splits():
    r = pd.DataFrame(
        {
            "user": np.repeat(np.arange(10), 10),
            "item": np.tile(np.arange(10), 10),
            "rating": 4,
            "timestamp": np.arange(100)[::-1],
        }
    )
    train, test = split_ratings(r, "random:0.2:0")
    assert len(test) == 20 and len(train) == 80 and not set(train.index) & set(test.index)
    again = split_ratings(r, "random:0.2:0")[1]
    assert again.index.tolist() == test.index.tolist()  # deterministic
    train, test = split_ratings(r, "leave-k-out:2:1")
    assert (test.groupby("user").size() == 2).all() and len(train) == 80
    train, test = split_ratings(r, "temporal:0.3")
    assert test["timestamp"].min() > train["timestamp"].max() and len(test) == 30
    assert split_ratings(r, "all")[1] is None
    for bad in ("random:1.5:0", "random:0.2", "leave-k-out:0:1", "temporal:x", "fold"):
        with pytest.raises(DataRequestError, match="bad split"):
            parse_split(bad)
    with pytest.raises(DataRequestError, match="timestamp"):
        split_ratings(r.drop(columns="timestamp"), "temporal:0.2")


def test_load_files_mixed_id_types(tmp_path):
    r = written(tmp_path / "r.csv", "user,item,rating\n1,b1,5\n2,b1,1\n")
    i = written(tmp_path / "i.csv", "item,genres\nb1,x\nb2,y\n")
    data = load_files(r, i)
    assert data.test is None and data.kinds == ["genre"] and set(data.items["item"]) == {"b1", "b2"}


def test_demo_is_generated_reproducibly(tmp_path):
    from ingest.demo import demo_files, write_demo

    write_demo(tmp_path)
    with demo_files() as generated:
        for path in generated:
            assert path.read_bytes() == (tmp_path / path.name).read_bytes()
    assert not any(path.exists() for path in generated)
    data = load_movies("demo", "random:0.2:0", home=tmp_path / "empty")
    assert len(data.train) + len(data.test) > 10_000 and data.kinds == ["cast", "director", "genre"]


@pytest.mark.data
def test_ml_latest_small_defaults_to_genres_and_tags(shared_data):
    data = load_movies("ml-latest-small", home=shared_data)
    assert data.split == "all" and data.test is None and data.kinds == ["genre", "tag"]
    tags = data.attributes[data.attributes["kind"] == "tag"]
    assert (tags["value"] == tags["value"].str.lower()).all()
    assert tags.groupby("value")["item"].nunique().min() >= 2
    with pytest.raises(Exception, match="IMDb"):
        load_movies("ml-latest-small", home=shared_data, kinds=["genre", "director"])


def test_movielens_duplicates_are_errors(tmp_path):
    from ingest.movielens import read_ml100k_ratings

    p = written(tmp_path / "u.data", "1\t2\t5\t10\n3\t4\t4\t11\n1\t2\t1\t12\n")
    with pytest.raises(DataFormatError, match="u.data:1, 3: user 1 rates item 2 twice"):
        read_ml100k_ratings(p)
    assert read_ml100k_ratings(p, "last")["rating"].tolist() == [4, 1]


# -- the fast paths of reading (Arrow's kernels, one sorted key per pair) against pandas' answers ----
import re  # noqa: E402

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ingest.userfiles import _ids, _numbers, any_repeated_pair  # noqa: E402

_FIELD = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["007", "-0", "0", " 12 ", "+5", "1.0", "1e3", "nan", "inf", "", "x", "3.5", "9" * 25]),
    st.text("0123456789-.e ", max_size=6),
)


def _text(values):
    s = pd.Series(values, dtype="str")
    assert type(s.array).__name__ == "ArrowStringArray"  # or the fast path would not be exercised
    return s


@settings(max_examples=300, deadline=None)
@given(st.lists(_FIELD, min_size=1, max_size=8))
def test_ids_and_numbers_read_as_pandas_reads_them(values):
    s = _text(values).str.strip()
    integers = [int(x) for x in s if re.fullmatch("0|-?[1-9][0-9]*", x) and -(2**63) <= int(x) < 2**63]
    want = np.array(integers, dtype=np.int64) if len(integers) == len(s) else s.to_numpy(dtype=object)
    want_numbers = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
    for column in (_text(values), pd.Series(values, dtype=object)):  # Arrow's path, and pandas' without pyarrow
        got = _ids(column.str.strip())
        assert got.dtype == want.dtype and list(got) == list(want)
        np.testing.assert_array_equal(_numbers(column.str.strip()), want_numbers)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.sampled_from([0, 5, 2**40, "a", "b"])), min_size=1, max_size=12),
    st.booleans(),
)
def test_repeated_pairs_found_as_pandas_finds_them(pairs, text_users):
    users = [str(u) if text_users else u for u, _ in pairs]
    items = [i for _, i in pairs]
    ratings = pd.DataFrame({"user": users, "item": pd.Series(items, dtype=object)})
    if all(isinstance(i, int) for i in items):
        ratings["item"] = ratings["item"].astype(np.int64)
    assert any_repeated_pair(ratings) == bool(ratings.duplicated(["user", "item"]).any())


# -- plain files read by Arrow's CSV reader: the table pandas reads, or pandas reads it -------------
from unittest import mock  # noqa: E402

from ingest._kernels import plain_fields  # noqa: E402
from ingest.tables import read_csv_text, read_plain_csv  # noqa: E402

# bytes that split or strip differently from one reader to another: quotes, white space at a
# field's edge (ASCII, 0x1c-0x1f, a non-breaking space), line ends of both kinds, a BOM
_PIECES = st.sampled_from(
    ["1", "ab", "007", " ", "\t", '"', "'", ",", ";", "\n", "\r\n", "\r", "é", "\xa0", "\x1f", ""]
)
_CSV = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["user,item,rating", "user;item", "a,a", "\ufeffuser,item"]), _CSV, st.sampled_from([",", ";"]))
@example("user;item", "\r;", ";")  # a lone CR after a blank line: pandas drops the next byte (CI, stop 75)
def test_plain_files_read_as_pandas_reads_them(header, body, sep):
    raw = f"{header}\n{body}".encode()
    with mock.patch("ingest.tables.PLAIN_FROM_BYTES", 0):  # files of any size
        got = read_plain_csv(raw, sep)
    if got is None:
        return
    want = read_csv_text("r.csv", sep, raw.decode(), skipinitialspace=True)
    pd.testing.assert_frame_equal(got, want)
    for column in got:  # a plain file's fields are stripped already: read_ratings does not strip them
        assert got[column].tolist() == got[column].str.strip().tolist()


def test_which_files_are_plain():
    def plain(text, sep=","):
        return plain_fields(np.frombuffer(text.encode(), dtype=np.uint8), 0, ord(sep))

    assert plain("user,item\n1,2\r\n3,\n")
    assert not plain('user,item\n1,"2"\n')  # a quote
    assert not plain("user,item\n1, 2\n") and not plain("user,item\n1 ,2\n") and not plain("user,item\n1,2 ")
    assert not plain("user,item\n1,\xa02\n")  # white space beyond ASCII, at an edge
    assert plain("user,item\nmaría,2\n")  # inside a field any byte is fine
    assert plain("a\tb\n1\t2\n", "\t") and not plain("a\tb\n1 \t2\n", "\t")
    assert not plain("user,item\n1,2\r3,4\n") and not plain("user,item\n1,2\r")  # a CR alone: pandas reads it


def test_ratings_read_alike_plain_or_not(tmp_path, monkeypatch):
    monkeypatch.setattr("ingest.tables.PLAIN_FROM_BYTES", 0)
    plain = written(tmp_path / "plain.csv", "user,item,rating,timestamp\nann,007,4.5,2020-01-02\n2,12,2,1577836800\n")
    spaced = written(
        tmp_path / "spaced.csv", 'user, item,rating,timestamp\nann ,007, 4.5,2020-01-02\n"2",12,2,1577836800\n'
    )
    assert read_plain_csv(plain.read_bytes(), ",") is not None and read_plain_csv(spaced.read_bytes(), ",") is None
    pd.testing.assert_frame_equal(read_ratings(plain), read_ratings(spaced))
