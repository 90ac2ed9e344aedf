import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

# Tests never reach beyond this machine: a request to any other address goes to a proxy on a dead
# local port and fails at once (child processes inherit this); the tests' own servers on
# 127.0.0.1 are exempt.
os.environ["HTTP_PROXY"] = os.environ["HTTPS_PROXY"] = "http://127.0.0.1:9"
os.environ["http_proxy"] = os.environ["https_proxy"] = "http://127.0.0.1:9"
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

# Keep hypothesis examples few and fast: the kernels are compiled, the suite must stay short.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci", max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("ci")
except ImportError:  # pragma: no cover
    pass


def pytest_collection_modifyitems(session, config, items):
    """The files with the most ``slow`` tests first, each file's tests in their order: with
    ``--dist loadfile`` pytest-xdist hands the files to the two processes in this order
    (``--no-loadscope-reorder``, pyproject.toml), and a long file met last would keep one process
    busy after the other has finished."""
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    first_seen: dict = {}
    for i, item in enumerate(items):
        first_seen.setdefault(item.path, i)
    items.sort(key=lambda item: (-slow[item.path], first_seen[item.path]))


def data_home() -> Path:
    from ingest.datahome import data_home as project_data_home

    return project_data_home()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    home = data_home()
    if not (home / "ml-100k").is_dir():
        pytest.skip(f"shared data home not found at {home} (set RECSYS_DATA)")
    return home


@pytest.fixture(scope="session")
def books(tmp_path_factory):
    """Readers with two tastes (mysteries or fantasy) rating books, written as a user would export them."""
    d = tmp_path_factory.mktemp("books")
    rng = np.random.default_rng(7)
    genres = ["Mystery", "Fantasy"]
    books = [(f"bk-{b:03d}", f"Book number {b}", genres[b % 2], f"Author {b % 7}") for b in range(60)]
    lines = ["reader,book,stars,when"]
    for r in range(90):
        fav = r % 2
        for b in rng.choice(60, 25, replace=False):
            liked = (b % 2 == fav) ^ (rng.random() < 0.1)
            lines.append(
                f"reader{r:02d},bk-{b:03d},{rng.integers(4, 6) if liked else rng.integers(1, 3)},{1600000000 + b}"
            )
    (d / "ratings.csv").write_text("\n".join(lines) + "\n")
    (d / "books.csv").write_text("book,title,genres,authors\n" + "".join(f"{b},{t},{g},{a}\n" for b, t, g, a in books))
    return d


# The service's test modules each define ``models`` (model directories by name); these serve "a".
@pytest.fixture(scope="module")
def model(models):
    """The service tests' model "a", loaded in this process (test modules with a ``model`` of their
    own override this one)."""
    from recsys.store import load

    return load(models["a"])


@pytest.fixture(scope="module")
def server(models):
    """``recsys serve`` of the module's model "a" in a child process (:class:`service_kit.Server`)."""
    from service_kit import Server

    s = Server(models["a"])
    yield s
    s.stop()
