"""The co-cluster item model: item–item weights learnt on the pairs of movies that like
co-clusters hold together.

The *support* is every pair of distinct items that share at least one like co-cluster; its
weight ``c_ij`` is the number of co-clusters holding both.  The weights are a ridge regression
per item on that support, over the users × items 0/1 matrix ``X`` of the training likes: for each
target item ``j``, with ``S_j = {i : c_ij > 0}`` and ``G = X'X``,

    ``W[S_j, j] = (G[S_j, S_j] + λ I)^-1 G[S_j, j]``,   ``W[i, j] = 0`` off the support,

the least-squares fit of item ``j``'s column from the columns of the items it shares a co-cluster
with (EASE, Steck 2019, solves the same regression over every other item).  With a penalty per like
``δ`` (``l2_per_like``), an input item ``i``'s penalty is ``λ + δ G[i, i]``: the more liked an item,
the more its weights shrink, as the dropout of an emphasised denoising autoencoder asks (EDLAE,
Steck 2020: ``δ = p / (1 - p)`` for a dropout probability ``p``; EASE's closed form holds with
that diagonal, and ``δ = 0`` is EASE).  A user's score for
item ``j`` is ``sum_i x_ui W[i, j]``: one contribution per item the user liked, each carried by the
named co-clusters that hold both (:mod:`recsys.model.explanation`).  ``W`` is sparse
(O(support)); ``G`` is taken over the items that have a support only, dense up to
``DENSE_GRAM_ITEMS`` of them (or when it may be a quarter full) and sparse beyond.

>>> import numpy as np
>>> from recsys.model.csr import Csr
>>> liked = Csr.from_pairs([0, 0, 1, 1, 2, 2, 3], [0, 1, 0, 1, 1, 2, 2], (4, 3))
>>> cc_items = Csr.from_lists([np.array([0, 1])], 3)  # one co-cluster holding items 0 and 1
>>> support = support_of(cc_items, 3)
>>> support.row(0).tolist(), support.row_values(0).tolist(), support.row(2).tolist()
([1], [1.0], [])
>>> W = item_weights(liked, support, l2=1.0)
>>> round(float(W.lookup([0], [1])[1][0]), 4)  # G[0, 0] = 2, G[0, 1] = 2: w = 2 / (2 + 1)
0.6667
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import cluster
from .csr import Csr
from .dense_inverse import spd_inverse
from .shared import csr_bytes, csr_digest, remembered
from .threads import cores, in_threads

# item catalogues up to this size use one dense Gram matrix (8 × items² bytes: 0.5 GB at 8,000);
# larger ones too when their users' items squared (the products X'X adds up) reach DENSE_GRAM_SHARE
# of its cells and the dense form fits in DENSE_GRAM_BYTES: the kernels' binary searches in nearly
# full rows cost more than the memory saved (at 5 M synthetic ratings, 8,016 movies, 96 % full:
# 37 s of solves against 4 s dense), and a full sparse product is larger than the dense form
DENSE_GRAM_ITEMS = 8_000
DENSE_GRAM_SHARE = 0.25
DENSE_GRAM_BYTES = 4 << 30
# the dense inverse of a catalogue this large or larger is taken in single precision (the item model's
# and EASE's): the Gram matrix of 0/1 likes holds counts, exact in float32 below 2^24 users, and the
# routines take half the time and memory (3,706 movies: 0.33 s against 0.64 s; 11,719: 8.5 s against
# 16.2 s; 18,530: 37.8 s against 76.6 s).  EASE's weights then differ from float64's by 4e-6 of their
# norm (1 M and 10 M ratings, λ 400; every movie's ten largest weights the same but 1 in 10^5).
# Below it the inverse is cheap (2,048 movies: about 0.1 s in double) and small catalogues keep
# double precision; from it a 1 M-rating train at 3,706 movies took 5.4-6.1 s against 6.4-7.2 s.
SINGLE_PRECISION_INVERSE_ITEMS = 2_048
# flops the per-item solves may take (about four seconds on two cores); above it supports are capped
FLOP_BUDGET = 1e11


class SparseGram(NamedTuple):
    """A Gram matrix in CSR arrays (int64 indices, sorted in each row), for the compiled kernels."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray


def support_of(items: Csr, n_items: int) -> Csr:
    """Items × items: how many co-clusters (rows of ``items``, co-clusters × items) hold each pair
    of distinct items — ``M'M`` off its diagonal, compiled, ranges of items on every core (scipy's
    product, its diagonal zeroed and dropped, took 0.4 s at 1 M ratings)."""
    from ._csr_kernels import pair_counts

    by_item = items.transpose()  # items × co-clusters
    # ranges of about equal work: an item's products are the sizes of its co-clusters
    sizes = np.repeat(items.lengths, items.lengths).astype(np.float64)
    work = np.cumsum(np.bincount(items.idx, weights=sizes, minlength=n_items))
    ranges = equal_work_ranges(work, 8 * cores())
    args = (*by_item._int64_rows, *items._int64_rows, np.int64(n_items))
    parts = list(in_threads(lambda r: pair_counts(*args, *r), ranges))
    if not parts:
        return Csr(np.zeros(n_items + 1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0), (n_items, n_items))
    lengths, idx, counts = (np.concatenate([part[k] for part in parts]) for k in range(3))
    return Csr(np.r_[0, np.cumsum(lengths)].astype(np.int64), idx, counts, (n_items, n_items))


def equal_work_ranges(work: np.ndarray, pieces: int) -> list[tuple[int, int]]:
    """About ``pieces`` ranges ``(lo, hi)`` covering ``0..len(work)-1``, each of about equal work
    (``work``: the rows' work, cumulated), none empty."""
    n = len(work)
    cuts = np.searchsorted(work, work[-1] * np.arange(1, pieces) / pieces) if n else []
    edges = np.unique(np.r_[0, cuts, n]).astype(int)
    return list(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True))


def random_support(support: Csr, seed: int) -> Csr:
    """A control: for every item as many partners as ``support`` gives it, drawn at random among the
    other items (seeded) — the co-clusters' choice of pairs replaced by chance, the size kept."""
    rng = np.random.default_rng(seed)
    n = support.n_rows
    rows = []
    for j in range(n):
        k = min(int(support.lengths[j]), n - 1)
        others = rng.choice(n - 1, size=k, replace=False)
        rows.append(np.sort(others + (others >= j)))  # skip j itself
    lists = Csr.from_lists(rows, n)
    return lists.with_values(np.ones(lists.nnz))


class EaseOnSupport(NamedTuple):
    """:func:`ease_on_support`'s weights, the pairs the per-item solves would have used, and what
    its ``meanwhile`` gave."""

    weights: Csr
    capped: Csr
    meanwhile: object = None


def ease_on_support(
    liked: Csr,
    support: Csr,
    l2: float,
    symmetric: bool = False,
    budget: float = FLOP_BUDGET,
    max_partners: int | None = None,
    meanwhile=None,
    capped: bool = True,
    l2_per_like: float = 0.0,
) -> EaseOnSupport:
    """EASE's weights (one dense inverse over the items with a support: :func:`.dense_inverse.spd_inverse`),
    kept on the ``support``'s pairs: ``W[i, j] = -P[i, j] / P[j, j]`` with ``P = (G + λI)^-1`` on the
    support, 0 off it.  Each weight is the one the regression of ``j`` on every other item gives,
    and no partner is cut; items² memory and ``n³`` flops (the scaling rules take it where those
    flops are at most :data:`~recsys.model.settings.DENSE_INVERSE_FLOPS_PER_RATING` a rating).  A
    ``symmetric`` support (the co-clusters' pairs: ``M'M``) is the weights' own pattern, read as they
    are stored.

    Also gives, from the same Gram matrix, the pairs :func:`item_weights` would solve on (``support``
    capped by ``budget`` and ``max_partners``, :func:`capped_support`; rows the items scored, as the
    support's; empty when ``capped`` is false and no ``meanwhile`` reads them), for the residual
    model to keep its per-item solves on.  ``meanwhile(capped)``, when given, runs while the inverse
    is computed on one BLAS thread beside it (the inverse releases the GIL; one thread: its floats
    then depend on nothing ``meanwhile`` does), and its result is the ``meanwhile`` field.  Within
    :func:`~recsys.model.shared.shared_fits`, the same inputs are solved once (``meanwhile`` then runs
    on its own).  ``l2_per_like``: the penalty per like of an input item (module docstring)."""
    ran: list = []
    capped = capped or meanwhile is not None
    result = remembered(
        lambda: (
            "ease_on_support",
            csr_digest(liked),
            csr_digest(support),
            float(l2),
            symmetric,
            budget,
            max_partners,
            capped,
            float(l2_per_like),
        ),
        lambda: _ease_on_support(
            liked, support, (l2, l2_per_like), symmetric, budget, max_partners, meanwhile, ran, capped
        ),
        lambda result: csr_bytes(result.weights) + csr_bytes(result.capped),
    )
    if meanwhile is None:
        return result
    return result._replace(meanwhile=ran[0] if ran else meanwhile(result.capped))


def _ease_on_support(
    liked: Csr,
    support: Csr,
    penalty: tuple[float, float],
    symmetric: bool,
    budget: float,
    max_partners: int | None,
    meanwhile,
    ran: list,
    wanted: bool,
) -> EaseOnSupport:
    n = support.n_rows
    active = active_items(support)
    if not len(active):
        return EaseOnSupport(_no_pairs(n), _no_pairs(n))
    local = _restrict(support, active)
    X = liked.to_scipy().tocsc().astype(np.float64)[:, active]
    G = _dense_gram(X, inverse_dtype(X, binary=liked.values is None))
    capped = _no_pairs(n)  # unless wanted: an implicit model has no residual model to read them (0.1 s at 1 M)
    if wanted:
        capped = capped_support(local, G, budget, max_partners)
        capped = _globalised(capped.with_values(np.ones(capped.nnz)), active, n)
    penalise(G, *penalty)
    if meanwhile is None:
        P = spd_inverse(G)  # in G's memory, symmetric
    else:
        from threadpoolctl import threadpool_limits

        # BLAS's pool size is the process's, not a thread's: one thread for both sides throughout
        # (each side's own limit then saves and restores one), so that neither changes the other's
        with threadpool_limits(1, "blas"):
            P = _beside(lambda: spd_inverse(G, threads=1), lambda: ran.append(meanwhile(capped)))
    # the weights' rows are the items liked, their columns the items scored (as item_weights
    # gives them): a symmetric support's rows already are; another's rows are the targets
    stored = _globalised(local.with_values(_weights_of_inverse(P, local, symmetric)), active, n)
    weights = stored if symmetric else stored.transpose()
    return EaseOnSupport(weights, capped)


def _weights_of_inverse(P: np.ndarray, local: Csr, symmetric: bool) -> np.ndarray:
    """EASE's weight ``-P[i, j] / P[j, j]`` at every entry of ``local`` (``j``: the column of a
    ``symmetric`` support, the row of another), compiled, in ranges of rows on every core."""
    from ._gram_kernels import weights_of_inverse
    from ._pair_kernels import run_ranges

    values = np.empty(local.nnz)
    ranges = equal_work_ranges(local.ptr[1:].astype(np.float64), 4 * cores())
    run_ranges(weights_of_inverse, ranges, P, local.ptr, local.idx, symmetric, values)
    return values


def _no_pairs(n: int) -> Csr:
    return Csr(np.zeros(n + 1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0), (n, n))


def _beside(first, second):
    """``first()`` on a thread of its own while this one runs ``second()``; ``first``'s result (its
    error, if it raised, once ``second`` is done)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="recsys-inverse") as pool:
        future = pool.submit(first)
        second()
        return future.result()


def _globalised(local: Csr, active: np.ndarray, n: int) -> Csr:
    """A :func:`_restrict`-ed table back in every item's numbering (``active`` is increasing: each
    row's entries stay sorted)."""
    lengths = np.zeros(n, dtype=np.int64)
    lengths[active] = local.lengths
    return Csr(np.r_[0, np.cumsum(lengths)].astype(np.int64), active[local.idx], local.values, (n, n))


def active_items(support: Csr) -> np.ndarray:
    """The items with a support (a row or a column of it): the only ones that enter a solve (flags
    over the items, not a unique of the support's millions of entries: 0.14 s at 1 M ratings)."""
    n = support.n_rows
    return np.flatnonzero((support.lengths > 0) | (np.bincount(support.idx, minlength=n) > 0)).astype(np.int64)


def full_weights(liked: Csr, l2: float, l2_per_like: float = 0.0) -> Csr:
    """A control: the weights on every pair of items (:func:`ease_weights`, the per-item ridge
    over every other item), in double precision whatever the catalogue, as the evaluations' EASE
    (their stored results, ml-latest-small's 9,700 movies among them, were measured in it)."""
    return _dense_to_csr(ease_weights(liked.to_scipy(), l2, np.float64, l2_per_like))


def ease_weights(X, l2: float, dtype=None, l2_per_like: float = 0.0) -> np.ndarray:
    """EASE's closed form (Steck 2019) on a scipy sparse users × items ``X``: the dense items ×
    items ``W = I - P / diag(P)``, ``P = (X'X + Λ)^-1``, zero diagonal, negative weights kept;
    items² memory, one such array (``P`` and ``W`` are made in the Gram matrix's memory), in
    ``dtype`` (default: the precision the item model's inverse takes, :func:`inverse_dtype`).
    ``Λ = λI`` is EASE's; with ``l2_per_like`` ``δ``, ``Λ = λI + δ diag(X'X)`` is the emphasised
    denoising autoencoder's (EDLAE, Steck 2020; :func:`penalise`)."""
    X = X.astype(np.float64)
    if dtype is None:
        dtype = inverse_dtype(X, binary=bool(X.nnz == 0 or np.all(X.data == 1.0)))
    G = _dense_gram(X, dtype)
    penalise(G, l2, l2_per_like)
    W = spd_inverse(G)
    W /= -np.diag(W).copy()
    np.fill_diagonal(W, 0.0)
    return W


def penalise(G: np.ndarray, l2: float, l2_per_like: float = 0.0) -> None:
    """Add the item model's penalty to the dense Gram matrix ``G``'s diagonal, in place:
    ``G[i, i] += λ + δ G[i, i]`` (module docstring)."""
    _scale_diagonal(G, 1.0 + l2_per_like)
    G[np.diag_indices_from(G)] += l2


def inverse_dtype(X, binary: bool):
    """The precision of the dense inverse over the columns of the users × items ``X``: float32 for
    a catalogue of :data:`SINGLE_PRECISION_INVERSE_ITEMS` items or more whose Gram matrix holds
    exact counts in it (``binary``: 0/1 values, fewer than 2^24 users), float64 otherwise."""
    single = _counts_exact_in_float32(X, binary) and X.shape[1] >= SINGLE_PRECISION_INVERSE_ITEMS
    return np.float32 if single else np.float64


def _counts_exact_in_float32(X, binary: bool) -> bool:
    """Whether ``X'X`` of the users × items ``X`` holds counts float32 keeps exactly: 0/1 values
    (``binary``) and fewer than 2^24 users."""
    return binary and X.shape[0] < 2**24


def _dense_to_csr(W: np.ndarray) -> Csr:
    """``W``'s nonzero entries as a :class:`Csr` (compiled, two passes over ``W``: the output and
    ``W`` are the only items²-sized arrays; numpy's ``nonzero`` and gathers took 13 s at 9,700
    movies, a quarter of the full-support control's fit)."""
    from ._csr_kernels import dense_nonzeros

    ptr, idx, values = dense_nonzeros(np.ascontiguousarray(W))
    return Csr(ptr, idx, values, W.shape)


def item_weights(
    liked: Csr,
    support: Csr,
    l2: float,
    threads: int | None = None,
    budget: float = FLOP_BUDGET,
    max_partners: int | None = None,
    done=None,
    l2_per_like: float = 0.0,
) -> Csr:
    """The ridge weights ``W`` (items × items; row: the item liked, column: the item scored) of
    every item's column on the columns of its support (module docstring); ``liked`` may carry
    values (the rating residuals, say) instead of ones.  The per-item solves run on ``threads``
    threads (default: every core), each with one BLAS thread.  An item's solve costs the cube of
    its support: when they would exceed ``budget`` flops, or an item has more than
    ``max_partners``, each item keeps the partners it is most liked with (see
    :func:`capped_support`).  ``done(share)`` is told as the solves complete (the share of their
    flops).  The weights' pattern is the support solved on: ``W.transpose()`` gives it back.
    ``l2_per_like``: the penalty per like of an input item (module docstring).  Within
    :func:`~recsys.model.shared.shared_fits`, the same inputs are solved once."""
    key = (float(l2), float(budget), max_partners, float(l2_per_like))
    return remembered(
        lambda: ("item_weights", csr_digest(liked), csr_digest(support), *key),
        lambda: _item_weights(liked, support, (l2, l2_per_like), threads, budget, max_partners, done),
        csr_bytes,
    )


def _item_weights(liked: Csr, support: Csr, penalty, threads, budget: float, max_partners, done) -> Csr:
    from threadpoolctl import threadpool_limits

    n = support.n_rows
    active = active_items(support)  # G is taken over them alone (local indices)
    X = liked.to_scipy().tocsc().astype(np.float64)[:, active]
    # 0/1 likes: G holds counts of users, exact in float32 (below 2^24), whose gathers then read
    # half the memory (the solves' systems are memory bound on large catalogues)
    G = gram(X, np.float32 if _counts_exact_in_float32(X, liked.values is None) else np.float64)
    support = capped_support(_restrict(support, active), G, budget, max_partners)
    if threads is None:
        threads = cores()
    # chunks of similar cost (a solve costs |S|^3), a few per thread so that none waits long
    cost = np.cumsum(support.lengths.astype(np.float64) ** 3 + 1.0)
    if done is not None:
        done(0.0)
    l2, l2_per_like = penalty
    _scale_diagonal(G, 1.0 + l2_per_like)  # each solve then adds λ: λ + δ G[i, i]
    kernel, args = _solver(G, support, l2)
    with threadpool_limits(1, "blas"):
        bounds = equal_work_ranges(cost, 4 * threads)
        for _, hi in cluster.run_ranges(kernel, bounds, *args, outputs=(len(args) - 1,), workers=threads):
            if done is not None:
                done(cost[hi - 1] / cost[-1])
    weights = args[-1]
    return Csr.from_pairs(active[support.idx], active[support.row_of], (n, n), weights)


def _scale_diagonal(G, factor: float) -> None:
    """``G``'s diagonal times ``factor``, in place (a dense array or a :class:`SparseGram`)."""
    if factor == 1.0:
        return
    if isinstance(G, np.ndarray):
        G[np.diag_indices_from(G)] *= factor
        return
    rows = np.repeat(np.arange(len(G.indptr) - 1), np.diff(G.indptr))
    G.data[G.indices == rows] *= factor


def gram(X, dtype=np.float64):
    """``X'X`` of a scipy sparse matrix: a dense array of ``dtype`` (see ``DENSE_GRAM_ITEMS``) or a
    :class:`SparseGram` (float64), whose entries the kernels find by binary search in each row.
    Dense, it is accumulated by a compiled kernel on every core (the floats of the sparse product)."""
    m = X.shape[1]
    # the products X'X adds up (a user's items squared) bound its non-zero cells: a matrix that
    # may be a quarter full is accumulated densely at once (scipy's product, one thread, then its
    # dense copy took 17-20 s of a 10 M-rating fit's item model, the kernel ~2 s)
    products = float((X.getnnz(axis=1).astype(np.float64) ** 2).sum())
    if m <= DENSE_GRAM_ITEMS or (products >= DENSE_GRAM_SHARE * m * m and 8 * m * m <= DENSE_GRAM_BYTES):
        return _dense_gram(X, dtype)
    G = (X.T @ X).tocsr()
    G.sort_indices()
    return SparseGram(G.indptr.astype(np.int64), G.indices.astype(np.int64), G.data.astype(np.float64))


def _dense_gram(X, dtype=np.float64) -> np.ndarray:
    """``X'X`` as a dense array of ``dtype``: its lower triangle in ranges of rows on every core
    (:func:`_gram_kernels.dense_gram_rows`: half the products), then copied up
    (:func:`_gram_kernels.mirror_lower`); the floats of scipy's sparse product."""
    from ._gram_kernels import dense_gram_rows, mirror_lower
    from ._pair_kernels import run_ranges

    rows, cols = X.tocsr(), X.tocsc()
    rows.sort_indices()
    cols.sort_indices()
    m = X.shape[1]
    G = np.zeros((m, m), dtype=dtype)
    by_row = (rows.indptr.astype(np.int64), rows.indices.astype(np.int64), rows.data.astype(np.float64))
    by_col = (cols.indptr.astype(np.int64), cols.indices.astype(np.int64), cols.data.astype(np.float64))
    # ranges of rows of about equal work: row a's is, over the users holding item a, how many of
    # their items are at most a — an entry's rank in its user's sorted row
    rank = np.arange(1, rows.nnz + 1, dtype=np.float64) - np.repeat(by_row[0][:-1], np.diff(by_row[0]))
    work = np.cumsum(np.bincount(by_row[1], weights=rank, minlength=m))
    run_ranges(dense_gram_rows, equal_work_ranges(work, 4 * cores()), *by_col, *by_row, G)
    run_ranges(mirror_lower, equal_work_ranges(np.cumsum(np.arange(m, 0, -1, dtype=np.float64)), 4 * cores()), G)
    return G


def _restrict(support: Csr, active: np.ndarray) -> Csr:
    """``support`` on the ``active`` items alone (increasing, every row with entries among them),
    renumbered ``0..len(active)-1`` in their order: the entries stay where they are, their columns
    renamed (no gather of the entries by row: 14 ms against 67 at 4.4 M pairs)."""
    local = np.full(support.n_rows, -1, dtype=np.int64)
    local[active] = np.arange(len(active))
    ptr = np.zeros(len(active) + 1, dtype=np.int64)
    np.cumsum(support.lengths[active], out=ptr[1:])
    assert ptr[-1] == support.nnz, "every row with entries is active"
    return Csr(ptr, local[support.idx], support.values, (len(active), len(active)))


def capped_support(support: Csr, G, budget: float = FLOP_BUDGET, max_partners: int | None = None) -> Csr:
    """``support`` with at most ``K`` partners per item, ``K`` the largest cap whose solves fit in
    ``budget`` flops (``sum_j min(|S_j|, K)^3 / 3``), and at most ``max_partners``; an item over
    the cap keeps the partners it shares the most likes with (``G[i, j]``, ties by index).
    Unchanged when the whole support fits.

    On catalogues with hub movies (ml-latest-small: supports up to 4,000 movies) the exact solves
    would take thousands of times longer than the rest of training; on MovieLens 100K the support
    fits (68 GFlop) and nothing is cut."""
    from ._gram_kernels import gram_entries, keep_top
    from ._pair_kernels import run_in_ranges

    sizes = support.lengths.astype(np.float64)
    cap = int(sizes.max()) if support.n_rows else 0
    if (sizes**3).sum() / 3 > budget:
        lo, hi = 1, cap
        while lo < hi:  # the largest cap within the budget
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if (np.minimum(sizes, mid) ** 3).sum() / 3 <= budget else (lo, mid - 1)
        cap = lo
    if max_partners is not None:
        cap = min(cap, int(max_partners))
    if not support.n_rows or sizes.max() <= cap:
        return support
    # every entry's co-likes, then per item the ``cap`` largest (ties by partner index); G is
    # symmetric, so G[j, i] is read for G[i, j] along the rows of the items j in turn (a gather
    # across the columns took 0.31 s for 4.4 M pairs at 1 M ratings, along the rows a sixth of it)
    if isinstance(G, np.ndarray):
        colike = G[support.row_of, support.idx]
    else:
        colike = gram_entries(G.indptr, G.indices, G.data, support.row_of, support.idx)
    keep = np.zeros(support.nnz, dtype=bool)
    run_in_ranges(keep_top, support.n_rows, support.ptr, colike, int(cap), keep, size=256)
    capped = support.select(keep)
    return capped.with_values(np.ones(capped.nnz))


def _solver(G, support: Csr, l2: float) -> tuple:
    """``(kernel, args)``: ``kernel(*args, lo, hi)`` writes the weights of target items ``lo..hi-1``
    into ``args[-1]`` at their support's entries (compiled, without the GIL: threads solve in
    parallel; on a cluster, each task its ranges)."""
    from ._gram_kernels import solve_dense_rows, solve_sparse_rows

    weights = np.zeros(support.nnz)
    ptr, idx = support._int64_rows
    if isinstance(G, np.ndarray):
        return solve_dense_rows, (np.ascontiguousarray(G), ptr, idx, float(l2), weights)
    return solve_sparse_rows, (G.indptr, G.indices, G.data, ptr, idx, float(l2), weights)


def scores(W: Csr, liked_items: np.ndarray) -> np.ndarray:
    """Every item's score for a user who liked ``liked_items`` (indices): the sum of their rows of ``W``."""
    liked_items = np.asarray(liked_items, dtype=np.int64)
    # times 1.0: the same floats as the unweighted sum
    return weighted_scores(W, liked_items, np.ones(len(liked_items)))


def weighted_scores(W: Csr, items: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Every item's score from ``items`` with ``values``: the ``values``-weighted sum of their rows of ``W``
    (compiled: a list reads one a person)."""
    from ._person_kernels import row_sums

    items = np.asarray(items, dtype=np.int64)
    return row_sums(W.ptr, W.idx, W.values, items, np.asarray(values, dtype=np.float64), W.shape[1])
