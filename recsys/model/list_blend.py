"""How a top-N list ranks: the item model, how liked the item is by everyone, and how likely this
person is to like it — weighed on held-out ratings.

An item's list score is ::

    s(item) + popularity * log(1 + likes(item)) + like * logit P(like | person, item)

``s`` is the item model's sum of weights from the movies the person liked (a new item's: its
attributes' score, :mod:`recsys.model.attributes`); ``likes`` the item's training likes;
``P(like)`` the scored mode's like-probability of the person, computed from their ratings as for
a person folded in (:mod:`recsys.model.fold_in`), so that a list depends on the person's ratings
alone, in the model or not.  The two weights are chosen in ``fit`` on the held-out ratings the
score's weights are fitted on: among :data:`GRID` (multiples of the ratio of the features' spreads
to the item score's), the pair whose lists have the best NDCG@10 on up to
:data:`VALIDATION_USERS` held-out users' ratings of at least :data:`~recsys.model.topn.RELEVANT`;
``(0, 0)``, the item model alone, unless a blend ranks better (ties go to the smaller weights).
Those held-out lists are computed as lists are: each user folded in from the ratings left to them.

Why: a held-out item a person rated well is one they chose to rate — often a popular one — *and*
one they liked.  Where ratings are dense (MovieLens) the co-likes carry both and the blend adds
little; where they are sparse and taste lives in attributes, the like-probability (which reads the
attributes) and popularity carry what co-likes cannot (``benchmarks/results/content.md``).

Only *candidates* are blended — the ``candidates`` best items by the item model and the
``candidates`` most liked — so a list costs one like-probability per candidate, not per item.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .topn import K

GRID = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
CANDIDATES = 100
VALIDATION_USERS = 500
_EPS = 1e-6  # like-probabilities are clipped to [eps, 1 - eps] before their logit


@dataclass(frozen=True)
class ListBlend:
    """The list score's weights (see the module docstring); the default is the item model alone."""

    popularity: float = 0.0
    like: float = 0.0
    candidates: int = CANDIDATES

    @property
    def plain(self) -> bool:
        """Whether lists are the item model's alone (no candidates, no like-probabilities)."""
        return self.popularity == 0.0 and self.like == 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> ListBlend:
        return cls(**d) if d else cls()


def log_likes(like_counts: np.ndarray) -> np.ndarray:
    """The popularity feature of every item."""
    return np.log1p(np.asarray(like_counts, dtype=np.float64))


def logit(p: np.ndarray) -> np.ndarray:
    """The clipped logit of a probability: the lists' like feature, the like-share terms."""
    p = np.clip(p, _EPS, 1 - _EPS)
    return np.log(p / (1 - p))


def candidates(key: np.ndarray, popularity: np.ndarray, listable: np.ndarray, n: int) -> np.ndarray:
    """The listable items (indices, sorted) that may be listed: the ``n`` best by ``key`` (the item
    model, finite) and the ``n`` with the largest ``popularity``, items tied at the ``n``-th value
    taken by index.  The definition of what lists compute in blocks (:mod:`recsys.model.batch`)."""
    ok = np.flatnonzero(listable & np.isfinite(key))
    if len(ok) <= n:
        return ok
    best = ok[np.lexsort((ok, -key[ok]))[:n]]
    liked = ok[np.lexsort((ok, -popularity[ok]))[:n]]
    return np.union1d(best, liked)


@dataclass
class ValidationList:
    """One held-out user's candidates: their item score, popularity and like features, and which
    are relevant; ``n_relevant`` counts every relevant item (for the ideal DCG)."""

    key: np.ndarray
    popularity: np.ndarray
    like: np.ndarray
    relevant: np.ndarray
    n_relevant: int


def choose(rows: list[ValidationList], n_candidates: int = CANDIDATES, k: int = K) -> tuple[ListBlend, dict]:
    """The blend of :data:`GRID` whose lists of ``rows`` have the best mean NDCG@k, and a report
    (the scales, every point's NDCG, the choice)."""
    if not rows:
        return ListBlend(candidates=n_candidates), {"users": 0, "chosen": {"popularity": 0.0, "like": 0.0}}
    spread = {f: float(np.concatenate([getattr(r, f) for r in rows]).std()) for f in ("key", "popularity", "like")}
    scale = {f: spread["key"] / spread[f] if spread[f] > 0 else 0.0 for f in ("popularity", "like")}
    points = sorted(((b, c) for b in GRID for c in GRID), key=lambda bc: (bc[0] + bc[1], bc))
    B = np.array([b for b, _ in points]) * scale["popularity"]
    G = np.array([c for _, c in points]) * scale["like"]
    ndcg = _mean_ndcgs(rows, B, G, k)
    best = int(np.argmax(ndcg))  # the first of equals: the smallest weights
    blend = ListBlend(float(B[best]), float(G[best]), n_candidates)
    report = {
        "users": len(rows),
        "scales": scale,
        "grid": [{"popularity": b, "like": c, "ndcg": float(v)} for (b, c), v in zip(points, ndcg, strict=True)],
        "item_model_alone": float(ndcg[0]),
        "chosen": {"popularity": points[best][0], "like": points[best][1], "ndcg": float(ndcg[best])},
    }
    return blend, report


def _mean_ndcgs(rows: list[ValidationList], B: np.ndarray, G: np.ndarray, k: int) -> np.ndarray:
    """The mean NDCG@k of ``rows``' lists at every blend ``(B[p], G[p])``: each list's top ``k``
    candidates by ``key + popularity * B[p] + like * G[p]`` (ties by candidate order, as
    :func:`~recsys.model.topn.top_k`), compiled on every core (a partition of each list's
    candidates × blends in numpy took 0.3 s of a 1 M-rating train), the lists' NDCGs added in
    their order."""
    from ._batch_kernels import blend_ndcgs
    from ._pair_kernels import run_in_ranges

    discount = 1.0 / np.log2(np.arange(2, k + 2))
    ideal = np.array([discount[: min(k, r.n_relevant)].sum() for r in rows])
    ptr = np.r_[0, np.cumsum([len(r.key) for r in rows])].astype(np.int64)
    parts = [np.concatenate([getattr(r, f) for r in rows]).astype(np.float64) for f in ("key", "popularity", "like")]
    relevant = np.concatenate([r.relevant for r in rows]).astype(np.bool_)
    per_list = np.empty((len(rows), len(B)))
    run_in_ranges(blend_ndcgs, len(rows), ptr, *parts, relevant, B, G, discount, ideal, per_list, size=64)
    total = np.zeros(len(B))
    for row in per_list:  # one list after another: the floats of the sum list by list
        total += row
    return total / len(rows)
