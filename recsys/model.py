"""ProfileRecommender: the paper's explainable like/dislike recommender, and a scored variant."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp

from coclust import HBLCoClust
from ingest.relations import build_relations

from ._logistic import best_balanced_threshold, fit_logistic
from .baselines import fit_svd
from .profiles import Profiles, base_attributes, jaccard, rowwise_dot

PAPER_PARAMS = dict(n_bands=5000, band_size=4, min_rows=2, min_cols=2, max_feature_freq=1.0, min_density=0.8)
# the like relation of MovieLens with minO = minF = 2 has millions of distinct regions: see HBLCoClust
DEFAULT_PARAMS = dict(PAPER_PARAMS, skip_covered=True)
TERMS = ("user_rate", "movie_rate", "like_neighbours", "dislike_neighbours", "profile_support", "jaccard")
TERM_TEXT = {
    "user_rate": "your share of likes",
    "movie_rate": "the movie's share of likes",
    "like_neighbours": "users who share your like co-clusters",
    "dislike_neighbours": "users who share your dislike co-clusters",
    "profile_support": "the movie's attributes in your like vs dislike co-clusters",
    "jaccard": "Jaccard(like profile) - Jaccard(dislike profile)",
}
LIKE, DISLIKE, ABSTAIN = "like", "dislike", "abstain"


def _logit(p):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@dataclass
class _Core:
    """Everything learned from one set of training ratings."""

    users: pd.Index
    items: pd.Index
    attrs: np.ndarray
    item_attrs: sp.csr_matrix  # items × base attributes (with movie:<id>)
    profiles: Profiles
    rated_like: sp.csr_matrix  # users × items, training likes
    rated_dislike: sp.csr_matrix
    like_rate: float
    counts: dict = field(default_factory=dict)

    # -- derived on demand ------------------------------------------------------------------
    def neighbour_weights(self, side: str) -> sp.csr_matrix:
        key = f"_w_{side}"
        if key not in self.__dict__:
            m = self.profiles.like_members if side == LIKE else self.profiles.dislike_members
            w = (m @ m.T).tocsr()
            w.setdiag(0)
            w.eliminate_zeros()
            w.data = np.log1p(w.data)
            self.__dict__[key] = w
        return self.__dict__[key]

    def raters(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Items × users: who liked and who disliked each item (transposed once, then kept)."""
        if "_raters" not in self.__dict__:
            self.__dict__["_raters"] = (self.rated_like.T.tocsr(), self.rated_dislike.T.tocsr())
        return self.__dict__["_raters"]

    def paper_profiles(self):
        if "_paper" not in self.__dict__:
            self.__dict__["_paper"] = self.profiles.paper_profiles()
        return self.__dict__["_paper"]

    # -- evidence terms ---------------------------------------------------------------------
    def terms(self, u: np.ndarray, i: np.ndarray) -> dict[str, np.ndarray]:
        """The evidence terms of pairs of known user ``u`` and known item ``i`` (indices)."""
        n_like_u = np.asarray(self.rated_like.sum(axis=1)).ravel()[u]
        n_dis_u = np.asarray(self.rated_dislike.sum(axis=1)).ravel()[u]
        n_like_i = np.asarray(self.rated_like.sum(axis=0)).ravel()[i]
        n_dis_i = np.asarray(self.rated_dislike.sum(axis=0)).ravel()[i]
        p = self.like_rate
        out = {
            "user_rate": _logit((n_like_u + 2 * p) / (n_like_u + n_dis_u + 2)),
            "movie_rate": _logit((n_like_i + 2 * p) / (n_like_i + n_dis_i + 2)),
        }
        liked_by, disliked_by = self.raters()
        for side in (LIKE, DISLIKE):
            w = self.neighbour_weights(side)
            vy = rowwise_dot(w, liked_by, u, i)
            vn = rowwise_dot(w, disliked_by, u, i)
            out[f"{side}_neighbours"] = _logit((vy + 2 * p) / (vy + vn + 2))
        ls = self.profiles.like_support
        ds = self.profiles.dislike_support
        nl = np.maximum(np.asarray(self.profiles.like_members.sum(axis=1)).ravel()[u], 1)
        nd = np.maximum(np.asarray(self.profiles.dislike_members.sum(axis=1)).ravel()[u], 1)
        sl = rowwise_dot(ls, self.item_attrs, u, i) / nl
        sd = rowwise_dot(ds, self.item_attrs, u, i) / nd
        out["profile_support"] = np.log((sl + 1e-3) / (sd + 1e-3))
        like_p, dis_p = self.paper_profiles()
        out["jl"] = jaccard(like_p, self.item_attrs, u, i)
        out["jd"] = jaccard(dis_p, self.item_attrs, u, i)
        out["jaccard"] = out["jl"] - out["jd"]
        out["support_like"] = sl
        out["support_dislike"] = sd
        return out


class ProfileRecommender:
    """Explainable like/dislike recommender from co-clusters (de França, 2016, § recommender).

    Parameters
    ----------
    mode : {"scored", "paper"}, default="scored"
        ``paper``: exactly the paper's rule — the larger of the Jaccard similarities between the
        movie's attributes and the user's like and dislike profiles wins; no match abstains.
        ``scored``: a like-probability from the same profile evidence (see :attr:`TERMS`): the
        user's and the movie's share of likes, the votes of the users sharing the user's like
        and dislike co-clusters, the co-cluster support of the movie's attributes, and the
        Jaccard difference, weighted by a logistic regression; the weights and the decision
        threshold (best balanced accuracy) are chosen on a held-out ``validation_fraction`` of
        the training ratings, then the model is refitted on all of them.
    like_params, dislike_params : dict, optional
        :class:`~coclust.HBLCoClust` parameters for the like (Y) and dislike (N) relations.
        Default: the paper's MovieLens parameters (nhashes 5000, nkeys 4, minO 2, minF 2, thr 0,
        spthr 0.8) with ``skip_covered=True``.
    threshold : float, default=2.0
        A rating above it is a like (the paper's rule).
    fallback : {None, "svd"}, default=None
        Predict the pairs the profiles do not cover with ``surprise.SVD`` (flagged ``fallback``).
    validation_fraction : float, default=0.1
    random_state : int, default=0

    Attributes
    ----------
    relations_summary_ : dict
        Counts of the training relations.
    n_like_coclusters_, n_dislike_coclusters_ : int
    weights_ : dict
        Logistic weight of each evidence term (``scored``), ``intercept_`` and ``decision_threshold_``.
    timings_ : dict
    """

    def __init__(
        self,
        mode: str = "scored",
        like_params: dict | None = None,
        dislike_params: dict | None = None,
        threshold: float = 2.0,
        fallback: str | None = None,
        validation_fraction: float = 0.1,
        random_state: int = 0,
    ):
        self.mode = mode
        self.like_params = like_params
        self.dislike_params = dislike_params
        self.threshold = threshold
        self.fallback = fallback
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def get_params(self) -> dict:
        return {
            k: getattr(self, k)
            for k in (
                "mode",
                "like_params",
                "dislike_params",
                "threshold",
                "fallback",
                "validation_fraction",
                "random_state",
            )
        }

    def _validate(self) -> None:
        if self.mode not in ("scored", "paper"):
            raise ValueError(f"mode must be 'scored' or 'paper', got {self.mode!r}")
        if self.fallback not in (None, "svd"):
            raise ValueError(f"fallback must be None or 'svd', got {self.fallback!r}")
        if not 0 < float(self.validation_fraction) < 0.5:
            raise ValueError(f"validation_fraction must be in (0, 0.5), got {self.validation_fraction!r}")
        for name in ("like_params", "dislike_params"):
            p = getattr(self, name)
            if p is not None and not isinstance(p, dict):
                raise ValueError(f"{name} must be a dict of HBLCoClust parameters, got {p!r}")

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, ratings: pd.DataFrame, item_attributes: pd.DataFrame, progress=None) -> ProfileRecommender:
        """Learn profiles from training ``ratings`` (user, item, rating) and ``item_attributes``
        (item, kind, value).  ``progress(message)`` is called between steps if given."""
        self._validate()
        for name, df, cols in (
            ("ratings", ratings, {"user", "item", "rating"}),
            ("item_attributes", item_attributes, {"item", "kind", "value"}),
        ):
            if not isinstance(df, pd.DataFrame) or not cols <= set(df.columns):
                raise ValueError(f"{name} must be a DataFrame with columns {sorted(cols)}")
        if len(ratings) == 0:
            raise ValueError("ratings is empty")
        say = progress or (lambda msg: None)
        t0 = time.perf_counter()
        self.timings_ = {}
        self.item_attributes_ = item_attributes[["item", "kind", "value"]].drop_duplicates().reset_index(drop=True)
        if self.mode == "scored":
            rng = np.random.default_rng(self.random_state)
            held = rng.random(len(ratings)) < self.validation_fraction
            say(f"validation fit on {int((~held).sum()):,} ratings")
            core = self._fit_core(ratings[~held], say)
            val = ratings[held]
            u = core.users.get_indexer(val["user"])
            i = core.items.get_indexer(val["item"])
            ok = (u >= 0) & (i >= 0)
            terms = core.terms(u[ok], i[ok])
            X = np.column_stack([terms[t] for t in TERMS])
            y = val["rating"].to_numpy()[ok] > self.threshold
            coef, intercept = fit_logistic(X, y)
            self.weights_ = dict(zip(TERMS, map(float, coef), strict=True))
            self.intercept_ = intercept
            self.term_means_ = dict(zip(TERMS, map(float, X.mean(axis=0)), strict=True))
            score = 1 / (1 + np.exp(-(X @ coef + intercept)))
            self.decision_threshold_ = best_balanced_threshold(score, y)
            self.validation_ = {"ratings": int(held.sum()), "scored": int(ok.sum())}
            self.timings_["validation"] = time.perf_counter() - t0
        say(f"fit on {len(ratings):,} ratings")
        self.core_ = self._fit_core(ratings, say)
        if self.fallback == "svd":
            say("fallback SVD")
            self.svd_ = fit_svd(ratings, random_state=self.random_state)
        self.timings_["total"] = time.perf_counter() - t0
        return self

    def _fit_core(self, ratings: pd.DataFrame, say) -> _Core:
        t = time.perf_counter()
        rel = build_relations(ratings, self.item_attributes_, threshold=self.threshold)
        self.relations_summary_ = rel.summary()
        base = base_attributes(rel.features)
        movie_attrs = pd.DataFrame(
            {
                "item": self.item_attributes_["item"],
                "base": self.item_attributes_["kind"] + ":" + self.item_attributes_["value"],
            }
        )
        all_items = np.union1d(ratings["item"].unique(), self.item_attributes_["item"].unique())
        movie_attrs = pd.concat(
            [movie_attrs, pd.DataFrame({"item": all_items, "base": "movie:" + pd.Series(all_items).astype(str)})]
        )
        attrs = np.asarray(pd.unique(np.concatenate([base, movie_attrs["base"].to_numpy(dtype=object)])), dtype=object)
        attr_index = pd.Index(attrs)
        items = pd.Index(all_items)
        ia = sp.csr_matrix(
            (
                np.ones(len(movie_attrs), dtype=np.float32),
                (items.get_indexer(movie_attrs["item"]), attr_index.get_indexer(movie_attrs["base"])),
            ),
            shape=(len(items), len(attrs)),
        )
        ia.sum_duplicates()
        ia.data[:] = 1
        pol = rel.feature_info()["polarity"].to_numpy()
        users = pd.Index(rel.objects)
        ccs = {}
        for side, flag, params in ((LIKE, "Y", self.like_params), (DISLIKE, "N", self.dislike_params)):
            cols = np.flatnonzero(pol == flag)
            X = rel.matrix[:, cols].tocsr()
            say(f"co-clustering the {side} relation ({X.nnz:,} relations)")
            ts = time.perf_counter()
            model = HBLCoClust(random_state=self.random_state, **(params or DEFAULT_PARAMS)).fit(X)
            col_map = attr_index.get_indexer(base[cols])
            ccs[side] = (model.coclusters_, col_map, model)
            self.timings_[f"cocluster_{side}"] = time.perf_counter() - ts
        profiles = Profiles.build(ccs[LIKE][0], ccs[LIKE][1], ccs[DISLIKE][0], ccs[DISLIKE][1], len(users), len(attrs))
        u = users.get_indexer(ratings["user"])
        i = items.get_indexer(ratings["item"])
        like = ratings["rating"].to_numpy() > self.threshold
        shape = (len(users), len(items))
        rated_like = sp.csr_matrix((np.ones(like.sum(), np.float32), (u[like], i[like])), shape=shape)
        rated_dis = sp.csr_matrix((np.ones((~like).sum(), np.float32), (u[~like], i[~like])), shape=shape)
        self.timings_["core"] = time.perf_counter() - t
        counts = {
            "like_coclusters": len(ccs[LIKE][0]),
            "dislike_coclusters": len(ccs[DISLIKE][0]),
            "like_seeds": ccs[LIKE][2].n_seeds_,
            "dislike_seeds": ccs[DISLIKE][2].n_seeds_,
            "like_regions": ccs[LIKE][2].n_regions_,
            "dislike_regions": ccs[DISLIKE][2].n_regions_,
            "like_concepts": ccs[LIKE][2].n_concepts_,
            "dislike_concepts": ccs[DISLIKE][2].n_concepts_,
        }
        return _Core(users, items, attrs, ia, profiles, rated_like, rated_dis, float(like.mean()), counts)

    # -- prediction ---------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "core_"):
            raise AttributeError("this ProfileRecommender is not fitted yet; call fit first")

    def predict_many(self, users, items) -> pd.DataFrame:
        """Predictions for pairs: ``label`` (like / dislike / abstain), ``score`` (like
        probability, scored mode; Jaccard difference, paper mode), ``jaccard_like``,
        ``jaccard_dislike``, ``covered`` and ``source`` (profile / fallback / none)."""
        self._check_fitted()
        core = self.core_
        users = np.asarray(users)
        items = np.asarray(items)
        if users.shape != items.shape:
            raise ValueError("users and items must have the same length")
        u = core.users.get_indexer(users)
        i = core.items.get_indexer(items)
        known = (u >= 0) & (i >= 0)
        out = pd.DataFrame(
            {
                "user": users,
                "item": items,
                "label": ABSTAIN,
                "score": np.nan,
                "jaccard_like": 0.0,
                "jaccard_dislike": 0.0,
                "covered": False,
                "source": "none",
            }
        )
        if known.any():
            t = core.terms(u[known], i[known])
            jl, jd = t["jl"], t["jd"]
            out.loc[known, "jaccard_like"] = jl
            out.loc[known, "jaccard_dislike"] = jd
            if self.mode == "paper":
                cov = (jl + jd) > 0
                score = jl - jd
                label = np.where(jl >= jd, LIKE, DISLIKE)  # ties go to like, the majority class
            else:
                X = np.column_stack([t[k] for k in TERMS])
                score = 1 / (1 + np.exp(-(X @ np.array([self.weights_[k] for k in TERMS]) + self.intercept_)))
                # covered: the profiles hold evidence about this movie for this user
                cov = (t["support_like"] + t["support_dislike"] + jl + jd) > 0
                label = np.where(score >= self.decision_threshold_, LIKE, DISLIKE)
            idx = np.flatnonzero(known)
            out.loc[idx, "score"] = score
            out.loc[idx[cov], "label"] = label[cov]
            out.loc[idx[cov], "covered"] = True
            out.loc[idx[cov], "source"] = "profile"
        if self.fallback == "svd" and hasattr(self, "svd_"):
            rest = ~out["covered"].to_numpy()
            if rest.any():
                est, _ = self.svd_.predict(users[rest], items[rest])
                out.loc[rest, "label"] = np.where(est > self.threshold, LIKE, DISLIKE)
                out.loc[rest, "source"] = "fallback"
                out.loc[rest, "fallback_rating"] = est
        return out

    def predict(self, user, item) -> Prediction:
        """One prediction with its full evidence (see :class:`Prediction`)."""
        self._check_fitted()
        core = self.core_
        if core.users.get_indexer([user])[0] < 0:
            raise KeyError(f"unknown user {user!r}: not in the training ratings")
        if core.items.get_indexer([item])[0] < 0:
            raise KeyError(f"unknown item {item!r}: no rating and no attribute in the training data")
        row = self.predict_many([user], [item]).iloc[0]
        return Prediction(
            user,
            item,
            row["label"],
            float(row["score"]),
            float(row["jaccard_like"]),
            float(row["jaccard_dislike"]),
            row["source"],
            self._evidence(user, item),
        )

    def _evidence(self, user, item) -> dict:
        core = self.core_
        u = int(core.users.get_indexer([user])[0])
        i = int(core.items.get_indexer([item])[0])
        attrs = core.item_attrs[i].indices
        like_p, dis_p = core.paper_profiles()
        ev = {}
        for side, prof, support, members, feats in (
            (LIKE, like_p, core.profiles.like_support, core.profiles.like_members, core.profiles.like_features),
            (
                DISLIKE,
                dis_p,
                core.profiles.dislike_support,
                core.profiles.dislike_members,
                core.profiles.dislike_features,
            ),
        ):
            matched = np.intersect1d(attrs, prof[u].indices)
            sup = np.asarray(support[u, matched].todense()).ravel() if len(matched) else np.zeros(0)
            mine = members[u].indices
            rows = []
            for a, s in sorted(zip(matched, sup, strict=True), key=lambda x: -x[1]):
                ccs = mine[np.asarray(feats[mine][:, a].todense()).ravel() > 0] if len(mine) else mine
                rows.append(
                    {"attribute": str(core.attrs[a]), "coclusters": int(s), "example_coclusters": ccs[:5].tolist()}
                )
            ev[f"{side}_matches"] = rows
        if self.mode == "scored":
            t = core.terms(np.array([u]), np.array([i]))
            ev["contributions"] = {k: float(self.weights_[k] * (t[k][0] - self.term_means_[k])) for k in TERMS}
            w_l = core.neighbour_weights(LIKE)[u]
            liked = core.rated_like[:, i].toarray().ravel()
            disliked = core.rated_dislike[:, i].toarray().ravel()
            ev["neighbours"] = {
                "like_coclusters": {
                    "liked": int((liked[w_l.indices] > 0).sum()),
                    "disliked": int((disliked[w_l.indices] > 0).sum()),
                },
            }
            w_d = core.neighbour_weights(DISLIKE)[u]
            ev["neighbours"]["dislike_coclusters"] = {
                "liked": int((liked[w_d.indices] > 0).sum()),
                "disliked": int((disliked[w_d.indices] > 0).sum()),
            }
            n_l = core.rated_like[u].nnz
            n_d = core.rated_dislike[u].nnz
            ev["user_rate"] = {"liked": int(n_l), "disliked": int(n_d)}
            ev["movie_rate"] = {"liked": int(core.rated_like[:, i].nnz), "disliked": int(core.rated_dislike[:, i].nnz)}
        return ev

    def recommend(self, user, n: int = 10, exclude_rated: bool = True) -> pd.DataFrame:
        """The ``n`` movies that match the user's like profile most over the dislike profile."""
        self._check_fitted()
        core = self.core_
        u = core.users.get_indexer([user])[0]
        if u < 0:
            raise KeyError(f"unknown user {user!r}: not in the training ratings")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        cand = np.arange(len(core.items))
        if exclude_rated:
            rated = np.union1d(core.rated_like[u].indices, core.rated_dislike[u].indices)
            cand = np.setdiff1d(cand, rated)
        pred = self.predict_many(np.full(len(cand), user, dtype=object), core.items[cand].to_numpy())
        pred = pred[pred["covered"]]
        key = pred["score"] if self.mode == "scored" else pred["jaccard_like"] - pred["jaccard_dislike"]
        top = pred.assign(_k=key).sort_values(["_k", "item"], ascending=[False, True]).head(n).drop(columns="_k")
        top = top.reset_index(drop=True)
        top["evidence"] = [self._evidence(user, it) for it in top["item"]]
        return top

    def explain(self, user) -> dict:
        """The user's like and dislike profiles (intersection removed), attributes grouped by
        kind, each with the number of the user's co-clusters that hold it."""
        self._check_fitted()
        core = self.core_
        u = core.users.get_indexer([user])[0]
        if u < 0:
            raise KeyError(f"unknown user {user!r}: not in the training ratings")
        like_p, dis_p = core.paper_profiles()
        out = {
            "user": user if not isinstance(user, np.generic) else user.item(),
            "like_coclusters": int(core.profiles.like_members[u].nnz),
            "dislike_coclusters": int(core.profiles.dislike_members[u].nnz),
        }
        for side, prof, support in (
            (LIKE, like_p, core.profiles.like_support),
            (DISLIKE, dis_p, core.profiles.dislike_support),
        ):
            a = prof[u].indices
            s = np.asarray(support[u, a].todense()).ravel() if len(a) else np.zeros(0)
            groups: dict[str, list] = {}
            for idx, sup in sorted(zip(a, s, strict=True), key=lambda x: (-x[1], str(core.attrs[x[0]]))):
                kind, _, value = str(core.attrs[idx]).partition(":")
                groups.setdefault(kind, []).append({"value": value, "coclusters": int(sup)})
            out[side] = groups
        return out


@dataclass
class Prediction:
    """A like/dislike prediction and why."""

    user: object
    item: object
    label: str
    score: float
    jaccard_like: float
    jaccard_dislike: float
    source: str
    evidence: dict


def with_mode(model: ProfileRecommender, mode: str) -> ProfileRecommender:
    """A view of a fitted model predicting in another mode; the co-clusters and profiles are shared.

    The paper mode needs nothing beyond the profiles, so a scored model also serves it.
    """
    model._check_fitted()
    if mode == "scored" and not hasattr(model, "weights_"):
        raise ValueError("a model fitted in paper mode has no scored weights; refit with mode='scored'")
    view = object.__new__(ProfileRecommender)
    view.__dict__.update(model.__dict__)
    view.mode = mode
    return view
