"""HBLCoClust's parameters and their contract, without the algorithm: numpy only, so that checking
a configuration costs no numba import (the command line checks one before it reads any data, while
the kernels load on another thread)."""

from __future__ import annotations

import importlib.util

import numpy as np

from .params import BOOLEAN, NONE, Instance, Interval, Options, Params, check_params

# the LSH step's default working memory (coclust.lsh reads it from here)
DEFAULT_MEMORY = 512 << 20


class CoClusteringParams(Params):
    """HBLCoClust's parameters (:class:`coclust.HBLCoClust` says what each means), stored as given,
    and their check; :class:`~coclust.fitting.CoClustering` adds ``fit``."""

    _label = "HBLCoClust"  # the algorithm's name in messages, with scikit-learn's interface or without

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
        "region_cover": [Interval(int, 1, None)],
        "assign_uncovered": [BOOLEAN],
        "max_concepts": [Interval(int, 1, None)],
        "column_order": [Options("index", "degree", "auto")],
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
        region_cover: int = 1,
        assign_uncovered: bool = False,
        max_concepts: int = 2_000_000,
        column_order: str = "index",
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
        self.region_cover = region_cover
        self.assign_uncovered = assign_uncovered
        self.max_concepts = max_concepts
        self.column_order = column_order
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
            raise ValueError(f'{self._label}: scheduler is only used with backend="dask"')
        if self.backend == "dask" and importlib.util.find_spec("distributed") is None:
            raise ValueError(f'{self._label}: backend="dask" needs dask.distributed: pip install "hblcoclust[dask]"')
