"""Learning :class:`~recsys.model.profiles.FittedProfiles` from training ratings: a function, no state.

Phases (each timed in the report): the vocabularies, the rating matrix and the rating baseline;
the paper's like/dislike relations (:func:`ingest.relations.build_relations`); co-clustering of
the like (``:Y``) and dislike (``:N``) relations with :class:`coclust.HBLCoClust`; the
neighbourhoods the co-clusters define; the co-cluster item model (:mod:`recsys.model.item_model`).

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

import dataclasses
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from coclust.params import DENSITY_TOLERANCE
from ingest.features import DISLIKED, ITEM_KIND, LIKED, attribute_names, split_features

from . import cluster
from .csr import Csr
from .ids import distinct, id_array, positions
from .item_model import active_items, ease_on_support, full_weights, item_weights, random_support
from .neighbours import Neighbours, from_coclusters, from_ratings
from .profiles import CoClusters, FittedProfiles
from .progress import COCLUSTER_STEPS, tell
from .ratings import check_ratings, rating_baseline
from .settings import RECOMMENDER_PARAMS, SIDES, SOLVES_BESIDE_INVERSE_GRAM_BYTES
from .shared import csr_bytes, frame_digest, remembered
from .threads import cores, in_threads


@dataclass(frozen=True)
class Learning:
    """What :func:`fit_profiles` learns, and how (built by
    :class:`~recsys.model.ProfileRecommender` from its parameters and the scaling rules).

    Parameters
    ----------
    like_threshold : float
        A rating above it is a like (the paper: 2).
    features : {"movies", "all", "attributes"}
        What the co-clusters are computed on (see the module docstring).
    like_params, dislike_params : dict, optional
        :class:`coclust.HBLCoClust` parameters; default
        :data:`~recsys.model.settings.RECOMMENDER_PARAMS`.
    n_neighbours : int
        Neighbours kept per user and per item (0: none; the paper's rule needs none).
    neighbours : {"coclusters", "ratings"}
        Where the neighbourhoods come from (``ratings`` is a control, see the module docstring).
    item_l2 : float or None
        The ridge penalty of the co-cluster item model (:mod:`recsys.model.item_model`); ``None``
        learns no item model (the paper's rule needs none).
    item_l2_per_like : float
        Added to an input movie's penalty in the item model per like it has (EDLAE's dropout
        emphasis, :mod:`recsys.model.item_model`); 0: EASE's single penalty.
    item_support : {"coclusters", "random", "all"}
        The pairs of items the item model learns weights on: those the like co-clusters hold
        together; as many drawn at random per item (a control); every pair (EASE, a control).
    residual_model : bool
        Also learn item weights on the rating residuals (the ``item_residuals`` evidence).
    random_state : int
        Seeds the co-clustering and the random support.
    user_budget : int, optional
        Each user stays in at most this many co-clusters of each side, those with the fewest
        users (the most selective; :func:`most_selective`).  Unbounded by default.
    feedback : {"explicit", "implicit"}
        Ratings or interactions (:mod:`recsys.model.feedback`), as the profiles record it.
    attribute_fit : {"means", "joint"}
        How the user side of the attribute evidence is fitted (:mod:`recsys.model.attributes`), as
        the profiles record it.
    max_partners : int, optional
        The item model's weights of an item use at most this many partners, those it shares the
        most likes with (:func:`~recsys.model.item_model.capped_support`); the residual model
        uses the same pairs.  Unbounded by default (but for the solves' flop budget).
    sparse_neighbours : float, optional
        The neighbourhoods from co-members alone where the co-memberships' products are at most
        this many times entities² (:func:`~recsys.model.neighbours.from_coclusters`'s
        ``sparse_up_to``); by the entity count by default.
    neighbour_budget : int
        The co-members an entity's neighbourhood reads at most on the sparse path, its smallest
        co-clusters first (:func:`~recsys.model.neighbours.from_coclusters`'s ``budget``); 0 (the
        default): all of them.
    dense_weights_up_to : int
        Where at most this many items have a support, the item model's weights are EASE's kept on
        the support (:func:`~recsys.model.item_model.ease_on_support`: one dense inverse, no partner
        cut) instead of a ridge per item on its (capped) support; the residual model keeps its
        per-item solves on the capped pairs.  0 (the default): never.
    user_neighbours : bool
        Learn the users' neighbourhoods (the ``like_users`` and ``dislike_users`` votes); without
        them those are empty, and only a score without those votes may read the profiles.
    """

    like_threshold: float = 2.0
    features: str = "movies"
    like_params: dict | None = None
    dislike_params: dict | None = None
    n_neighbours: int = 200
    neighbours: str = "coclusters"
    item_l2: float | None = 400.0
    item_l2_per_like: float = 0.0
    item_support: str = "coclusters"
    residual_model: bool = False
    random_state: int = 0
    user_budget: int | None = None
    max_partners: int | None = None
    feedback: str = "explicit"
    attribute_fit: str = "joint"
    sparse_neighbours: float | None = None
    neighbour_budget: int = 0
    dense_weights_up_to: int = 0
    user_neighbours: bool = True


def fit_profiles(
    ratings, item_attributes=None, items=None, learning: Learning | None = None, *, progress=None, universe=None
) -> tuple[FittedProfiles, dict]:
    """Learn the profiles of ``ratings`` (``user, item, rating``; one per pair) as ``learning``
    says (default :class:`Learning`), with the attributes ``item_attributes`` (``item, kind,
    value``) and display titles ``items`` (``item, title``), both optional.  ``progress`` is called
    with a one-line message as each step starts.  ``universe``: ratings whose users and items make
    the vocabularies (default: ``ratings``), a superset of ``ratings``, so that :func:`add_ratings`
    can later add the rest without re-indexing.  Returns the profiles and a report: co-cluster and
    relation counts, step timings."""
    how = learning or Learning()
    say = progress or (lambda message: None)
    check_ratings(ratings)
    timings: dict = {}
    t0 = time.perf_counter()
    with _timed(timings, "vocabularies"):
        vocab = _Vocabulary.of(ratings, item_attributes, items, universe)
    with _timed(timings, "relations"):
        say(f"relations of {len(ratings):,} {'interactions' if how.feedback == 'implicit' else 'ratings'}")
        rel = _RelationColumns.of(ratings, vocab, how.like_threshold)
    report = {"relations": rel.summary, "features": how.features}
    inputs = _InputsKey(ratings, item_attributes, items, universe, how)
    coclusters = {"like": _shared_side("like", inputs, rel, vocab, how, report, timings, say)}
    with _item_model_beside(coclusters["like"], vocab, how, timings, say) as early:
        coclusters["dislike"] = _shared_side("dislike", inputs, rel, vocab, how, report, timings, say)
        with _timed(timings, "neighbours"):
            if how.n_neighbours:
                say("neighbourhoods")
            nbrs = _shared_neighbourhoods(inputs, coclusters, vocab, how, say)
        fp = vocab.profiles(coclusters, nbrs, how.like_threshold, how.features, how.user_budget or 0, how.feedback)
        fp = dataclasses.replace(fp, attribute_fit=how.attribute_fit)
        if early is not None:
            if not early.done():
                say("the item model, finishing")
            fp = _with_item_model_of(fp, early.result())
    if how.item_l2 is not None:
        if early is None:
            with _timed(timings, "item_model"):
                fp = _item_model(fp, how, say)
        pairs = fp.pair_support.nnz
        report["item_model"] = {
            "support_pairs": int(pairs),
            "l2": float(how.item_l2),
            "l2_per_like": float(how.item_l2_per_like),
            "support_share": pairs / max(fp.n_items * (fp.n_items - 1), 1),
            "weights": int(fp.item_weights.nnz),
            "items": int(fp.n_items),
        }
    timings["total"] = time.perf_counter() - t0
    report["timings"] = timings
    return fp, report


def _shared_side(side: str, inputs, rel, vocab, how: Learning, report: dict, timings: dict, say) -> CoClusters:
    """One side's co-clusters; an evaluation's refits on the same ratings learn them once
    (:mod:`recsys.model.shared`: outside its block nothing is kept and no key is made), their report
    entries the first fit's, their timing 0 where reused."""
    learnt = []
    params = how.like_params if side == "like" else how.dislike_params

    def learn() -> tuple[CoClusters, dict, float]:
        learnt.append(True)
        side_report, side_timings = {}, {}
        with _timed(side_timings, "cocluster"):
            found = _cocluster(
                side, rel, vocab, how.features, params, how.random_state, side_report, say, how.user_budget
            )
        return found, side_report, side_timings["cocluster"]

    found, side_report, seconds = remembered(
        lambda: ("coclusters", side, inputs.key()), learn, lambda v: _coclusters_bytes(v[0])
    )
    report.update(side_report)
    timings[f"cocluster_{side}"] = seconds if learnt else 0.0
    return found


@contextmanager
def _item_model_beside(like: CoClusters, vocab, how: Learning, timings: dict, say):
    """The item model learnt from the like co-clusters on a thread of its own while the block learns
    the dislike side and the neighbourhoods (much of either runs on one core: 0.3-0.5 s of a 1 M
    fit); yields its :func:`_item_model`'s profiles' future, or None where it is learnt after them:
    without an item model, on a Dask cluster, and where the dense inverse does not apply (a large
    catalogue's per-item solves and Gram matrix would add their memory to the co-clustering's).
    Only the like co-clusters, the ratings and the baseline enter it; its progress is not shown
    beside the block's (``say``'s lines would interleave), only that it started."""
    if how.item_l2 is None or cluster.current() is not None or not _dense_item_model(like, how):
        yield None
        return
    from concurrent.futures import ThreadPoolExecutor

    none = CoClusters(*(_no_rows(n) for n in (len(vocab.users), len(vocab.items), len(vocab.attributes))))
    alone = vocab.profiles({"like": like, "dislike": none}, {}, how.like_threshold, how.features, 0, how.feedback)
    say(f"the item model on {alone.pair_support.nnz:,} co-clustered pairs of movies, beside the next steps")

    def learn():
        with _timed(timings, "item_model"):
            return _item_model(alone, how, lambda message: None)

    with ThreadPoolExecutor(1, thread_name_prefix="recsys-item-model") as pool:
        yield pool.submit(learn)


def _dense_item_model(like: CoClusters, how: Learning) -> bool:
    """Whether :func:`_item_model` takes the dense inverse for these like co-clusters: the items
    with a partner (:func:`~recsys.model.item_model.active_items` of the pair support: those in a
    co-cluster with another item) are at most ``dense_weights_up_to``."""
    if how.item_support == "all":
        return False
    pairs = like.items.select(np.repeat(like.items.lengths >= 2, like.items.lengths))
    return 0 < len(np.unique(pairs.idx)) <= how.dense_weights_up_to


def _no_rows(n_cols: int) -> Csr:
    return Csr(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), None, (0, n_cols))


# what the profiles derive from the ratings and the like co-clusters alone (carried from the item
# model's own profiles, not computed again: the pair support's product took 0.4 s at 1 M ratings)
_LIKE_SIDE_ONLY = ("pair_support", "liked", "sources", "residuals", "like_rate")


def _with_item_model_of(fp: FittedProfiles, learnt: FittedProfiles) -> FittedProfiles:
    """``fp`` with the item model ``learnt`` (from the same ratings and like co-clusters)."""
    new = fp.with_item_model(learnt.item_weights, learnt.residual_weights)
    for name in _LIKE_SIDE_ONLY:
        if name in learnt.__dict__ and name not in new.__dict__:
            new.__dict__[name] = learnt.__dict__[name]
    return new


def _shared_neighbourhoods(inputs, coclusters: dict, vocab, how: Learning, say) -> dict:
    """:func:`_neighbourhoods` as ``how`` asks, learnt once for the same inputs (as the co-clusters)."""
    return remembered(
        lambda: (
            "neighbourhoods",
            inputs.key(),
            how.neighbours,
            how.n_neighbours,
            how.sparse_neighbours,
            how.neighbour_budget,
            how.user_neighbours,
        ),
        lambda: _neighbourhoods(
            coclusters,
            vocab,
            how.neighbours,
            how.n_neighbours,
            how.like_threshold,
            say,
            how.sparse_neighbours,
            how.neighbour_budget,
            how.user_neighbours,
        ),
        lambda v: sum(n.ptr.nbytes + n.idx.nbytes + n.sim.nbytes for n in v.values()),
    )


class _InputsKey:
    """What a fit's co-clusters depend on, as a key (made once, when first asked): the ratings,
    attributes, titles and vocabulary's universe, row by row, and the settings that shape the
    relations and their co-clustering."""

    def __init__(self, ratings, item_attributes, items, universe, how: Learning):
        self._frames = (ratings, item_attributes, items, universe)
        self._how = how
        self._key: tuple | None = None

    def key(self) -> tuple:
        if self._key is None:
            how = self._how
            frames = tuple(frame_digest(f, [] if f is None else list(f.columns)) for f in self._frames)
            settings = (how.like_threshold, how.features, how.random_state, how.user_budget, how.feedback)
            params = json.dumps([how.like_params, how.dislike_params], sort_keys=True, default=str)
            self._key = (*frames, settings, params)
        return self._key


def _coclusters_bytes(cc: CoClusters) -> int:
    return csr_bytes(cc.users) + csr_bytes(cc.items) + csr_bytes(cc.attributes)


def add_ratings(fp: FittedProfiles, ratings) -> FittedProfiles:
    """``fp`` with its ratings and rating baseline replaced by ``ratings`` (every user and item of
    which ``fp`` knows: fit it with ``universe=ratings``); the co-clusters, neighbourhoods and item
    weights are kept.  The neighbours' votes and the item model's inputs then see every rating,
    at the cost of a rating table and a baseline instead of a second fit."""
    u = fp.user_index(ratings["user"].to_numpy())
    i = fp.item_index(ratings["item"].to_numpy())
    if (u < 0).any() or (i < 0).any():
        raise ValueError("add_ratings: ratings name users or items the profiles were not fitted with")
    R = Csr.from_pairs(u, i, fp.ratings.shape, ratings["rating"].to_numpy(dtype=np.float64))
    mean, user_bias, item_bias = rating_baseline(R)
    return dataclasses.replace(fp, ratings=R, global_mean=mean, user_bias=user_bias, item_bias=item_bias)


def refit_item_model(fp: FittedProfiles, how: Learning, report: dict, say) -> FittedProfiles:
    """``fp`` (after :func:`add_ratings`) with its item model learnt again from all its ratings, on
    the same co-clustered pairs and as ``how`` says; ``report``'s item-model entry and timings say
    so.  Its ``sources`` and ``residuals`` are the new ratings' (cached properties of a new object)."""
    with _timed(report["timings"], "item_model_refit"):
        fp = _item_model(fp, how, say)
    report["item_model"] = {**report["item_model"], "refit": True, "weights": int(fp.item_weights.nnz)}
    return fp


@contextmanager
def _timed(timings: dict, name: str):
    t = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t


@dataclass
class _Vocabulary:
    """Users, items (rated or described) and attributes in index order; the rating matrix, the
    items × attributes matrix, display titles and the rating baseline."""

    users: np.ndarray
    items: np.ndarray
    attributes: np.ndarray
    attribute_table: object  # DataFrame item, kind, value (deduplicated)
    ratings: Csr
    item_attributes: Csr
    titles: np.ndarray
    baseline: tuple

    @classmethod
    def of(cls, ratings, item_attributes, items, universe=None) -> _Vocabulary:
        import pandas as pd

        ids = ratings if universe is None else universe
        attrs_df = (
            pd.DataFrame(columns=["item", "kind", "value"])
            if item_attributes is None
            else item_attributes[["item", "kind", "value"]].drop_duplicates()
        )
        users = id_array(distinct(id_array(ids["user"].to_numpy())))
        item_ids = id_array(ids["item"].to_numpy())
        attr_items = id_array(attrs_df["item"].to_numpy()) if len(attrs_df) else item_ids[:0]
        if len(attr_items) and attr_items.dtype != item_ids.dtype:
            attr_items, item_ids = attr_items.astype(str), item_ids.astype(str)
        items_vocab = distinct(np.concatenate([item_ids, attr_items]))
        names = attribute_names(attrs_df["kind"], attrs_df["value"]).astype(str) if len(attrs_df) else None
        attributes = np.unique(names) if names is not None else np.zeros(0, dtype=str)
        u_idx = positions(users, id_array(ratings["user"].to_numpy()))
        i_idx = positions(items_vocab, id_array(ratings["item"].to_numpy()).astype(items_vocab.dtype))
        shape = (len(users), len(items_vocab))
        R = Csr.from_pairs(u_idx, i_idx, shape, ratings["rating"].to_numpy(dtype=np.float64))
        a_items = np.searchsorted(items_vocab, attr_items)
        a_attrs = np.searchsorted(attributes, names) if names is not None else np.zeros(0, dtype=np.int64)
        IA = Csr.from_pairs(a_items, a_attrs, (len(items_vocab), len(attributes)))
        return cls(users, items_vocab, attributes, attrs_df, R, IA, _titles(items, items_vocab), rating_baseline(R))

    def profiles(
        self,
        coclusters: dict,
        neighbours: dict,
        like_threshold: float,
        features: str,
        user_budget: int = 0,
        feedback: str = "explicit",
    ) -> FittedProfiles:
        mean, user_bias, item_bias = self.baseline
        return FittedProfiles(
            users=self.users,
            items=self.items,
            attributes=self.attributes.astype(str),
            item_titles=self.titles,
            item_attributes=self.item_attributes,
            ratings=self.ratings,
            like_threshold=float(like_threshold),
            global_mean=mean,
            user_bias=user_bias,
            item_bias=item_bias,
            like=coclusters["like"],
            dislike=coclusters["dislike"],
            neighbours=neighbours,
            features=features,
            user_budget=int(user_budget),
            feedback=feedback,
        )


@dataclass
class _RelationColumns:
    """The paper's like/dislike relation (users × features) with, per feature column, its
    polarity, the item it names (``movie:<id>``, else -1) and the attribute it names (else -1)."""

    X: object  # csr_matrix
    polarity: np.ndarray
    is_item: np.ndarray
    col_item: np.ndarray
    col_attr: np.ndarray
    row_user: np.ndarray
    summary: dict

    @classmethod
    def of(cls, ratings, vocab: _Vocabulary, like_threshold: float) -> _RelationColumns:
        from ingest.relations import build_relations

        attrs = vocab.attribute_table
        rel = build_relations(ratings[["user", "item", "rating"]], attrs if len(attrs) else None, like_threshold)
        attr_names, pol = split_features(rel.features)
        is_item = np.char.startswith(attr_names.astype(str), ITEM_KIND + ":")
        col_item = np.full(len(attr_names), -1, dtype=np.int64)
        col_attr = np.full(len(attr_names), -1, dtype=np.int64)
        if is_item.any():
            item_str = np.char.partition(attr_names[is_item].astype(str), ":")[:, 2]
            by_str = {str(x): n for n, x in enumerate(vocab.items.tolist())}
            col_item[is_item] = [by_str[s] for s in item_str.tolist()]
        if (~is_item).any():
            col_attr[~is_item] = np.searchsorted(vocab.attributes, attr_names[~is_item].astype(str))
        row_user = np.searchsorted(vocab.users, id_array(rel.objects))
        return cls(rel.matrix.tocsr(), pol, is_item, col_item, col_attr, row_user, rel.summary())


def _cocluster(
    side: str,
    rel: _RelationColumns,
    vocab: _Vocabulary,
    features: str,
    params,
    random_state,
    report: dict,
    say,
    user_budget: int | None = None,
) -> CoClusters:
    """The co-clusters of one side's relation, in user / item / attribute indices; their counts
    and parameters go into ``report``."""
    from coclust.fitting import CoClustering  # HBLCoClust without scikit-learn's 2 s import

    params = dict(RECOMMENDER_PARAMS if params is None else params)
    side_cols = rel.polarity == (LIKED if side == "like" else DISLIKED)
    kind_cols = {"movies": rel.is_item, "attributes": ~rel.is_item, "all": np.ones(len(rel.is_item), dtype=bool)}
    fit_cols = np.flatnonzero(side_cols & kind_cols[features])
    Xs = rel.X[:, fit_cols].tocsr()
    if Xs.nnz:  # implicit feedback has no dislike relation: nothing to say
        say(f"co-clustering the {side} relation ({Xs.nnz:,} relations)")
    steps = lambda step, done: tell(say, done, COCLUSTER_STEPS.get(step, step))  # noqa: E731
    on = cluster.current()  # the fit's own client (recsys.model.cluster), not one more connection
    fit_params = {**params, "scheduler": on} if on is not None and params.get("backend") == "dask" else params
    model = CoClustering(random_state=random_state, **fit_params).fit(Xs, progress=steps) if Xs.nnz else None
    found = model.coclusters_ if model is not None else []
    rows = [rel.row_user[r] for r, _ in found]
    cols = [fit_cols[c] for _, c in found]
    if user_budget is not None and found:
        rows, kept = most_selective(rows, len(vocab.users), user_budget, int(params.get("min_rows", 2)))
        cols = [cols[c] for c in kept]
        report[f"{side}_budget"] = {"per_user": int(user_budget), "coclusters_dropped": len(found) - len(kept)}
    # one sort over every co-cluster's entries: a sort per co-cluster cost seconds at 100,000 of them
    members = _lists_as_rows(rows, len(vocab.users))
    cc_of, fit_col = _lists_as_pairs(cols)
    is_item = rel.is_item[fit_col]
    n_cc = len(rows)
    cc_items = _grouped_rows(cc_of[is_item], rel.col_item[fit_col[is_item]], (n_cc, len(vocab.items)))
    if features == "movies":
        attr_cols = np.flatnonzero(side_cols & ~rel.is_item)
        cc_attrs = _attach_attributes(
            members,
            cc_items,
            rel.X,
            attr_cols,
            rel.col_attr,
            vocab.item_attributes,
            params,
            done=lambda f: tell(say, f, "the co-clusters' attributes"),
        )
    else:
        is_attr = ~is_item
        cc_attrs = _grouped_rows(cc_of[is_attr], rel.col_attr[fit_col[is_attr]], (n_cc, len(vocab.attributes)))
    _report_side(report, side, len(rows), params, Xs, model)
    return CoClusters(members, cc_items, cc_attrs)


def _report_side(report: dict, side: str, n_coclusters: int, params: dict, Xs, model) -> None:
    """One side's co-clustering in the fit's report: counts, parameters, what was co-clustered."""
    report[f"{side}_coclusters"] = n_coclusters
    report[f"{side}_params"] = params
    report[f"{side}_coclustered"] = {"features": int((np.diff(Xs.tocsc().indptr) > 0).sum()), "relations": int(Xs.nnz)}
    if model is not None:
        report[f"{side}_seeds"] = int(model.n_seeds_)
        report[f"{side}_regions"] = int(model.n_regions_)
        report[f"{side}_concepts"] = int(model.n_concepts_)


def _lists_as_pairs(lists: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(list number, value)`` of every value of ``lists``."""
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    values = np.concatenate(lists).astype(np.int64, copy=False) if lists else np.zeros(0, np.int64)
    return np.repeat(np.arange(len(lists), dtype=np.int64), lengths), values


def _lists_as_rows(lists: list[np.ndarray], n_cols: int) -> Csr:
    """One row per list (of distinct values), sorted within the row."""
    rows, values = _lists_as_pairs(lists)
    return _grouped_rows(rows, values, (len(lists), n_cols))


def _grouped_rows(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> Csr:
    """A :class:`Csr` of ``(rows, cols)`` pairs whose ``rows`` are already in increasing order:
    one sort of ``row * n_cols + col`` (several times faster than a lexsort of the pairs)."""
    keys = rows * np.int64(shape[1]) + cols
    keys.sort()
    ptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=ptr[1:])
    return Csr(ptr, keys - rows * np.int64(shape[1]), None, (int(shape[0]), int(shape[1])))


def most_selective(rows: list[np.ndarray], n_users: int, budget: int, min_rows: int) -> tuple[list, np.ndarray]:
    """Each user's ``budget`` co-clusters with the fewest users (ties: the first found); ``rows``
    holds each co-cluster's users.  Returns the co-clusters' remaining users and which co-clusters
    keep at least ``min_rows`` of them (the others are dropped: ``rows`` lists only the kept)."""
    members = Csr.from_lists(rows, n_users)
    cc, user = members.row_of, members.idx
    order = np.lexsort((cc, members.lengths[cc], user))  # by user, then co-cluster size, then index
    per_user = np.bincount(user, minlength=n_users)
    rank = np.arange(len(order)) - np.repeat(np.cumsum(per_user) - per_user, per_user)
    keep = np.zeros(members.nnz, dtype=bool)
    keep[order[rank < budget]] = True
    left = members.select(keep)
    kept = np.flatnonzero(left.lengths >= min_rows)
    return [left.row(c).copy() for c in kept], kept


def _neighbourhoods(
    coclusters: dict,
    vocab: _Vocabulary,
    neighbours: str,
    n_neighbours: int,
    like_threshold: float,
    say=None,
    sparse_up_to: float | None = None,
    budget: int = 0,
    users: bool = True,
) -> dict:
    """Users' and items' neighbours through each side's co-clusters; with ``neighbours="ratings"``
    the like side's from plain co-ratings instead (the control) and no dislike side; none at all
    with ``n_neighbours=0`` (the paper's rule reads the co-clusters only), none of the users
    without ``users``.  ``sparse_up_to`` and ``budget``:
    :func:`~recsys.model.neighbours.from_coclusters`'s."""
    n_users, n_items = len(vocab.users), len(vocab.items)
    counts = {"users": n_users, "items": n_items}
    nbrs = {f"{side}_{who}": Neighbours.empty(n) for side in SIDES for who, n in counts.items()}
    if n_neighbours == 0:
        return nbrs
    if neighbours == "ratings":
        R = vocab.ratings
        signed = R.with_values(np.where(R.values > like_threshold, 1.0, -1.0))
        if users:
            nbrs["like_users"] = from_ratings(signed, n_neighbours)
        nbrs["like_items"] = from_ratings(signed.transpose(), n_neighbours)
        return nbrs
    for side in SIDES:
        cc = coclusters[side]
        for who, members in (("users", cc.users), ("items", cc.items)) if users else (("items", cc.items),):
            nbrs[f"{side}_{who}"] = from_coclusters(
                members,
                counts[who],
                n_neighbours,
                done=lambda f, d=f"{side} {who}": tell(say, f, d),
                sparse_up_to=sparse_up_to,
                budget=budget,
            )
    return nbrs


def _item_model(fp: FittedProfiles, how: Learning, say) -> FittedProfiles:
    """The item model's weights (and the residual model's), on the co-clusters' pairs, or on the
    controls' (``random``: as many random pairs; ``all``: every pair)."""
    pairs, support, l2 = fp.pair_support, how.item_support, how.item_l2
    say(
        f"the item model on {pairs.nnz:,} co-clustered pairs of movies"
        + (f" (control: {support} pairs instead)" if support != "coclusters" else "")
    )
    if support == "random":
        pairs = random_support(pairs, how.random_state)

    per_like = how.item_l2_per_like

    def solve(table: Csr, what: str, pairs: Csr) -> Csr:
        if support == "all":
            return full_weights(table, l2, per_like)
        done = lambda f: tell(say, f, what)  # noqa: E731
        return item_weights(table, pairs, l2, max_partners=how.max_partners, done=done, l2_per_like=per_like)

    n_active = len(active_items(pairs)) if support != "all" else 0
    if 0 < n_active <= how.dense_weights_up_to:
        # a catalogue small enough for one inverse: EASE's weights kept on the pairs, none cut; the
        # residual twin keeps its per-item solves on the pairs they would have been solved on, and
        # solves them while the inverse is computed (0.3 s of a 1 M-rating fit) where the two Gram
        # matrices are small enough to live together (settings.SOLVES_BESIDE_INVERSE_GRAM_BYTES)
        tell(say, 0.0, "weights from the likes (one inverse)")
        residuals = lambda shared: solve(fp.residuals, "weights from the residuals", shared)  # noqa: E731
        beside = how.residual_model and 8.0 * n_active**2 <= SOLVES_BESIDE_INVERSE_GRAM_BYTES
        dense = ease_on_support(
            fp.sources,
            pairs,
            l2,
            symmetric=support == "coclusters",
            max_partners=how.max_partners,
            meanwhile=residuals if beside else None,
            capped=how.residual_model,
            l2_per_like=per_like,
        )
        if not how.residual_model:
            return fp.with_item_model(dense.weights, fp.residual_weights)
        return fp.with_item_model(dense.weights, dense.meanwhile if beside else residuals(dense.capped))
    weights = solve(fp.sources, "weights from the likes", pairs)
    residual_weights = fp.residual_weights
    if how.residual_model:
        # the residual twin weighs the pairs the likes' weights were solved on (where supports are
        # capped, the partners most liked together; otherwise the whole support)
        shared = pairs if support == "all" else weights.transpose().with_values(np.ones(weights.nnz))
        residual_weights = solve(fp.residuals, "weights from the residuals", shared)
    return fp.with_item_model(weights, residual_weights)


def _attach_attributes(members: Csr, movies: Csr, X, attr_cols, col_attr, item_attrs: Csr, params, done=None) -> Csr:
    """For each co-cluster (its users, a row of ``members``, and movies, a row of ``movies``): the
    attribute features of ``attr_cols`` that at least ``min_density`` of its users hold (step 5's
    relaxation over the attribute columns) and that at least one of its movies carries (so that a
    group that likes Star Wars is not described by every actor its members ever rated well).

    Only the attributes of a co-cluster's movies are candidates, so the work is the co-clusters'
    users times their movies' attributes, looked up in the users × attributes relation."""
    density = float(params.get("min_density", 1.0))
    shape = (members.n_rows, item_attrs.shape[1])
    if not members.n_rows or len(attr_cols) == 0:
        return Csr(np.zeros(members.n_rows + 1, dtype=np.int64), np.zeros(0, np.int64), None, shape)
    A = X[:, attr_cols].tocoo()
    held = Csr.from_pairs(A.row, col_attr[attr_cols][A.col], (X.shape[0], item_attrs.shape[1]))
    C = (movies.to_scipy() @ item_attrs.to_scipy()).tocsr()  # co-clusters × attributes of their movies
    C.sort_indices()
    cand = Csr(C.indptr.astype(np.int64), C.indices.astype(np.int64), None, C.shape)
    count = _members_holding(members, held, cand, done)
    keep = count >= density * members.lengths[cand.row_of] - DENSITY_TOLERANCE
    return cand.select(keep)


def _members_holding(members: Csr, held: Csr, cand: Csr, done=None) -> np.ndarray:
    """For each candidate of ``cand`` (a co-cluster's row, an attribute's column): how many of the
    co-cluster's users (row of ``members``) hold the attribute (row of ``held``), compiled
    (:func:`~recsys.model._lookup.members_holding`), blocks of users on every core, each core
    counting into its own array (two users of one co-cluster count the same pairs)."""
    import threading

    from ._lookup import members_holding

    groups = members.transpose()  # each user's co-clusters
    work = np.bincount(groups.row_of, weights=cand.lengths[groups.idx], minlength=groups.n_rows)
    total = float(work.sum())
    workers = cores()
    cuts = np.searchsorted(np.cumsum(work), np.linspace(0, total, 8 * workers + 1)[1:-1], side="right")
    blocks = list(zip(np.r_[0, cuts], np.r_[cuts, groups.n_rows], strict=True))
    counts = np.zeros((workers, cand.nnz), dtype=np.int32)
    finished, lock = [0.0], threading.Lock()
    tables = (groups.ptr, groups.idx, *held._int64_rows, cand.ptr, cand.idx, np.int64(held.shape[1]))

    def run(w: int) -> None:
        for lo, hi in blocks[w::workers]:
            members_holding(*tables, lo, hi, counts[w])
            with lock:
                finished[0] += work[lo:hi].sum()
                if done is not None:
                    done(finished[0] / total if total else 1.0)

    if done is not None:
        done(0.0)
    members_holding(*tables, 0, 0, counts[0])  # compiled (or loaded) on this thread, before the workers
    for _ in in_threads(run, range(workers)):
        pass
    for w in range(1, workers):  # in place: the candidates can be tens of millions
        counts[0] += counts[w]
    return counts[0]


def _titles(items, vocab: np.ndarray) -> np.ndarray:
    if items is None or len(items) == 0 or "title" not in items.columns:
        return np.full(len(vocab), "", dtype=object).astype(str)
    ids = id_array(items["item"].to_numpy())
    if ids.dtype != vocab.dtype:
        ids, vocab = ids.astype(str), vocab.astype(str)
    lookup = dict(zip(ids.tolist(), items["title"].astype(str).tolist(), strict=True))
    return np.array([lookup.get(x, "") for x in vocab.tolist()], dtype=str)
