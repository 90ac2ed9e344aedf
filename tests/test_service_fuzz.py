"""``recsys serve`` fuzzed from its own OpenAPI schema (schemathesis): requests that fit the schema
and requests that break it, to every endpoint of a real server on 127.0.0.1, each answered with a
4xx at worst — never a 5xx.  Half the cases have their user and item ids (path and body) swapped for
ids the model knows, so that the fuzzing reaches the lists, predictions and reports behind the
checks, not only the 404s.

The suite sends about 1,100 requests (75 a pair; schemathesis spends ~20 ms drawing each one);
``RECSYS_FUZZ_EXAMPLES=770`` sends about 11,500 (15 endpoint × mode pairs with cases to draw, × 770;
13 before ``/items/starters``)."""

from __future__ import annotations

import collections
import os

import pytest
import requests
from service_kit import Server, train_demo

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.generation.modes import GenerationMode  # noqa: E402

EXAMPLES = int(os.environ.get("RECSYS_FUZZ_EXAMPLES", "75"))  # per endpoint and mode


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from recsys.store import load

    path = train_demo(tmp_path_factory.mktemp("fuzzed") / "m")
    server = Server(path)
    yield server, load(path)
    server.stop()


def with_known_ids(case, user, item, ratings) -> None:
    """``case`` with its path's user and item ids of the model, and its body's ratings of items of
    the model on its scale."""
    params = case.path_parameters or {}
    if "user" in params:
        params["user"] = str(user)
    if "item" in params:
        params["item"] = str(item)
    if isinstance(case.body, dict) and isinstance(case.body.get("ratings"), list):
        case.body["ratings"] = [{"item": item, "rating": value} for item, value in ratings]


@pytest.mark.slow
def test_fuzzed_requests_never_get_a_5xx(served):
    server, model = served
    fp = model.profiles_
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 9
    items = st.sampled_from(fp.items.tolist())
    ratings = st.lists(st.tuples(items, st.integers(1, 5)), min_size=1, max_size=20, unique_by=lambda r: r[0])
    known = st.tuples(st.sampled_from(fp.users.tolist()), items, ratings, st.booleans())
    answers: collections.Counter = collections.Counter()
    with requests.Session() as http:
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                key = (operation.path, mode.value)

                @settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    database=None,
                    derandomize=True,
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=mode), ids=known)
                def call(case, ids):
                    if ids[-1]:
                        with_known_ids(case, *ids[:-1])
                    r = case.call(base_url=server.url, session=http, timeout=30)
                    answers[(*key, r.status_code // 100)] += 1  # noqa: B023 (called in this iteration only)
                    assert r.status_code < 500, (case.method, case.formatted_path, case.query, case.body, r.text[:500])

                try:
                    call()
                except Unsatisfiable:  # nothing breaks the schema of an endpoint without parameters
                    assert mode == GenerationMode.NEGATIVE
    total = sum(answers.values())
    assert total >= 0.8 * 13 * EXAMPLES, answers  # at least 13 of the 18 (endpoint, mode) pairs have cases to draw
    assert sum(n for (path, _, kind), n in answers.items() if kind == 2 and path != "/health") > 0.1 * total, answers
    assert server.get("/health").ok and server.proc.poll() is None
