import doctest
import importlib

import pytest

MODULES = [
    "coclust.minhash",
    "coclust.inclose",
    "coclust.estimator",
    "coclust.metrics",
    "ingest.relations",
    "ingest.features",
    "ingest.linking",
    "ingest.benchmarks",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
