"""The search that cannot stop on an edge (recsys.evaluation.search, selection.sweep's extension)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recsys.evaluation import selection
from recsys.evaluation.grids import AXES, GRIDS, axes
from recsys.evaluation.methods import Method, Scores, Training
from recsys.evaluation.search import Axis, edges, next_point


class Peaked(Method):
    """A toy method whose tuning AUC is best at ``v == peak`` and falls as ``v`` moves away from it
    (on a log scale): negative ``i`` outranks the positives once ``d · c_i > 1``, ``d`` the distance."""

    def __init__(self, v, peak):
        self.v, self.peak = v, peak

    def fit(self, train):
        return self

    def score(self, users, items):
        d = abs(np.log(self.v) - np.log(self.peak))
        s = np.where(Y, 1.0, d * C)
        return Scores(s, np.ones(len(items), bool))


N = 400
TUNE = pd.DataFrame({"user": [1] * N, "item": np.arange(N)})
Y = np.arange(N) % 2 == 0
C = np.arange(N) / N * 4.0


def sweep(grid, peak, axis=None, max_extra=16):
    axis = axis or {"v": Axis()}
    make = lambda p: Peaked(p["v"], peak)  # noqa: E731
    return selection.sweep(make, grid, Training(TUNE), {"like": (TUNE, Y)}, axes=axis, max_extra=max_extra)["like"]


def test_a_best_value_on_an_open_edge_is_extended_until_interior():
    c = sweep([{"v": 1.0}, {"v": 2.0}, {"v": 4.0}], peak=30.0)
    assert c.point == {"v": 32.0}  # 4 → 8 → 16 → 32 → 64 (worse): 32 is interior
    assert c.axes["v"]["values"] == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
    assert c.axes["v"]["open_edge"] is None and len(c.values) == len(c.grid) == 7


def test_extension_goes_down_too_and_stops_at_a_floor():
    c = sweep([{"v": 4.0}, {"v": 8.0}], peak=0.01, axis={"v": Axis(floor=1.0)})
    assert c.point == {"v": 1.0} and c.axes["v"]["open_edge"] is None  # the floor closes the edge


def test_without_extra_fits_the_open_edge_is_reported():
    c = sweep([{"v": 1.0}, {"v": 2.0}], peak=30.0, max_extra=0)
    assert c.point == {"v": 2.0} and c.axes["v"]["open_edge"] == "high" and len(c.values) == 2


def test_fits_are_bounded_and_the_edge_stays_reported_when_they_run_out():
    c = sweep([{"v": 1.0}, {"v": 2.0}], peak=300.0, max_extra=3)
    assert len(c.values) == 5 and c.point == {"v": 16.0} and c.axes["v"]["open_edge"] == "high"


def test_a_setting_without_an_axis_is_never_extended():
    c = selection.sweep(
        lambda p: Peaked(p["v"], 30.0),
        [{"v": 1.0, "input": "all"}, {"v": 2.0, "input": "all"}],
        Training(TUNE),
        {"like": (TUNE, Y)},
        axes={},
        max_extra=8,
    )["like"]
    assert len(c.values) == 2


def test_edges_follow_the_line_through_the_chosen_point():
    points = [{"a": a, "b": b} for a in (1, 2, 4) for b in (1, 2)] + [{"a": 8, "b": 1}]
    ax = {"a": Axis(integer=True, floor=1), "b": Axis(integer=True, floor=1)}
    e = edges(points, {"a": 4, "b": 2}, ax)
    assert e["a"] == {"values": [1, 2, 4], "chosen": 4, "open_edge": "high"}  # a = 8 was tried at b = 1 only
    assert e["b"]["open_edge"] == "high"
    assert next_point(points, {"a": 4, "b": 2}, ax) == {"a": 8, "b": 2}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 100.0), min_size=1, max_size=6, unique=True),
    st.booleans(),
    st.sampled_from([None, 0.25]),
    st.booleans(),
)
def test_beyond_moves_outward_and_respects_bounds(values, low, add, integer):
    axis = Axis(add=add, floor=0.0, ceiling=50.0, integer=integer)
    values = sorted({int(round(v)) for v in values} if integer else set(values))
    v = axis.beyond(values, low)
    if v is not None:
        assert (v < min(values)) if low else (v > max(values))
        assert 0.0 <= v <= 50.0
        assert not integer or isinstance(v, int)


def test_a_setting_at_zero_is_a_closed_floor_and_the_search_steps_up_from_it():
    # SVD++'s reg_all and ItemKNN's shrinkage start at 0: nothing lies below it, and a line through the
    # chosen point that holds 0 alone is still open above (× step of 0 is 0: from_zero says where to go)
    for method, name in (("svdpp", "reg_all"), ("itemknn", "shrink")):
        axis = AXES[method][name]
        assert axis.edge_of([0.0, axis.from_zero * 4], 0.0) is None
        assert axis.edge_of([0.0], 0.0) == "high" and axis.beyond([0.0], low=False) == axis.from_zero
    assert Axis(floor=0.0).edge_of([0.0], 0.0) is None  # without from_zero, nothing above 0 is tried


def test_every_declared_axis_names_a_setting_of_its_grids():
    from recsys.evaluation.protocol import PER_LIKE_SETTING  # the interactions' grids add it

    for method, declared in AXES.items():
        names = {k for size in GRIDS[method].values() for point in size for k in point}
        assert set(declared) <= names | {PER_LIKE_SETTING.get(method)}, method


def test_neighbour_counts_stop_at_the_catalogue():
    k = axes("itemknn", n_items=1682)["k"]
    assert k.beyond([400, 800], low=False) == 1600 and k.beyond([800, 1600], low=False) == 1682
    assert k.beyond([1600, 1682], low=False) is None


@pytest.mark.parametrize("weighting", ["none", "tfidf", "bm25"])
def test_itemknn_without_shrinkage_is_the_cosine_of_weighted_item_vectors(weighting):
    """With no shrinkage and no weighting ours is implicit's ``CosineRecommender`` similarity; with
    a weighting, the cosine of the item vectors implicit's ``tfidf_weight`` / ``bm25_weight`` make
    (every neighbour kept: ties at the k-th would be broken differently)."""
    import scipy.sparse as sp
    from implicit.nearest_neighbours import CosineRecommender, bm25_weight, tfidf_weight

    from recsys.evaluation.anchors import itemknn_weights

    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((40, 25)) < 0.3).astype(np.float64))
    n = X.shape[1]
    if weighting == "none":
        theirs = CosineRecommender(K=n, num_threads=1)
        theirs.fit(X, show_progress=False)
        T = theirs.similarity.toarray()
    else:
        V = sp.csr_matrix({"tfidf": tfidf_weight, "bm25": bm25_weight}[weighting](X.T.tocsr())).toarray()
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        T = V @ V.T
    np.fill_diagonal(T, 0.0)
    np.testing.assert_allclose(itemknn_weights(X, n, 0.0, weighting).toarray(), T, rtol=1e-5, atol=1e-6)


def test_shrinkage_lowers_pairs_with_few_shared_users_most():
    import scipy.sparse as sp

    from recsys.evaluation.anchors import itemknn_weights

    # items 0 and 1 share one user of one each; 2 and 3 share 20 of 20
    X = np.zeros((41, 4))
    X[0, [0, 1]] = 1
    X[1:21, [2, 3]] = 1
    W0 = itemknn_weights(sp.csr_matrix(X), 4, 0.0).toarray()
    W = itemknn_weights(sp.csr_matrix(X), 4, 10.0).toarray()
    assert W0[0, 1] == pytest.approx(1.0) and W0[2, 3] == pytest.approx(1.0)
    assert W[0, 1] == pytest.approx(1 / 11) and W[2, 3] == pytest.approx(20 / 30)


def test_the_text_report_flags_a_choice_on_an_open_edge():
    from recsys.evaluation.summary import _params

    r = {"params": {"k": 800}, "tuning": {"axes": {"k": {"values": [200, 800], "chosen": 800, "open_edge": "high"}}}}
    assert _params(r) == "   {'k': 800}   (on an open edge: k high)"
    r["tuning"]["axes"]["k"]["open_edge"] = None
    assert _params(r) == "   {'k': 800}"


@pytest.mark.parametrize("kind", ["all", "likes", "relevant", "weighted"])
def test_anchor_inputs_and_their_fold_in_read_the_same_entries(kind):
    """Each input keeps the ratings it names with the value it names, and a user folded in from
    their training ratings is scored as in the model (item-item anchors)."""
    from recsys.evaluation.anchors import ItemKNN

    rng = np.random.default_rng(1)
    ratings = pd.DataFrame(
        {"user": np.repeat(np.arange(30), 8), "item": rng.integers(0, 20, 240), "rating": rng.integers(1, 6, 240)}
    ).drop_duplicates(["user", "item"])
    m = ItemKNN(2.0, 0, kind, k=20).fit(Training(ratings))
    r = ratings["rating"].to_numpy()
    keep = {"all": r > 0, "likes": r > 2, "relevant": r >= 4, "weighted": r > 0}[kind]
    assert m.X_.nnz == keep.sum()
    assert m.X_.sum() == pytest.approx(r[keep].sum() if kind == "weighted" else keep.sum())
    catalogue = np.arange(20)
    own = ratings[ratings["user"] == 3]
    folded = m.fold_in_block([(own["item"].to_numpy(), own["rating"].to_numpy())], catalogue)
    np.testing.assert_allclose(folded, m.rank_block([3], catalogue), rtol=1e-6)


def test_an_unknown_input_is_named():
    from recsys.evaluation.anchors import ItemKNN

    with pytest.raises(ValueError, match="input must be one of all, likes, relevant, weighted, got 'stars'"):
        ItemKNN(2.0, 0, "stars", k=5).fit(Training(pd.DataFrame({"user": [1], "item": [1], "rating": [4]})))
