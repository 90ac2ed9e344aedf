"""The methods the evaluation compares, behind one small protocol.

Every method is a :class:`Method`: ``fit(train)`` on a :class:`Training` (ratings, and the item
attributes and titles when there are any), ``score(users, items)`` → :class:`Scores` (higher =
more likely a like, and which pairs it covers) for the like/dislike task, ``rank(user,
candidates)`` → a score per candidate item for top-N lists (``-inf``: cannot be listed).  The
protocol (:mod:`recsys.evaluation.protocol`) treats them all alike: a method either has a rule
of its own (``fixed_cut_off``: the majority class, the paper's rule) or gets its cut-off tuned.

Here: the majority class, a per-user Bernoulli Naive Bayes over item attributes, popularity (a
ranker), the profile model and the paper's rule; Surprise's rating predictors are in
:mod:`recsys.evaluation.surprise_methods`, the top-N anchors (EASE, ItemKNN, RP3beta, iALS, BPR)
in :mod:`recsys.evaluation.anchors`.  :mod:`recsys.evaluation.registry` builds every method by name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import ProfileRecommender
from ..model.csr import Csr
from ..model.feedback import INTERACTION
from ..model.listing import list_score_rows, rank_items


@dataclass(frozen=True)
class Training:
    """What a method is fitted on: ratings ``user, item, rating``; item attributes ``item, kind,
    value`` and titles ``item, title`` when known."""

    ratings: object
    attributes: object = None
    items: object = None


@dataclass
class Scores:
    """A method's score of each pair, and whether it covers the pair (its score means nothing if not)."""

    score: np.ndarray
    covered: np.ndarray

    def __post_init__(self):
        self.score = np.asarray(self.score, dtype=np.float64)
        self.covered = np.asarray(self.covered, dtype=bool)


class Method:
    """One compared method (see the module docstring).  ``params`` are the hyper-parameters it was
    made with (a point of its grid, :mod:`recsys.evaluation.grids`)."""

    name = ""
    # a rule of its own: predicts a like iff score >= fixed_cut_off; None: the cut-off is tuned
    fixed_cut_off: float | None = None
    # the cut-off the method has without tuning (as the paper scored its baselines), if any
    natural_cut_off: float | None = None
    # lists for a user it was not fitted on, from the user's ratings (fold_in_block)
    folds_in = False
    params: dict = {}

    def fit(self, train: Training) -> Method:  # pragma: no cover - interface
        raise NotImplementedError

    def score(self, users, items) -> Scores:  # pragma: no cover - interface
        raise NotImplementedError(f"{self.name} does not predict likes")

    def rank(self, user, candidates) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError(f"{self.name} does not rank items")

    def rank_block(self, users, catalogue) -> np.ndarray:
        """Scores of every catalogue item for each of ``users`` (rows), ``-inf`` where it cannot list one."""
        return np.vstack([self.rank(u, catalogue) for u in users]) if len(users) else np.zeros((0, len(catalogue)))

    def fold_in_block(self, histories: list, catalogue) -> np.ndarray:
        """The same for users it was not fitted on, from their ``(catalogue indices, ratings)``
        histories, without refitting (a new person's ratings)."""
        raise NotImplementedError(f"{self.name} cannot take a new user without refitting")

    def natural_like(self, score: np.ndarray) -> np.ndarray:
        """Predictions at the natural cut-off."""
        return score >= self.natural_cut_off

    def describe(self) -> dict:
        """Fields the results of this method carry besides the metrics."""
        return {}


class Majority(Method):
    """Always "like" (the majority class); its score is constant."""

    name = "majority"
    fixed_cut_off = 1.0

    def fit(self, train: Training) -> Majority:
        return self

    def score(self, users, items) -> Scores:
        return Scores(np.ones(len(users)), np.ones(len(users), dtype=bool))


class Popularity(Method):
    """Top-N baseline: items ranked by their number of training likes (``input="likes"``) or of
    training ratings (``input="all"``)."""

    name = "popularity"
    folds_in = True

    def __init__(self, like_threshold: float = 2.0, input: str = "likes"):
        self.like_threshold = like_threshold
        self.params = {"input": input}

    def fit(self, train: Training) -> Popularity:
        ratings = train.ratings
        if self.params["input"] == "likes":
            ratings = ratings[ratings["rating"] > self.like_threshold]
        self.counts_ = ratings["item"].value_counts()
        return self

    def rank(self, user, candidates) -> np.ndarray:
        return self.counts_.reindex(np.asarray(candidates)).fillna(0).to_numpy(dtype=np.float64)

    def rank_block(self, users, catalogue) -> np.ndarray:
        return np.broadcast_to(self.rank(None, catalogue), (len(users), len(catalogue)))

    def fold_in_block(self, histories: list, catalogue) -> np.ndarray:
        return self.rank_block(histories, catalogue)


class ProfileMethod(Method):
    """The profile model (:class:`~recsys.model.ProfileRecommender`, scored mode).  A grid point
    sets its own parameters and, for the keys of :class:`coclust.HBLCoClust`, the co-clustering
    parameters of both relations."""

    name = "profile"
    folds_in = True

    def __init__(self, point: dict | None = None, **base):
        self.params = dict(point or {})
        self.model_params = _profile_params(base, self.params)

    def fit(self, train: Training) -> ProfileMethod:
        self.model = ProfileRecommender(**self.model_params).fit(train.ratings, train.attributes, train.items)
        return self

    def score(self, users, items) -> Scores:
        """Like-probabilities; none (nothing covered) for a model of interactions, whose
        ``predict`` answers a relevance score, not a probability."""
        if self.model.fitted_.implicit:
            return Scores(np.full(len(users), np.nan), np.zeros(len(users), dtype=bool))
        p = self.model.predict_many(users, items)
        return Scores(p.score, p.covered)

    def rank(self, user, candidates) -> np.ndarray:
        fp = self.model.profiles_
        u = int(fp.user_index([user])[0])
        if u < 0:
            return np.full(len(candidates), -np.inf)
        i = fp.item_index(candidates)
        key = np.full(len(candidates), -np.inf)
        known = i >= 0
        key[known] = rank_items(self.model, u, i[known]).key
        return key

    def rank_block(self, users, catalogue) -> np.ndarray:
        """:meth:`rank` of a block of users, the catalogue's ids looked up once (per user, the
        look-up of 59 k ids and a sort nobody reads took 24 minutes of 162 k users' lists)."""
        model = self.model
        fp = model.profiles_
        rows = fp.user_index(users)
        people = [(fp.ratings.row(u), fp.ratings.row_values(u)) if u >= 0 else None for u in rows]
        return _list_block(model, people, fp.item_index(catalogue))

    def fold_in_block(self, histories: list, catalogue) -> np.ndarray:
        """The list scores for new people, folded in from their ratings (nothing refitted)."""
        model = self.model
        cols = model.profiles_.item_index(catalogue)
        people = []
        for items, ratings in histories:
            idx, known = cols[items], cols[items] >= 0
            values = np.asarray(ratings, dtype=np.float64)[known]
            if model.fitted_.implicit:  # a history's values are relevance marks, not counts: one interaction each
                values = np.full(len(values), INTERACTION)
            people.append((idx[known], values) if known.any() else None)
        return _list_block(model, people, cols)

    def with_evidence(self, groups) -> ProfileMethod:
        """This fitted model with only the evidence groups ``groups`` (an ablation: the same
        co-clusters, the weights refitted)."""
        other = ProfileMethod(self.params, **{**self.model_params, "evidence": tuple(groups)})
        other.model = self.model.with_evidence(groups)
        return other


def _list_block(model, people: list, cols: np.ndarray) -> np.ndarray:
    """Rows of the model's list scores (:func:`~recsys.model.listing.list_score_rows`;
    the person's rated items -inf) at the catalogue's item indices ``cols`` (-1: unknown, -inf), one
    per person (``(item indices, ratings)``, or None: nobody the model can read, -inf throughout)."""
    out = np.full((len(people), len(cols)), -np.inf)
    known = cols >= 0
    out[:, known] = list_score_rows(model, people)[:, cols[known]]
    return out


def _profile_params(base: dict, point: dict) -> dict:
    """ProfileRecommender parameters: ``base`` with the grid ``point`` applied."""
    from ..model.settings import RECOMMENDER_PARAMS

    own = {k: v for k, v in point.items() if k in ProfileRecommender._constraints}
    coclust = {k: v for k, v in point.items() if k not in own}
    params = {**base, **own}
    if coclust:
        for side in ("like_params", "dislike_params"):
            params[side] = {**(base.get(side) or RECOMMENDER_PARAMS), **coclust}
    return params


class PaperRule(Method):
    """The paper's rule on the paper's co-clusters: the larger Jaccard similarity of the item's
    attributes with the user's like and dislike profiles wins (a score ``J(like) - J(dislike)``,
    a like iff it is >= 0, ties going to like); no match abstains."""

    name = "profile_paper"
    fixed_cut_off = 0.0

    def __init__(self, **params):
        self.model_params = params

    def fit(self, train: Training) -> PaperRule:
        self.model = ProfileRecommender(**self.model_params).fit(
            train.ratings, train.attributes, train.items, scored=False
        )
        return self

    def score(self, users, items) -> Scores:
        p = self.model.predict_many(users, items, mode="paper")
        return Scores(p.score, p.covered)

    def describe(self) -> dict:
        r = self.model.report_
        return {
            "rule": "paper: the larger Jaccard similarity wins; no cut-off",
            "coclusters": {"like": r["like_coclusters"], "dislike": r["dislike_coclusters"]},
            "relations": r["relations"],
        }


class NaiveBayes(Method):
    """Per-user Bernoulli Naive Bayes over item attributes (the paper's Naive Bayes baseline).

    For each user, two classes (like: rating above the like threshold, dislike) with
    Laplace-smoothed priors ``P(c) = (n_c + 1) / (n + 2)``; the features are the binary attributes
    of the rated item and the item itself, restricted to those occurring in the user's training
    items; ``P(a | c) = (n_{c,a} + 1) / (n_c + 2)``.  A test item is scored with the full Bernoulli
    likelihood (present *and* absent attributes).  The score is ``P(like | item)``; it covers pairs
    of a known user and a known item.  The paper does not say which Naive Bayes it used.
    """

    name = "naive_bayes"
    natural_cut_off = 0.5

    def __init__(self, like_threshold: float = 2.0):
        self.like_threshold = like_threshold

    def fit(self, train: Training) -> NaiveBayes:
        import pandas as pd
        import scipy.sparse as sp

        from ingest.features import attribute_names
        from ingest.features import item_attributes as own_attribute

        ratings = train.ratings
        attrs = train.attributes if train.attributes is not None else pd.DataFrame(columns=["item", "kind", "value"])
        items = pd.Index(pd.unique(np.concatenate([ratings["item"].to_numpy(), attrs["item"].to_numpy()])))
        names = np.concatenate([attribute_names(attrs["kind"], attrs["value"]), own_attribute(items.to_numpy())])
        item_of = np.concatenate([items.get_indexer(attrs["item"]), np.arange(len(items))])
        a_codes, vocab = pd.factorize(pd.Series(names))
        A = sp.csr_matrix((np.ones(len(a_codes)), (item_of, a_codes)), shape=(len(items), len(vocab)))
        A.sum_duplicates()
        A.data[:] = 1
        u_codes, users = pd.factorize(ratings["user"])
        i = items.get_indexer(ratings["item"])
        like = ratings["rating"].to_numpy() > self.like_threshold
        n_u = len(users)
        R_like = sp.csr_matrix((np.ones(like.sum()), (u_codes[like], i[like])), shape=(n_u, len(items)))
        R_dis = sp.csr_matrix((np.ones((~like).sum()), (u_codes[~like], i[~like])), shape=(n_u, len(items)))
        self.users_, self.items_ = pd.Index(users), items
        self.n_like_ = np.asarray(R_like.sum(axis=1)).ravel()
        self.n_dis_ = np.asarray(R_dis.sum(axis=1)).ravel()
        c_like, c_dis = (R_like @ A).tocsr(), (R_dis @ A).tocsr()
        seen = ((c_like + c_dis) > 0).astype(np.float64).tocsr()
        self.logp_like_ = self._log_probs(c_like, seen, self.n_like_)
        self.logp_dis_ = self._log_probs(c_dis, seen, self.n_dis_)
        self.A_ = A.tocsr()
        return self

    @staticmethod
    def _log_probs(counts, seen, n_c):
        import scipy.sparse as sp

        seen = seen.tocoo()
        cnt = np.asarray(counts.tocsr()[seen.row, seen.col]).ravel()
        p = (cnt + 1.0) / (n_c[seen.row] + 2.0)
        lp = sp.csr_matrix((np.log(p), (seen.row, seen.col)), shape=seen.shape)
        l1p = sp.csr_matrix((np.log1p(-p), (seen.row, seen.col)), shape=seen.shape)
        return lp, l1p

    def score(self, users, items) -> Scores:
        u = self.users_.get_indexer(np.asarray(users))
        i = self.items_.get_indexer(np.asarray(items))
        known = (u >= 0) & (i >= 0)
        out = np.full(len(u), np.nan)
        uk, ik = u[known], i[known]
        scores = []
        for (lp, l1p), n_c, n_o in (
            (self.logp_like_, self.n_like_, self.n_dis_),
            (self.logp_dis_, self.n_dis_, self.n_like_),
        ):
            prior = np.log((n_c[uk] + 1.0) / (n_c[uk] + n_o[uk] + 2.0))
            absent_all = np.asarray(l1p.sum(axis=1)).ravel()[uk]
            present = np.asarray((lp - l1p)[uk].multiply(self.A_[ik]).sum(axis=1)).ravel()
            scores.append(prior + absent_all + present)
        d = np.clip(scores[1] - scores[0], -50, 50)
        out[known] = 1.0 / (1.0 + np.exp(d))
        return Scores(out, known)


class AttributeLogistic(Method):
    """A hybrid anchor that uses content: one L2-regularised logistic regression (scikit-learn,
    liblinear) of like/dislike on sparse binary features of the pair — the user, the item, each
    attribute of the item, and each (user, attribute of the item) seen in training — so it learns
    user and item effects, what each attribute does for everyone and what it does for each user
    (the last shrunk by the same penalty).  ``C`` (the inverse penalty) is tuned like every grid.
    It covers a known user with any item that has attributes or training ratings, new items
    included (their item feature is simply absent)."""

    name = "attribute_logistic"
    natural_cut_off = 0.5

    def __init__(self, like_threshold: float = 2.0, seed: int = 0, C: float = 1.0):
        self.like_threshold = like_threshold
        self.seed = seed
        self.params = {"C": C}

    def fit(self, train: Training) -> AttributeLogistic:
        import pandas as pd
        from sklearn.linear_model import LogisticRegression

        from ingest.features import attribute_names

        ratings = train.ratings
        attrs = train.attributes if train.attributes is not None else pd.DataFrame(columns=["item", "kind", "value"])
        self.users_ = pd.Index(pd.unique(ratings["user"]))
        self.items_ = pd.Index(pd.unique(np.concatenate([ratings["item"].to_numpy(), attrs["item"].to_numpy()])))
        codes, vocab = pd.factorize(pd.Series(attribute_names(attrs["kind"], attrs["value"])))
        n_a = max(len(vocab), 1)
        pairs = np.unique(self.items_.get_indexer(attrs["item"]).astype(np.int64) * n_a + codes)
        self.item_attr_ = Csr.from_pairs(pairs // n_a, pairs % n_a, (len(self.items_), len(vocab)))
        self.rated_items_ = np.zeros(len(self.items_), dtype=bool)
        self.rated_items_[self.items_.get_indexer(ratings["item"])] = True
        u = self.users_.get_indexer(ratings["user"])
        i = self.items_.get_indexer(ratings["item"])
        which, pos = self.item_attr_.rows_entries(i)
        seen = np.unique(u[which].astype(np.int64) * n_a + self.item_attr_.idx[pos])
        self.user_attr_ = Csr.from_pairs(seen // n_a, seen % n_a, (len(self.users_), len(vocab)))
        y = ratings["rating"].to_numpy(dtype=np.float64) > self.like_threshold
        model = LogisticRegression(C=self.params["C"], solver="liblinear", random_state=self.seed)
        self.model_ = model.fit(self._features(u, i), y)
        return self

    def _features(self, u: np.ndarray, i: np.ndarray):
        import scipy.sparse as sp

        n_u, n_i, n_a = len(self.users_), len(self.items_), self.item_attr_.shape[1]
        which, pos = self.item_attr_.rows_entries(i)
        a = self.item_attr_.idx[pos]
        ua = self.user_attr_.positions(u[which].astype(np.int64) * n_a + a)  # -1: a pair not seen in training
        seen = ua >= 0
        rated = self.rated_items_[i]
        t = np.arange(len(u))
        rows = np.concatenate([t, t[rated], which, which[seen]])
        cols = np.concatenate([u, n_u + i[rated], n_u + n_i + a, n_u + n_i + n_a + ua[seen]])
        shape = (len(u), n_u + n_i + n_a + self.user_attr_.nnz)
        return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)

    def score(self, users, items) -> Scores:
        u = self.users_.get_indexer(np.asarray(users))
        i = self.items_.get_indexer(np.asarray(items))
        known = (u >= 0) & (i >= 0)
        out = np.full(len(u), np.nan)
        if known.any():
            out[known] = self.model_.predict_proba(self._features(u[known], i[known]))[:, 1]
        return Scores(out, known)
