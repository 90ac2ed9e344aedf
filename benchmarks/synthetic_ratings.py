"""MovieLens-shaped synthetic ratings at any size, seeded: the data of the scaling benchmarks.

MovieLens itself stops at 32 M ratings and its sizes are fixed; the scaling questions ("does
training grow linearly with the ratings?") need the same *shape* at 100 k, 1 M, 5 M and 25 M.
What is kept of MovieLens's shape, each a parameter of :class:`Shape`:

- **who rates how much**: a log-normal number of ratings per user (``activity_sigma``), at least
  ``min_ratings`` (MovieLens keeps users with 20 or more);
- **what gets rated**: a power-law popularity over movies (``popularity_exponent``), tilted towards
  the better movies (``quality_pull``) — the most rated MovieLens movies are also liked;
- **how they are rated**: latent tastes — a user's affinity to a movie is the dot product of
  ``n_factors`` taste factors, plus a user bias and a movie quality, plus noise; the movie's
  factors come partly from its attributes (``content``: 0 none, 1 all of them: genres and a
  director) and partly from what no attribute shows; the scores are cut into 1–5 stars at the
  quantiles of MovieLens 100K's star shares (6 / 11 / 27 / 34 / 21 %: 83 % likes above 2).

Every array is drawn at once (no loop over users): 1 M ratings in 12 s here, 5 M in 86 s.
``python -m benchmarks.synthetic_ratings --ratings 1000000 --out DIR`` writes ``ratings.csv``
(``user,item,rating``) and ``items.csv`` (``item,title,genres,director``, the wide item layout
``recsys train --items`` reads).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from coclust._arrays import unique_sorted

GENRES = ("Action", "Adventure", "Animation", "Children", "Comedy", "Crime", "Documentary", "Drama", "Fantasy",
          "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller", "War", "Western")  # fmt: skip
STAR_SHARES = (0.061, 0.114, 0.271, 0.341, 0.213)  # MovieLens 100K, 1..5 stars


@dataclass(frozen=True)
class Shape:
    """The size and shape of a synthetic data set (defaults: MovieLens 1M's sizes)."""

    n_users: int = 6_040
    n_items: int = 3_706
    n_ratings: int = 1_000_000
    min_ratings: int = 20
    activity_sigma: float = 0.9
    popularity_exponent: float = 0.7
    quality_pull: float = 0.5
    n_factors: int = 10
    content: float = 0.3
    noise: float = 0.8
    n_directors: int | None = None  # default: a director per five movies
    seed: int = 0

    @classmethod
    def like_movielens(cls, n_ratings: int, **changes) -> Shape:
        """Users and movies grown from MovieLens 1M's (6,040 × 3,706 for 1 M ratings) the way the
        MovieLens releases grow: users in proportion to the ratings, movies as their square root
        (ML-25M: 162 k users, 59 k movies; here 151 k × 18.5 k — the long tail of movies rated
        once or twice is not generated)."""
        scale = n_ratings / 1_000_000
        return replace(cls(), n_users=max(50, round(6_040 * scale)), n_items=max(50, round(3_706 * np.sqrt(scale))),
                       n_ratings=n_ratings, **changes)  # fmt: skip

    @classmethod
    def content_driven(cls, **changes) -> Shape:
        """The content-driven test bed: a catalogue three times larger than its readers, about 60
        ratings each (MovieLens users have 106 on a catalogue of 1,682), 90 % of the taste in the
        attributes (genres and a director — "author" — per five items).  Most items then have a
        handful of ratings, and what a reader likes is written in the item table more than in who
        else rated the item.  ``content`` and ``n_ratings`` (the sparsity) are the knobs."""
        return replace(cls(n_users=2_000, n_items=6_000, n_ratings=120_000, content=0.9), **changes)

    def check(self) -> None:
        if self.n_users < 2 or self.n_items < 2:
            raise ValueError(f"need at least 2 users and 2 items, got {self.n_users} × {self.n_items}")
        if not self.min_ratings * self.n_users <= self.n_ratings <= 0.5 * self.n_users * self.n_items:
            raise ValueError(f"{self.n_ratings:,} ratings do not fit {self.n_users:,} users × {self.n_items:,} items "
                             f"(at least {self.min_ratings} a user, at most half the matrix)")  # fmt: skip
        if not 0 <= self.content <= 1:
            raise ValueError(f"content must be between 0 and 1, got {self.content}")


def generate(shape: Shape) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(ratings, items)``: ratings ``user, item, rating`` (ids from 1, sorted by user then item);
    items ``item, title, genres, director`` (``|``-separated genres)."""
    shape.check()
    rng = np.random.default_rng(shape.seed)
    n_users, n_items, d = shape.n_users, shape.n_items, shape.n_factors

    # movies: attributes, then taste factors partly from them, a quality, a popularity
    n_genres = rng.choice([1, 2, 3], n_items, p=[0.45, 0.4, 0.15])
    genre_of = np.argsort(rng.random((n_items, len(GENRES))), axis=1)
    genres = np.zeros((n_items, len(GENRES)), dtype=bool)
    np.put_along_axis(genres, genre_of[:, :3], (np.arange(3) < n_genres[:, None]), axis=1)
    n_directors = shape.n_directors or max(1, n_items // 5)
    director = rng.integers(0, n_directors, n_items)
    genre_taste = rng.normal(0, 1, (len(GENRES), d))
    director_taste = rng.normal(0, 1, (n_directors, d))
    content = (genres @ genre_taste) / np.sqrt(genres.sum(1))[:, None] + director_taste[director]
    content /= np.sqrt(2.0)
    item_factors = np.sqrt(shape.content) * content + np.sqrt(1 - shape.content) * rng.normal(0, 1, (n_items, d))
    quality = rng.normal(0, 0.5, n_items) + 0.2 * rng.normal(0, 1, n_directors)[director]
    rank = rng.permutation(n_items) + 1.0
    weight = rank**-shape.popularity_exponent * np.exp(shape.quality_pull * quality)
    weight /= weight.sum()

    # users: how many ratings, their tastes
    wanted = _ratings_per_user(rng.lognormal(0.0, shape.activity_sigma, n_users), shape)
    user_factors = rng.normal(0, 1 / np.sqrt(d), (n_users, d))
    generosity = rng.normal(0, 0.35, n_users)

    users, items = _draw_items(rng, wanted, weight)
    affinity = np.einsum("ij,ij->i", user_factors[users], item_factors[items])
    score = generosity[users] + quality[items] + affinity + rng.normal(0, shape.noise, len(users))
    cuts = np.quantile(score, np.cumsum(STAR_SHARES)[:-1])
    stars = 1 + np.searchsorted(cuts, score).astype(np.int8)

    ratings = pd.DataFrame({"user": users + 1, "item": items + 1, "rating": stars})
    names = np.array(GENRES)
    table = pd.DataFrame({
        "item": np.arange(1, n_items + 1),
        "title": [f"Movie {i}" for i in range(1, n_items + 1)],
        "genres": ["|".join(names[row]) for row in genres],
        "director": [f"Director {k + 1}" for k in director],
    })  # fmt: skip
    return ratings, table


def _ratings_per_user(activity: np.ndarray, shape: Shape) -> np.ndarray:
    """``min_ratings`` each plus the rest shared in proportion to ``activity``, nobody above half
    the catalogue: what a capped user cannot take goes to the others (a few rounds)."""
    cap = shape.n_items // 2
    wanted = np.full(len(activity), shape.min_ratings, dtype=np.int64)
    for _ in range(20):
        spare = shape.n_ratings - wanted.sum()
        room = np.where(wanted < cap, activity, 0.0)
        if spare <= 0 or not room.any():
            break
        wanted = np.minimum(wanted + np.floor(spare * room / room.sum()).astype(np.int64), cap)
    return wanted


def _draw_items(rng: np.random.Generator, wanted: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each user ``u`` gets ``wanted[u]`` distinct items drawn by ``weight``: all users' draws at
    once, repeats dropped and the shortfall drawn again (a few rounds; any user still short after
    them keeps fewer)."""
    cumulative = np.cumsum(weight)
    cumulative /= cumulative[-1]
    n_items = len(weight)
    have = np.zeros(0, dtype=np.int64)  # user * n_items + item, sorted and unique
    missing = wanted.copy()
    for _ in range(12):
        if not missing.any():
            break
        draw_users = np.repeat(np.arange(len(wanted), dtype=np.int64), np.ceil(missing * 1.2).astype(np.int64))
        draw_items = np.searchsorted(cumulative, rng.random(len(draw_users)), side="right")
        keys = unique_sorted(draw_users * n_items + np.minimum(draw_items, n_items - 1))
        keys = keys[~np.isin(keys, have, assume_unique=True)]
        # keep each user's first ``missing`` new items (the draws are in random order within a user
        # once shuffled; np.unique sorted them by item)
        keys = keys[rng.permutation(len(keys))]
        keys = keys[np.argsort(keys // n_items, kind="stable")]
        user_of = keys // n_items
        start = np.searchsorted(user_of, np.arange(len(wanted)))
        position = np.arange(len(keys)) - start[user_of]
        keys = keys[position < missing[user_of]]
        have = unique_sorted(np.concatenate([have, keys]))  # np.union1d hashes: 52 s a round at 25 M
        missing = wanted - np.bincount(have // n_items, minlength=len(wanted))
    return have // n_items, have % n_items


def write(shape: Shape, out: str | Path) -> tuple[Path, Path]:
    """Generate ``shape`` and write ``ratings.csv`` and ``items.csv`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ratings, items = generate(shape)
    ratings.to_csv(out / "ratings.csv", index=False)
    items.to_csv(out / "items.csv", index=False)
    return out / "ratings.csv", out / "items.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ratings", type=int, default=1_000_000, help="how many ratings (default 1,000,000)")
    parser.add_argument("--users", type=int, help="default: grown from MovieLens 1M (see Shape.like_movielens)")
    parser.add_argument("--items", type=int, help="default: grown from MovieLens 1M")
    parser.add_argument("--content", type=float, default=Shape.content, help="share of the taste in the attributes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="directory to write ratings.csv and items.csv into")
    args = parser.parse_args(argv)
    shape = Shape.like_movielens(args.ratings, content=args.content, seed=args.seed)
    shape = replace(shape, n_users=args.users or shape.n_users, n_items=args.items or shape.n_items)
    try:
        paths = write(shape, args.out)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"{shape.n_users:,} users × {shape.n_items:,} items: {', '.join(map(str, paths))}")


if __name__ == "__main__":
    main()
