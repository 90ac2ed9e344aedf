"""The declared hyper-parameter grids of every compared method, ours included: one procedure picks
each method's setting from its grid on the tuning part of the training ratings (AUC for the
like/dislike task, NDCG@10 for lists), never on the test ratings.

``small`` grids are the default (``recsys evaluate`` on MovieLens 100K in a few minutes); ``full``
grids are the experiment's (``--grid full``), their starting ranges those the literature searches
(Ferrari Dacrema et al. 2019 and 2021 for ItemKNN — neighbours, shrinkage, feature weighting —,
RP3beta and BPR; Rendle et al. 2022 for iALS — factors to 256 and beyond, regularisation, α,
iterations).  A grid is a list of points, each a dict of the method's parameters (an empty dict:
its defaults); the first point wins ties.

:data:`AXES` declares every numeric setting's search rule (:class:`~recsys.evaluation.search.Axis`):
with the ``full`` grids a choice on an open edge is extended past it (``EXTRA_FITS`` more fits at
most); with either, the results say per axis whether the choice sits on an open edge.

>>> product(k=[1, 2], input=["likes"])
[{'k': 1, 'input': 'likes'}, {'k': 2, 'input': 'likes'}]
>>> grid("ease", "small")[0]
{'lamb': 200, 'input': 'all'}
"""

from __future__ import annotations

import itertools

from .search import Axis

GRIDS_NAMES = ("small", "full")
# fits past the declared grid a method's search may add (per method and fold), by grid.  A step along
# one setting reopens the line of every other (one value tried along each at the new point), so a
# four-setting method such as iALS spends up to seven fits a step: 16 ran out on iALS as
# interactions (MovieLens 100K u2 and u5 at ee514d4, iterations still climbing); no search of the
# ratings' experiment had used them all.
EXTRA_FITS = {"small": 0, "full": 48}


def product(**axes) -> list[dict]:
    """Every combination of the axes' values, the first axis varying slowest."""
    names = list(axes)
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*axes.values())]


INPUTS = ["all", "likes"]  # what an implicit-feedback method is fitted on: every rating, or the likes only
# the full grids' inputs add the ratings the lists count as relevant (4 and above) and every rating
# with its value (recsys.evaluation.anchors): the anchors may read what the product reads
ALL_INPUTS = ["all", "likes", "relevant", "weighted"]

GRIDS: dict[str, dict[str, list[dict]]] = {
    # like/dislike methods
    "majority": {"small": [{}], "full": [{}]},
    "naive_bayes": {"small": [{}], "full": [{}]},  # Laplace smoothing, nothing to tune
    "attribute_logistic": {"small": product(C=[0.1, 0.3, 1.0]), "full": product(C=[0.03, 0.1, 0.3, 1.0, 3.0])},
    "profile_paper": {"small": [{}], "full": [{}]},  # the paper's own setting, not tuned
    "bias": {
        "small": product(reg_u=[15, 5], reg_i=[10, 5]),
        "full": product(reg_u=[25, 15, 5], reg_i=[20, 10, 5]),
    },
    "svd": {
        "small": product(n_factors=[50, 100], n_epochs=[20], reg_all=[0.02, 0.05]),
        "full": product(n_factors=[20, 50, 100, 200], n_epochs=[20, 40], reg_all=[0.02, 0.05, 0.1]),
    },
    "svdpp": {
        "small": product(n_factors=[20], n_epochs=[20], reg_all=[0.02]),
        # reg_all starts at 0, its natural floor: halving it from 0.02 spent every extra fit on u2 and
        # two confirmation splits (0.02 -> 0.0025, still improving) before n_epochs was ever extended
        "full": product(n_factors=[10, 20, 50], n_epochs=[20], reg_all=[0.0, 0.02, 0.05]),
    },
    "knn_baseline": {
        "small": product(k=[20, 40, 80], sim=["pearson_baseline"]),
        "full": product(k=[10, 20, 40, 80, 160], sim=["pearson_baseline", "cosine"]),
    },
    "coclustering": {
        "small": product(n_cltr_u=[3, 5], n_cltr_i=[3, 5]),
        "full": product(n_cltr_u=[2, 3, 5, 8], n_cltr_i=[2, 3, 5, 8]),
    },
    "profile": {
        # n_votes, shrinkage and min_density were searched too (a 12-point grid at 8c09309): density 0.8 won
        # on every fold and task; n_votes 40 or 80 and shrinkage 1 or 5 split the folds, within 0.001 AUC;
        # band_size 3 crossed with the full grid (five folds at 3b83f45): AUC +0.0001, NDCG@10 +0.0003, not kept
        "small": product(item_l2=[200.0, 400.0, 800.0]),
        "full": product(n_votes=[40, 80], item_l2=[200.0, 400.0, 800.0]),
    },
    # top-N anchors
    "popularity": {"small": product(input=INPUTS), "full": product(input=INPUTS)},
    "ease": {
        "small": product(lamb=[200, 400, 800], input=INPUTS),
        "full": product(lamb=[50, 100, 200, 400, 800, 1600, 3200], input=ALL_INPUTS),
    },
    "itemknn": {
        "small": product(k=[100, 200, 400, 800], input=INPUTS),
        "full": product(
            k=[50, 100, 200, 400, 800], shrink=[0.0, 10.0, 100.0], weighting=["none", "tfidf", "bm25"], input=ALL_INPUTS
        ),
    },
    "rp3beta": {
        "small": product(alpha=[0.5, 0.75, 1.0], beta=[0.3, 0.6], k=[200], input=INPUTS),
        "full": product(
            alpha=[0.25, 0.5, 0.75, 1.0], beta=[0.0, 0.2, 0.4, 0.6, 0.8], k=[100, 200, 400], input=ALL_INPUTS
        ),
    },
    "ials": {
        "small": product(factors=[32, 64], regularization=[1.0, 10.0], alpha=[1.0], iterations=[15], input=INPUTS),
        "full": product(
            factors=[64, 128, 256],
            regularization=[3.0, 10.0, 30.0, 100.0],
            alpha=[1.0, 5.0, 20.0],
            iterations=[15],  # a single value sits on both edges: the search tries fewer and more
            input=ALL_INPUTS,
        ),
    },
    "bpr": {
        "small": product(factors=[64], learning_rate=[0.01], regularization=[0.01], iterations=[50, 100], input=INPUTS),
        "full": product(
            factors=[64, 128],
            learning_rate=[0.005, 0.01, 0.02],
            regularization=[0.0001, 0.001, 0.01],
            iterations=[100, 200],
            input=ALL_INPUTS,
        ),
    },
}


_COUNT = dict(integer=True, floor=1)
# every numeric setting of the grids above: how the search may extend it (closed edges are bounds:
# a count below 1, RP3beta's exponents below 0 or above 2, the range the literature searches)
AXES: dict[str, dict[str, Axis]] = {
    "attribute_logistic": {"C": Axis(step=3.0)},
    "bias": {"reg_u": Axis(), "reg_i": Axis()},
    "svd": {"n_factors": Axis(**_COUNT), "n_epochs": Axis(**_COUNT), "reg_all": Axis()},
    "svdpp": {"n_factors": Axis(**_COUNT), "n_epochs": Axis(**_COUNT), "reg_all": Axis(floor=0.0, from_zero=0.005)},
    "knn_baseline": {"k": Axis(**_COUNT)},
    "coclustering": {"n_cltr_u": Axis(**_COUNT, step=1.5), "n_cltr_i": Axis(**_COUNT, step=1.5)},
    # the penalty per like (interactions' grids, recsys.evaluation.protocol.PER_LIKE): 0 is EASE's
    "profile": {"item_l2": Axis(), "n_votes": Axis(**_COUNT), "item_l2_per_like": Axis(floor=0.0, from_zero=0.5)},
    "ease": {"lamb": Axis(), "l2_per_like": Axis(floor=0.0, from_zero=0.5)},
    # k: every item at most (the ceiling is set to the catalogue's size when the data is known)
    "itemknn": {"k": Axis(**_COUNT), "shrink": Axis(floor=0.0, step=10.0, from_zero=1.0)},
    "rp3beta": {
        "alpha": Axis(add=0.25, floor=0.0, ceiling=2.0),
        "beta": Axis(add=0.2, floor=0.0, ceiling=2.0),
        "k": Axis(**_COUNT),
    },
    # factors: 1,024 takes about an hour a fold on two cores; above it the edge is closed
    "ials": {
        "factors": Axis(**_COUNT, ceiling=1024),
        "regularization": Axis(step=3.0),
        "alpha": Axis(),
        "iterations": Axis(**_COUNT, ceiling=120),
    },
    "bpr": {
        "factors": Axis(**_COUNT, ceiling=1024),
        "learning_rate": Axis(),
        "regularization": Axis(step=10.0),
        "iterations": Axis(**_COUNT, ceiling=800),
    },
}
_COUNTED_IN_ITEMS = {"itemknn": "k", "rp3beta": "k"}


def axes(method: str, n_items: int | None = None) -> dict[str, Axis]:
    """The search rules of ``method``'s numeric settings; a neighbour count stops at the catalogue
    (``n_items``: beyond it every item is already a neighbour)."""
    out = dict(AXES.get(method, {}))
    name = _COUNTED_IN_ITEMS.get(method)
    if name and n_items:
        out[name] = Axis(**_COUNT, ceiling=n_items)
    return out


def grid(method: str, size: str = "small") -> list[dict]:
    """The grid of ``method`` (its declared points, in order)."""
    if size not in GRIDS_NAMES:
        raise ValueError(f"grid must be one of {', '.join(GRIDS_NAMES)}, got {size!r}")
    return [dict(point) for point in GRIDS[method][size]]
