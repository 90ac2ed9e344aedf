"""The Dask backend: MinHash, band bucketing and the relaxation on a ``dask.distributed`` cluster.

``HBLCoClust(backend="dask")`` runs step 2 (the LSH seeds) and step 5 (the relaxation, most of a
large fit: of the recommender's 1,158 s on 25 M ratings, 660 s co-clustered the likes) on the
workers of the current Dask client — or of ``scheduler=ADDRESS``, or of a ``LocalCluster``
started for the fit when there is neither — and steps 3, 4 and 6 as the local backend does.
Dask does the scheduling, the data movement, the shuffle and the recovery from lost workers;
this module only says what each task computes:

1. the objects are cut into partitions (four per worker), each holding its rows of the matrix;
   the partitions are tasks of the graph, so a partition lost with its worker is rebuilt
   elsewhere;
2. when the (key, object) pairs would exceed ``lsh_memory`` (see :mod:`coclust.lsh`), every
   partition counts its keys in a count-min sketch, and the sketches are combined by saturating
   addition in a tree of tasks: the combined sketch is exactly the one the local backend builds;
3. every partition keeps the (key, object) pairs whose key can make a bucket; a Dask DataFrame
   shuffle on the key brings equal keys together, and each shuffled partition groups them into
   buckets of at least ``min_bucket`` weighted objects;
4. the buckets are gathered and put in the local backend's order (hash partition, then key), so
   the seeds, and hence the co-clusters, are the local backend's.

The relaxation is one task that prepares what every chunk reads (the matrix, its column
bitsets), then a task per chunk of co-clusters; their results, gathered in order, are the local
backend's.

A worker lost in the middle of a fit costs the recomputation of its tasks; if Dask cannot
recover (every worker gone, a task failing on every worker), the fit stops with
:class:`DaskBackendError`, never with different seeds or co-clusters.

Installed with the ``dask`` extra (``pip install "hblcoclust[dask]"``).
"""

from __future__ import annotations

import contextlib
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .blocks import Blocks
from .lsh import (
    _BYTES_PER_PAIR,
    _blocks_of,
    _concat3,
    _KeyMaker,
    _partition,
    _sketch_add,
    _sketch_cells,
    _sketch_keep,
    band_features,
    compact,
    estimation_sample,
    sketch_union,
)
from .minhash import HashFamily, as_csr


class DaskBackendError(RuntimeError):
    """The Dask cluster could not complete a step (e.g. workers lost beyond recovery)."""


def client_for(scheduler=None):
    """``(client, owned)``: ``scheduler`` (a client, or an address to connect to), else the current
    client, else a client of a new ``LocalCluster`` of two worker processes; ``owned`` says whether
    the caller must close it.  Connecting to an address waits Dask's own
    ``distributed.comm.timeouts.connect`` (30 s unless configured) before giving up."""
    try:
        from distributed import Client, get_client
    except ImportError:  # pragma: no cover - the dask extra is missing
        raise ImportError('backend="dask" needs dask.distributed: pip install "hblcoclust[dask]"') from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if scheduler is not None:
        try:
            return Client(scheduler), True
        except (OSError, TimeoutError, ValueError) as exc:
            raise DaskBackendError(f"could not connect to the Dask scheduler at {scheduler!r}: {exc}") from None
    try:
        return get_client(), False
    except ValueError:
        return Client(local_cluster()), True


def local_cluster():
    """A ``LocalCluster`` of two single-threaded worker processes, no dashboard, its scheduler's
    HTTP routes on a free loopback port: Dask's default port, 8787, is often another cluster's,
    and taking it would warn, or listen beyond this machine."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )


@contextlib.contextmanager
def client_of(scheduler=None):
    """:func:`client_for` as a context: the client, closed with its ``LocalCluster`` after the block
    when this opened it."""
    import dask
    from dask.utils import parse_timedelta

    client, owned = client_for(scheduler)
    # a worker killed (out of memory, say) is restarted by its nanny, but the cluster closes that
    # nanny for good if no worker of its name is registered lost-worker-timeout (15 s) after a loss:
    # a second loss then leaves fewer workers, or none and a fit that waits forever
    key = "distributed.deploy.lost-worker-timeout"
    wait = max(parse_timedelta(dask.config.get(key)), 600.0)
    try:
        with dask.config.set({key: wait}):
            yield client
    finally:
        if owned:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


def pairs_to_csr(pairs, shape: tuple[int, int] | None = None):
    """A 0/1 CSR matrix from (row, col) pairs: a pandas or Dask DataFrame (the first two columns, or
    ``row``/``col``), or a Parquet path holding one."""
    if isinstance(pairs, str):
        import dask.dataframe as dd

        pairs = dd.read_parquet(pairs)
    if hasattr(pairs, "compute") and not isinstance(pairs, pd.DataFrame):
        pairs = pairs.compute()
    cols = ["row", "col"] if {"row", "col"} <= set(pairs.columns) else list(pairs.columns[:2])
    r = pairs[cols[0]].to_numpy(dtype=np.int64)
    c = pairs[cols[1]].to_numpy(dtype=np.int64)
    if len(r) and (r.min() < 0 or c.min() < 0):
        raise ValueError("row and col must be non-negative integers")
    shape = shape or ((int(r.max()) + 1, int(c.max()) + 1) if len(r) else (0, 0))
    X = sp.csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=shape)
    X.sum_duplicates()
    X.data[:] = 1
    return X


# -- what the tasks compute ------------------------------------------------------------------
class _Part(NamedTuple):
    """A partition of the objects: their rows of the matrix, their ids and weights."""

    X: sp.csr_matrix
    ids: np.ndarray
    weights: np.ndarray


def _make_part(indptr, indices, n_cols, ids, weights) -> _Part:
    X = sp.csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(len(ids), n_cols))
    return _Part(X, ids, weights)


def _local_blocks(part: _Part, n_bands: int):
    """Blocks of local row numbers (the local backend's block size)."""
    return _blocks_of(np.arange(len(part.ids), dtype=np.int64), n_bands)


def _task_sketch(part: _Part, n_bands, band_size, hashes, key_ok, log_cells):
    """One partition's count-min sketch of its keys."""
    maker = _KeyMaker(part.X, n_bands, band_size, hashes, key_ok)
    table = np.zeros(2 * ((1 << log_cells) >> 2), dtype=np.uint8)
    for block in _local_blocks(part, n_bands):
        k, _, cnt = maker.dense(block)
        cells = np.empty((2, k.shape[0], k.shape[1]), dtype=np.uint32)
        _sketch_cells(log_cells, k, cnt, cells, 0, len(block))
        _sketch_add(table, log_cells, cells, cnt, np.minimum(part.weights[block], 3), 0, 1)
    return table


def _task_candidates(part: _Part, n_bands, band_size, hashes, key_ok, table, log_cells, threshold):
    """The partition's (key, object, weight, band) rows whose key can make a bucket."""
    maker = _KeyMaker(part.X, n_bands, band_size, hashes, key_ok)
    found = []
    for block in _local_blocks(part, n_bands):
        k, bnd, cnt = maker.dense(block)
        if table is None:
            found.append(compact(k, bnd, cnt, block))
            continue
        keep = np.empty(k.shape, dtype=np.bool_)
        kept = np.empty(len(block), dtype=np.int64)
        _sketch_keep(table, log_cells, k, cnt, np.uint8(threshold), keep, kept, 0, len(block))
        found.append(compact(k, bnd, cnt, block, keep, kept))
    keys, local, bands = _concat3(found)
    return pd.DataFrame(
        {"key": keys, "obj": part.ids[local], "weight": part.weights[local], "band": bands.astype(np.int64)}
    )


def _empty(**dtypes) -> pd.DataFrame:
    return pd.DataFrame({c: np.zeros(0, t) for c, t in dtypes.items()})


_CANDIDATES = _empty(key=np.uint64, obj=np.int64, weight=np.int64, band=np.int64)
_BUCKETS = _empty(key=np.uint64, obj=np.int64, rep_obj=np.int64, rep_band=np.int64)


def _group(df: pd.DataFrame, min_bucket: int) -> pd.DataFrame:
    """Buckets of one shuffled partition: every member of every bucket of at least ``min_bucket``
    weighted objects, with the bucket's key and its representative (first object, its band)."""
    if len(df) == 0:
        return _BUCKETS
    df = df.sort_values(["key", "obj"], kind="stable")
    total = df.groupby("key", sort=False)["weight"].transform("sum").to_numpy()
    kept = df[total >= min_bucket]
    rep = kept.groupby("key", sort=False).head(1).set_index("key").loc[kept["key"].to_numpy()]
    return pd.DataFrame(
        {
            "key": kept["key"].to_numpy(),
            "obj": kept["obj"].to_numpy(),
            "rep_obj": rep["obj"].to_numpy(),
            "rep_band": rep["band"].to_numpy(),
        }
    )


# -- the driver --------------------------------------------------------------------------------
def find_seeds_dask(
    client,
    X,
    n_bands: int,
    band_size: int,
    min_bucket: int,
    hashes: HashFamily,
    row_ok: np.ndarray,
    key_ok: np.ndarray,
    row_weight: np.ndarray,
    memory: int,
    stats: dict | None = None,
    n_partitions: int | None = None,
) -> Blocks:
    """:func:`coclust.lsh.find_seeds` on the workers of ``client``; the same seeds."""
    import dask

    stats = {} if stats is None else stats
    X = as_csr(X)
    rows = np.flatnonzero(row_ok).astype(np.int64)
    weights = np.asarray(row_weight, dtype=np.int64)
    key_ok = np.asarray(key_ok, dtype=np.bool_)
    n_workers = max(1, len(client.scheduler_info()["workers"]))
    n_partitions = n_partitions or max(2, 4 * n_workers)
    chunks = [c for c in np.array_split(rows, n_partitions) if len(c)]
    stats.update(backend="dask", workers=n_workers, partitions=len(chunks))
    est = _estimate_pairs(X, rows, n_bands, band_size, hashes, key_ok)
    stats["estimated_pairs"] = int(est)
    two_pass = est * _BYTES_PER_PAIR > memory
    log_cells = min(32, max(16, int(np.ceil(np.log2(max(2 * est, 1.0)))))) if two_pass else 0
    # The partitions are tasks of the graph, not scattered data: a worker lost with them is
    # recomputed elsewhere (scattered data cannot be, and the active memory manager drops replicas).
    parts = [
        dask.delayed(_make_part, pure=True)(Xc.indptr, Xc.indices, X.shape[1], c, weights[c])
        for c in chunks
        for Xc in [X[c]]
    ]
    h, ok = dask.delayed(hashes, pure=True), dask.delayed(key_ok, pure=True)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*large graph.*")  # the data is the graph, on purpose
            parts = client.persist(parts)
            result = _buckets(client, parts, n_bands, band_size, min_bucket, h, ok, log_cells, stats)
    except Exception as exc:
        _raise_if_cluster_failed(exc, "the LSH step")
        raise
    finally:
        del parts
    stats["candidate_pairs"] = int(len(result))
    return _to_blocks(result, X, band_size, hashes)


def relax_on(client):
    """A runner of :func:`coclust.relax.relax`'s chunks on the workers of ``client`` (its ``on``)."""

    def run(args: tuple, cost: np.ndarray, done=None) -> list:
        import dask
        from distributed import as_completed

        from ._parallel import chunk_bounds
        from .relax import relax_chunk, relax_inputs

        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        bounds = chunk_bounds(cost, 8 * max(1, threads))
        inputs = dask.delayed(relax_inputs, pure=True)(*args)  # a task: rebuilt if its worker is lost
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*large graph.*")  # the matrix is in the graph
                futures = client.compute([dask.delayed(relax_chunk, pure=True)(inputs, lo, hi) for lo, hi in bounds])
            for k, future in enumerate(as_completed(futures), 1):
                if future.status == "error":  # stop at the first failure, not once every chunk has ended
                    future.result()
                if done is not None:
                    done(k, len(futures))
            return client.gather(futures)
        except Exception as exc:
            _raise_if_cluster_failed(exc, "the relaxation")
            raise

    return run


def _raise_if_cluster_failed(exc: Exception, step: str) -> None:
    if isinstance(exc, (OSError, TimeoutError)) or type(exc).__module__.startswith("distributed"):
        raise DaskBackendError(f"the Dask cluster could not complete {step}: {type(exc).__name__}: {exc}") from exc


def _buckets(client, parts, n_bands: int, band_size: int, min_bucket: int, hashes, key_ok, log_cells: int, stats: dict):
    """The buckets of the persisted ``parts``: candidate (key, row) pairs (filtered by a sketch of
    the keys first when ``log_cells``), shuffled by key, grouped."""
    import dask
    import dask.dataframe as dd

    table, stats["passes"] = None, 1
    if log_cells:
        table = _sketch(client, parts, n_bands, band_size, hashes, key_ok, log_cells)
        stats.update(passes=2, sketch_bytes=int(2 * ((1 << log_cells) >> 2)))
    threshold = min(min_bucket, 3)
    cands = [
        dask.delayed(_task_candidates)(p, n_bands, band_size, hashes, key_ok, table, log_cells, threshold)
        for p in parts
    ]
    ddf = dd.from_delayed(cands, meta=_CANDIDATES, verify_meta=False)
    # a task-based shuffle: its every step is a task, recomputed like any other when a worker
    # is lost (a handful of partitions of candidate pairs does not need P2P's throughput)
    shuffled = ddf.shuffle(on="key", npartitions=len(parts), shuffle_method="tasks")
    buckets = shuffled.map_partitions(_group, min_bucket, meta=_BUCKETS)
    return client.compute(buckets).result()


def _sketch(client, parts, n_bands: int, band_size: int, hashes, key_ok, log_cells: int):
    """The count-min sketch of every partition's keys, summed by a tree of saturating additions."""
    import dask

    sketches = [dask.delayed(_task_sketch)(p, n_bands, band_size, hashes, key_ok, log_cells) for p in parts]
    while len(sketches) > 1:
        pairs = range(0, len(sketches), 2)
        sketches = [
            dask.delayed(sketch_union)(*sketches[i : i + 2]) if i + 1 < len(sketches) else sketches[i] for i in pairs
        ]
    return client.persist(sketches[0])


def _estimate_pairs(X, rows, n_bands, band_size, hashes, key_ok) -> float:
    """The (key, object) pairs, estimated from a sample of the objects as the local backend does."""
    sample = estimation_sample(rows)
    maker = _KeyMaker(X, n_bands, band_size, hashes, key_ok)
    found = sum(int(maker.dense(b)[2].sum()) for b in _blocks_of(sample, n_bands))
    return found * len(rows) / max(len(sample), 1)


def _to_blocks(buckets: pd.DataFrame, X, band_size: int, hashes: HashFamily) -> Blocks:
    """The gathered buckets as seeds, in the local backend's order (hash partition, then key)."""
    if len(buckets) == 0:
        return Blocks.empty()
    keys = buckets["key"].to_numpy(dtype=np.uint64)
    by_key = np.lexsort((buckets["obj"].to_numpy(), keys))
    objs = buckets["obj"].to_numpy(dtype=np.int32)[by_key]
    _, by_part, _, _ = _partition(keys[by_key], objs)  # stable: (hash partition, key, object), as locally
    order = by_key[by_part]
    b = buckets.iloc[order]
    keys = keys[order]
    starts = np.r_[0, np.flatnonzero(keys[1:] != keys[:-1]) + 1]
    ptr = np.r_[starts, len(keys)].astype(np.int64)
    members = b["obj"].to_numpy(dtype=np.int64)
    feat_ptr, feat_idx = band_features(
        X, b["rep_obj"].to_numpy()[starts], b["rep_band"].to_numpy()[starts], band_size, hashes, keys[starts]
    )
    return Blocks(ptr, members, feat_ptr, feat_idx)
