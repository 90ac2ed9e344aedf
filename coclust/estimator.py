"""HBLCoClust: hash-based linear co-clustering of sparse binary data."""

from __future__ import annotations

import contextlib
import importlib.util
import threading
import time

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, BiclusterMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._parallel import chunk_bounds, map_chunks, n_threads
from ._validation import check_binary_matrix
from .blocks import Blocks
from .budget import relax_within
from .concepts import ConceptBudgetExceeded, _regions_concepts
from .lsh import DEFAULT_MEMORY, duplicate_rows, find_seeds
from .minhash import HashFamily
from .params import BOOLEAN, DENSITY_TOLERANCE, NONE, Instance, Interval, Options, check_params
from .regions import find_regions
from .relax import assign_uncovered, merge_equal_columns, relax, unique_by_cols


class HBLCoClust(BiclusterMixin, BaseEstimator):
    """Hash-based Linear Co-Clustering (de França, 2016) of a binary relation.

    Finds co-clusters — sets of objects (rows) sharing sets of features
    (columns) — in six steps:

    1. drop features present in more than ``max_feature_freq`` of the objects;
    2. MinHash LSH: ``n_bands`` keys of ``band_size`` minimum-hash features per
       object; objects sharing a key form a bucket, and a bucket of at least
       ``min_bucket`` objects with its key features is a *seed*;
    3. each seed gives a small *region*: the objects having all of the seed's
       features × the features shared by all of the seed's objects;
    4. In-Close2 enumerates the formal concepts of each region with at least
       ``min_rows`` objects and ``min_cols`` features (exactly when
       ``min_density = 1``; otherwise the author's relaxed In-Close, see Notes);
    5. each concept is relaxed on the whole data to density ``min_density``;
    6. co-clusters with identical feature sets are merged.

    With ``transpose=True`` steps 2–3 also run on the transposed relation
    (features hashed over their objects), as the paper does; the seeds of
    both orientations feed steps 3–6 together.

    Parameters
    ----------
    n_bands : int, default=1000
        LSH keys per object (paper: ``nhashes``).
    band_size : int, default=3
        Minimum hashes per key (paper: ``nkeys``).  Larger keys need more
        similar objects to collide.
    min_rows : int, default=2
        Smallest number of objects in a co-cluster (paper: ``minO``).
    min_cols : int, default=2
        Smallest number of features in a co-cluster (paper: ``minF``).
    max_feature_freq : float, default=1.0
        Keep only features present in at most this fraction of the objects
        (paper: ``1 - thr``).  1.0 keeps all.
    min_density : float, default=1.0
        Smallest fraction of ones in a co-cluster (paper: ``spthr``).  1.0
        gives exact (all-ones) co-clusters, each a formal concept.
    transpose : bool, default=True
        Also seed from the transposed relation.
    min_bucket : int, default=2
        Smallest LSH bucket that makes a seed: 2 means any collision.  The
        author's code used 3.
    skip_covered : bool, default=False
        The author's heuristic for dense relations: visit regions largest
        first and enumerate a region only if it holds an object or a feature
        that no enumerated region holds yet.  Bounds step 4 to at most
        ``n_objects + n_features`` regions (MovieLens with minO = minF = 2
        has millions of distinct regions, each with up to 10^5 concepts).
    assign_uncovered : bool, default=False
        The author's post-processing (not one of the paper's six steps, but in
        the code behind its tables, which report every object covered): each
        object left in no co-cluster joins the co-cluster whose features are
        most Jaccard-similar to its own.  Such objects can be sparser than
        ``min_density`` in that co-cluster.
    max_concepts : int, default=2_000_000
        Budget for step 4 over all regions; exceeding it raises
        :class:`~coclust.inclose.ConceptBudgetExceeded` rather than running
        out of memory.
    budget : float or None, default=None
        The work budget: the relaxed co-clusters hold at most ``budget × nnz(X)`` memberships
        (objects plus features).  When the concepts of step 4 would relax into more, each object
        and each feature keeps its most selective concepts (fewest objects first), as many as fit,
        and only those are relaxed; step 4 itself keeps, in each region, its most selective
        concepts within the region's share (by its cells) of ``budget × nnz(X)`` memberships, and
        a region whose search reaches ``max_concepts`` stops alone instead of stopping the fit.
        The relaxation's work, the co-clusters and the memory then follow the relation's size
        whatever its structure (see :mod:`coclust.budget`).  A budget that does not bind changes
        nothing.  ``None``: unbounded (the paper).
    binarize : float or None, default=None
        ``None``: ``X`` must hold 0/1 only (anything else is an error).  A number ``t``: the entries
        above ``t`` are the relations (as scikit-learn's ``BernoulliNB(binarize=t)``).
    lsh_memory : int, default=512 MiB
        The working-memory budget, in bytes, named for the step that needs it most.  The LSH
        step may spend it on the (key, object) pairs it groups: when the pairs of a data set
        would exceed it, keys are computed in two passes and only those that can make a bucket
        are kept (a count-min sketch of about two bytes per key decides; see
        :mod:`coclust.lsh`): the seeds are the same, the memory grows with the data instead of
        with objects × ``n_bands``.  Steps 3 and 5 use bitsets of every row and column when
        they fit in it (half of it for step 5, which keeps two copies), sorted index lists
        otherwise: the same co-clusters either way.
    backend : {"local", "dask"}, default="local"
        Where steps 2 (MinHash and band bucketing) and 5 (the relaxation) run, the bulk of the
        work on large data: ``"local"`` on this process's threads, ``"dask"`` on the workers of
        a ``dask.distributed`` cluster (see :mod:`coclust.dask`; needs the ``dask`` extra).
        Steps 3, 4 and 6 run locally either way.  Both give the same co-clusters for the same
        ``random_state``.
    scheduler : str, distributed.Client or None, default=None
        With ``backend="dask"``: the scheduler address (``"tcp://host:8786"``) or client to use.
        ``None`` uses the current client, or starts a ``LocalCluster`` of two worker processes
        for the fit.
    random_state : int, numpy Generator or None, default=None
        Seeds the hash functions.  Results are deterministic for a fixed int.

    Attributes
    ----------
    coclusters_ : list of (ndarray, ndarray)
        Sorted object and feature indices of each co-cluster.
    rows_, columns_ : sparse matrix of bool, shape (n_coclusters, n_objects / n_features)
        Membership indicators, as in scikit-learn's biclustering estimators, but sparse (built
        on first access; ``.toarray()`` gives scikit-learn's dense form).
    feature_mask_ : ndarray of bool, shape (n_features,)
        Features kept by step 1.
    n_seeds_, n_regions_, n_concepts_ : int
        Distinct seeds, distinct regions of sufficient size, and distinct
        concepts enumerated (before relaxation and merging).
    timings_ : dict
        Wall seconds of each step of the last fit.
    lsh_stats_ : dict
        For each orientation: the estimated key pairs, one or two passes, the sketch size and
        the pairs kept.
    budget_stats_ : dict
        With a ``budget``: the per-entity cap it set (``level``; ``None`` when it did not bind),
        the concepts relaxed and kept, their memberships and the limit.  Empty without one.

    Notes
    -----
    Where the paper is ambiguous, this implementation follows the author's
    code, which produced the paper's tables:

    * Regions intersect (objects having *all* seed features, features of
      *all* seed objects); the paper's Algorithm 2 writes unions.  See
      :mod:`coclust.regions`.
    * Relaxation and its density guarantee: see :mod:`coclust.relax`.
    * With ``min_density < 1`` step 4 is the author's relaxed In-Close: a
      feature held by at least ``min_density`` of the current objects joins
      the intent without splitting them.  Exact enumeration of a region of
      50 × 100 at 80 % density with minO = minF = 2 yields 10^4–10^6 concepts;
      the relaxed one, tens.
    * Objects with fewer than ``band_size`` features get no LSH key.
    * A key is the sorted tuple of its minimum-hash features, and buckets are
      indexed by key alone across bands (Algorithm 2's ``clusters[key]``).
    * MinHash uses the paper's ``(a*x + b) mod P`` with ``P = 2**31 - 1``.

    Seeds that cannot give a region of ``min_rows`` × ``min_cols`` (an object
    with fewer than ``min_cols`` features, a key feature in fewer than
    ``min_rows`` objects) are pruned before bucketing; this changes nothing
    in the result.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((6, 6), dtype=int)
    >>> X[:3, :3] = 1
    >>> X[3:, 3:] = 1
    >>> model = HBLCoClust(n_bands=20, band_size=2, random_state=0).fit(X)
    >>> [(r.tolist(), c.tolist()) for r, c in model.coclusters_]
    [([0, 1, 2], [0, 1, 2]), ([3, 4, 5], [3, 4, 5])]
    """

    _constraints = {
        "n_bands": [Interval(int, 1, None)],
        "band_size": [Interval(int, 1, 64)],
        "min_rows": [Interval(int, 1, None)],
        "min_cols": [Interval(int, 1, None)],
        "max_feature_freq": [Interval(float, 0, 1, closed="right")],
        "min_density": [Interval(float, 0, 1, closed="right")],
        "transpose": [BOOLEAN],
        "min_bucket": [Interval(int, 1, None)],
        "skip_covered": [BOOLEAN],
        "assign_uncovered": [BOOLEAN],
        "max_concepts": [Interval(int, 1, None)],
        "lsh_memory": [Interval(int, 1 << 20, None)],
        "budget": [NONE, Interval(float, 0, None, closed="neither")],
        "binarize": [NONE, Interval(float)],
        "backend": [Options("local", "dask")],
        "scheduler": [Instance(object, description="an address, a distributed.Client or None")],
        "random_state": [NONE, Interval(int, 0, None), Instance(np.random.Generator)],
    }

    def __init__(
        self,
        *,
        n_bands: int = 1000,
        band_size: int = 3,
        min_rows: int = 2,
        min_cols: int = 2,
        max_feature_freq: float = 1.0,
        min_density: float = 1.0,
        transpose: bool = True,
        min_bucket: int = 2,
        skip_covered: bool = False,
        assign_uncovered: bool = False,
        max_concepts: int = 2_000_000,
        lsh_memory: int = DEFAULT_MEMORY,
        budget: float | None = None,
        binarize: float | None = None,
        backend: str = "local",
        scheduler=None,
        random_state=None,
    ):
        self.n_bands = n_bands
        self.band_size = band_size
        self.min_rows = min_rows
        self.min_cols = min_cols
        self.max_feature_freq = max_feature_freq
        self.min_density = min_density
        self.transpose = transpose
        self.min_bucket = min_bucket
        self.skip_covered = skip_covered
        self.assign_uncovered = assign_uncovered
        self.max_concepts = max_concepts
        self.lsh_memory = lsh_memory
        self.budget = budget
        self.binarize = binarize
        self.backend = backend
        self.scheduler = scheduler
        self.random_state = random_state

    def check_params(self) -> None:
        """Raise ValueError naming the first invalid parameter (``fit`` calls it first)."""
        check_params(self)
        if self.scheduler is not None and self.backend != "dask":
            raise ValueError('HBLCoClust: scheduler is only used with backend="dask"')
        if self.backend == "dask" and importlib.util.find_spec("distributed") is None:
            raise ValueError('HBLCoClust: backend="dask" needs dask.distributed: pip install "hblcoclust[dask]"')

    # -- fitting -------------------------------------------------------------------
    def fit(self, X, y=None, progress=None) -> HBLCoClust:
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
                regions = find_regions(D, Dt, seeds, self.min_rows, self.min_cols, self.skip_covered, self.lsh_memory)
                self.n_regions_ = len(regions)
            with _timed(timings, "inclose", tell):  # step 4: In-Close2 on every region
                keep = None if self.budget is None else _region_shares(regions, self.budget * D.nnz)
                cc = _enumerate(D, regions, self.min_rows, self.min_cols, self.max_concepts, self.min_density, keep)
            with _timed(timings, "relax", tell):  # step 5: relaxation, once per distinct feature set
                cc = cc.select(unique_by_cols(cc))
                self.n_concepts_ = len(cc)
                cc = self._relax(D, Dt, cc, relax_on, tell)
        with _timed(timings, "merge", tell):  # step 6: merge equal feature sets
            cc = merge_equal_columns(D, cc, self.min_density, self.min_rows)
            if self.assign_uncovered:
                rp, ri = assign_uncovered(D, cc.row_ptr, cc.row_idx, cc.col_ptr, cc.col_idx)
                cc = Blocks(rp, ri, cc.col_ptr, cc.col_idx)
            cc = cc.select(_canonical_order(cc))
        timings["total"] = time.perf_counter() - t0
        self.timings_ = timings
        self._keep(cc, kept, n_obj)
        return self

    def _relax(self, D, Dt, concepts: Blocks, relax_on, tell) -> Blocks:
        """Step 5 on ``concepts``: all of them, or within the ``budget`` (:mod:`coclust.budget`)."""
        self.budget_stats_ = {}

        def run(blocks: Blocks, done=None, with_origin=False):
            return relax(D, Dt, blocks.col_ptr, blocks.col_idx, self.min_density, self.min_rows, self.min_cols,
                         self.lsh_memory, done=done, on=relax_on, with_origin=with_origin)  # fmt: skip

        if self.budget is None:
            return run(concepts, done=lambda k, n: tell("relax", k / n))
        return relax_within(concepts, lambda blocks: run(blocks, with_origin=True), self.budget * D.nnz, *D.shape,
                            report=self.budget_stats_)  # fmt: skip

    def _relation(self, X) -> sp.csr_matrix:
        """``X`` as the canonical binary CSR relation (Dask collections and Parquet paths read)."""
        if isinstance(X, str) or _is_dask_collection(X):
            from .dask import pairs_to_csr

            X = pairs_to_csr(X)
        X = validate_data(
            self, X, accept_sparse=("csr", "csc", "coo"), dtype="numeric", ensure_min_samples=1, ensure_min_features=1
        )
        if self.binarize is not None:
            X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
            X = X > self.binarize
        return check_binary_matrix(X)

    def _seeds(self, D, Dt, rng, seeds_of) -> Blocks:
        """Step 2: the distinct LSH seeds of the objects, and of the features when ``transpose``."""
        row_deg, col_deg = np.diff(D.indptr), np.diff(Dt.indptr)
        hashes = HashFamily.sample(self.n_bands * self.band_size, rng)
        self.lsh_stats_ = {"objects": {}, "features": {}}
        rep, weight = duplicate_rows(D)
        seeds = [
            seeds_of(D, hashes, row_ok=rep & (row_deg >= self.min_cols), key_ok=col_deg >= self.min_rows,
                     row_weight=weight, stats=self.lsh_stats_["objects"])
        ]  # fmt: skip
        if self.transpose:
            hashes_t = HashFamily.sample(self.n_bands * self.band_size, rng)
            rep_t, weight_t = duplicate_rows(Dt)
            st = seeds_of(Dt, hashes_t, row_ok=rep_t & (col_deg >= self.min_rows), key_ok=row_deg >= self.min_cols,
                          row_weight=weight_t, stats=self.lsh_stats_["features"])  # fmt: skip
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
        common = dict(n_bands=self.n_bands, band_size=self.band_size, min_bucket=self.min_bucket,
                      memory=self.lsh_memory)  # fmt: skip
        if self.backend == "local":
            yield (lambda X, hashes, **kw: find_seeds(X, hashes=hashes, **common, **kw)), None
            return
        from .dask import client_for, find_seeds_dask, relax_on

        client, owned = client_for(self.scheduler)
        try:
            yield (lambda X, hashes, **kw: find_seeds_dask(client, X, hashes=hashes, **common, **kw)), relax_on(client)
        finally:
            if owned:
                cluster = getattr(client, "cluster", None)
                client.close()
                if cluster is not None:
                    cluster.close()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # sparse relations are the normal input
        tags.input_tags.positive_only = self.binarize is None  # 0/1 unless binarized
        tags.non_deterministic = self.random_state is None
        return tags

    # -- scikit-learn biclustering interface ----------------------------------------
    def _indicator(self, ptr, idx, n) -> sp.csr_matrix:
        k = len(ptr) - 1
        return sp.csr_matrix((np.ones(len(idx), dtype=bool), idx, ptr), shape=(k, n))

    @property
    def rows_(self) -> sp.csr_matrix:
        """Membership of the objects: a sparse boolean matrix (n_coclusters, n_objects).

        Sparse, unlike scikit-learn's dense arrays: a relation of millions of objects can give
        hundreds of thousands of co-clusters.  ``rows_.toarray()`` gives the dense form.
        """
        check_is_fitted(self, "coclusters_")
        if "_rows_cache" not in self.__dict__:
            self._rows_cache = self._indicator(self._row_ptr, self._row_idx, self.n_rows_in_)
        return self._rows_cache

    @property
    def columns_(self) -> sp.csr_matrix:
        """Membership of the features: a sparse boolean matrix (n_coclusters, n_features)."""
        check_is_fitted(self, "coclusters_")
        if "_cols_cache" not in self.__dict__:
            self._cols_cache = self._indicator(self._col_ptr, self._col_idx, self.n_features_in_)
        return self._cols_cache

    def get_indices(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row and column indices of co-cluster ``i``."""
        check_is_fitted(self, "coclusters_")
        return self.coclusters_[i]

    def get_shape(self, i: int) -> tuple[int, int]:
        """Number of rows and columns of co-cluster ``i``."""
        r, c = self.get_indices(i)
        return len(r), len(c)

    def get_submatrix(self, i: int, data) -> np.ndarray | sp.spmatrix:
        """The sub-matrix of ``data`` covered by co-cluster ``i``."""
        r, c = self.get_indices(i)
        if sp.issparse(data):
            return sp.csr_matrix(data)[r][:, c]
        return np.asarray(data)[np.ix_(r, c)]


@contextlib.contextmanager
def _timed(timings: dict, name: str, tell=None):
    if tell is not None:
        tell(name, 0.0)
    t = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t


def _is_dask_collection(X) -> bool:
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def _region_shares(regions: Blocks, limit: float) -> np.ndarray:
    """Each region's share of ``limit`` concept memberships, in proportion to its cells (rows × columns):
    the work budget's bound on step 4 (:mod:`coclust.budget`)."""
    n_r, n_c = regions.sizes()
    cells = n_r.astype(np.float64) * n_c
    return np.floor(limit * cells / max(cells.sum(), 1.0)).astype(np.int64)


def _enumerate(D, regions: Blocks, min_rows: int, min_cols: int, max_concepts: int, density: float,
               keep: np.ndarray | None = None) -> Blocks:  # fmt: skip
    """Step 4 on every region.  Without ``keep`` the concepts of all regions together are bounded by
    ``max_concepts`` (past it: :class:`ConceptBudgetExceeded`); with it (the work budget's shares,
    memberships per region) each region's search is bounded by ``max_concepts`` alone and keeps its
    most selective concepts within its share."""
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
            D.indptr, D.indices, D.shape[1], regions.row_ptr, regions.row_idx, regions.col_ptr, regions.col_idx,
            lo, hi, int(min_rows), int(min_cols), max(budget, 0), float(density),
            None if keep is None else keep[lo:hi],
        )  # fmt: skip
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
