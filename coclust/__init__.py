"""coclust — hash-based linear co-clustering (HBLCoClust) of sparse binary data.

>>> from coclust import HBLCoClust

The package loads its parts on first use: ``import coclust.params`` (the parameter contract) or
``coclust.metrics`` costs no scikit-learn or numba import until the estimator is needed, and
:class:`~coclust.fitting.CoClustering` (the same fit without scikit-learn's interface) none of
scikit-learn's.
"""

from __future__ import annotations

import importlib

__all__ = ["HBLCoClust", "CoClustering", "inclose", "ConceptBudgetExceeded", "metrics"]
__version__ = "0.1.0"

_LAZY = {
    "HBLCoClust": ("coclust.estimator", "HBLCoClust"),
    "CoClustering": ("coclust.fitting", "CoClustering"),
    "inclose": ("coclust.concepts", "inclose"),
    "ConceptBudgetExceeded": ("coclust.concepts", "ConceptBudgetExceeded"),
    "metrics": ("coclust.metrics", None),
}


def __getattr__(name: str):
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'coclust' has no attribute {name!r}") from None
    value = importlib.import_module(module)
    return value if attribute is None else getattr(value, attribute)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
