"""MovieLens-shaped synthetic ratings at any size, seeded: the data of the scaling benchmarks.

MovieLens itself stops at 32 M ratings and its sizes are fixed; the scaling questions ("does
training grow linearly with the ratings?") need the same *shape* at 100 k, 1 M, 5 M and 25 M.
What is kept of MovieLens's shape, each a parameter of :class:`Shape`:

- **who rates how much**: a log-normal number of ratings per user (``activity_sigma``), at least
  ``min_ratings`` (MovieLens keeps users with 20 or more);
- **what gets rated**: a power-law popularity over movies (``popularity_exponent``), tilted towards
  the better movies (``quality_pull``) — the most rated MovieLens movies are also liked;
- **how they are rated**: latent tastes — a user's affinity to a movie is the dot product of
  ``n_factors`` taste factors (scaled by ``taste``), plus a user bias and a movie quality, plus
  noise; the movie's factors come partly from its attributes (``content``: 0 none, 1 all of them:
  genres and a director) and partly from what no attribute shows; the scores are cut into 1–5
  stars at the quantiles of MovieLens 100K's star shares (6 / 11 / 27 / 34 / 21 %: 83 % likes
  above 2), or of shares rescaled to ``like_share`` likes.

Three knobs set the *structure* that the cost of co-clustering depends on, at any size:

- ``head``: the share of users who rated the most rated movie (57 % in MovieLens 1M, 62 % in
  MovieLens 100K; up to ~100 %): the popularity exponent is solved for it (:func:`head_share`);
- ``like_share``: the share of ratings above 2 stars;
- ``taste`` and ``n_factors``: how strong and how many the latent tastes are;
- ``selection``: how much the tastes choose *what* a user rates.  At 0 a user's items are drawn by
  popularity alone and the tastes only set the stars — then a list can do little better than the
  most popular items (measured: EASE within 0.001 NDCG@10 of popularity at any ``taste``).  Above 0
  each user draws three times their count by popularity and keeps their count with probability in
  proportion to ``popularity × exp(selection × affinity)`` (Gumbel top-k), as people mostly rate
  what they chose to watch.

:data:`STRUCTURES` names the structures the scale benchmark runs at every size.

Every array is drawn at once (no loop over users): 1 M ratings in 12 s here, 5 M in 86 s.
``python -m benchmarks.synthetic_ratings --ratings 1000000 --out DIR`` writes ``ratings.csv``
(``user,item,rating``) and ``items.csv`` (``item,title,genres,director``, the wide item layout
``recsys train --items`` reads); with ``--plays``, ``plays.csv`` (``user,item,count``: implicit
feedback, :func:`plays_of`) instead of the ratings.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from coclust._arrays import unique_sorted

GENRES = tuple(
    "Action Adventure Animation Children Comedy Crime Documentary Drama Fantasy Film-Noir Horror Musical "
    "Mystery Romance Sci-Fi Thriller War Western".split()
)
STAR_SHARES = (0.061, 0.114, 0.271, 0.341, 0.213)  # MovieLens 100K, 1..5 stars
MAX_PLAYS = 10_000  # a play count's cap (plays_of)
# users whose draws calibrate the popularity exponent to a head share (±0.7 % at 5,000)
HEAD_SAMPLE_USERS = 5_000


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
    head: float | None = None  # share of users who rated the most rated movie; None: popularity_exponent as given
    like_share: float | None = None  # share of ratings above 2 stars; None: MovieLens 100K's (STAR_SHARES)
    taste: float = 1.0  # scale of the latent tastes' affinity against quality, generosity and noise
    selection: float = 0.0  # how much the tastes choose what a user rates (0: popularity alone)
    seed: int = 0

    @classmethod
    def like_movielens(cls, n_ratings: int, **changes) -> Shape:
        """Users and movies grown from MovieLens 1M's (6,040 × 3,706 for 1 M ratings) the way the
        MovieLens releases grow: users in proportion to the ratings, movies as their square root
        (ML-25M: 162 k users, 59 k movies; here 151 k × 18.5 k — the long tail of movies rated
        once or twice is not generated)."""
        scale = n_ratings / 1_000_000
        return replace(
            cls(),
            n_users=max(50, round(6_040 * scale)),
            n_items=max(50, round(3_706 * np.sqrt(scale))),
            n_ratings=n_ratings,
            **changes,
        )

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
            raise ValueError(
                f"{self.n_ratings:,} ratings do not fit {self.n_users:,} users × {self.n_items:,} items "
                f"(at least {self.min_ratings} a user, at most half the matrix)"
            )
        if not 0 <= self.content <= 1:
            raise ValueError(f"content must be between 0 and 1, got {self.content}")
        if self.head is not None and not 0 < self.head < 1:
            raise ValueError(f"head must be a share strictly between 0 and 1, got {self.head}")
        if self.like_share is not None and not 0 < self.like_share < 1:
            raise ValueError(f"like_share must be strictly between 0 and 1, got {self.like_share}")
        if self.taste < 0:
            raise ValueError(f"taste must be non-negative, got {self.taste}")
        if self.selection < 0:
            raise ValueError(f"selection must be non-negative, got {self.selection}")

    def star_shares(self) -> np.ndarray:
        """The shares of 1–5 stars: MovieLens 100K's, or with the 1–2 and the 3–5 star shares
        rescaled so that ``like_share`` of the ratings are above 2."""
        shares = np.array(STAR_SHARES)
        if self.like_share is None:
            return shares
        dislike = shares[:2].sum()
        return np.concatenate(
            [shares[:2] * (1 - self.like_share) / dislike, shares[2:] * self.like_share / (1 - dislike)]
        )


# The structures the scale benchmark measures at every size (the cost of co-clustering depends on
# them, not only on the number of ratings):
# - "movielens": MovieLens 1M's head (57 % of users rated the most rated movie) and like share, and
#   users who choose what they rate by taste: the most popular list scores 0.15 NDCG@10 at 100 k
#   ratings against EASE's 0.39 (MovieLens 100K: 0.20 against 0.40);
# - "popular": this generator's shape before the knobs (a head of 84 %, items chosen by popularity
#   alone): every list is within 0.001 of the most popular one — kept for the earlier figures;
# - "concentrated": a head rated by 98 % of the users, 86 % likes, eight strong tastes that choose
#   what is rated: the shape that cost 26 × EASE's fit before the work budget.
STRUCTURES = {
    "movielens": dict(head=0.57, selection=1.0),
    "popular": dict(head=0.84),
    "concentrated": dict(head=0.98, like_share=0.86, n_factors=8, taste=2.0, selection=1.0),
}


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
    pull = np.exp(shape.quality_pull * quality)

    # users: how many ratings, their tastes
    wanted = _ratings_per_user(rng.lognormal(0.0, shape.activity_sigma, n_users), shape)
    user_factors = rng.normal(0, 1 / np.sqrt(d), (n_users, d))
    generosity = rng.normal(0, 0.35, n_users)

    def draw(rng, wanted, weight, who=None):
        """Each user's items: by ``weight``, then (``selection``) kept by taste from a larger pool."""
        if shape.selection <= 0:
            return _draw_items(rng, wanted, weight)
        who = np.arange(len(wanted)) if who is None else who
        pool = np.minimum(3 * wanted, np.maximum(wanted, n_items // 2))
        u, i = _draw_items(rng, pool, weight)
        fit = np.einsum("ij,ij->i", user_factors[who[u]], item_factors[i])
        # a unit-variance affinity, beside the popularity: the head stays the head (a taste that
        # chose from the pool alone would cap the most rated movie's share near the pool's third)
        key = shape.selection * fit * np.sqrt(d) + np.log(weight[i]) + rng.gumbel(size=len(u))
        order = np.lexsort((-key, u))
        start = np.searchsorted(u[order], np.arange(len(wanted)))
        keep = order[(np.arange(len(u)) - start[u[order]]) < wanted[u[order]]]
        keep = keep[np.lexsort((i[keep], u[keep]))]
        return u[keep], i[keep]

    exponent = shape.popularity_exponent
    if shape.head is not None:
        exponent = _exponent_for_head(rank, pull, wanted, shape.head, shape.seed, draw)
    weight = rank**-exponent * pull
    weight /= weight.sum()
    # the draw uses the calibration's random numbers: where every user was in the calibration
    # sample, the head share is the one the bisection measured, not a second sample of it
    users, items = draw(np.random.default_rng(shape.seed), wanted, weight)
    affinity = shape.taste * np.einsum("ij,ij->i", user_factors[users], item_factors[items])
    score = generosity[users] + quality[items] + affinity + rng.normal(0, shape.noise, len(users))
    cuts = np.quantile(score, np.cumsum(shape.star_shares())[:-1])
    stars = 1 + np.searchsorted(cuts, score).astype(np.int8)

    return _tables(users, items, stars, genres, director)


def _tables(users, items, stars, genres, director) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The drawn ratings and the movies' table, as :func:`generate` returns them."""
    n_items = len(director)
    ratings = pd.DataFrame({"user": users + 1, "item": items + 1, "rating": stars})
    names = np.array(GENRES)
    table = pd.DataFrame(
        {
            "item": np.arange(1, n_items + 1),
            "title": [f"Movie {i}" for i in range(1, n_items + 1)],
            "genres": ["|".join(names[row]) for row in genres],
            "director": [f"Director {k + 1}" for k in director],
        }
    )
    return ratings, table


def head_share(weight: np.ndarray, wanted: np.ndarray, seed: int = 0, draw=None, who=None) -> float:
    """The share of users whose draw (``draw(rng, wanted, weight, who)``, default :func:`_draw_items`:
    ``wanted[u]`` distinct items by ``weight``) holds the most drawn item, measured on one seeded draw."""
    rng = np.random.default_rng(seed)
    _, items = draw(rng, wanted, weight, who) if draw is not None else _draw_items(rng, wanted, weight)
    return float(np.bincount(items).max() / len(wanted)) if len(items) else 0.0


def _exponent_for_head(
    rank: np.ndarray, pull: np.ndarray, wanted: np.ndarray, head: float, seed: int, draw=None
) -> float:
    """The popularity exponent whose weights ``rank^-a × pull`` give a head share of ``head``:
    bisection on [0, 4], each step measured (:func:`head_share`) on the same seeded draw of up to
    :data:`HEAD_SAMPLE_USERS` users (the same random numbers at every step keep it monotone)."""
    rng = np.random.default_rng(seed)
    who = np.arange(len(wanted))
    if len(wanted) > HEAD_SAMPLE_USERS:
        who = np.sort(rng.choice(len(wanted), HEAD_SAMPLE_USERS, replace=False))
    lo, hi = 0.0, 4.0
    for _ in range(16):
        mid = (lo + hi) / 2
        share = head_share(rank**-mid * pull, wanted[who], seed, draw, who)
        lo, hi = (mid, hi) if share < head else (lo, mid)
    return (lo + hi) / 2


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
    once, repeats dropped and the shortfall drawn again (a few rounds); a user still short after
    them (a steep head leaves the tail's items almost never drawn) gets the rest exactly
    (:func:`_top_up`), so every user gets ``wanted[u]`` (at most the catalogue)."""
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
    short = np.flatnonzero(missing > 0)
    if len(short):
        have = unique_sorted(np.concatenate([have, _top_up(rng, short, missing[short], have, weight)]))
    return have // n_items, have % n_items


def _top_up(
    rng: np.random.Generator, users: np.ndarray, missing: np.ndarray, have: np.ndarray, weight: np.ndarray
) -> np.ndarray:
    """``missing[k]`` more distinct items for each of ``users`` (sorted), drawn by ``weight``
    without replacement among the items the user does not have (``have``: sorted
    ``user * n_items + item`` keys): Gumbel-top-k (Efraimidis and Spirakis), a block of users at
    a time.  The same keys as ``have``."""
    n_items = len(weight)
    log_weight = np.log(np.maximum(weight, np.finfo(np.float64).tiny))
    rows = max(1, 20_000_000 // n_items)  # ~160 MB of keys a block
    out = []
    for lo in range(0, len(users), rows):
        block, need = users[lo : lo + rows], np.minimum(missing[lo : lo + rows], n_items)
        keys = log_weight + rng.gumbel(size=(len(block), n_items))
        start = np.searchsorted(have, block * n_items)
        count = np.searchsorted(have, (block + 1) * n_items) - start
        row = np.repeat(np.arange(len(block)), count)
        had = have[np.repeat(start, count) + (np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count))]
        keys[row, had % n_items] = -np.inf
        k = int(need.max())
        order = np.argpartition(-keys, k - 1, axis=1)[:, :k] if k < n_items else np.argsort(-keys, axis=1)
        order = np.take_along_axis(order, np.argsort(-np.take_along_axis(keys, order, axis=1), axis=1), axis=1)
        take = np.arange(order.shape[1])[None, :] < need[:, None]
        out.append((block[:, None] * n_items + order)[take])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def plays_of(ratings: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Implicit feedback from ratings: every rated item was played (``user, item, count``; no
    rating), a heavy-tailed count that grows with the stars — a Zipf draw of exponent
    ``3.2 − 0.3 × stars`` (1 star: 2.9, a mean of 1.5 plays; 5 stars: 1.7, a tail with no mean),
    capped at :data:`MAX_PLAYS`.  What the stars said is left only in the counts, as in a play log."""
    rng = np.random.default_rng([seed, 7])
    exponent = 3.2 - 0.3 * ratings["rating"].to_numpy(dtype=np.float64)
    counts = np.minimum(rng.zipf(exponent), MAX_PLAYS)
    return pd.DataFrame({"user": ratings["user"].to_numpy(), "item": ratings["item"].to_numpy(), "count": counts})


def write(shape: Shape, out: str | Path, plays: bool = False) -> tuple[Path, Path]:
    """Generate ``shape`` and write ``ratings.csv`` (or, with ``plays``, ``plays.csv``:
    :func:`plays_of`) and ``items.csv`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ratings, items = generate(shape)
    first = out / ("plays.csv" if plays else "ratings.csv")
    (plays_of(ratings, shape.seed) if plays else ratings).to_csv(first, index=False)
    items.to_csv(out / "items.csv", index=False)
    return first, out / "items.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ratings", type=int, default=1_000_000, help="how many ratings (default 1,000,000)")
    parser.add_argument("--users", type=int, help="default: grown from MovieLens 1M (see Shape.like_movielens)")
    parser.add_argument("--items", type=int, help="default: grown from MovieLens 1M")
    parser.add_argument("--content", type=float, default=Shape.content, help="share of the taste in the attributes")
    parser.add_argument("--structure", choices=sorted(STRUCTURES), help="a named structure (see STRUCTURES)")
    parser.add_argument("--head", type=float, help="share of users who rated the most rated movie (e.g. 0.57)")
    parser.add_argument("--like-share", type=float, help="share of ratings above 2 stars (default 0.834)")
    parser.add_argument("--taste", type=float, help="strength of the latent tastes (default 1)")
    parser.add_argument("--factors", type=int, help="how many latent tastes (default 10)")
    parser.add_argument("--selection", type=float, help="how much the tastes choose what is rated (default 0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plays", action="store_true", help="write play counts (plays.csv: user,item,count) instead")
    parser.add_argument("--out", required=True, help="directory to write ratings.csv and items.csv into")
    args = parser.parse_args(argv)
    knobs = dict(STRUCTURES[args.structure]) if args.structure else {}
    given = dict(
        head=args.head, like_share=args.like_share, taste=args.taste, n_factors=args.factors, selection=args.selection
    )
    knobs.update({k: v for k, v in given.items() if v is not None})
    shape = Shape.like_movielens(args.ratings, content=args.content, seed=args.seed, **knobs)
    shape = replace(shape, n_users=args.users or shape.n_users, n_items=args.items or shape.n_items)
    try:
        paths = write(shape, args.out, args.plays)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"{shape.n_users:,} users × {shape.n_items:,} items: {', '.join(map(str, paths))}")


if __name__ == "__main__":
    main()
