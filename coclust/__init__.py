"""coclust — hash-based linear co-clustering (HBLCoClust) of sparse binary data.

>>> from coclust import HBLCoClust
"""

from .estimator import HBLCoClust
from .inclose import ConceptBudgetExceeded, inclose

__all__ = ["HBLCoClust", "inclose", "ConceptBudgetExceeded", "metrics"]
__version__ = "0.1.0"

from . import metrics  # noqa: E402
