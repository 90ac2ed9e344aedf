"""What the service's test modules share: ``recsys serve`` in a child process on a free loopback
port, the demo model it serves (fitted fast, one title hostile markup) and a person to ask for.
The fixtures ``model`` and ``server`` built on them are in ``conftest.py``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import requests
from kit import FAST

HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> Hollow'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def most_liked(ratings) -> int:
    return int(ratings[ratings["rating"] > 2]["item"].value_counts().idxmax())


def train_demo(out: Path, random_state: int = 0, hostile: bool = True) -> Path:
    """The offline demo data, fitted fast; the most liked movie's title is hostile markup."""
    from ingest.datasets import load_movies
    from recsys.model import ProfileRecommender
    from recsys.store import save

    data = load_movies("demo", "all")
    items = data.items.copy()
    if hostile:  # the most liked movie: it shows up in lists, profiles and co-clusters
        items.loc[items["item"] == most_liked(data.train), "title"] = HOSTILE
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST, random_state=random_state)
    save(model.fit(data.train, data.attributes, items), out, {"dataset": "demo", "split": "all"})
    return out


class Server:
    """``recsys serve MODEL`` in a child process on a free loopback port."""

    def __init__(self, model: Path, *args: str, env: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "recsys.cli", "serve", str(model), "--port", str(self.port), "--quiet", *args]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.proc.stderr.read()[-2000:]}")
            try:  # the socket listens before the workers have loaded the model: wait for an answer
                if requests.get(self.url + "/health", timeout=2).ok:
                    return
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("server did not start within 60 s")

    def get(self, path: str, **kw) -> requests.Response:
        return requests.get(self.url + path, timeout=30, **kw)

    def post(self, path: str, **kw) -> requests.Response:
        return requests.post(self.url + path, timeout=30, **kw)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def a_person(model, n=20, seed=0) -> list[dict]:
    fp = model.profiles_
    rng = np.random.default_rng(seed)
    items = rng.choice(fp.items[fp.item_rated], n, replace=False)
    return [{"item": int(i), "rating": int(r)} for i, r in zip(items, rng.integers(1, 6, n))]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recsys.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
