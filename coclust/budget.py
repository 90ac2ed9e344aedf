"""The work budget: co-clusters bounded by a multiple of the relation's size, whatever its structure.

On most relations the concepts of step 4 relax into co-clusters holding a few memberships per
one of the relation (MovieLens 100K's like relation: 4 object memberships per one).  Where a few
features are held by nearly every object — a movie rated by 98 % of the users — the regions
overlap in a dense core, step 4 finds hundreds of thousands of concepts, and relaxing them on the
whole relation gives co-clusters holding 50 memberships per one: the relaxation's work (about the
memberships it writes times an object's degree), the merge and every consumer of the co-clusters
then grow with the core's density, not with the data.

With ``HBLCoClust(budget=b)`` the relaxed co-clusters hold at most ``b × nnz(X)`` memberships
(objects plus features).  Which concepts are kept is decided fairly, in *levels*:

1. every object and every feature ranks the concepts it belongs to (in step 4's extent and
   intent), the most selective first: fewest objects, then fewest features, then the order found;
2. a concept's *level* is the smallest cap ``K`` such that it is among the first ``K`` of one of
   its objects and of one of its features (``K`` concepts per object and per feature keep it);
3. the concepts are relaxed in increasing level, in waves, and the co-clusters of the levels whose
   cumulative memberships stay within the budget are kept — the largest per-entity cap that fits.

A budget that does not bind changes nothing: every concept is relaxed, the same co-clusters come
out in the same order.  The relaxation's work then follows the budget: about ``b × nnz`` times an
object's mean degree.

>>> import numpy as np
>>> from coclust.blocks import Blocks
>>> concepts = Blocks.from_lists([[0, 1, 2], [0, 1], [2, 3]], [[0, 1], [0, 1, 2], [3, 4]])
>>> admission_levels(concepts, 4, 5).tolist()  # concept 1 (2 objects) is first for objects 0 and 1
[1, 0, 0]
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from .blocks import Blocks

# Relaxation grows a concept's memberships (about 4 × on dense relations): the first wave assumes
# that much, later ones the growth seen.  A wave relaxes at least MIN_WAVE concepts (a few chunks
# on every thread).
FIRST_GROWTH = 4.0
MIN_WAVE = 4096


@numba.njit(cache=True)
def _first_ranks(ptr, idx, order, n_entities):
    """For each block, the smallest rank it has among its entities' blocks, blocks visiting in
    ``order`` (rank: how many earlier blocks hold the entity)."""
    seen = np.zeros(n_entities, dtype=np.int64)
    best = np.empty(ptr.shape[0] - 1, dtype=np.int64)
    for c in order:
        low = np.iinfo(np.int64).max
        for p in range(ptr[c], ptr[c + 1]):
            e = idx[p]
            low = min(low, seen[e])
            seen[e] += 1
        best[c] = low
    return best


def selectivity_order(blocks: Blocks) -> np.ndarray:
    """The blocks from the most selective: fewest objects, then fewest features, then index."""
    n_rows, n_cols = blocks.sizes()
    return np.lexsort((np.arange(len(blocks)), n_cols, n_rows))


def admission_levels(blocks: Blocks, n_objects: int, n_features: int) -> np.ndarray:
    """Each block's level: the smallest per-object and per-feature cap that keeps it (module
    docstring)."""
    if len(blocks) == 0:
        return np.zeros(0, dtype=np.int64)
    order = selectivity_order(blocks)
    by_rows = _first_ranks(blocks.row_ptr, blocks.row_idx, order, n_objects)
    by_cols = _first_ranks(blocks.col_ptr, blocks.col_idx, order, n_features)
    return np.maximum(by_rows, by_cols)


def _wave_end(own: np.ndarray, done: int, last: int, room: float) -> int:
    """Where the next wave of concepts ends (in admission order; ``own``: their own memberships,
    cumulated; ``room``: the relaxed memberships still allowed, over the growth expected): the
    concepts expected to fill the room, a tenth more so that the last wave is rarely short, and at
    most twice the last wave (``last`` concepts) — the later (less selective) concepts grow more
    when relaxed, and a wave past the limit is relaxed for nothing (on a head rated by 98 % of the
    users the second wave relaxed 35,341 concepts into 2.3 times the limit when it grew by 1.2
    before)."""
    want = (own[done - 1] if done else 0) + 1.1 * room
    end = max(int(np.searchsorted(own, want, side="right")), done + MIN_WAVE)
    most = done + max(2 * last, MIN_WAVE) if last else len(own)
    return min(len(own), end, most)


def _fitting_levels(levels: np.ndarray, sizes: np.ndarray, limit: float) -> int:
    """The number of whole levels kept: those whose cumulative memberships fit ``limit``
    (``levels`` and relaxed ``sizes`` of the concepts relaxed, in admission order)."""
    if len(levels) == 0:
        return 0
    cumulative = np.cumsum(sizes)
    level_end = np.r_[np.flatnonzero(np.diff(levels)), len(levels) - 1]
    fitting = level_end[cumulative[level_end] <= limit]
    return int(levels[fitting[-1]]) + 1 if len(fitting) else 0


def relax_within(
    concepts: Blocks,
    relax: Callable[[Blocks], tuple[Blocks, np.ndarray]],
    limit: float,
    n_objects: int,
    n_features: int,
    report: dict | None = None,
) -> Blocks:
    """The relaxed co-clusters of ``concepts``, level by level while their memberships fit ``limit``.

    ``relax(blocks)`` relaxes ``blocks`` and returns the co-clusters with, for each, the index in
    ``blocks`` of the concept it came from (concepts too small after relaxation give none).  The
    concepts are relaxed in waves along the admission order (a wave at most twice the previous one), until
    the relaxed memberships pass ``limit`` or none is left; the levels that fit are kept, in the
    concepts' order — the result of relaxing them all when they all fit.  ``report`` receives the
    level reached and the counts."""
    if report is not None:
        report.update(level=None, concepts_relaxed=0, concepts_kept=0, memberships=0, limit=float(limit))
    if len(concepts) == 0:
        return concepts
    levels = admission_levels(concepts, n_objects, n_features)
    admission = np.lexsort((np.arange(len(concepts)), levels))
    n_r, n_c = concepts.sizes()
    own = np.cumsum(n_r[admission] + n_c[admission])  # the concepts' own memberships, cumulated
    parts, origins = [], []
    size_of = np.zeros(len(concepts), dtype=np.int64)  # relaxed memberships, by concept (0: dropped)
    done, total, growth, last = 0, 0, FIRST_GROWTH, 0
    while done < len(concepts) and total <= limit:
        end = _wave_end(own, done, last, (limit - total) / growth)
        todo = admission[done:end]
        relaxed, origin = relax(concepts.select(todo))
        r, c = relaxed.sizes()
        size_of[todo[origin]] = r + c
        wave = int((r + c).sum())
        total += wave
        parts.append(relaxed)
        origins.append(todo[origin])
        # the growth expected next: the larger of the whole run's and the last wave's
        own_wave = own[end - 1] - (own[done - 1] if done else 0)
        growth = max(total / own[end - 1], wave / max(own_wave, 1), 1e-3)
        done, last = end, end - done
    relaxed = Blocks.concat(parts)
    origin = np.concatenate(origins) if origins else np.zeros(0, dtype=np.int64)
    cap = _fitting_levels(levels[admission[:done]], size_of[admission[:done]], limit)
    keep = np.flatnonzero(levels[origin] < cap)
    keep = keep[np.argsort(origin[keep], kind="stable")]  # the concepts' order, as without a budget
    if report is not None:
        report.update(
            level=cap if done < len(concepts) or total > limit else None,
            concepts_relaxed=int(done),
            concepts_kept=int(np.count_nonzero(levels < cap)),
            memberships=int(size_of[levels < cap].sum()),
            limit=float(limit),
        )
    return relaxed.select(keep)
