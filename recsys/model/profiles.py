"""The learned state of a profile recommender, as plain numpy arrays.

:class:`FittedProfiles` is what :func:`recsys.model.learning.fit_profiles` learns from training ratings and
what a model directory stores: the vocabularies, the ratings, the rating baseline, the like and
dislike co-clusters and the neighbourhoods they define.  It is frozen; everything derived from
it (like counts, residuals, profiles) is computed on first use and cached.  ``to_arrays`` /
``from_arrays`` turn it into a flat ``{name: ndarray}`` mapping (no pickle) and back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .csr import Csr
from .feedback import EXPLICIT, IMPLICIT
from .ids import IdIndex, id_array
from .neighbours import Neighbours
from .settings import BITSET_BYTES, SIDES


@dataclass(frozen=True, eq=False)
class CoClusters:
    """Co-clusters of one relation (like or dislike): their users, their items and their attributes.

    ``users`` is co-clusters × users; ``items`` co-clusters × items (the ``movie:<id>`` features);
    ``attributes`` co-clusters × attributes (the other features).
    """

    users: Csr
    items: Csr
    attributes: Csr

    def __len__(self) -> int:
        return self.users.n_rows

    @cached_property
    def of_user(self) -> Csr:
        """Users × co-clusters."""
        return self.users.transpose()

    @cached_property
    def of_item(self) -> Csr:
        """Items × co-clusters."""
        return self.items.transpose()

    @cached_property
    def of_attribute(self) -> Csr:
        """Attributes × co-clusters."""
        return self.attributes.transpose()

    @cached_property
    def weights(self) -> np.ndarray:
        """Each co-cluster's weight in the similarities (:func:`recsys.model.neighbours.cocluster_weights`),
        computed once: every list reads it."""
        from .neighbours import cocluster_weights

        return cocluster_weights(self.users.lengths)

    def need(self, density: float) -> np.ndarray:
        """How many of each co-cluster's items a person must hold to join it at ``density``
        (:mod:`recsys.model.fold_in`): ``ceil(density × items)``, at least 1 (0 for an empty one);
        computed once per density (every list reads it)."""
        from coclust.params import DENSITY_TOLERANCE

        cache = self.__dict__.setdefault("_need", {})
        if density not in cache:
            size = self.items.lengths
            need = np.maximum(np.ceil(density * size - DENSITY_TOLERANCE), 1)
            cache[density] = np.where(size > 0, need, 0).astype(np.int64)
        return cache[density]

    @cached_property
    def user_norms(self) -> np.ndarray:
        """Each user's co-cluster norm in the user similarities (computed once: every fold-in reads it)."""
        from .neighbours import membership_norms

        return membership_norms(self.users, self.users.shape[1])

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {
            **self.users.arrays(f"{prefix}.users"),
            **self.items.arrays(f"{prefix}.items"),
            **self.attributes.arrays(f"{prefix}.attributes"),
        }

    @classmethod
    def from_arrays(cls, a, prefix: str) -> CoClusters:
        return cls(
            Csr.from_arrays(a, f"{prefix}.users"),
            Csr.from_arrays(a, f"{prefix}.items"),
            Csr.from_arrays(a, f"{prefix}.attributes"),
        )


# what FittedProfiles caches from its item model's weights (not carried to other weights)
_READS_ITEM_WEIGHTS = ("shared_coclusters", "_memos")


@dataclass(frozen=True, eq=False)
class FittedProfiles:
    """Everything a profile recommender learned from one set of training ratings.

    Attributes
    ----------
    users, items : ndarray
        Raw ids (int64 when every id is an integer, else str), in index order.
    attributes : ndarray of str
        ``kind:value`` names of the item attributes.
    item_titles : ndarray of str
        Display name of each item (title and year), ``""`` when unknown.
    item_attributes : Csr
        Items × attributes.
    ratings : Csr
        Users × items training ratings.
    like_threshold : float
        A rating above it is a like.
    global_mean, user_bias, item_bias : float, ndarray, ndarray
        The rating baseline ``mean + user_bias[u] + item_bias[i]`` (regularised).
    like, dislike : CoClusters
        Co-clusters of the like and dislike relations.
    neighbours : dict
        ``{"like_users", "like_items", "dislike_users", "dislike_items"}`` → :class:`Neighbours`.
    item_weights : Csr
        Items × items: the co-cluster item model's weights (:mod:`recsys.model.item_model`).
    features : str
        What the co-clusters were computed on (``movies``, ``all`` or ``attributes``; see
        :mod:`recsys.model.learning`): without per-movie features, the paper's rule leaves the movie itself
        out of its attribute set.
    user_budget : int
        Each user is in at most this many co-clusters of each side, the most selective (0: no
        budget); a person folded in joins as many (:mod:`recsys.model.fold_in`).
    feedback : {"explicit", "implicit"}
        Ratings, or interactions each stored as a like (:mod:`recsys.model.feedback`).
    attribute_fit : {"means", "joint"}
        How the user side of the attribute evidence is fitted (:mod:`recsys.model.attributes`).
    """

    users: np.ndarray
    items: np.ndarray
    attributes: np.ndarray
    item_titles: np.ndarray
    item_attributes: Csr
    ratings: Csr
    like_threshold: float
    global_mean: float
    user_bias: np.ndarray
    item_bias: np.ndarray
    like: CoClusters
    dislike: CoClusters
    neighbours: dict
    features: str = "movies"
    item_weights: Csr | None = None
    residual_weights: Csr | None = None
    user_budget: int = 0
    feedback: str = EXPLICIT
    attribute_fit: str = "joint"

    @property
    def implicit(self) -> bool:
        """Whether the ratings are interactions (implicit feedback): no dislikes, no like-probability."""
        return self.feedback == IMPLICIT

    @property
    def n_users(self) -> int:
        return len(self.users)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def item_rated(self) -> np.ndarray:
        """Whether each item has a training rating: the items a like-probability exists for."""
        likes, dislikes = self.item_counts
        return (likes + dislikes) > 0

    def coclusters(self, side: str) -> CoClusters:
        return self.like if side == "like" else self.dislike

    def with_item_model(self, item_weights: Csr, residual_weights: Csr | None) -> FittedProfiles:
        """These profiles with the item model's weights replaced, and what was derived from the rest
        (the pair support, the likes, the residuals, …) carried over instead of computed again: the
        pair support's product of the co-clusters took 0.4 s a time at 1 M ratings."""
        new = dataclasses.replace(self, item_weights=item_weights, residual_weights=residual_weights)
        fields = {f.name for f in dataclasses.fields(self)}
        for name, value in self.__dict__.items():
            if name not in fields and name not in _READS_ITEM_WEIGHTS:
                new.__dict__[name] = value
        return new

    # -- ids ---------------------------------------------------------------------------------
    @cached_property
    def _index(self) -> dict[str, IdIndex]:
        return {"users": IdIndex(self.users), "items": IdIndex(self.items)}

    def user_index(self, users) -> np.ndarray:
        """Index of each user id, -1 when unknown (``"42"`` finds user 42 when ids are integers)."""
        return self._index["users"](users)

    def item_index(self, items) -> np.ndarray:
        """Index of each item id, -1 when unknown."""
        return self._index["items"](items)

    def item_name(self, i: int) -> str:
        """``Title (year) [id]``, or ``item <id>`` when no title is known."""
        return self.item_names[i]

    @cached_property
    def item_names(self) -> list[str]:
        """:meth:`item_name` of every item (explanations name movies by the thousand)."""
        titles = self.item_titles.tolist() if len(self.item_titles) else [""] * self.n_items
        return [f"{t} [{i}]" if t else f"item {i}" for t, i in zip(titles, self.items.tolist())]

    # -- ratings -----------------------------------------------------------------------------
    def memo(self, name: str, limit: int) -> dict:
        """A dict for results derived from these (immutable) profiles, emptied when it holds
        ``limit`` entries: bounded memory, and lookups safe to share between threads."""
        memos = self.__dict__.setdefault("_memos", {})
        table = memos.setdefault(name, {})
        if len(table) >= limit:
            table.clear()
        return table

    @cached_property
    def attribute_counts(self) -> np.ndarray:
        """How many items carry each attribute."""
        return np.bincount(self.item_attributes.idx, minlength=len(self.attributes))

    @cached_property
    def liked(self) -> Csr:
        """Users × items: the training likes."""
        return self.ratings.select(self.ratings.values > self.like_threshold).with_values(None)

    def source_weights(self, values) -> np.ndarray:
        """Each rated item's weight in the item model's sum ``x_u W``, from its rating: 1 for a like
        and 0 otherwise; an interaction's confidence (:mod:`recsys.model.feedback`: 1 without counts)."""
        values = np.asarray(values, dtype=np.float64)
        liked = values > self.like_threshold
        return np.where(liked, values, 0.0) if self.implicit else liked.astype(np.float64)

    def liked_sources(self, items: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of a person's rated ``items`` and their ``values``: the items liked and their weights
        (:meth:`source_weights`), what the item model's sum and its explanations read."""
        values = np.asarray(values, dtype=np.float64)
        liked = values > self.like_threshold
        return np.asarray(items)[liked], self.source_weights(values)[liked]

    @cached_property
    def sources(self) -> Csr:
        """Users × items: the rows ``x_u`` the item model learns from and scores with — the likes
        (no values: ones), or an implicit model's interactions with their confidence when any is
        not 1."""
        if not self.implicit:
            return self.liked
        values = self.ratings.values[self.ratings.values > self.like_threshold]
        return self.liked if np.all(values == 1.0) else self.liked.with_values(values)

    @cached_property
    def disliked(self) -> Csr:
        return self.ratings.select(self.ratings.values <= self.like_threshold).with_values(None)

    @cached_property
    def residuals(self) -> Csr:
        """Users × items: each training rating minus its baseline."""
        r = self.ratings
        base = self.global_mean + self.user_bias[r.row_of] + self.item_bias[r.idx]
        return r.with_values(r.values - base)

    @cached_property
    def like_rate(self) -> float:
        return float(self.liked.nnz / max(self.ratings.nnz, 1))

    @cached_property
    def user_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(likes, dislikes) of every user."""
        return self.liked.lengths, self.disliked.lengths

    @cached_property
    def item_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(likes, dislikes) of every item."""
        return (
            np.bincount(self.liked.idx, minlength=self.n_items),
            np.bincount(self.disliked.idx, minlength=self.n_items),
        )

    @cached_property
    def attribute_evidence(self):
        """The user–attribute and attribute–item tables of :mod:`recsys.model.attributes`."""
        from .attributes import AttributeEvidence

        return AttributeEvidence.of(
            self.ratings, self.residuals, self.item_bias, self.item_attributes, joint=self.attribute_fit == "joint"
        )

    @cached_property
    def pair_support(self) -> Csr:
        """Items × items: how many like co-clusters hold each pair (the item model's support)."""
        from .item_model import support_of

        return support_of(self.like.items, self.n_items)

    @cached_property
    def shared_coclusters(self) -> tuple[np.ndarray, np.ndarray]:
        """For each weight of the item model, in its order: how many like co-clusters hold both of
        its movies, and the largest of them (most users, the first among equals; -1 for none).

        Explanations name these for every contribution they show; one pass over each movie's
        co-clusters (largest first, counting its partners') answers them all, where each
        explanation would otherwise intersect two movies' thousands of co-clusters."""
        from ._lookup import shared_by_rank
        from ._pair_kernels import run_in_ranges

        W, cc = self.item_weights, self.like
        count = np.zeros(W.nnz, dtype=np.int32)
        largest = np.full(W.nnz, -1, dtype=np.int64)
        order = np.lexsort((np.arange(len(cc)), -cc.users.lengths))
        by_rank = _rows_in_order(cc.items, order).transpose()  # items × co-clusters' ranks, ascending
        run_in_ranges(
            shared_by_rank,
            W.n_rows,
            *by_rank._int64_rows,
            order,
            *cc.items._int64_rows,
            *W._int64_rows,
            count,
            largest,
            size=256,
        )
        return count, largest

    # -- profiles (the paper's) --------------------------------------------------------------
    def support(self, side: str, u: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The items and attributes of the user's ``side`` co-clusters, with how many hold each:
        ``(items, item_support, attributes, attribute_support)``."""
        cc = self.coclusters(side)
        mine = cc.of_user.row(u)
        out = []
        for part in (cc.items, cc.attributes):
            if part.lengths[mine].sum() * 8 > part.nnz:  # most entries: a mask over them all is cheaper
                member = np.zeros(part.n_rows, dtype=bool)
                member[mine] = True
                counts = np.bincount(part.idx[member[part.row_of]], minlength=part.shape[1])
            else:
                _, pos = part.rows_entries(mine)
                counts = np.bincount(part.idx[pos], minlength=part.shape[1])
            nz = np.flatnonzero(counts)
            out += [nz, counts[nz]]
        return tuple(out)

    def paper_profile(self, u: int, support: dict | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The paper's like and dislike profiles of user ``u``: per side, ``(items, attributes)`` of
        the side's co-clusters the user belongs to, minus those in both profiles (``support``: the
        user's :meth:`support` per side, when already computed)."""
        sup = support or {side: self.support(side, u) for side in SIDES}
        out = {}
        for side, other in (("like", "dislike"), ("dislike", "like")):
            out[side] = (
                np.setdiff1d(sup[side][0], sup[other][0], assume_unique=True),
                np.setdiff1d(sup[side][2], sup[other][2], assume_unique=True),
            )
        return out

    @cached_property
    def paper_profiles(self) -> dict[str, tuple[Csr, Csr]]:
        """:meth:`paper_profile` of every user: per side, users × items and users × attributes."""
        raw = {}
        for side in SIDES:
            cc = self.coclusters(side)
            raw[side] = [_union_by_user(cc.of_user, part) for part in (cc.items, cc.attributes)]
        return {
            side: tuple(_minus(raw[side][k], raw[other][k]) for k in range(2))
            for side, other in (("like", "dislike"), ("dislike", "like"))
        }

    # -- storage -----------------------------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray]:
        out = {
            "users": id_array(self.users),
            "items": id_array(self.items),
            "attributes": np.asarray(self.attributes, dtype=str),
            "item_titles": np.asarray(self.item_titles, dtype=str),
            "baseline": np.array([self.like_threshold, self.global_mean]),
            "features": np.array(self.features),
            "user_budget": np.array(int(self.user_budget)),
            "feedback": np.array(self.feedback),
            "attribute_fit": np.array(self.attribute_fit),
            "user_bias": self.user_bias,
            "item_bias": self.item_bias,
            **self.item_attributes.arrays("item_attributes"),
            **self.ratings.arrays("ratings"),
            **self.like.arrays("like"),
            **self.dislike.arrays("dislike"),
        }
        for name, nb in self.neighbours.items():
            out.update(nb.arrays(f"neighbours.{name}"))
        if self.item_weights is not None:
            out.update(self.item_weights.arrays("item_weights"))
            # kept with the model: a server loading it answers at once, without this one pass over
            # the co-clusters competing with the requests it serves
            out["shared_coclusters.count"], out["shared_coclusters.largest"] = self.shared_coclusters
        if self.residual_weights is not None:
            out.update(self.residual_weights.arrays("residual_weights"))
        return out

    @classmethod
    def from_arrays(cls, a) -> FittedProfiles:
        users, items = id_array(a["users"]), id_array(a["items"])
        thr, mean = (float(x) for x in a["baseline"])
        fp = cls(
            users=users,
            items=items,
            attributes=np.asarray(a["attributes"], dtype=str),
            item_titles=np.asarray(a["item_titles"], dtype=str),
            item_attributes=Csr.from_arrays(a, "item_attributes"),
            ratings=Csr.from_arrays(a, "ratings"),
            like_threshold=thr,
            global_mean=mean,
            user_bias=np.asarray(a["user_bias"], dtype=np.float64),
            item_bias=np.asarray(a["item_bias"], dtype=np.float64),
            like=CoClusters.from_arrays(a, "like"),
            dislike=CoClusters.from_arrays(a, "dislike"),
            neighbours={
                name: Neighbours.from_arrays(
                    a, f"neighbours.{name}", len(users) if name.endswith("users") else len(items)
                )
                for name in ("like_users", "like_items", "dislike_users", "dislike_items")
            },
            features=str(a["features"]) if "features" in a else "movies",
            item_weights=Csr.from_arrays(a, "item_weights") if "item_weights.ptr" in a else None,
            residual_weights=Csr.from_arrays(a, "residual_weights") if "residual_weights.ptr" in a else None,
            user_budget=int(a["user_budget"]) if "user_budget" in a else 0,
            feedback=str(a["feedback"]) if "feedback" in a else EXPLICIT,  # absent: a model of ratings
            attribute_fit=str(a["attribute_fit"]) if "attribute_fit" in a else "means",  # absent: before the option
        )
        if "shared_coclusters.count" in a:
            pair = (
                np.asarray(a["shared_coclusters.count"], dtype=np.int32),
                np.asarray(a["shared_coclusters.largest"], dtype=np.int64),
            )
            fp.__dict__["shared_coclusters"] = pair  # the cached property, as stored
        fp.check()
        return fp

    def check(self) -> None:
        """Raise ValueError unless the shapes agree (a corrupt model must fail at load, not later)."""
        nu, ni, na = self.n_users, self.n_items, len(self.attributes)
        shapes = {
            "ratings": (self.ratings.shape, (nu, ni)),
            "item_attributes": (self.item_attributes.shape, (ni, na)),
            "user_bias": ((len(self.user_bias),), (nu,)),
            "item_bias": ((len(self.item_bias),), (ni,)),
            "item_titles": ((len(self.item_titles),), (ni,)),
        }
        if self.item_weights is not None:
            shapes["item_weights"] = (self.item_weights.shape, (ni, ni))
            if "shared_coclusters" in self.__dict__:
                count, largest = self.shared_coclusters
                nnz = self.item_weights.nnz
                shapes["shared_coclusters"] = ((len(count), len(largest)), (nnz, nnz))
                if len(largest) and largest.max() >= len(self.like):
                    raise ValueError(f"shared_coclusters names co-cluster {largest.max()} of {len(self.like)}")
        for side in SIDES:
            cc = self.coclusters(side)
            k = len(cc)
            shapes[f"{side}.users"] = (cc.users.shape, (k, nu))
            shapes[f"{side}.items"] = (cc.items.shape, (k, ni))
            shapes[f"{side}.attributes"] = (cc.attributes.shape, (k, na))
        bad = [f"{name} {got} (expected {want})" for name, (got, want) in shapes.items() if tuple(got) != tuple(want)]
        if bad:
            raise ValueError("inconsistent model arrays: " + "; ".join(bad))
        if self.ratings.values is None:
            raise ValueError("inconsistent model arrays: ratings have no values")


def _union_by_user(of_user: Csr, part: Csr) -> Csr:
    """Users × columns: the union of ``part``'s rows over each user's co-clusters (compiled: the
    memory holds the result, not every (membership, column) pair, billions with the paper's
    parameters)."""
    from ._csr_kernels import union_of_bitsets, union_of_rows

    n_cols = part.shape[1]
    words = (n_cols + 63) // 64
    # bitsets when OR-ing words reads fewer than the columns do, and the bitsets are small
    column_reads = int(np.dot(np.bincount(of_user.idx, minlength=part.n_rows), part.lengths))
    bitset_bytes = 8 * words * (part.n_rows + of_user.n_rows)
    use_bits = of_user.nnz * words < column_reads and bitset_bytes <= BITSET_BYTES
    ptr, idx = (union_of_bitsets if use_bits else union_of_rows)(
        np.ascontiguousarray(of_user.ptr, dtype=np.int64),
        np.ascontiguousarray(of_user.idx),
        np.ascontiguousarray(part.ptr, dtype=np.int64),
        np.ascontiguousarray(part.idx),
        np.int64(n_cols),
    )
    return Csr(ptr, idx, None, (of_user.n_rows, n_cols))


def _minus(a: Csr, b: Csr) -> Csr:
    found, _ = b.lookup(a.row_of, a.idx)
    return a.select(~found)


def _rows_in_order(m: Csr, order: np.ndarray) -> Csr:
    """The rows of ``m`` in ``order`` (row ``k`` of the result is row ``order[k]`` of ``m``)."""
    _, pos = m.rows_entries(order)
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(m.lengths[order], out=ptr[1:])
    return Csr(ptr, m.idx[pos], None, (len(order), m.shape[1]))
