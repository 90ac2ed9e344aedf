"""Learning :class:`~recsys.fitted.FittedProfiles` from training ratings: a function, no estimator state.

Steps: vocabularies; the rating baseline; the paper's like/dislike relations
(:func:`ingest.relations.build_relations`); co-clustering of the like (``:Y``) and dislike
(``:N``) relations with :class:`coclust.HBLCoClust`; the neighbourhoods the co-clusters define.

Which features are co-clustered is a choice (``features``):

``"movies"`` (the default)
    users × items of the relation (``movie:<id>:Y``), as for a collaborative-filtering
    bicluster; each co-cluster is then relaxed over the attribute relations the way step 5 of
    HBLCoClust relaxes columns: an attribute feature joins a co-cluster when at least
    ``min_density`` of its users hold it and one of its movies carries it.  On MovieLens 100K u1
    this is 6–10× faster than the next choice and gives better neighbourhoods (the attribute
    features, held by almost every user, dominate the co-clusters): see
    ``experiments/results/movielens.md``.
``"all"``
    the paper: users × every feature (movies and attributes) co-clustered together.
``"attributes"``
    users × the attribute features only (the paper's relation without its per-movie features).

The neighbourhoods come from the co-clusters (``neighbours="coclusters"``, the product), or, as a
control for the ablations, from the plain co-ratings (``neighbours="ratings"``: the cosine of the
users' +1 like / -1 dislike vectors, and of the items'), which no co-cluster can explain.
"""

from __future__ import annotations

import time

import numpy as np

from ingest.features import DISLIKE, ITEM_KIND, LIKE, attribute_names, split_features

from ._csr import Csr
from .fitted import CoClusters, FittedProfiles, id_array
from .neighbours import Neighbours, from_coclusters, from_ratings

# Co-clustering parameters chosen for the recommender (measured on u1; see the module docstring).
RECOMMENDER_PARAMS = dict(n_bands=300, band_size=4, min_rows=2, min_cols=2, min_density=0.8, skip_covered=True)
# The paper's MovieLens parameters (nhashes 5000, nkeys 4, minO = minF = 2, thr 0, spthr 0.8); the
# like relation then has millions of distinct regions, so the author's skip_covered heuristic is on.
PAPER_PARAMS = dict(
    n_bands=5000, band_size=4, min_rows=2, min_cols=2, max_feature_freq=1.0, min_density=0.8, skip_covered=True
)
FEATURES = ("movies", "all", "attributes")
NEIGHBOURS = ("coclusters", "ratings")


def _say(progress):
    return progress or (lambda message: None)


def rating_baseline(ratings: Csr, reg_user: float = 15.0, reg_item: float = 10.0, n_iter: int = 10):
    """``(mean, user_bias, item_bias)`` by alternating regularised means (as Surprise's BaselineOnly with ALS)."""
    r, u, i = ratings.values, ratings.row_of, ratings.idx
    mean = float(r.mean()) if len(r) else 0.0
    nu, ni = ratings.shape
    bu, bi = np.zeros(nu), np.zeros(ni)
    cu, ci = np.bincount(u, minlength=nu), np.bincount(i, minlength=ni)
    for _ in range(n_iter):
        bi = np.bincount(i, r - mean - bu[u], minlength=ni) / (reg_item + ci)
        bu = np.bincount(u, r - mean - bi[i], minlength=nu) / (reg_user + cu)
    return mean, bu, bi


def holdout_mask(ratings, fraction: float, seed: int) -> np.ndarray:
    """True for the ratings held out: a hash of (user, item, seed) below ``fraction``.

    It depends on the pair, not on the row order, so the same ratings in any order (a DataFrame,
    a Surprise trainset) give the same split.
    """
    import pandas as pd

    key = f"recsys{int(seed) & 0xFFFFFFFFFF:010d}"[-16:]
    h = pd.util.hash_pandas_object(ratings[["user", "item"]].astype(str), index=False, hash_key=key).to_numpy()
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) < fraction


def check_ratings(ratings) -> None:
    """Raise ValueError unless ``ratings`` is a DataFrame of finite (user, item, rating) with no repeats."""
    import pandas as pd

    if not isinstance(ratings, pd.DataFrame) or not {"user", "item", "rating"} <= set(ratings.columns):
        raise ValueError("ratings must be a DataFrame with columns user, item, rating")
    if len(ratings) == 0:
        raise ValueError("ratings is empty")
    r = pd.to_numeric(ratings["rating"], errors="coerce")
    if not np.isfinite(r.to_numpy(dtype=np.float64)).all():
        bad = ratings.loc[~np.isfinite(r.to_numpy(dtype=np.float64)), "rating"].iloc[0]
        raise ValueError(f"ratings must be finite numbers, found {bad!r}")
    if ratings[["user", "item"]].isna().any().any():
        raise ValueError("ratings have a missing user or item id")
    dup = ratings.duplicated(["user", "item"], keep=False)
    if dup.any():
        first = ratings.loc[dup, ["user", "item"]].iloc[0]
        raise ValueError(
            f"ratings hold {int(dup.sum())} rows of repeated (user, item) pairs, e.g. ({first['user']}, "
            f"{first['item']}); keep one rating per pair"
        )


def fit_profiles(
    ratings,
    item_attributes=None,
    items=None,
    *,
    like_threshold: float = 2.0,
    features: str = "movies",
    like_params: dict | None = None,
    dislike_params: dict | None = None,
    n_neighbours: int = 200,
    neighbours: str = "coclusters",
    random_state: int = 0,
    progress=None,
) -> tuple[FittedProfiles, dict]:
    """Learn the profiles of ``ratings`` (``user, item, rating``).

    Parameters
    ----------
    ratings : DataFrame
        Training ratings, one per (user, item).
    item_attributes : DataFrame with columns ``item, kind, value``, optional
    items : DataFrame with columns ``item, title``, optional
        Display titles.
    like_threshold : float
        A rating above it is a like (the paper: 2).
    features : {"movies", "all", "attributes"}
        What the co-clusters are computed on (see the module docstring).
    neighbours : {"coclusters", "ratings"}
        Where the neighbourhoods come from (``ratings`` is a control, see the module docstring).
    like_params, dislike_params : dict, optional
        :class:`coclust.HBLCoClust` parameters; default :data:`RECOMMENDER_PARAMS`.
    n_neighbours : int
        Neighbours kept per user and per item.

    Returns
    -------
    (FittedProfiles, dict)
        The profiles and a report: co-cluster counts, relation counts and step timings.
    """
    import pandas as pd

    from coclust import HBLCoClust
    from ingest.relations import build_relations

    say = _say(progress)
    t0 = time.perf_counter()
    timings = {}
    check_ratings(ratings)
    if features not in FEATURES:
        raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
    if neighbours not in NEIGHBOURS:
        raise ValueError(f"neighbours must be one of {NEIGHBOURS}, got {neighbours!r}")
    attrs_df = (
        pd.DataFrame(columns=["item", "kind", "value"])
        if item_attributes is None
        else item_attributes[["item", "kind", "value"]].drop_duplicates()
    )
    users = id_array(np.unique(id_array(ratings["user"].to_numpy())))
    item_ids = id_array(ratings["item"].to_numpy())
    attr_items = id_array(attrs_df["item"].to_numpy()) if len(attrs_df) else item_ids[:0]
    if len(attr_items) and attr_items.dtype != item_ids.dtype:
        attr_items, item_ids = attr_items.astype(str), item_ids.astype(str)
    items_vocab = np.unique(np.concatenate([item_ids, attr_items]))
    attributes = (
        np.unique(attribute_names(attrs_df["kind"], attrs_df["value"]).astype(str))
        if len(attrs_df)
        else (np.zeros(0, dtype=str))
    )
    u_idx = np.searchsorted(users, id_array(ratings["user"].to_numpy()))
    i_idx = np.searchsorted(items_vocab, item_ids)
    shape = (len(users), len(items_vocab))
    R = Csr.from_pairs(u_idx, i_idx, shape, ratings["rating"].to_numpy(dtype=np.float64))
    a_items = np.searchsorted(items_vocab, attr_items)
    a_attrs = (
        np.searchsorted(attributes, attribute_names(attrs_df["kind"], attrs_df["value"]).astype(str))
        if len(attrs_df)
        else np.zeros(0, dtype=np.int64)
    )
    IA = Csr.from_pairs(a_items, a_attrs, (len(items_vocab), len(attributes)))
    titles = _titles(items, items_vocab)
    mean, bu, bi = rating_baseline(R)
    timings["vocabularies"] = time.perf_counter() - t0

    t = time.perf_counter()
    say(f"relations of {len(ratings):,} ratings")
    rel = build_relations(ratings[["user", "item", "rating"]], attrs_df if len(attrs_df) else None, like_threshold)
    attr_names, pol = split_features(rel.features)
    is_item = np.char.startswith(attr_names.astype(str), ITEM_KIND + ":")
    col_item = np.full(len(attr_names), -1, dtype=np.int64)
    col_attr = np.full(len(attr_names), -1, dtype=np.int64)
    if is_item.any():
        item_str = np.char.partition(attr_names[is_item].astype(str), ":")[:, 2]
        by_str = {str(x): n for n, x in enumerate(items_vocab.tolist())}
        col_item[is_item] = [by_str[s] for s in item_str.tolist()]
    if (~is_item).any():
        col_attr[~is_item] = np.searchsorted(attributes, attr_names[~is_item].astype(str))
    rel_users = np.searchsorted(users, id_array(rel.objects))
    X = rel.matrix.tocsr()
    timings["relations"] = time.perf_counter() - t

    report = {"relations": rel.summary(), "features": features}
    coclusters = {}
    for side, polarity, params in (("like", LIKE, like_params), ("dislike", DISLIKE, dislike_params)):
        t = time.perf_counter()
        params = dict(RECOMMENDER_PARAMS if params is None else params)
        side_cols = pol == polarity
        kind_cols = {"movies": is_item, "attributes": ~is_item, "all": np.ones(len(is_item), dtype=bool)}[features]
        fit_cols = np.flatnonzero(side_cols & kind_cols)
        Xs = X[:, fit_cols].tocsr()
        say(f"co-clustering the {side} relation ({Xs.nnz:,} relations)")
        model = None
        if Xs.nnz:
            model = HBLCoClust(random_state=random_state, **params).fit(Xs)
            found = model.coclusters_
        else:
            found = []
        rows = [rel_users[r] for r, _ in found]
        cols = [fit_cols[c] for _, c in found]
        cc_items = [np.sort(col_item[c[is_item[c]]]) for c in cols]
        cc_attrs = [np.sort(col_attr[c[~is_item[c]]]) for c in cols]
        if features == "movies":
            cc_attrs = _attach_attributes(rows, cc_items, X, np.flatnonzero(side_cols & ~is_item), col_attr, IA, params)
        coclusters[side] = CoClusters(
            Csr.from_lists([np.sort(r) for r in rows], len(users)),
            Csr.from_lists(cc_items, len(items_vocab)),
            Csr.from_lists(cc_attrs, len(attributes)),
        )
        report[f"{side}_coclusters"] = len(found)
        report[f"{side}_params"] = params
        report[f"{side}_coclustered"] = {
            "features": int((np.diff(Xs.tocsc().indptr) > 0).sum()),
            "relations": int(Xs.nnz),
        }
        if model is not None:
            report[f"{side}_seeds"] = int(model.n_seeds_)
            report[f"{side}_regions"] = int(model.n_regions_)
            report[f"{side}_concepts"] = int(model.n_concepts_)
        timings[f"cocluster_{side}"] = time.perf_counter() - t

    t = time.perf_counter()
    say("neighbourhoods")
    nbrs = {}
    for side in ("like", "dislike"):
        cc = coclusters[side]
        nbrs[f"{side}_users"] = from_coclusters(cc.users, len(users), n_neighbours)
        nbrs[f"{side}_items"] = from_coclusters(cc.items, len(items_vocab), n_neighbours)
    if neighbours == "ratings":
        signed = R.with_values(np.where(R.values > like_threshold, 1.0, -1.0))
        nbrs["like_users"] = from_ratings(signed, n_neighbours)
        nbrs["like_items"] = from_ratings(signed.transpose(), n_neighbours)
        empty_u = Neighbours(np.zeros(len(users) + 1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0))
        empty_i = Neighbours(np.zeros(len(items_vocab) + 1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0))
        nbrs["dislike_users"], nbrs["dislike_items"] = empty_u, empty_i
    timings["neighbours"] = time.perf_counter() - t
    fp = FittedProfiles(
        users=users,
        items=items_vocab,
        attributes=attributes.astype(str),
        item_titles=titles,
        item_attributes=IA,
        ratings=R,
        like_threshold=float(like_threshold),
        global_mean=mean,
        user_bias=bu,
        item_bias=bi,
        like=coclusters["like"],
        dislike=coclusters["dislike"],
        neighbours=nbrs,
        features=features,
    )
    timings["total"] = time.perf_counter() - t0
    report["timings"] = timings
    return fp, report


def _attach_attributes(rows, items, X, attr_cols, col_attr, item_attrs: Csr, params) -> list[np.ndarray]:
    """For each co-cluster (its users ``rows`` and movies ``items``): the attribute features of
    ``attr_cols`` that at least ``min_density`` of its users hold (step 5's relaxation over the
    attribute columns) and that at least one of its movies carries (so that a group that likes
    Star Wars is not described by every actor its members ever rated well)."""
    import scipy.sparse as sp

    density = float(params.get("min_density", 1.0))
    if not rows or len(attr_cols) == 0:
        return [np.zeros(0, dtype=np.int64) for _ in rows]
    A = X[:, attr_cols].tocsc().astype(np.float32)
    attr_of_col = col_attr[attr_cols]
    sizes = np.array([len(r) for r in rows])
    out = []
    for lo in range(0, len(rows), 2048):
        part = rows[lo : lo + 2048]
        lengths = [len(r) for r in part]
        M = sp.csr_matrix(
            (np.ones(sum(lengths), np.float32), np.concatenate(part), np.r_[0, np.cumsum(lengths)]),
            shape=(len(part), X.shape[0]),
        )
        counts = (M @ A).tocsr()
        need = density * sizes[lo : lo + len(part)] - 1e-9
        for j in range(len(part)):
            s, e = counts.indptr[j], counts.indptr[j + 1]
            held = attr_of_col[counts.indices[s:e][counts.data[s:e] >= need[j]]]
            _, pos = item_attrs.rows_entries(items[lo + j])
            out.append(np.intersect1d(held, item_attrs.idx[pos]))
    return out


def _titles(items, vocab: np.ndarray) -> np.ndarray:
    if items is None or len(items) == 0 or "title" not in items.columns:
        return np.full(len(vocab), "", dtype=object).astype(str)
    ids = id_array(items["item"].to_numpy())
    if ids.dtype != vocab.dtype:
        ids, vocab = ids.astype(str), vocab.astype(str)
    lookup = dict(zip(ids.tolist(), items["title"].astype(str).tolist(), strict=True))
    return np.array([lookup.get(x, "") for x in vocab.tolist()], dtype=str)
