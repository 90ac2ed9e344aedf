"""HBLCoClust's six steps without scikit-learn: what :class:`coclust.HBLCoClust` fits with.

:class:`CoClustering` takes the same parameters and finds the same co-clusters as the estimator
(which adds scikit-learn's interface on top: ``validate_data``, tags, ``rows_``/``columns_``,
``get_indices``).  Importing scikit-learn costs about 2 s on a small machine (its ``scipy.stats``
import); a program that only needs the co-clusters — the recommender's ``train`` — uses this
class and does not pay it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Self

import numpy as np
import scipy.sparse as sp

from ._parallel import chunk_bounds, map_chunks, n_threads
from ._validation import check_binary_matrix
from .blocks import Blocks
from .budget import relax_within
from .concepts import BY_INDEX, COLUMN_ORDERS, ConceptBudgetExceeded, _regions_concepts
from .contract import CoClusteringParams
from .lsh import duplicate_rows, find_seeds
from .minhash import HashFamily
from .params import DENSITY_TOLERANCE
from .regions import find_regions
from .relax import assign_uncovered, merge_equal_columns, relax, unique_by_cols


class CoClustering(CoClusteringParams):
    """HBLCoClust (de França, 2016) on a binary relation: the parameters, ``fit`` and the fitted
    attributes of :class:`coclust.HBLCoClust` (see it for their meaning), without scikit-learn."""

    # -- fitting -------------------------------------------------------------------
    def fit(self, X, y=None, progress=None) -> Self:
        """Find the co-clusters of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_objects, n_features), Dask DataFrame or str
            Binary relation (0/1); non-zeros are relations.  A Dask DataFrame of
            ``(row, col)`` pairs (columns ``row``/``col``, else the first two), or the path of
            a Parquet dataset holding one, is read as the relation of those pairs.
        y : ignored
        progress : callable, optional
            ``progress(step, fraction)``: told as each step starts (``fraction`` 0; steps
            ``filter``, ``lsh``, ``regions``, ``inclose``, ``relax``, ``merge``) and as the
            relaxation's chunks complete — for a progress bar on long fits.

        Returns
        -------
        self
        """
        self.check_params()
        tell = progress or (lambda step, fraction: None)
        X = self._relation(X)
        timings = {}
        t0 = time.perf_counter()
        rng = np.random.default_rng(self.random_state)
        n_obj, n_feat = X.shape
        self.n_features_in_ = n_feat

        with _timed(timings, "filter", tell):  # step 1: frequent features
            df = np.bincount(X.indices, minlength=n_feat)
            self.feature_mask_ = df <= self.max_feature_freq * n_obj + DENSITY_TOLERANCE
            kept = np.flatnonzero(self.feature_mask_)
            D = X[:, kept].tocsr() if len(kept) < n_feat else X
            Dt = D.T.tocsr()
        with self._backend() as (seeds_of, relax_on):
            with _timed(timings, "lsh", tell):  # step 2: LSH seeds, from objects and (optionally) from features
                seeds = self._seeds(D, Dt, rng, seeds_of)
                self.n_seeds_ = len(seeds)
            with _timed(timings, "regions", tell):  # step 3
                regions = self._regions(D, Dt, seeds)
                self.n_regions_ = len(regions)
            with _timed(timings, "inclose", tell):  # step 4: In-Close2 on every region
                cc = self._concepts(D, regions)
            with _timed(timings, "relax", tell):  # step 5: relaxation, once per distinct feature set
                cc = cc.select(unique_by_cols(cc))
                self.n_concepts_ = len(cc)
                cc = self._relax(D, Dt, cc, relax_on, tell)
        with _timed(timings, "merge", tell):  # step 6: merge equal feature sets
            cc = merge_equal_columns(D, Dt, cc, self.min_density, self.min_rows)
            if self.assign_uncovered:
                rp, ri = assign_uncovered(D, cc.row_ptr, cc.row_idx, cc.col_ptr, cc.col_idx)
                cc = Blocks(rp, ri, cc.col_ptr, cc.col_idx)
            cc = cc.select(_canonical_order(cc))
        timings["total"] = time.perf_counter() - t0
        self.timings_ = timings
        self._keep(cc, kept, n_obj)
        return self

    def _regions(self, D, Dt, seeds) -> Blocks:
        """Step 3: each seed's region, those that bring a row or column held by fewer than
        ``region_cover`` kept regions when ``skip_covered``."""
        return find_regions(
            D,
            Dt,
            seeds,
            self.min_rows,
            self.min_cols,
            self.skip_covered,
            memory=self.lsh_memory,
            cover=self.region_cover,
        )

    def _concepts(self, D, regions: Blocks) -> Blocks:
        """Step 4 on every region: within the budget's shares, in the ``column_order``."""
        keep = None if self.budget is None else _region_shares(regions, self.budget * D.nnz)
        order = COLUMN_ORDERS[self.column_order]
        return _enumerate(D, regions, self.min_rows, self.min_cols, self.max_concepts, self.min_density, keep, order)

    def _relax(self, D, Dt, concepts: Blocks, relax_on, tell) -> Blocks:
        """Step 5 on ``concepts``: all of them, or within the ``budget`` (:mod:`coclust.budget`)."""
        self.budget_stats_ = {}

        limits = (self.min_density, self.min_rows, self.min_cols, self.lsh_memory)

        def run(blocks: Blocks, done=None, with_origin=False):
            return relax(
                D, Dt, blocks.col_ptr, blocks.col_idx, *limits, done=done, on=relax_on, with_origin=with_origin
            )

        if self.budget is None:
            return run(concepts, done=lambda k, n: tell("relax", k / n))
        return relax_within(
            concepts,
            lambda blocks: run(blocks, with_origin=True),
            self.budget * D.nnz,
            *D.shape,
            report=self.budget_stats_,
        )

    def _relation(self, X) -> sp.csr_matrix:
        """``X`` as the canonical binary CSR relation (Dask collections and Parquet paths read)."""
        X = _pairs_read(X)
        if self.binarize is not None:
            X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
            if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
                raise ValueError(f"X must be numeric to binarize, got dtype {X.dtype}")
            X = X > self.binarize
        return check_binary_matrix(X)

    def _seeds(self, D, Dt, rng, seeds_of) -> Blocks:
        """Step 2: the distinct LSH seeds of the objects, and of the features when ``transpose``."""
        row_deg, col_deg = np.diff(D.indptr), np.diff(Dt.indptr)
        hashes = HashFamily.sample(self.n_bands * self.band_size, rng)
        self.lsh_stats_ = {"objects": {}, "features": {}}
        rep, weight = duplicate_rows(D)
        seeds = [
            seeds_of(
                D,
                hashes,
                row_ok=rep & (row_deg >= self.min_cols),
                key_ok=col_deg >= self.min_rows,
                row_weight=weight,
                stats=self.lsh_stats_["objects"],
            )
        ]
        if self.transpose:
            hashes_t = HashFamily.sample(self.n_bands * self.band_size, rng)
            rep_t, weight_t = duplicate_rows(Dt)
            st = seeds_of(
                Dt,
                hashes_t,
                row_ok=rep_t & (col_deg >= self.min_rows),
                key_ok=row_deg >= self.min_cols,
                row_weight=weight_t,
                stats=self.lsh_stats_["features"],
            )
            # a feature bucket with its key objects, in (objects, features) terms
            seeds.append(st.transposed())
        return Blocks.concat(seeds).unique()

    def _keep(self, cc: Blocks, kept: np.ndarray, n_obj: int) -> None:
        """Store the co-clusters found (feature indices back in the input's numbering)."""
        self._row_ptr, self._row_idx = cc.row_ptr, cc.row_idx
        self._col_ptr, self._col_idx = cc.col_ptr, kept[cc.col_idx]
        self.n_rows_in_ = n_obj
        self.coclusters_ = [
            (
                self._row_idx[self._row_ptr[i] : self._row_ptr[i + 1]],
                self._col_idx[self._col_ptr[i] : self._col_ptr[i + 1]],
            )
            for i in range(len(cc))
        ]
        self.__dict__.pop("_rows_cache", None)
        self.__dict__.pop("_cols_cache", None)

    @contextlib.contextmanager
    def _backend(self):
        """``(seeds_of(X, hashes, **masks), relax_on)``: step 2, and what runs step 5's chunks
        (None: this process's threads), on the chosen backend."""
        common = dict(
            n_bands=self.n_bands, band_size=self.band_size, min_bucket=self.min_bucket, memory=self.lsh_memory
        )
        if self.backend == "local":
            yield (lambda X, hashes, **kw: find_seeds(X, hashes=hashes, **common, **kw)), None
            return
        from .dask import client_of, find_seeds_dask, relax_on

        with client_of(self.scheduler) as client:
            yield (lambda X, hashes, **kw: find_seeds_dask(client, X, hashes=hashes, **common, **kw)), relax_on(client)


@contextlib.contextmanager
def _timed(timings: dict, name: str, tell=None):
    if tell is not None:
        tell(name, 0.0)
    t = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t


def _is_dask_collection(X) -> bool:
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def _pairs_read(X):
    """A Dask collection of ``(row, col)`` pairs, or the path of a Parquet dataset of them, read as
    a CSR relation; anything else as it is."""
    if isinstance(X, str) or _is_dask_collection(X):
        from .dask import pairs_to_csr

        return pairs_to_csr(X)
    return X


def _region_shares(regions: Blocks, limit: float) -> np.ndarray:
    """Each region's share of ``limit`` concept memberships, in proportion to its cells (rows × columns):
    the work budget's bound on step 4 (:mod:`coclust.budget`)."""
    n_r, n_c = regions.sizes()
    cells = n_r.astype(np.float64) * n_c
    return np.floor(limit * cells / max(cells.sum(), 1.0)).astype(np.int64)


def _enumerate(
    D,
    regions: Blocks,
    min_rows: int,
    min_cols: int,
    max_concepts: int,
    density: float,
    keep: np.ndarray | None = None,
    order: int = BY_INDEX,
) -> Blocks:
    """Step 4 on every region.  Without ``keep`` the concepts of all regions together are bounded by
    ``max_concepts`` (past it: :class:`ConceptBudgetExceeded`); with it (the work budget's shares,
    memberships per region) each region's search is bounded by ``max_concepts`` alone and keeps its
    most selective concepts within its share.  ``order``: the regions' column order
    (:data:`~coclust.concepts.COLUMN_ORDERS`)."""
    n_r, n_c = regions.sizes()
    bounds = chunk_bounds(n_r.astype(np.float64) * n_c, 8 * n_threads())
    # The budget left when a chunk starts is that chunk's budget: with chunks running on
    # n_threads at once, at most n_threads × max_concepts concepts are ever held.
    lock = threading.Lock()
    left = [int(max_concepts)]

    def run(lo, hi):
        with lock:
            budget = left[0] if keep is None else int(max_concepts)
        part = _regions_concepts(
            D.indptr,
            D.indices,
            D.shape[1],
            regions.row_ptr,
            regions.row_idx,
            regions.col_ptr,
            regions.col_idx,
            lo,
            hi,
            int(min_rows),
            int(min_cols),
            max(budget, 0),
            float(density),
            keep=None if keep is None else keep[lo:hi],
            order=order,
        )
        with lock:
            left[0] -= len(part[0]) - 1
        return part

    parts = map_chunks(run, bounds)
    total = sum(len(p[0]) - 1 for p in parts)
    if keep is None and (not all(p[4] for p in parts) or total > max_concepts):
        raise ConceptBudgetExceeded(
            f"step 4 (In-Close) enumerated more than max_concepts={max_concepts} concepts; "
            "raise min_rows/min_cols or max_concepts, or set a budget"
        )
    return Blocks.concat(parts)


def _canonical_order(cc: Blocks) -> np.ndarray:
    """Largest co-clusters first; ties by first row then first column (deterministic)."""
    n_r, n_c = cc.sizes()
    if len(n_r) == 0:
        return np.arange(0)
    first_r = cc.row_idx[cc.row_ptr[:-1]]
    first_c = cc.col_idx[cc.col_ptr[:-1]]
    return np.lexsort((first_c, first_r, -n_c, -(n_r * n_c)))
