"""Lists for a block of people at once: the one path every list takes.

A person is their ratings (a known user's training ratings, or a new person's): they are folded in
(:mod:`recsys.model.fold_in`), the item model scores every item from their likes, the candidates are
the best of those and the most liked items (:func:`recsys.model.list_blend.candidates`), and each
candidate's like-probability is computed from the person's terms; the list blends the three
(:mod:`recsys.model.list_blend`).  Here all of that runs for a block of people in compiled kernels
(:mod:`recsys.model._batch_kernels`) over ranges of the block on every core, with numpy doing the
``exp`` and ``log`` of whole arrays: a list costs a fraction of a millisecond of CPU instead of the
dozens of small numpy calls a person took one by one (9 ms at 1 M ratings).

The numbers are those of the per-person definitions (:func:`~recsys.model.fold_in.NewUser.of`,
:func:`~recsys.model.fold_in.new_user_terms`; tested), with one rule made explicit: candidates tied
at the ``n``-th score are taken by item index (``argpartition`` took any of them).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import _batch_kernels as kern
from ._pair_kernels import run_in_ranges
from .attributes import ATTRIBUTE_SHRINKAGE, user_penalty
from .csr import Csr
from .settings import BITSET_BYTES, RECOMMENDER_PARAMS
from .terms import ATTRIBUTE_TERMS, VOTE_TERMS, like_share
from .threads import cores, in_threads

# people per block: their dense rows of item scores stay within about this many cells
BLOCK_CELLS = 1 << 22
# people per range of a block's work on one core
_PEOPLE_PER_RANGE = 8
# below this many people a block is not split over threads (its kernels are, in ranges)
_MIN_BLOCK = 64
# people in the first block of many, scored alone (block_bounds)
_FIRST_BLOCK = 128
_FEW = 8  # people scored at most: their co-clusters found through their items (kern.neighbours)


@dataclass
class People:
    """A block of people: their rated items (sorted, distinct) and ratings, as CSR arrays."""

    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray

    def __len__(self) -> int:
        return len(self.ptr) - 1

    @classmethod
    def of(cls, rows: list[tuple[np.ndarray, np.ndarray]]) -> People:
        """From ``(item indices, ratings)`` per person: an item rated twice keeps its first rating."""
        items, values = [], []
        for idx, val in rows:
            idx = np.asarray(idx, dtype=np.int64)
            first = np.unique(idx, return_index=True)[1]
            items.append(idx[first])
            values.append(np.asarray(val, dtype=np.float64)[first])
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in items], out=ptr[1:])
        cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
        return cls(ptr, cat(items, np.int64), cat(values, np.float64))

    @classmethod
    def of_users(cls, ratings: Csr, users: np.ndarray) -> People:
        """Known users (indices) as their training ratings."""
        which, pos = ratings.rows_entries(users)
        ptr = np.zeros(len(users) + 1, dtype=np.int64)
        np.cumsum(ratings.lengths[users], out=ptr[1:])
        return cls(ptr, ratings.idx[pos].astype(np.int64), ratings.values[pos].astype(np.float64))

    def part(self, lo: int, hi: int) -> People:
        a, b = self.ptr[lo], self.ptr[hi]
        return People(self.ptr[lo : hi + 1] - a, self.idx[a:b], self.val[a:b])


@dataclass
class Scored:
    """The lists of a block of people: the item model's score of every item (``key``, a row per
    person), each person's candidates (``cand[t, :n_cand[t]]``, item indices in increasing order)
    with their popularity, like-probability and blended score (``NaN``/``-inf`` past ``n_cand``);
    ``plain`` lists rank by ``key`` over every listable item instead (no candidates)."""

    key: np.ndarray
    listable: np.ndarray  # (people, items): may be listed (not rated, scoreable, the person liked something)
    cand: np.ndarray
    n_cand: np.ndarray
    popularity: np.ndarray
    probability: np.ndarray
    score: np.ndarray
    plain: bool
    blend_popularity: float
    blend_like: float

    def top(self, t: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Person ``t``'s ``n`` best items (indices) and their list scores, best first, ties by item."""
        if self.plain:
            items = np.flatnonzero(self.listable[t])
            key = self.key[t, items]
            order = np.lexsort((items, -key))[:n]
            return items[order], key[order]
        m = int(self.n_cand[t])
        order = np.lexsort((self.cand[t, :m], -self.score[t, :m]))[:n]
        return self.cand[t, order], self.score[t, order]

    def tops(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every person's :meth:`top` at once: ``(items, scores, lengths)``, person ``t``'s list in
        ``items[t, :lengths[t]]`` and ``scores[t, :lengths[t]]`` (one sort for the block, not one
        per person: a batch of lists reads thousands)."""
        if self.plain:
            key, cand = np.where(self.listable, self.key, -np.inf), None
            lengths = np.minimum(self.listable.sum(axis=1), n)
        else:
            key, cand = self.score, self.cand
            lengths = np.minimum(self.n_cand, n)
        # a stable sort of the negated scores: ties by position, which is by item (candidates are
        # in increasing item order); what is not listed (-inf) sorts after every listed item
        order = np.argsort(-key, axis=1, kind="stable")[:, :n]
        scores = np.take_along_axis(key, order, axis=1)
        items = order if cand is None else np.take_along_axis(cand, order, axis=1)
        return items, scores, lengths

    def dense(self, t: int) -> np.ndarray:
        """Person ``t``'s list score of every item (``-inf``: not listed)."""
        if self.plain:
            return np.where(self.listable[t], self.key[t], -np.inf)
        out = np.full(self.key.shape[1], -np.inf)
        m = int(self.n_cand[t])
        out[self.cand[t, :m]] = self.score[t, :m]
        return out

    def parts(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Person ``t``'s ``(score, item, popularity part, like part, probability)``, each over every
        item: the list score (``-inf``: not listed), the item model's, the blend's two parts (0 off the
        candidates) and the like-probability (NaN where not computed)."""
        n = self.key.shape[1]
        score, key = self.dense(t), self.key[t].copy()
        pop, like, p = np.zeros(n), np.zeros(n), np.full(n, np.nan)
        if not self.plain:
            m = int(self.n_cand[t])
            c = self.cand[t, :m]
            p[c] = self.probability[t, :m]
            pop[c] = self.blend_popularity * self.popularity[t, :m]
            like[c] = self.blend_like * self.like_feature(t)
        return score, key, pop, like, p

    def like_feature(self, t: int) -> np.ndarray:
        """Person ``t``'s candidates' like feature: the logit of their like-probability (0 where
        there is none: a model of implicit feedback)."""
        from .list_blend import logit

        p = self.probability[t, : int(self.n_cand[t])]
        return logit(np.where(np.isnan(p), 0.5, p))


class Lister:
    """What every list of a fitted model reads, gathered once (``model`` a
    :class:`~recsys.model.ProfileRecommender` for its parameters, ``state`` the fitted state listed
    from, default the model's :class:`~recsys.model.state.Fitted`), and the lists of blocks of people."""

    def __init__(self, model, state=None):
        from .list_blend import log_likes

        state = model.fitted_ if state is None else state
        fp = state.profiles
        self.model, self.state, self.fp = model, state, fp
        self._serial = threading.local()
        self.popularity = log_likes(fp.item_counts[0])
        self.popular = np.argsort(-self.popularity, kind="stable").astype(np.int64)
        self.scoreable = state.scoreable
        self.k = int(model.n_votes)
        self.shrinkage = float(model.shrinkage)
        self.n_neighbours = int(model.n_neighbours)
        self.densities = {
            side: float((p or RECOMMENDER_PARAMS).get("min_density", 1.0))
            for side, p in (("like", model.like_params), ("dislike", model.dislike_params))
        }
        groups = state.weights_for(np.flatnonzero(self.scoreable)) if state.scored else []
        self.names = sorted({n for _, w in groups for n in w.names})
        # how the neighbours' co-clusters are found (kern.neighbours's by_item): None lets the
        # number of people choose; the tests set 0 or 2 to compare the two ways
        self.by_item: int | None = None
        # how the neighbours' votes read their rows (_ranked_residuals): None lets the data choose
        self.by_bits: bool | None = None

    def _narrow(self, name: str, idx: np.ndarray) -> np.ndarray:
        """``idx`` as uint32 when it fits (kept for the lists' life): the kernels stream these index
        arrays for every person, and half the bytes is up to a third less time; unsigned, an index
        needs no wrap-around test for a negative value (the item model's row sums of a 1 M-rating
        model took a quarter less time than with int32, the same floats)."""
        cache = self.__dict__.setdefault("_idx32", {})
        if name not in cache:
            fits = len(idx) == 0 or int(idx.max()) < 2**32
            cache[name] = idx.astype(np.uint32) if fits and idx.dtype != np.uint32 else idx
        return cache[name]

    @cached_property
    def residual_by_target(self) -> Csr:
        """The residual model's weights transposed: a row per scored item, its partners increasing."""
        return self.fp.residual_weights.transpose()

    # -- one block --------------------------------------------------------------------------------
    def score(self, people: People, n_candidates: int | None = None, rated: People | None = None) -> Scored:
        """The lists of ``people``.  ``n_candidates``: blend that many candidates of each kind (default:
        the model's blend; ``0``: plain item-model lists, whatever the blend).  ``rated``: the items
        never listed, a row per person (default: the items each rated)."""
        fp, state = self.fp, self.state
        blend = state.list_blend
        if n_candidates is None:
            n_candidates = 0 if blend.plain else blend.candidates
        B = len(people)
        thr = fp.like_threshold
        liked = people.val > thr
        lengths = np.diff(people.ptr)
        counts = np.bincount(np.repeat(np.arange(B), lengths)[liked], minlength=B)
        key = np.zeros((B, fp.n_items))
        if fp.item_weights is not None:
            W = fp.item_weights
            self._run(kern.keys, B, W.ptr, self._narrow("item_weights", W.idx), W.values, people.ptr, people.idx,
                      fp.source_weights(people.val), key)  # fmt: skip
            if state.uses_attributes:
                ev = fp.attribute_evidence
                if len(ev.new_items):
                    count = ev.n_rated + ATTRIBUTE_SHRINKAGE
                    sp = ev.spread
                    self._run(kern.new_item_keys, B, ev.rated.ptr, ev.rated.idx, count.astype(np.float64), sp.ptr,
                              sp.idx, sp.values, ev.new_items.astype(np.int64), len(count), key)  # fmt: skip
        # plain lists list every item not rated (scoreable or not), blended ones the scoreable
        listable = np.repeat((counts > 0)[:, None], fp.n_items, axis=1)
        if n_candidates:
            listable &= self.scoreable[None, :]
        rated = people if rated is None else rated
        listable[np.repeat(np.arange(B), np.diff(rated.ptr)), rated.idx] = False
        if n_candidates == 0:
            empty = np.zeros((B, 0))
            return Scored(key, listable, empty.astype(np.int64), np.zeros(B, np.int64), empty, empty, empty, True,
                          0.0, 0.0)  # fmt: skip
        cand = np.zeros((B, 2 * n_candidates), dtype=np.int64)
        n_cand = np.zeros(B, dtype=np.int64)
        self._run(kern.candidates, B, key, self.popular, self.scoreable, rated.ptr, rated.idx, counts > 0,
                  int(n_candidates), n_cand, cand)  # fmt: skip
        from .list_blend import logit

        valid = np.arange(cand.shape[1])[None, :] < n_cand[:, None]
        if state.scored:
            p = self._probabilities(people, liked, counts, lengths, key, cand, n_cand)
            like = logit(np.where(valid, p, 0.5))
        else:  # implicit feedback: no like-probability (and the blend gives it no weight)
            p, like = np.full(cand.shape, np.nan), np.zeros(cand.shape)
        popularity = np.where(valid, self.popularity[cand], np.nan)
        blended = np.take_along_axis(key, cand, axis=1) + blend.popularity * popularity + blend.like * like
        score = np.where(valid, blended, -np.inf)
        return Scored(key, listable, cand, n_cand, popularity, p, score, False, blend.popularity, blend.like)

    def _run(self, kernel, n: int, *args, size: int = _PEOPLE_PER_RANGE) -> None:
        """``kernel(*args, lo, hi)`` over the block's people: in ranges on every core, or at once on
        this thread when blocks are already spread over the cores (:meth:`blocks`)."""
        if getattr(self._serial, "on", False):
            kernel(*args, 0, n)
        else:
            run_in_ranges(kernel, n, *args, size=size)

    # -- the like-probabilities of the candidates ---------------------------------------------------
    def _probabilities(self, people: People, liked, counts, lengths, key, cand, n_cand) -> np.ndarray:
        fp = self.fp
        B = len(people)
        bias, resid = np.zeros(B), np.zeros(len(people.idx))
        self._run(kern.fold_in, B, people.ptr, people.idx, people.val, float(fp.global_mean), fp.item_bias, bias, resid)
        terms = self._terms(people, liked, counts, lengths, key, cand, n_cand, bias, resid)
        valid = np.arange(cand.shape[1])[None, :] < n_cand[:, None]
        p = np.full(cand.shape, np.nan)
        items = cand[valid]
        chosen = {name: values[valid] for name, values in terms.items()}
        for pos, w in self.state.weights_for(items):
            flat = np.flatnonzero(valid.ravel())[pos]
            p.ravel()[flat] = w.probability({name: chosen[name][pos] for name in w.names})
        return p

    def _terms(self, people, liked, counts, lengths, key, cand, n_cand, bias, resid) -> dict[str, np.ndarray]:
        fp, names = self.fp, self.names
        shape = cand.shape
        out = {}
        likes_i, dislikes_i = fp.item_counts
        rate = fp.like_rate
        if "user_like_share" in names:
            dislikes = lengths - counts
            shares = [like_share(int(a), int(b), rate) for a, b in zip(counts, dislikes, strict=True)]
            out["user_like_share"] = np.repeat(np.asarray(shares, dtype=np.float64)[:, None], shape[1], axis=1)
        if "item_like_share" in names:
            out["item_like_share"] = like_share(likes_i[cand], dislikes_i[cand], rate)
        if "baseline" in names:
            out["baseline"] = (fp.global_mean + bias)[:, None] + fp.item_bias[cand]
        sides = {side for name, (side, who) in VOTE_TERMS.items() if name in names and who == "users"}
        if sides:
            on_side = {"like": liked, "dislike": ~liked}
            for side in sorted(sides):
                out[f"{side}_users"] = self._user_votes(people, on_side[side], side, cand, n_cand)
        for name, (side, who) in VOTE_TERMS.items():
            if name in names and who == "items":
                nb = fp.neighbours[f"{side}_items"]
                num, den, cnt = (np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=np.int64))
                self._run(kern.item_votes, len(people), nb.ptr, self._narrow(name, nb.idx), nb.sim, people.ptr,
                          people.idx, resid, fp.n_items, n_cand, cand, self.k, num, den, cnt)  # fmt: skip
                out[name] = _vote_values(num, den, self.shrinkage)
        if set(ATTRIBUTE_TERMS) & set(names):
            ev, ia = fp.attribute_evidence, fp.item_attributes
            user_term, item_term = np.zeros(shape), np.zeros(shape)
            penalty = user_penalty(ev.joint)
            self._run(kern.attribute_sums, len(people), ia.ptr, ia.idx, ev.weight, ev.items, people.ptr, people.idx,
                      resid, ia.shape[1], penalty, ev.joint, n_cand, cand, user_term, item_term)  # fmt: skip
            out["user_attributes"], out["attribute_items"] = user_term, item_term
        if "item_model" in names:
            out["item_model"] = np.take_along_axis(key, cand, axis=1)
        if "item_residuals" in names:
            Wt = self.residual_by_target
            sums = np.zeros(shape)
            self._run(kern.residual_sums, len(people), Wt.ptr, self._narrow("residual_by_target", Wt.idx), Wt.values,
                      people.ptr, people.idx, resid,
                      fp.n_items, n_cand, cand, sums)  # fmt: skip
            out["item_residuals"] = sums
        return out

    def _user_votes(self, people, on_side, side: str, cand, n_cand) -> np.ndarray:
        """The votes of the person's co-cluster neighbours of ``side`` (folded in from the items
        flagged ``on_side``) on the candidates."""
        fp, k_nb = self.fp, self.n_neighbours
        cc = fp.coclusters(side)
        B = len(people)
        nb_idx, nb_sim = np.zeros(B * k_nb, dtype=np.int64), np.zeros(B * k_nb)
        nb_len = np.zeros(B, dtype=np.int64)
        if len(cc):
            members = cc.users
            w = cc.weights
            # a few people (one list, a new person) find their co-clusters through their items' (the
            # items × co-clusters index that the fold-in builds anyway); a batch passes none
            by_item = self.by_item if self.by_item is not None else int(B <= _FEW)
            if by_item:
                i_ptr, i_idx = cc.of_item.ptr, cc.of_item.idx
            else:
                i_ptr, i_idx = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)  # as of_item's
            self._run(kern.neighbours, B, people.ptr, people.idx, on_side, fp.n_items, cc.items.ptr,
                      self._narrow(f"{side}.items", cc.items.idx), i_ptr, i_idx, by_item, cc.need(self.densities[side]),
                      int(fp.user_budget),
                      members.ptr, self._narrow(f"{side}.users", members.idx), w,
                          cc.user_norms, k_nb,
                      nb_idx, nb_sim, nb_len, size=64)  # fmt: skip
        table = fp.residuals
        shape = cand.shape
        num, den, cnt = np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=np.int64)
        ranked = self._ranked_residuals()
        # the rows read: as bitsets at the candidates still short of votes, or scanned whole
        if ranked is None:
            kernel, rows = kern.neighbour_votes, (self._narrow("residuals", table.idx),)
        else:
            kernel, rows = kern.neighbour_votes_by_bits, ranked
        args = (nb_idx, nb_sim, nb_len, k_nb, table.ptr, *rows, table.values, fp.n_items, n_cand, cand, self.k)
        self._run(kernel, B, *args, num, den, cnt)
        return _vote_values(num, den, self.shrinkage)

    def _ranked_residuals(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The residual table's rows as bitsets with their ranks (built on first use, kept), or
        ``None`` where the neighbours' rows are better scanned (:func:`kern.neighbour_votes`): a
        neighbour costs at most a word per 64 items one way, an entry per item they rated the
        other; the bitsets are used where the words are fewer and they take at most
        :data:`~recsys.model.settings.BITSET_BYTES`.  ``by_bits`` forces either way (the tests)."""
        table = self.fp.residuals
        n_users, n_items = table.shape
        words = (n_items + 63) // 64
        use = self.by_bits
        if use is None:
            use = words * n_users < table.nnz and 12 * words * n_users <= BITSET_BYTES
        if not use:
            return None
        if "_ranked" not in self.__dict__:
            from ._csr_kernels import ranked_row_bitsets

            self.__dict__["_ranked"] = ranked_row_bitsets(table.ptr, table.idx, np.int64(n_items))
        return self.__dict__["_ranked"]

    # -- many people ------------------------------------------------------------------------------
    def blocks(self, people: People, n_candidates: int | None = None):
        """``(lo, hi, Scored)`` for consecutive blocks of ``people`` (rows of dense item scores
        bounded by :data:`BLOCK_CELLS`; :func:`block_bounds`).  With several blocks, the first is
        scored alone (its kernels in ranges on every core), then one block per core at a time, each
        on its own thread: the numpy work between one block's kernels overlaps the other's kernels."""
        workers = cores()
        bounds = block_bounds(len(people), workers, max(1, BLOCK_CELLS // max(self.fp.n_items, 1)))

        def one(bound, serial: bool = True):
            self._serial.on = serial
            try:
                return bound[0], bound[1], self.score(people.part(*bound), n_candidates)
            finally:
                self._serial.on = False

        if bounds:
            yield one(bounds[0], serial=False)
        yield from in_threads(one, bounds[1:], workers, window=workers, first_alone=False)


def block_bounds(n: int, workers: int, most: int) -> list[tuple[int, int]]:
    """``(lo, hi)`` of the blocks :meth:`Lister.blocks` scores ``n`` people in: one block for a few
    (fewer than :data:`_MIN_BLOCK` a worker, and at most ``most``); else a first block of at most :data:`_FIRST_BLOCK`
    people and a ``workers + 1``-th of them, scored alone (it loads the compiled kernels before the
    threads call them, and its numpy work between kernels leaves the other cores idle, so it is kept
    small), then the rest in blocks of at most ``most`` people, as many as a multiple of ``workers``
    and equal to within one person, so that the threads finish together rather than one scoring a
    last short block alone.

    >>> block_bounds(10, 2, 40)
    [(0, 10)]
    >>> block_bounds(10, 2, 4)
    [(0, 3), (3, 7), (7, 10)]
    >>> block_bounds(1000, 2, 300)
    [(0, 128), (128, 346), (346, 564), (564, 782), (782, 1000)]
    """
    if -(-n // workers) < _MIN_BLOCK and n <= most:
        return [(0, n)] if n else []
    first = max(1, min(_FIRST_BLOCK, most, n // (workers + 1)))
    rest = n - first
    count = -(-rest // most)
    count = min(rest, -(-count // workers) * workers)
    ends = first + np.cumsum([rest // count + (k < rest % count) for k in range(count)])
    return [(0, first)] + [(int(lo), int(hi)) for lo, hi in zip([first, *ends[:-1]], ends, strict=True)]


def lister_of(model) -> Lister:
    """The :class:`Lister` of the fitted ``model`` (built on first use, kept while the fitted state
    is the same)."""
    cached = model.__dict__.get("_lister_cache")
    if cached is None or cached.state is not model.fitted_ or cached.model is not model:
        cached = model.__dict__["_lister_cache"] = Lister(model)
    return cached


def _vote_values(num: np.ndarray, den: np.ndarray, shrinkage: float) -> np.ndarray:
    """``num / (den + shrinkage)``, 0 where nobody voted (:func:`recsys.model.neighbours._votes`)."""
    total = den + shrinkage
    return np.divide(num, total, out=np.zeros(num.shape), where=total > 0)
