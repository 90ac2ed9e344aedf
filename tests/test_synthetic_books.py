"""The books generator (benchmarks/synthetic_books.py): the shape it promises, seeded, and its
command line."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.synthetic_books import Books, generate, main


@pytest.fixture(scope="module")
def books():
    return generate(Books())


def test_the_shape_is_the_one_declared(books):
    ratings, items = books
    shape = Books()
    per_reader = ratings.groupby("user").size()
    assert len(per_reader) == shape.n_readers
    assert per_reader.between(shape.min_ratings, shape.max_ratings).all()
    assert not ratings.duplicated(["user", "item"]).any()
    assert len(items) == shape.n_books and items["author"].nunique() == shape.n_authors
    n_genres = items["genres"].str.count(r"\|") + 1
    assert n_genres.between(1, 2).all() and (n_genres == 2).any()
    assert set(ratings["rating"]) == {1, 2, 3, 4, 5}
    assert (ratings["rating"] > 2).mean() == pytest.approx(shape.like_share, abs=0.01)


def test_the_tastes_show_in_the_stars(books):
    """A reader's favourite author is rated higher than the rest of the catalogue by that reader:
    the attributes carry the taste (here, read through each reader's best-rated author)."""
    ratings, items = books
    frame = ratings.merge(items[["item", "author"]], on="item")
    by_author = frame.groupby(["user", "author"])["rating"].agg(["mean", "size"])
    best = by_author[by_author["size"] >= 3].groupby("user")["mean"].max()
    assert (best > frame.groupby("user")["rating"].mean().loc[best.index]).mean() > 0.9


def test_seeded(books):
    again, _ = generate(Books())
    pd.testing.assert_frame_equal(again, books[0])
    other, _ = generate(Books(seed=1))
    assert not other.equals(books[0])


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(min_ratings=50, max_ratings=40), "min_ratings"),
        (dict(n_authors=0), "author"),
        (dict(liked_genres=20), "like more genres"),
        (dict(like_share=1.0), "like_share"),
    ],
)
def test_bad_shapes_are_refused(change, message):
    with pytest.raises(ValueError, match=message):
        generate(Books(**change))


def test_command_line_writes_both_files(tmp_path, capsys):
    main(["--readers", "40", "--books", "150", "--out", str(tmp_path)])
    assert "40 readers × 150 books" in capsys.readouterr().out
    ratings = pd.read_csv(tmp_path / "ratings.csv")
    items = pd.read_csv(tmp_path / "items.csv")
    assert list(ratings.columns) == ["user", "item", "rating"] and ratings["user"].nunique() == 40
    assert list(items.columns) == ["item", "title", "genres", "author"] and len(items) == 150
