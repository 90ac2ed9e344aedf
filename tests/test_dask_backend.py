"""The Dask backend on a real LocalCluster of two worker processes: the same co-clusters as the
local backend, Dask DataFrame / Parquet input, and workers killed in the middle of a fit."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from coclust import HBLCoClust  # noqa: E402
from coclust.dask import DaskBackendError, pairs_to_csr  # noqa: E402
from experiments.scaling import FIXED, synthetic  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _forkserver():
    """Worker processes, and the ones nannies restart after a kill, forked from a server that has
    imported distributed, numpy and pandas once (distributed's own test suite does so: "makes the
    test suite much faster"); the product leaves Dask's default, spawn, alone."""
    import dask

    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        yield


def _cluster():
    from coclust.dask import local_cluster

    return local_cluster()


def _settle(client) -> None:
    """Wait until both workers are back: closing a cluster while a nanny is still restarting the
    worker a test killed fails inside distributed ("can only join a started process")."""
    client.wait_for_workers(2, timeout=60)


def _close_after_kills(cluster) -> None:
    """Close a cluster whose workers keep being killed (they do not all come back to wait for): a
    nanny caught restarting one fails distributed's own close with "can only join a started
    process", a race of its teardown and not of the code under test; anything else is raised."""
    try:
        cluster.close()
    except AssertionError as error:
        if "can only join a started process" not in str(error):
            raise


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def test_the_local_cluster_serves_http_on_a_free_loopback_port_only():
    """Its scheduler's routes listen on 127.0.0.1 at a port of the system's choosing, with no
    dashboard: with Dask's default 8787 taken, no warning that it is in use."""
    import socket
    import urllib.error
    import urllib.request
    import warnings

    from coclust.dask import local_cluster

    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 8787))
        except OSError:
            pass  # already someone's: the case itself
        with warnings.catch_warnings(record=True) as caught, local_cluster() as cluster:
            warnings.simplefilter("always")
            server = cluster.scheduler.http_server
            addresses = {sock.getsockname()[0] for sock in server._sockets.values()}
            ports = {sock.getsockname()[1] for sock in server._sockets.values()}
            with pytest.raises(urllib.error.HTTPError, match="404"):  # the dashboard's page
                urllib.request.urlopen(f"http://127.0.0.1:{min(ports)}/status", timeout=10)
            urllib.request.urlopen(f"http://127.0.0.1:{min(ports)}/health", timeout=10)  # its routes do answer
    assert addresses == {"127.0.0.1"} and 8787 not in ports, (addresses, ports)
    assert not [w for w in caught if "already in use" in str(w.message)]


def _same(a: HBLCoClust, b: HBLCoClust) -> None:
    assert len(a.coclusters_) == len(b.coclusters_)
    assert a.n_seeds_ == b.n_seeds_
    for (ra, ca), (rb, cb) in zip(a.coclusters_, b.coclusters_):
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ca, cb)


@pytest.fixture(scope="module")
def relation():
    return synthetic(60_000, seed=3)


@pytest.fixture(scope="module")
def local_fit(relation):
    return HBLCoClust(random_state=0, **FIXED).fit(relation)


@pytest.mark.parametrize("lsh_memory", [512 << 20, 1 << 20], ids=["one-pass", "two-pass"])
def test_same_coclusters_as_local(client, relation, local_fit, lsh_memory):
    model = HBLCoClust(random_state=0, backend="dask", lsh_memory=lsh_memory, **FIXED).fit(relation)
    _same(local_fit, model)
    stats = model.lsh_stats_["objects"]
    assert stats["backend"] == "dask" and stats["workers"] == 2
    assert stats["passes"] == (2 if lsh_memory == 1 << 20 else 1)
    ran = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert {"relax_inputs", "relax_chunk"} <= set(ran), "the relaxation ran outside the cluster"


@pytest.mark.data
def test_same_coclusters_as_local_on_classic3(client):
    from experiments.common import hbl_params
    from ingest.corpora import read_corpus

    X = read_corpus("classic3").matrix
    params = hbl_params("classic3")
    _same(
        HBLCoClust(random_state=0, **params).fit(X),
        HBLCoClust(random_state=0, backend="dask", scheduler=client, **params).fit(X),
    )


def test_pairs_input_dask_dataframe_and_parquet(client, relation, local_fit, tmp_path):
    import dask.dataframe as dd

    coo = relation.tocoo()
    pairs = pd.DataFrame({"row": coo.row.astype(np.int64), "col": coo.col.astype(np.int64)})
    ddf = dd.from_pandas(pairs, npartitions=3)
    X = pairs_to_csr(ddf, shape=relation.shape)
    assert (X != relation).nnz == 0
    _same(local_fit, HBLCoClust(random_state=0, backend="dask", **FIXED).fit(ddf))
    ddf.to_parquet(tmp_path / "pairs")
    _same(local_fit, HBLCoClust(random_state=0, **FIXED).fit(str(tmp_path / "pairs")))


def test_pairs_input_rejects_negative_ids():
    with pytest.raises(ValueError, match="non-negative"):
        pairs_to_csr(pd.DataFrame({"row": [0, -1], "col": [1, 2]}))


class _KillWorker(distributed.WorkerPlugin):
    """Kills the worker process (``os._exit``) when it starts a task whose name starts with one of
    ``prefixes``: once in the whole cluster for each prefix (``once``), or once in every worker
    process ever started."""

    def __init__(self, marker_dir: str, prefixes: tuple[str, ...], once: bool):
        self.marker_dir, self.prefixes, self.once = marker_dir, prefixes, once

    def transition(self, key, start, finish, **kwargs):
        name = str(key[0] if isinstance(key, tuple) else key)
        prefix = next((p for p in self.prefixes if name.startswith(p)), None)
        if finish != "executing" or prefix is None:
            return
        marker = os.path.join(self.marker_dir, f"killed-{prefix}" if self.once else f"killed-{os.getpid()}")
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)


# every step of a fit that runs as tasks: the LSH's parts, candidates, sketches and groups, and
# the relaxation's inputs and chunks
STEPS = ("_make_part", "_task_candidates", "_task_sketch", "_group", "relax_inputs", "relax_chunk")


def test_a_worker_killed_at_every_step_of_a_fit_gives_the_same_coclusters(relation, local_fit, tmp_path):
    # a worker dies as it starts the first task of each step, one step after another in the same
    # fit (each task so killed is retried once, within distributed's allowed failures); the nanny
    # restarts it each time, and the fit keeps the cluster from closing a nanny whose worker is
    # still restarting (coclust.dask.client_of). One fit rather than one per step: a cluster's start and a fit are most
    # of each test's time, and every step's recovery is still exercised
    with _cluster() as cluster, distributed.Client(cluster) as c:
        c.register_plugin(_KillWorker(str(tmp_path), STEPS, once=True))
        model = HBLCoClust(random_state=0, backend="dask", scheduler=c, lsh_memory=1 << 20, **FIXED).fit(relation)
        _settle(c)
    assert sorted(os.listdir(tmp_path)) == sorted(f"killed-{s}" for s in STEPS), "a step's worker was not killed"
    _same(local_fit, model)


@pytest.mark.parametrize(("task", "step"), [("_task_candidates", "the LSH step"), ("relax_chunk", "the relaxation")])
def test_every_worker_dying_stops_with_one_clear_error(relation, tmp_path, task, step):
    import dask

    # a task is given up after killing allowed-failures + 1 workers (3 + 1 by default, each
    # restarted by its nanny in seconds): 1 keeps the test short and still kills two
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = _cluster()
    try:
        with distributed.Client(cluster) as c:
            c.register_plugin(_KillWorker(str(tmp_path), (task,), once=False))
            with pytest.raises(DaskBackendError, match=f"could not complete {step}.*KilledWorker"):
                HBLCoClust(random_state=0, backend="dask", scheduler=c, **FIXED).fit(relation)
    finally:
        _close_after_kills(cluster)
    assert len(os.listdir(tmp_path)) >= 2


def test_unreachable_scheduler_is_a_clear_error_after_dasks_connect_timeout():
    import dask

    X = sp.random(30, 20, density=0.3, format="csr", random_state=0)
    X.data[:] = 1
    start = time.perf_counter()
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(DaskBackendError, match="could not connect to the Dask scheduler at 'tcp://127.0.0.1:1'"):
            HBLCoClust(n_bands=10, backend="dask", scheduler="tcp://127.0.0.1:1").fit(X)
    assert time.perf_counter() - start < 15  # Dask's setting, not a timeout of our own (30 s by default)


@pytest.mark.parametrize(
    ("params", "message"),
    [({"backend": "spark"}, "backend must be one of 'local', 'dask'"), ({"scheduler": "tcp://x:1"}, "only used with")],
)
def test_backend_parameters_are_validated(params, message):
    with pytest.raises(ValueError, match=message):
        HBLCoClust(**params).fit(np.eye(4, dtype=int))


def test_without_a_client_a_local_cluster_is_started_and_closed(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "fit.py"
    script.write_text(
        "import numpy as np\n"
        "from coclust import HBLCoClust\n"
        "if __name__ == '__main__':\n"  # worker processes are spawned: they re-import this module
        "    X = np.zeros((6, 6), dtype=int); X[:3, :3] = 1; X[3:, 3:] = 1\n"
        "    m = HBLCoClust(n_bands=20, band_size=2, random_state=0, backend='dask').fit(X)\n"
        "    print(m.lsh_stats_['objects']['workers'], [(r.tolist(), c.tolist()) for r, c in m.coclusters_])\n"
        "    from distributed import get_client\n"
        "    try:\n"
        "        get_client(); print('client left open')\n"
        "    except ValueError:\n"
        "        print('closed')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}  # the checkout, as the suite
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=True, env=env
    )
    assert out.stdout.split("\n")[:2] == ["2 [([0, 1, 2], [0, 1, 2]), ([3, 4, 5], [3, 4, 5])]", "closed"]


def test_cli_scheduler_option_trains_the_same_model(client, books, tmp_path):
    """``--scheduler`` runs the co-clustering, and after it the item model's solves, the
    neighbourhoods' blocks and the held-out terms, on the cluster (their tasks are on its
    scheduler): the model is the local one, array for array."""
    from kit import COLS
    from kit import FAST_FLAGS as FAST
    from kit import recsys_here as recsys  # in this process: the same CLI without a child's start-up

    data = ["--ratings", str(books / "ratings.csv"), "--items", str(books / "books.csv"), *COLS, *FAST]
    scores = []
    for name, extra in [("local", []), ("dask", ["--scheduler", client.scheduler.address])]:
        res = recsys("train", *data, *extra, "--out", str(tmp_path / name), "--quiet", home=tmp_path / "empty")
        assert res.returncode == 0, res.stderr
        pred = recsys("predict", str(tmp_path / name), "reader01", "bk-001", "--json")
        scores.append(json.loads(pred.stdout)["score"])
    assert scores[0] == scores[1]
    ran = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert {"relax_chunk", "ranges_part", "similar_block"} <= set(ran)
    local, spread = (np.load(tmp_path / name / "arrays.npz") for name in ("local", "dask"))
    assert local.files == spread.files and len(local.files) > 40
    for name in local.files:
        np.testing.assert_array_equal(local[name], spread[name], err_msg=name)
    manifests = [json.loads((tmp_path / name / "manifest.json").read_text()) for name in ("local", "dask")]
    assert manifests[0]["weights"] == manifests[1]["weights"]  # the same held-out terms, the same fit


def test_cli_unreachable_scheduler_is_one_line_exit_2_nothing_written(books, tmp_path, monkeypatch):
    from kit import COLS, recsys
    from kit import FAST_FLAGS as FAST

    data = ["--ratings", str(books / "ratings.csv"), "--items", str(books / "books.csv"), *COLS, *FAST]
    out = tmp_path / "model"
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "2s")  # the knob the README gives
    start = time.perf_counter()
    res = recsys("train", *data, "--scheduler", "tcp://127.0.0.1:1", "--out", str(out), home=tmp_path / "empty")
    assert time.perf_counter() - start < 15  # the 2 s honoured (Dask's default is 30 s)
    assert res.returncode == 2
    assert "could not connect to the Dask scheduler at 'tcp://127.0.0.1:1'" in res.stderr
    assert "Traceback" not in res.stderr and not out.exists()


def test_cluster_ranges_need_zeroed_outputs_and_write_back_every_cell(client):
    """:func:`recsys.model.cluster.run_ranges` on the workers: what each range writes comes back
    (the non-zero cells of its own copy), and an output not zeroed is refused."""
    from recsys.model import cluster
    from recsys.model._gram_kernels import dense_gram_rows

    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((40, 12)) < 0.3).astype(float))
    cols, rows = X.tocsc(), X.tocsr()
    by_col = (cols.indptr.astype(np.int64), cols.indices.astype(np.int64), cols.data)
    by_row = (rows.indptr.astype(np.int64), rows.indices.astype(np.int64), rows.data)
    G = np.zeros((12, 12))
    with cluster.using(client):
        done = list(cluster.run_ranges(dense_gram_rows, [(0, 5), (5, 9), (9, 12)], *by_col, *by_row, G, outputs=(6,)))
        assert done == [(0, 5), (5, 9), (9, 12)]
        np.testing.assert_array_equal(G, np.tril((X.T @ X).toarray()))  # the kernel's triangle
        with pytest.raises(ValueError, match="must be all zeros"):
            list(cluster.run_ranges(dense_gram_rows, [(0, 12)], *by_col, *by_row, G, outputs=(6,)))
