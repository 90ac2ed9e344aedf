"""The recommender's named choices and parameter presets, defined once.

Everything here is plain data (and two small functions): the command line, the evaluation and
the experiments import it instead of repeating it.
"""

from __future__ import annotations

# The two sides of the paper's relations, and the verdicts of a prediction.
SIDES = ("like", "dislike")
LIKE, DISLIKE, NONE = "like", "dislike", "none"
RELEVANCE = "relevance"  # a model of implicit feedback's prediction: a score to rank by, no verdict
# The reason of a covered prediction whose item has no training rating.
NEW_ITEM = "new item: from its attributes alone"
# How a prediction is made: the scored like-probability, or the paper's Jaccard rule.
MODES = ("scored", "paper")
# What the co-clusters are computed on, and where the neighbourhoods come from
# (see recsys.model.learning).
FEATURES = ("movies", "all", "attributes")
NEIGHBOURS = ("coclusters", "ratings")
# The rules for large data (ProfileRecommender's ``scaling``): "on", "off", or "auto" (on from
# LARGE_FROM_RATINGS training ratings).  With them, the profiles are fitted once: after the weights,
# the co-clusters, neighbourhoods and item model learnt without the held-out ratings are kept and the
# held-out ratings added to the rating table and baseline that the votes and lists read (about half
# the training time of fitting them again on every rating); the item model's penalty is ``item_l2``
# times the training data's mean like count of a rated movie over ITEM_L2_REFERENCE_LIKES; each user
# stays in at most COCLUSTERS_PER_USER co-clusters of each side, those with the fewest users (the
# co-memberships, and with them the neighbourhoods' cost, then grow with the users, not with their
# square); the co-clustering runs within COCLUSTER_BUDGET (unless like_params / dislike_params set
# ``budget``; coclust.budget); an item's weights use at most ITEM_PARTNERS partners; the
# neighbourhoods come from co-members alone where that is cheaper (SPARSE_NEIGHBOURS_UP_TO); where one
# inverse over the movies costs at most DENSE_INVERSE_FLOPS_PER_RATING a rating, the like weights are
# EASE's on the co-clustered pairs.
SCALINGS = ("auto", "on", "off")
LARGE_FROM_RATINGS = 500_000
# The mean like count of a rated movie in MovieLens 100K's training folds (u1..u5.base: 39.8-40.1),
# where the item model's penalty was tuned: with the scaling rules the penalty grows in proportion
# to the data's mean, keeping its weight against the Gram diagonal (the like counts) the same.
ITEM_L2_REFERENCE_LIKES = 40.0
# With the scaling rules, the co-clusters of each side a user stays in (the most selective).
COCLUSTERS_PER_USER = 400
# With the scaling rules, HBLCoClust's work budget (coclust.budget): each side's relaxed co-clusters
# hold at most this many memberships per relation of the side.  MovieLens-shaped data of a moderate
# head hold 0.5-5 and a head rated by 98 % of the users 60 without it (1 M ratings: 260 s of
# co-clustering); the budget keeps the most selective of them.  Chosen on training data only (the
# scale benchmark's 1 M ratings, its own tenth held out, a tenth of the rest held out again): at
# 052c87d, budgets 0.5, 1 and 2 gave NDCG@10 0.0888, 0.0888, 0.0888 (movielens structure, which does
# not reach 1), 0.1104, 0.1088, 0.1087 (a head of 85 %) and 0.3496, 0.3527, 0.3518 (a head of 98 %),
# AUC within 0.0007; the like co-clustering of the 98 % head took 2.4, 2.6 and 3.4 s.  (An earlier
# model, at 2 against 1: 0.3484 against 0.3475 on the 98 % head; budgets 4 and 8 gave 0.3460.)
COCLUSTER_BUDGET = 1.0
# With the scaling rules, a side left at the recommender's co-clustering parameters (RECOMMENDER_PARAMS)
# co-clusters with these instead: LSH bands of 3 keys (more seeds) and every region that holds a user
# or movie held by fewer than 16 kept regions (HBLCoClust's region_cover; the author's heuristic is 1).
# Where the budget binds, the extra regions' concepts are cut with the rest; where it does not, more
# movie pairs share a co-cluster and the item model learns on them.  Chosen on training data only
# (the scale benchmark's 1 M ratings, its own tenth held out, a tenth of the rest held out again;
# EASE tuned on the same: 0.0915 / 0.3512 / 0.1032 for the movielens / concentrated / popular structures),
# NDCG@10 and train seconds with the defaults (bands of 4, cover 1): 0.0897, 0.3541, 0.1106; at min_density
# 1.0 and bands of 3 by cover 1, 2, 4, 8, 16, 32, 64: 0.0895, 0.0904, 0.0912, 0.0913, 0.0919, 0.0908, 0.0915
# (movielens), 0.3530, 0.3539, 0.3531, 0.3535, 0.3533, 0.3529, 0.3532 (concentrated: the budget binds),
# 0.1113, 0.1104, 0.1105, 0.1104, 0.1108, 0.1105, 0.1104 (popular); trains 5.1-6.4 s (movielens), 6.2-6.9 s
# (concentrated).  Bands of 4 at cover 8: 0.0896 (movielens).  At min_density 0.8 (kept: relaxed
# co-clusters as elsewhere) and cover 16: 0.0918, 0.3532, 0.1107 in 6.8, 6.8, 6.4 s; cover 8: 0.0912,
# 0.3533, 0.1103.
SCALED_COCLUSTERING = dict(band_size=3, region_cover=16)
# With the scaling rules, the partners an item's weights may use in the item model (those it is
# most liked with): its per-item solves then cost about n_items × 200³ / 3 flops, linear in the
# catalogue (at 1 M ratings, 3,706 movies: 10 GFlop, against the 100 GFlop budget otherwise).  The
# price, measured on training data only (benchmarks' movielens structure, 1 M ratings, NDCG@10 on
# a tenth of the training part held out): 200 partners 0.2720 in a 28 s fit, 400 partners 0.2763
# in 40 s, 800 (the flop budget's cap) 0.2776 in 44 s; EASE 0.2800.  Kept at 200 for the cost.
ITEM_PARTNERS = 200
# With the scaling rules, where the movies with co-clustered partners are few enough that one dense
# inverse over them (n³ flops) costs at most this many flops per rating learnt from (and their Gram
# matrix is dense: item_model.DENSE_GRAM_BYTES), the item model's weights are EASE's kept on the
# co-clustered pairs (recsys.model.item_model.ease_on_support: no partner cut) instead of a ridge per
# movie on its ITEM_PARTNERS partners; the residual model keeps those per-movie solves (its weights
# are read per candidate in every list).  The bound keeps the inverse's cost a share of the fit's,
# whatever the catalogue: 3.5e5 flops is 4-6 µs a rating at the 60-80 Gflop/s this machine's LAPACK
# inverts at (EASE: 11,719 movies in 26 s, 18,530 in 79 s), against 8-10 µs for the rest of the fit.
# On the scale benchmark's 1, 10 and 25 M ratings (fits of 0.81, 8.1 and 20.3 M) it reaches 6,569,
# 14,153 and 19,208 movies: their 3,706, 11,719 and 18,530 are inverted, Netflix's 17,770 from 25 M.
# Chosen on training data only (the scale benchmark's movielens structure, its own tenth dropped, a
# tenth of the rest held out; EASE tuned on the same).  At 1 M (3,706 movies; the rule was a flat
# 5,000 movies then), NDCG@10 per-movie solves / EASE on the pairs / EASE: 0.0829 / 0.0888 / 0.0915
# (movielens), 0.1102 / 0.1087 / 0.1032 (popular), 0.3485 / 0.3518 / 0.3512 (concentrated); AUC
# within 0.001; the item model 0.35 s longer, lists 17-25 % longer.  At 10 M (11,719 movies):
# 0.0427 / 0.0471 / 0.0480, AUC 0.7964 / 0.7964; the item model 18.9 s → 39.8 s, the model 196 →
# 369 MB (811 weights a movie instead of 164).  At 25 M (18,530 movies): 0.0525 / 0.0572, AUC
# 0.7936 for both; the item model 44 s → 148 s, the model 403 → 555 MB.  EASE's weights kept on each
# movie's 200 capped partners instead scored 0.0382 at 10 M: the cut, not the solve, is what costs.
DENSE_INVERSE_FLOPS_PER_RATING = 3.5e5
# The largest dense Gram matrix (8 × movies² bytes) over which the residual model's per-movie solves
# run while the like weights' inverse is computed (recsys.model.item_model.ease_on_support's
# ``meanwhile``); above it they run after it, so that their own Gram matrix (dense too, as large) is
# not alive beside the inverse's.  At 25 M ratings (18,530 and 17,770 movies: 2.7 and 2.5 GB each)
# the two together made peaks of 9.62-9.77 GB (MovieLens' shape) and 10.0 GB (Netflix's) against
# 6.98 GB before they overlapped; learning the item model after the dislike side instead of beside it
# left the peak where it was (9.77 GB, f729ae4).  With the solves after the inverse (which then runs
# on every BLAS thread): 7.18 and 7.77 GB, trains of 208.8 and 190.9 s against 229.1 and 230.1 s, the
# same AUC and NDCG@10 (23688c2, stop 80).  At 1 M (3,706 movies, 0.11 GB) the overlap takes 0.3 s
# off the fit; at 10 M (11,719 movies, 1.1 GB) both fit in the 6 GB asked (4.3-4.6 GB).
SOLVES_BESIDE_INVERSE_GRAM_BYTES = 1.5e9

# With the scaling rules, the neighbourhoods are taken from each entity's co-members alone (a compiled
# sparse accumulation and top-k) whenever the co-memberships' products (sum of squared co-cluster
# sizes) are at most this many times entities², instead of dense rows of every entity up to
# 16,384 of them.  Measured on the scale benchmark's 1 M ratings (the same similarities; the runs of
# one process): movielens structure, all four neighbourhoods 2.1 s dense against 0.8 s sparse (products
# 0.04-0.39 × entities²); concentrated 1.7 against 1.2 s (0.11-2.39 ×).  On MovieLens 100K the like
# users' products are 40 × entities² and the dense rows faster (0.17 against 0.60 s): its models are
# not touched.  Where entities tie at the 200th neighbour the sparse path keeps the smaller indices.
SPARSE_NEIGHBOURS_UP_TO = 8.0
# With the scaling rules, the co-members an entity's neighbourhood reads at most on the sparse path,
# its smallest (most selective) co-clusters first.  The like users' co-memberships grow with the
# users and so did the neighbourhoods' cost per rating (25 M MovieLens-shaped ratings: 53.5 s of
# 240.9).  On that data (benchmarks' movielens structure) all co-members, 50,000 and 20,000 a row
# took 53.5, 39.3 and 27.0 s; 20,000 keeps 83 % of the like users' top-200.  Chosen on training data
# only (the benchmark's tenth dropped, a tenth of the rest held out): all against 20,000 gave AUC
# 0.79427 / 0.79418 and NDCG@10 0.05253 / 0.05251 at 25 M, 0.88941 / 0.88901 and 0.34879 / 0.34848
# at 1 M of the concentrated structure, where it binds on 302 movies.
NEIGHBOUR_BUDGET = 20_000
# With the scaling rules, the score leaves out the votes of the users who share a person's
# co-clusters (these terms), and the users' neighbourhoods are not learnt; the movies' votes stay.
# At a million ratings those votes made a third of the lists' kernel time, and the lists ranked
# better without them.  Chosen on training data only (the scale benchmark's 1 M ratings, its own
# tenth dropped, a tenth of the rest held out; at 62667fe), NDCG@10 and AUC with / without them:
# 0.0888 / 0.0897 and 0.8033 / 0.8019 (movielens structure), 0.1088 / 0.1106 and 0.8108 / 0.8099
# (popular), 0.3529 / 0.3541 and 0.8892 / 0.8854 (concentrated).  The price is the AUC: 0.0009 to
# 0.0038.  Without the movies' votes as well: 0.0887, 0.1108, 0.3505 (AUC 0.8002, 0.8094, 0.8743).
# Checked at 10 M (movielens structure, the same harness): 0.04270 / 0.04268 and 0.7970 / 0.7964.
SCALED_OUT_TERMS = ("like_users", "dislike_users")

# The most a table's rows copied as bitsets may take (the paper rule's union of co-clusters, the
# lists' neighbour votes): above it those steps read the rows' indices instead.
BITSET_BYTES = 256 << 20

# Co-clustering parameters chosen for the recommender (measured on u1; see recsys.model.learning).
# column_order "auto": In-Close takes a region's columns most held first where the budget's share
# binds, by index elsewhere (MovieLens 100K's models are those of the index order).  Measured on
# the scale benchmark's concentrated structure (1 M ratings, the train's own tenth held out): its
# interactions' step 4 took 3.0-3.4 s instead of 6.8 s.  NDCG@10 on a tenth of the training part
# held out, by index / by degree everywhere / auto: 0.3484 / 0.3487 / 0.3485 (ratings), 0.2861 for
# all three (interactions); the movielens and popular structures within 0.0003.  By degree
# everywhere changes MovieLens 100K's lists (five folds, pooled paired NDCG@10 -0.0011
# [-0.0021, -0.0001]): hence only where the budget binds (docs/benchmarks.md).
RECOMMENDER_PARAMS = dict(
    n_bands=300, band_size=4, min_rows=2, min_cols=2, min_density=0.8, skip_covered=True, column_order="auto"
)
# The paper's MovieLens parameters (its table: minO = minF = 2, nhashes 5000, nkeys 4, thr 0,
# spthr 0.8); the like relation then has millions of distinct regions, so the author's
# skip_covered heuristic is on.
PAPER_PARAMS = dict(
    n_bands=5000, band_size=4, min_rows=2, min_cols=2, max_feature_freq=1.0, min_density=0.8, skip_covered=True
)


def recommender_params(
    *,
    features: str = "movies",
    paper: bool = False,
    coclust: dict | None = None,
    like_threshold: float = 2.0,
    random_state: int = 0,
    scheduler: str | None = None,
    scaling: str = "auto",
    feedback: str = "auto",
    confidence: str = "none",
    item_l2_per_like: float = 0.0,
    refit_item_model: bool = False,
) -> dict:
    """:class:`~recsys.model.ProfileRecommender` parameters from a user's choices.

    ``paper`` takes the paper's co-clustering parameters and features (every feature, as the
    paper co-clusters them); ``coclust`` overrides single HBLCoClust parameters (``None`` values
    are ignored); ``scheduler`` sends the co-clustering's LSH step to that Dask scheduler; ``scaling``,
    ``feedback``, ``confidence``, ``item_l2_per_like`` and ``refit_item_model`` are
    :class:`~recsys.model.ProfileRecommender`'s.

    >>> recommender_params(paper=True, coclust={"n_bands": 100, "min_rows": None})["like_params"]["n_bands"]
    100
    """
    params = dict(PAPER_PARAMS if paper else RECOMMENDER_PARAMS)
    params.update({k: v for k, v in (coclust or {}).items() if v is not None})
    if scheduler is not None:
        params.update(backend="dask", scheduler=scheduler)
    return dict(
        like_threshold=like_threshold,
        features="all" if paper else features,
        like_params=params,
        dislike_params=dict(params),
        random_state=random_state,
        scaling=scaling,
        feedback=feedback,
        confidence=confidence,
        item_l2_per_like=item_l2_per_like,
        refit_item_model=refit_item_model,
    )


def scaled_coclustering(params: dict | None) -> dict:
    """A side's HBLCoClust parameters under the scaling rules: SCALED_COCLUSTERING's where the side
    is left at the recommender's (``None`` or RECOMMENDER_PARAMS), and COCLUSTER_BUDGET unless the
    side sets a budget.

    >>> scaled_coclustering(None)["region_cover"], scaled_coclustering({"n_bands": 9}).get("region_cover")
    (16, None)
    """
    params = dict(RECOMMENDER_PARAMS if params is None else params)
    if params == RECOMMENDER_PARAMS:
        params.update(SCALED_COCLUSTERING)
    return {"budget": COCLUSTER_BUDGET, **params}


def scales(scaling: str, n_ratings: int) -> bool:
    """Whether a fit on ``n_ratings`` training ratings applies the scaling rules
    (:class:`~recsys.model.ProfileRecommender`'s ``scaling``)."""
    return scaling == "on" or (scaling == "auto" and n_ratings >= LARGE_FROM_RATINGS)


def check_coclustering(params_by_name: dict) -> None:
    """Check each side's HBLCoClust parameters (``None``: the defaults) by HBLCoClust's contract;
    the first invalid one raises :class:`~recsys.errors.ParameterError` naming the side."""
    from coclust.contract import CoClusteringParams  # the contract alone: no numba import

    from ..errors import ParameterError

    for name, params in params_by_name.items():
        if params is None:
            continue
        try:
            CoClusteringParams(**params).check_params()
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"{name}: {exc}") from None
