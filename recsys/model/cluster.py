"""Where the fit's splittable steps run: this process's threads, or a Dask cluster's workers.

``recsys train --scheduler`` sends the co-clustering to a Dask scheduler (coclust's ``dask``
backend).  While :func:`using` holds a client, the steps after it that split into independent
parts run on that cluster too: the item model's per-movie solves, the neighbourhoods' blocks of
rows and the held-out terms' groups of pairs — each part computing what a thread would, so the
model is the same array for array (``tests/test_dask_backend.py``).  Without a client every step
runs on this process's threads, as it always has.

A part's inputs are sent to every worker once (``scatter``, broadcast); what it writes comes back
with the part's result.  Everything else of the fit (reading, relations, the co-clusters' own
bookkeeping, the weights' logistic fits) stays on this process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar

import numpy as np

from .threads import in_threads

_client: ContextVar = ContextVar("recsys_cluster_client", default=None)


@contextlib.contextmanager
def using(client):
    """Run the splittable steps on ``client``'s workers within this block (``None``: threads)."""
    token = _client.set(client)
    try:
        yield client
    finally:
        _client.reset(token)


@contextlib.contextmanager
def connected(scheduler):
    """:func:`using` a client of ``scheduler`` (an address, a ``distributed.Client``, or ``None``: the
    current client, else a new two-process ``LocalCluster``), closed after the block when this
    opened it (:func:`coclust.dask.client_of`)."""
    from coclust.dask import client_of

    with client_of(scheduler) as client, using(client):
        yield client


@contextlib.contextmanager
def serving(*sides):
    """The client a fit runs with: :func:`connected` to the scheduler of the first of the
    HBLCoClust parameter dicts ``sides`` whose backend is ``dask`` (one client serves the whole fit);
    this process's threads when none is."""
    dask = [p for p in sides if p and p.get("backend") == "dask"]
    if not dask:
        yield None
        return
    with connected(dask[0].get("scheduler")) as client:
        yield client


def current():
    """The Dask client the splittable steps run on, or ``None`` (this process's threads)."""
    return _client.get()


def map_ordered(fn: Callable, items: Iterable, *shared, **threads) -> Iterator:
    """``fn(*shared, x)`` for each of ``items``, the results yielded in order: on this process's
    threads (:func:`~recsys.model.threads.in_threads`, given ``threads``' keywords), or as one task
    each on the cluster's workers, ``shared`` sent to every worker once.  ``fn`` must be a module's
    function (a task names it)."""
    client = current()
    items = list(items)
    if client is None:
        yield from in_threads(lambda x: fn(*shared, x), items, **threads)
        return
    if not items:
        return
    from coclust.dask import _raise_if_cluster_failed

    try:
        # hash=False: a value scattered again (the same k, say) must not share a key released meanwhile
        sent = client.scatter(list(shared), broadcast=True, hash=False) if shared else []
        futures = [client.submit(fn, *sent, x, pure=False) for x in items]
        for future in futures:
            yield future.result()
    except Exception as exc:
        _raise_if_cluster_failed(exc, f"the fit's step {fn.__name__}")
        raise


def run_ranges(
    kernel: Callable, ranges: list[tuple[int, int]], *args, outputs: tuple[int, ...], **threads
) -> Iterator[tuple[int, int]]:
    """``kernel(*args, lo, hi)`` for each ``(lo, hi)`` of ``ranges``, each range yielded as it ends
    (in order): on this process's threads, or in a few tasks of consecutive ranges on the cluster.
    ``outputs``: the positions in ``args`` of the arrays the kernel writes — all zeros on entry,
    each range writing its own cells (a task writes into zeros of its own and its non-zero cells
    are copied back)."""
    if current() is None:
        yield from map_ordered(lambda r: (kernel(*args, *r), r)[1], ranges, **threads)
        return
    client = current()
    for k in outputs:
        if np.any(args[k]):
            raise ValueError(f"{kernel.__name__}: output {k} must be all zeros to be computed on a cluster")
    inputs = tuple(None if k in outputs else a for k, a in enumerate(args))
    shapes = {k: (args[k].shape, args[k].dtype) for k in outputs}
    workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
    groups = [g for g in np.array_split(np.arange(len(ranges)), 4 * workers) if len(g)]
    parts = [[ranges[i] for i in g] for g in groups]
    for part, written in zip(parts, map_ordered(_ranges_part, parts, kernel, inputs, shapes), strict=True):
        for k, values in written.items():
            np.copyto(args[k], values, where=values != 0)
        yield from part


def _ranges_part(kernel: Callable, inputs: tuple, shapes: dict, part: list[tuple[int, int]]) -> dict:
    """On a worker: ``kernel`` over the ranges of ``part``, writing into zeros of the outputs' shapes."""
    written = {k: np.zeros(shape, dtype) for k, (shape, dtype) in shapes.items()}
    args = tuple(written.get(k, a) for k, a in enumerate(inputs))
    for lo, hi in part:
        kernel(*args, lo, hi)
    return written
