"""HBLCoClust: hash-based linear co-clustering of sparse binary data (scikit-learn's interface)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, BiclusterMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .fitting import CoClustering, _pairs_read


class HBLCoClust(BiclusterMixin, BaseEstimator, CoClustering):
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
    region_cover : int, default=1
        With ``skip_covered``, how many enumerated regions must hold an
        object or feature before it stops admitting a region: a region is
        enumerated while it holds one held by fewer (1 is the author's
        heuristic).  Bounds step 4 to ``region_cover × (n_objects +
        n_features)`` regions.
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
    column_order : {"index", "degree", "auto"}, default="index"
        The order step 4 extends intents in, within each region: the features' index (the paper's
        In-Close), or decreasing degree in the region (the feature most of the region's objects
        hold first; equal degrees by index).  At ``min_density = 1`` a region's concepts do not
        depend on it (only the order they are found in, which breaks ties under ``max_concepts``
        and ``budget``); below 1 the relaxed In-Close's concepts do.  ``"degree"`` takes less
        work where regions are dense: on 899,000 user–movie interactions in which 98 % of the
        users hold the most held movie (``benchmarks/synthetic_ratings.py``, concentrated), step 4
        took 2.8–3.6 s instead of 6.4–7.7 s.  ``"auto"`` (with a ``budget``): by index in the
        regions whose share of the budget keeps every concept, by degree in the others — those
        that find more concepts than the share could keep — so that a budget that does not bind
        still changes nothing.  Without a budget ``"auto"`` is ``"index"``.
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
        with objects × ``n_bands``.  Steps 3 and 5 keep bitsets of the heaviest rows and columns,
        as many as fit in it (half of it for step 5), and use sorted index lists for the others:
        the same co-clusters either way.
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

    def _relation(self, X) -> sp.csr_matrix:
        """``X`` checked by scikit-learn (``n_features_in_``, its formats and messages), then as
        :class:`~coclust.fitting.CoClustering` reads it."""
        X = validate_data(
            self,
            _pairs_read(X),
            accept_sparse=("csr", "csc", "coo"),
            dtype="numeric",
            ensure_min_samples=1,
            ensure_min_features=1,
        )
        return super()._relation(X)

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
