"""A second content shape, built apart from :mod:`benchmarks.synthetic_ratings`: readers and books.

The content test bed (``Shape.content_driven``) draws latent taste factors, part of which its
genres and directors carry; the attribute terms were designed while looking at it.  This
generator shares none of its code or taste model, so that what the attribute terms learned there
is tested on content of another construction (issue 37: *test on data you did not build*):

- a **small catalogue**: ``n_books`` books, each with one author (of ``n_authors``; how many books
  an author wrote is heavy-tailed) and one or two genres (of ``n_genres``);
- **few ratings a reader**: ``min_ratings``–``max_ratings``, uniform;
- **tastes that are attributes, named**: each reader likes ``liked_genres`` genres and
  ``liked_authors`` authors (drawn among the authors who wrote in a liked genre half the time);
  nothing else about a reader's taste is hidden, beside a generosity and noise;
- **what a reader rates** is chosen partly by those tastes (``selection``: the odds of picking a
  book grow by ``exp(selection)`` for each liked attribute it carries) and partly by popularity;
- the stars: ``quality + generosity + genre_pull × [a liked genre] + author_pull × [a liked
  author] + noise``, cut at the quantiles that give ``like_share`` of the ratings above 2 stars.
  The default noise (sd 2) makes the like/dislike task as hard as the data issue 37 reports
  (ROC-AUC about 0.64–0.66 for the attribute logistic regression).

``python -m benchmarks.synthetic_books --out DIR`` writes ``ratings.csv`` (``user,item,rating``) and
``items.csv`` (``item,title,genres,author``, genres joined by ``|``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

GENRES = tuple(
    "Mystery Fantasy Romance Thriller Science-Fiction Horror History Biography Poetry Travel Humour Classics".split()
)
STARS = np.array([1, 2, 3, 4, 5])
# the like (3–5 stars) and dislike (1–2) shares split as MovieLens 100K splits them
LIKE_SPLIT = np.array([0.271, 0.341, 0.213]) / 0.825
DISLIKE_SPLIT = np.array([0.061, 0.114]) / 0.175


@dataclass(frozen=True)
class Books:
    """The sizes and tastes of a readers × books data set (defaults: the shape issue 37 names)."""

    n_readers: int = 450
    n_books: int = 700
    n_authors: int = 140
    n_genres: int = len(GENRES)
    min_ratings: int = 30
    max_ratings: int = 90
    liked_genres: int = 2
    liked_authors: int = 6
    genre_pull: float = 1.0
    author_pull: float = 1.5
    selection: float = 1.0
    quality: float = 0.6
    generosity: float = 0.5
    noise: float = 2.0
    like_share: float = 0.75
    seed: int = 0

    def check(self) -> None:
        if not 2 <= self.n_genres <= len(GENRES):
            raise ValueError(f"n_genres must be between 2 and {len(GENRES)}, got {self.n_genres}")
        if not 1 <= self.min_ratings <= self.max_ratings <= self.n_books:
            raise ValueError(
                f"need 1 <= min_ratings <= max_ratings <= n_books, got {self.min_ratings}, {self.max_ratings}, "
                f"{self.n_books}"
            )
        if not 1 <= self.n_authors <= self.n_books:
            raise ValueError(f"need between 1 author and one per book, got {self.n_authors}")
        if self.liked_genres > self.n_genres or self.liked_authors > self.n_authors:
            raise ValueError("a reader cannot like more genres or authors than there are")
        if not 0 < self.like_share < 1:
            raise ValueError(f"like_share must be strictly between 0 and 1, got {self.like_share}")


def generate(books: Books) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(ratings, items)``: ``user, item, rating`` (1–5 stars, one per pair) and ``item, title,
    genres, author``."""
    books.check()
    rng = np.random.default_rng([books.seed, 37])
    author, home, genre = _catalogue(books, rng)
    liked_genre, liked_author = _tastes(books, home, rng)
    likes_genre = (liked_genre.astype(np.int8) @ genre.T.astype(np.int8)) > 0  # readers × books
    user, item, score = _ratings(books, likes_genre, liked_author[:, author], rng)
    shares = np.concatenate([DISLIKE_SPLIT * (1 - books.like_share), LIKE_SPLIT * books.like_share])
    stars = STARS[np.searchsorted(np.quantile(score, np.cumsum(shares)[:-1]), score, side="right")]
    ratings = pd.DataFrame({"user": [f"reader{u:04d}" for u in user], "item": [f"book{i:04d}" for i in item]})
    ratings["rating"] = stars
    names = np.array(GENRES[: books.n_genres])
    items_table = pd.DataFrame(
        {
            "item": [f"book{i:04d}" for i in range(books.n_books)],
            "title": [f"Book {i}" for i in range(books.n_books)],
            "genres": ["|".join(names[row]) for row in genre],
            "author": [f"Author {a:03d}" for a in author],
        }
    )
    return ratings, items_table


def _catalogue(books: Books, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each book's author, each author's home genre, and books × genres."""
    n_b = books.n_books
    # every author writes at least one book; the rest go to authors by a heavy tail
    extra = rng.choice(books.n_authors, n_b - books.n_authors, p=_zipf(books.n_authors, 1.1))
    author = rng.permutation(np.concatenate([np.arange(books.n_authors), extra]))
    # an author writes mostly in one genre; a second genre on a third of the books
    home = rng.integers(0, books.n_genres, books.n_authors)
    first = np.where(rng.random(n_b) < 0.8, home[author], rng.integers(0, books.n_genres, n_b))
    second = np.where(rng.random(n_b) < 1 / 3, (first + rng.integers(1, books.n_genres, n_b)) % books.n_genres, -1)
    genre = np.zeros((n_b, books.n_genres), dtype=bool)
    genre[np.arange(n_b), first] = True
    genre[np.flatnonzero(second >= 0), second[second >= 0]] = True
    return author, home, genre


def _tastes(books: Books, home: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """Readers × genres and readers × authors they like: the liked authors half the time among
    those whose home genre the reader likes."""
    liked_genre = np.zeros((books.n_readers, books.n_genres), dtype=bool)
    liked_author = np.zeros((books.n_readers, books.n_authors), dtype=bool)
    for r in range(books.n_readers):
        g = rng.choice(books.n_genres, books.liked_genres, replace=False)
        liked_genre[r, g] = True
        near = np.flatnonzero(np.isin(home, g))
        for _ in range(books.liked_authors):
            pool = near if len(near) and rng.random() < 0.5 else np.arange(books.n_authors)
            pool = pool[~liked_author[r, pool]]
            if not len(pool):
                pool = np.flatnonzero(~liked_author[r])
            liked_author[r, rng.choice(pool)] = True
    return liked_genre, liked_author


def _ratings(books: Books, likes_genre: np.ndarray, likes_author: np.ndarray, rng):
    """``(reader, book, score)`` of every rating: what each reader rates (Gumbel top-k over
    popularity and their tastes), and the score before it is cut into stars."""
    n_b = books.n_books
    popularity = _zipf(n_b, 0.8)[rng.permutation(n_b)]
    quality = rng.normal(0, books.quality, n_b)
    generosity = rng.normal(0, books.generosity, books.n_readers)
    counts = rng.integers(books.min_ratings, books.max_ratings + 1, books.n_readers)
    users, items, scores = [], [], []
    for r in range(books.n_readers):
        pull = books.selection * (likes_genre[r].astype(float) + likes_author[r])
        keys = np.log(popularity) + pull + rng.gumbel(size=n_b)  # Gumbel top-k: a draw without replacement
        chosen = np.argpartition(-keys, counts[r] - 1)[: counts[r]]
        s = (
            quality[chosen]
            + generosity[r]
            + books.genre_pull * likes_genre[r, chosen]
            + books.author_pull * likes_author[r, chosen]
            + rng.normal(0, books.noise, len(chosen))
        )
        users.append(np.full(len(chosen), r))
        items.append(chosen)
        scores.append(s)
    return np.concatenate(users), np.concatenate(items), np.concatenate(scores)


def _zipf(n: int, exponent: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return weights / weights.sum()


def write(books: Books, out: str | Path) -> tuple[Path, Path]:
    """Generate ``books`` and write ``ratings.csv`` and ``items.csv`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ratings, items = generate(books)
    ratings.to_csv(out / "ratings.csv", index=False)
    items.to_csv(out / "items.csv", index=False)
    return out / "ratings.csv", out / "items.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=Books.n_readers)
    parser.add_argument("--books", type=int, default=Books.n_books)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="directory to write ratings.csv and items.csv into")
    args = parser.parse_args(argv)
    try:
        paths = write(Books(n_readers=args.readers, n_books=args.books, seed=args.seed), args.out)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"{args.readers:,} readers × {args.books:,} books: {', '.join(map(str, paths))}")


if __name__ == "__main__":
    main()
