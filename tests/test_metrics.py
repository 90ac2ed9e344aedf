import numpy as np
import pytest

from coclust import metrics


def test_purity_is_unweighted_mean():
    cc = [(np.array([0, 1]), np.array([0])), (np.array([2, 3, 4, 5]), np.array([1]))]
    labels = ["a", "a", "a", "b", "b", "b"]
    assert metrics.purity(cc, labels) == pytest.approx((1.0 + 0.75) / 2)


def test_nmi_bounds():
    labels = [0, 0, 1, 1]
    perfect = [(np.array([0, 1]), np.array([0])), (np.array([2, 3]), np.array([0]))]
    mixed = [(np.array([0, 2]), np.array([0])), (np.array([1, 3]), np.array([0]))]
    assert metrics.nmi(perfect, labels, method="sqrt") == pytest.approx(1.0)
    assert metrics.nmi(perfect, labels) == pytest.approx(2.0)  # 2 I / (H_C H_L) = 2 * 1 / (1 * 1)
    assert metrics.nmi(mixed, labels) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="method"):
        metrics.nmi(perfect, labels, method="max")


def test_pmi_extremes():
    X = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    assert metrics.pmi([(np.array([0]), np.array([0, 1]))], X) == pytest.approx(1.0)  # always together
    assert metrics.pmi([(np.array([0]), np.array([2, 3]))], X) == pytest.approx(0.0)  # never together: 0, as the code
    # pair-weighted: a 3-feature co-cluster counts 3 pairs
    three = [(np.array([0]), np.array([0, 1, 2]))]
    pairs = [metrics.pmi([(np.array([0]), np.array(c))], X) for c in ([0, 1], [0, 2], [1, 2])]
    assert metrics.pmi(three, X) == pytest.approx(np.mean(pairs))
    # independent features: NPMI 0
    Y = np.array([[1, 1], [1, 0], [0, 1], [0, 0]])
    assert metrics.pmi([(np.array([0]), np.array([0, 1]))], Y) == pytest.approx(0.0, abs=1e-12)


def test_coverage_size_density_summary():
    X = np.array([[1, 1, 0], [1, 1, 0], [0, 1, 1]])
    cc = [(np.array([0, 1]), np.array([0, 1]))]
    assert metrics.coverage(cc, X.shape) == (2 / 3, 2 / 3)
    assert metrics.mean_size(cc) == 4
    assert metrics.density((np.array([0, 1, 2]), np.array([0, 1])), X) == pytest.approx(5 / 6)
    s = metrics.summary(cc, X, labels=[0, 0, 1])
    assert s["purity"] == 1.0 and s["n_coclusters"] == 1
