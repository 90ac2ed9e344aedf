import os
from pathlib import Path

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


def data_home() -> Path:
    from ingest.datahome import data_home as project_data_home

    return project_data_home()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    home = data_home()
    if not (home / "ml-100k").is_dir():
        pytest.skip(f"shared data home not found at {home} (set RECSYS_DATA)")
    return home
