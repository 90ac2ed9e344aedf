"""Neighbourhoods defined by co-clusters, and the votes of neighbours on a (user, item) pair.

Two users are close when they belong to the same co-clusters, two items when the same
co-clusters hold them.  Each entity is a vector over co-clusters with entries
``sqrt(w_c)`` where it belongs to co-cluster ``c``, ``w_c = 1 / sqrt(size of c)`` (a small,
selective co-cluster says more than a large one); the similarity is the cosine of these vectors,

    ``s(a, b) = sum_c w_c [a in c][b in c] / (n_a n_b)``,  ``n_a = sqrt(sum_c w_c [a in c])``,

which is a sum over the shared co-clusters: :mod:`recsys.model.explanation` splits every vote into the
co-clusters that carry it.  Each entity keeps its ``n_neighbours`` most similar others.

A vote on pair ``(u, i)`` walks the anchor's neighbours in decreasing similarity, keeps the first
``k`` that have a value for the pair (a neighbour user who rated ``i``; a neighbour item that
``u`` rated) and returns ``sum s * value / (sum s + shrinkage)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import cluster
from .csr import Csr
from .threads import cores

# Pairs × neighbour entries expanded at once by :func:`votes`: bounds its working memory.
_ENTRIES_PER_CHUNK = 4_000_000
# Up to this many entities, similarities are taken as dense blocks of rows × every entity (BLAS,
# fastest on small data); above it, as sparse rows whose entries are the co-members alone, so that
# the work and memory grow with the co-memberships, never with entities².
DENSE_SIMILARITY_ENTITIES = 16_384


@dataclass(frozen=True, eq=False)
class Neighbours:
    """Each row's most similar others, in decreasing similarity."""

    ptr: np.ndarray
    idx: np.ndarray
    sim: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.ptr) - 1

    def of(self, a: int) -> tuple[np.ndarray, np.ndarray]:
        return self.idx[self.ptr[a] : self.ptr[a + 1]], self.sim[self.ptr[a] : self.ptr[a + 1]]

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        idx = self.idx.astype(np.int32) if self.n_rows < 2**31 else self.idx
        return {f"{prefix}.ptr": self.ptr, f"{prefix}.idx": idx, f"{prefix}.sim": self.sim}

    @classmethod
    def empty(cls, n_rows: int) -> Neighbours:
        """No neighbours for any of ``n_rows`` entities."""
        return cls(np.zeros(n_rows + 1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0))

    @classmethod
    def from_arrays(cls, arrays, prefix: str, n_rows: int) -> Neighbours:
        nb = cls(
            np.asarray(arrays[f"{prefix}.ptr"], dtype=np.int64),
            np.asarray(arrays[f"{prefix}.idx"], dtype=np.int64),
            np.asarray(arrays[f"{prefix}.sim"], dtype=np.float64),
        )
        if len(nb.ptr) != n_rows + 1 or nb.ptr[-1] != len(nb.idx) or len(nb.sim) != len(nb.idx):
            raise ValueError(f"inconsistent neighbour arrays {prefix}")
        if len(nb.idx) and (nb.idx.min() < 0 or nb.idx.max() >= n_rows):
            raise ValueError(f"neighbour index out of range in {prefix}")
        return nb


def cocluster_weights(sizes: np.ndarray) -> np.ndarray:
    """``w_c = 1 / sqrt(size)``: the weight of a co-cluster in the similarities."""
    return 1.0 / np.sqrt(np.maximum(np.asarray(sizes, dtype=np.float64), 1.0))


def membership_norms(members: Csr, n_entities: int) -> np.ndarray:
    """``n_a = sqrt(sum_c w_c [a in c])`` for every entity ``a``; ``members`` is co-clusters × entities."""
    w = cocluster_weights(members.lengths)
    return np.sqrt(np.bincount(members.idx, weights=np.repeat(w, members.lengths), minlength=n_entities))


def from_coclusters(
    members: Csr,
    n_entities: int,
    n_neighbours: int,
    block: int = 512,
    done=None,
    sparse_up_to: float | None = None,
    budget: int = 0,
) -> Neighbours:
    """The ``n_neighbours`` most similar entities of each entity, from co-clusters × entities
    ``members``; ``done(share)`` is told as blocks of entities complete.

    ``sparse_up_to``: the similarities are taken from each entity's co-members alone (the
    compiled path of large data) whenever the co-memberships' products (``sum_c |c|²``, the terms
    the sums add) are at most this many times ``n_entities²`` (the dense path's rows), whatever the
    entity count.  Without it, by the entity count alone (:data:`DENSE_SIMILARITY_ENTITIES`).  The
    two paths give the same similarities; where several entities tie at the ``n_neighbours``-th,
    the sparse path keeps the smaller indices, the dense one numpy's partition's choice.

    ``budget`` (> 0; the sparse path): the co-members an entity's similarities read at most — its
    smallest co-clusters first (:func:`recsys.model._neighbour_kernels.top_k_similar`), so that
    the work is at most ``budget`` a row whatever the co-clusters' sizes."""
    import scipy.sparse as sp

    w = cocluster_weights(members.lengths)
    norms = membership_norms(members, n_entities)
    # entities × co-clusters, scaled so that A @ A.T is the weighted co-membership
    A = sp.csr_matrix(
        (np.repeat(np.sqrt(w), members.lengths), (members.idx, members.row_of)), shape=(n_entities, members.n_rows)
    ).tocsr()
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    sparse = None
    if sparse_up_to is not None:
        sparse = float((members.lengths.astype(np.float64) ** 2).sum()) <= sparse_up_to * float(n_entities) ** 2
    return _top_similar(A, A.T.tocsr(), inv, n_neighbours, block, done, sparse, budget)


def _top_similar(
    A, At, inv: np.ndarray, n_neighbours: int, block: int, done=None, sparse=None, budget: int = 0
) -> Neighbours:
    """Each row's ``n_neighbours`` largest positive ``(A A^T)[a, b] inv[a] inv[b]``, decreasing
    (ties by index); from the co-members alone when ``sparse`` (None: above
    :data:`DENSE_SIMILARITY_ENTITIES` rows)."""
    if done is not None:
        done(0.0)
    if sparse or (sparse is None and A.shape[0] > DENSE_SIMILARITY_ENTITIES):
        return _top_similar_sparse(A, At, inv, n_neighbours, block, done, budget)
    n_entities = A.shape[0]
    k = min(n_neighbours, n_entities - 1)
    # blocks on every core (the sparse product, the partition and the sort release the GIL), one
    # ahead per core: a block's dense rows are block × entities
    starts = range(0, n_entities, block)
    idxs, sims, lengths = [], [], []
    blocks = cluster.map_ordered(_similar_block, starts, A, At, inv, k, block, window=cores(), first_alone=False)
    for lo, (top, top_sim, n) in zip(starts, blocks, strict=True):
        idxs.append(top)
        sims.append(top_sim)
        lengths.append(n)
        if done is not None:
            done(min(n_entities, lo + block) / n_entities)
    ptr = np.zeros(n_entities + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=ptr[1:])
    idx = np.concatenate(idxs) if idxs else np.zeros(0, dtype=np.int64)
    sim = np.concatenate(sims) if sims else np.zeros(0)
    return Neighbours(ptr, idx.astype(np.int64), sim.astype(np.float64))


def _similar_block(A, At, inv: np.ndarray, k: int, block: int, lo: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``lo..lo+block-1`` of :func:`_top_similar`: each one's ``k`` most similar rows (index,
    similarity; decreasing, ties by index, positive only) and how many."""
    n_entities = A.shape[0]
    hi = min(n_entities, lo + block)
    S = (A[lo:hi] @ At).toarray() * inv[lo:hi, None] * inv[None, :]
    S[np.arange(hi - lo), np.arange(lo, hi)] = 0.0  # nobody is their own neighbour
    top = np.argpartition(-S, k - 1, axis=1)[:, :k] if k > 0 else np.zeros((hi - lo, 0), dtype=np.int64)
    top_sim = np.take_along_axis(S, top, axis=1)
    # decreasing similarity, ties by index: deterministic
    order = np.lexsort((top, -top_sim), axis=1) if top.size else top
    top = np.take_along_axis(top, order, axis=1)
    top_sim = np.take_along_axis(top_sim, order, axis=1)
    keep = top_sim > 0
    return top[keep], top_sim[keep], keep.sum(axis=1)


def _sparse_block(a: tuple, t: tuple, inv: np.ndarray, n_neighbours: int, block: int, budget: int, lo: int):
    """Rows ``lo..lo+block-1`` of :func:`_top_similar_sparse` (compiled)."""
    from ._neighbour_kernels import top_k_similar

    n_entities = len(a[0]) - 1
    return top_k_similar(*a, *t, inv, lo, min(n_entities, lo + block), n_neighbours, budget)


def _top_similar_sparse(
    A, At, inv: np.ndarray, n_neighbours: int, block: int, done=None, budget: int = 0
) -> Neighbours:
    """:func:`_top_similar` from the co-members of each row alone (a compiled sparse product and
    top-k per row), blocks of rows on every core."""
    n_entities = A.shape[0]
    a = (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data.astype(np.float64))
    t = (At.indptr.astype(np.int64), At.indices.astype(np.int64), At.data.astype(np.float64))
    inv = np.ascontiguousarray(inv, dtype=np.float64)
    starts = range(0, n_entities, block)
    parts = []
    for lo, part in zip(starts, cluster.map_ordered(_sparse_block, starts, a, t, inv, n_neighbours, block, budget)):
        parts.append(part)  # in order of rows
        if done is not None:
            done(min(n_entities, lo + block) / n_entities)
    if not parts:
        return Neighbours(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0))
    lengths, idxs, sims = zip(*parts)
    ptr = np.r_[0, np.cumsum(np.concatenate(lengths))].astype(np.int64)
    return Neighbours(ptr, np.concatenate(idxs), np.concatenate(sims).astype(np.float64))


def from_ratings(table: Csr, n_neighbours: int, block: int = 512) -> Neighbours:
    """The ``n_neighbours`` most cosine-similar rows of ``table`` (e.g. users' +1/-1 rating
    vectors): the plain co-rating neighbourhood, a control for the co-cluster one."""
    A = table.to_scipy().tocsr()
    norms = np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return _top_similar(A, A.T.tocsr(), inv, n_neighbours, block)


@dataclass
class Votes:
    """Per pair: ``value`` (the vote), ``weight`` (sum of the similarities used), ``count`` (neighbours used)."""

    value: np.ndarray
    weight: np.ndarray
    count: np.ndarray


def _votes(num: np.ndarray, den: np.ndarray, cnt: np.ndarray, shrinkage: float) -> Votes:
    """``num / (den + shrinkage)``; 0 for a pair no neighbour voted on when ``shrinkage`` is 0."""
    total = den + shrinkage
    return Votes(np.divide(num, total, out=np.zeros(len(num)), where=total > 0), den, cnt)


def votes(
    nb: Neighbours,
    anchor: np.ndarray,
    other: np.ndarray,
    table: Csr,
    anchor_is_row: bool,
    k: int,
    shrinkage: float,
    detail: bool = False,
):
    """Votes of the neighbours of ``anchor[t]`` on pair ``t``.

    ``table`` holds the values (e.g. rating residuals); a neighbour ``n`` of the anchor has a value
    at ``table[n, other[t]]`` when ``anchor_is_row``, else at ``table[other[t], n]``.
    With ``detail``, also returns ``(pair, neighbour, similarity, value)`` of every neighbour used.
    """
    anchor = np.asarray(anchor, dtype=np.int64)
    other = np.asarray(other, dtype=np.int64)
    if not detail:  # compiled: each pair stops at its k-th neighbour with a value, the same sums
        from ._pair_kernels import votes_of_pairs

        return _votes(*votes_of_pairs(nb, anchor, other, table, anchor_is_row, k), shrinkage)
    n_pairs = len(anchor)
    num = np.zeros(n_pairs)
    den = np.zeros(n_pairs)
    cnt = np.zeros(n_pairs, dtype=np.int64)
    used = []
    lengths = nb.ptr[anchor + 1] - nb.ptr[anchor]
    # chunks of pairs with a bounded number of neighbour entries
    bounds = np.searchsorted(np.cumsum(lengths), np.arange(_ENTRIES_PER_CHUNK, lengths.sum() + 1, _ENTRIES_PER_CHUNK))
    for lo, hi in zip(np.r_[0, bounds + 1], np.r_[bounds + 1, n_pairs]):
        if hi <= lo:
            continue
        a, o = anchor[lo:hi], other[lo:hi]
        ln = lengths[lo:hi]
        pair = np.repeat(np.arange(hi - lo, dtype=np.int64), ln)
        pos = np.arange(ln.sum(), dtype=np.int64) - np.repeat(np.cumsum(ln) - ln - nb.ptr[a], ln)
        n, s = nb.idx[pos], nb.sim[pos]
        rows, cols = (n, o[pair]) if anchor_is_row else (o[pair], n)
        found, val = table.lookup(rows, cols)
        pair, n, s, val = pair[found], n[found], s[found], val[found]
        # neighbours come in decreasing similarity within each pair: keep each pair's first k
        counts = np.bincount(pair, minlength=hi - lo)
        start = (np.cumsum(counts) - counts)[pair]
        keep = (np.arange(len(pair)) - start) < k
        pair, n, s, val = pair[keep], n[keep], s[keep], val[keep]
        num[lo:hi] = np.bincount(pair, s * val, minlength=hi - lo)
        den[lo:hi] = np.bincount(pair, s, minlength=hi - lo)
        cnt[lo:hi] = np.bincount(pair, minlength=hi - lo)
        if detail:
            used.append((pair + lo, n, s, val))
    out = _votes(num, den, cnt, shrinkage)
    if not detail:
        return out
    cat = [np.concatenate([u[j] for u in used]) if used else np.zeros(0) for j in range(4)]
    return out, tuple(cat)


def person_votes(person: Neighbours, items: np.ndarray, table: Csr, k: int, shrinkage: float) -> Votes:
    """Votes of one person's neighbours (row 0 of ``person``: rows of ``table``) on each of
    ``items``: ``votes(person, zeros, items, table, True, k, shrinkage)``, the same floats, without
    a look-up per (neighbour, item) (:mod:`recsys.model._person_kernels`)."""
    from ._person_kernels import votes_of_neighbours

    nbrs, sims = person.of(0)
    vals = np.ones(table.nnz) if table.values is None else table.values
    items = np.asarray(items, dtype=np.int64)
    num, den, cnt = votes_of_neighbours(nbrs, sims, table.ptr, table.idx, vals, table.shape[1], items, k)
    return _votes(num, den, cnt, shrinkage)


def votes_on_person(nb: Neighbours, items: np.ndarray, person: Csr, k: int, shrinkage: float) -> Votes:
    """Votes of each item's neighbours (rows of ``nb``) that one person rated (row 0 of ``person``,
    items × their values): ``votes(nb, items, zeros, person, False, k, shrinkage)``, the same floats."""
    from ._person_kernels import votes_on_values

    rated = np.zeros(person.shape[1], dtype=np.int64)  # 0 or 1 (first_k_votes adds them)
    values = np.zeros(person.shape[1])
    mine = person.row(0)
    rated[mine] = 1
    values[mine] = person.row_values(0)
    num, den, cnt = votes_on_values(nb.ptr, nb.idx, nb.sim, np.asarray(items, dtype=np.int64), values, rated, k)
    return _votes(num, den, cnt, shrinkage)
