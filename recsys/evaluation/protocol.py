"""One evaluation protocol for every method: settings chosen by one procedure on the training
ratings, like/dislike metrics at tuned cut-offs, top-N lists, ablations of the profile model,
user-level bootstrap intervals, and lists for users never seen in training.

The protocol (:func:`evaluate`):

1. split the training ratings once (fixed seed) into a *fit* part (90 %) and a *tuning* part (10 %);
2. for every method, fit each point of its declared grid (:mod:`recsys.evaluation.grids`) on the
   fit part and keep the one with the best AUC on the tuning ratings (like/dislike methods) or the
   best NDCG@10 of lists for the tuning users (top-N methods; the profile model does both and is
   chosen for each task separately) — :mod:`recsys.evaluation.selection`; with the ``full`` grids
   a choice on an open edge of a setting's range is extended past it until interior
   (:mod:`recsys.evaluation.search`), and every choice records its edge status;
3. a like/dislike method's cut-off is then the one with the best balanced accuracy on its tuning
   scores;
4. refit every method at its chosen point on all training ratings; score the test ratings (a
   rating is predicted a like iff its score reaches the cut-off) and rank the catalogue for every
   user with a relevant test rating.

``majority`` (always like) and ``profile_paper`` (the paper's rule with the paper's parameters)
are fitted on all training ratings and keep their own rule (:attr:`Method.fixed_cut_off
<recsys.evaluation.methods.Method.fixed_cut_off>`); their ``threshold`` is null.  Test ratings
never reach a fit, a grid choice, a cut-off or a ranker's training data.

Conventions, the same for every method:

* a rating is a *like* iff it is above ``like_threshold`` (2);
* ``*_full`` metrics count every test rating; a rating the method does not cover counts as wrong;
* ``auc_full`` ranks every test rating by the method's score; uncovered ratings get the mean
  score of the covered ones (no information);
* ``majority_accuracy_full`` is the always-like accuracy on the same ratings, to read
  ``accuracy_full`` against;
* ``accuracy_on_paper_covered`` is the accuracy on the ratings ``profile_paper`` covers, the
  comparison the paper reports; ``accuracy_on_paper_covered_natural`` is the same at the method's
  own cut-off (a predicted rating above the like threshold; Naive Bayes at P(like) >= 0.5), as the
  paper scored its baselines.

Top-N (:mod:`recsys.evaluation.ranking`): every user with at least one *relevant* test rating
(rating >= 4, the usual MovieLens convention; stricter than a like) gets every catalogue item they
did not rate in training ranked; precision, recall, NDCG and hit rate at 10 and catalogue coverage.

Intervals resample *users* (all of a user's ratings together): the differences of AUC and
balanced accuracy between the profile model and each method, and of NDCG@10 between the profile
model's lists and each ranker's (:mod:`recsys.evaluation.intervals`).

Strong generalisation (:mod:`recsys.evaluation.strong`): a tenth of the training users is held out
entirely; each method, at its chosen point, is fitted on the others' ratings and lists items for
the held-out users from 80 % of their ratings, given at prediction time; the other 20 % are
scored.  Methods that cannot take a new user without refitting say so.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from ..errors import RatingsError
from ..model.feedback import CONFIDENCES
from ..model.ratings import holdout_mask
from ..model.settings import PAPER_PARAMS
from ..model.shared import shared_fits
from ..model.terms import GROUPS
from ..model.threads import cores
from .beside import Beside
from .grids import EXTRA_FITS
from .grids import axes as declared_axes
from .grids import grid as declared_grid
from .intervals import paired_bootstrap, paired_bootstrap_means
from .methods import Method, ProfileMethod, Scores, Training
from .metrics import accuracy_on, fill_uncovered, metrics, tune_threshold
from .ranking import RECALL_K, RELEVANT, K, RankingTask, catalogue_of, list_metrics, ndcg_per_user, top_lists
from .registry import method_factories
from .selection import Choice, sweep
from .surprise_methods import shared_neighbourhoods

METHODS = (
    "majority",
    "bias",
    "like_share",
    "svd",
    "svdpp",
    "knn_baseline",
    "coclustering",
    "naive_bayes",
    "attribute_logistic",
    "profile_paper",
    "profile",
)
RANKERS = ("popularity", "ease", "itemknn", "rp3beta", "ials", "bpr", "profile")
# ablations: name -> evidence groups kept (every group of the model but the ones named)
_ITEM_MODEL = ("item_model", "item_residuals")


def _without(*removed: str) -> tuple:
    return tuple(g for g in GROUPS if g not in removed)


ABLATIONS = {
    "no_coclusters": _without("like_coclusters", "dislike_coclusters", *_ITEM_MODEL),
    "no_item_model": _without(*_ITEM_MODEL),
    "no_like_shares": _without("like_shares"),
    "no_baseline": _without("baseline"),
    "no_dislike_coclusters": _without("dislike_coclusters"),
    "no_attributes": _without("attributes"),
    "coclusters_only": ("like_coclusters", "dislike_coclusters", *_ITEM_MODEL),
}
# controls: the profile model refitted with a parameter changed; name -> overrides
CONTROLS = {"neighbours_from_ratings": {"neighbours": "ratings"}, "mean_attributes": {"attribute_fit": "means"}}
# controls of the lists: the item model on other pairs than the co-clusters';
# without the attribute evidence (new items are then not listed from their attributes);
# the item model alone (no popularity or like-probability blended in, recsys.model.list_blend)
_UNBLENDED = {"list_score": "item_model"}
LIST_CONTROLS = {
    "random_support": {"item_support": "random"},
    "full_support": {"item_support": "all"},
    "no_attributes": {"evidence": _without("attributes")},
    "item_model_lists": _UNBLENDED,
}
# rankers given the lists' blend, chosen for each by one procedure (recsys.evaluation.blends):
# like-for-like rows for the product, whose lists are blended
BLENDED = ("item_model", "ease", "ials")
OWN_RULE = ("majority", "profile_paper")  # methods with a rule of their own: nothing to tune
# methods that keep about one core busy (Surprise's, Cython on one thread; the paper's rule, 90 s
# of CPU in 77 s on MovieLens 100K u1; ItemKNN and RP3beta, scipy's sparse products; BPR, on one
# thread for its seed's sake), shared with a second process (recsys.evaluation.beside) that takes
# them from the front, the costliest first, while this one measures the rest.  Not the rankers the
# lists' blend is given to (their fitted models are read again here).
ONE_CORE = ("profile_paper", "knn_baseline", "svdpp", "itemknn", "rp3beta", "coclustering", "bpr", "svd", "bias")
# fewer training ratings than this and the second process costs more (its start: about 3 s) than it saves
BESIDE_MIN_RATINGS = 20_000


@dataclass(frozen=True)
class Protocol:
    """How the methods are measured: the like threshold; the seed of every split and fit; the
    share of the training ratings that tunes settings and cut-offs; the grids (``small`` or
    ``full``); the bootstrap resamples (0: none); whether top-N lists are measured, and lists for
    users held out of training (``strong``: that share of the users, ``strong_history``: the share
    of each one's ratings given at prediction time); ``implicit``: the data are interactions
    (:func:`as_interactions`): lists only, every held-out interaction relevant; ``beside``: the
    methods that run on one core are measured in a second process while this one measures the rest
    (:mod:`recsys.evaluation.beside`; the same figures either way; default: where there are two
    cores and enough ratings for it to pay)."""

    like_threshold: float = 2.0
    seed: int = 0
    tuning_fraction: float = 0.1
    grid: str = "small"
    n_boot: int = 1000
    topn: bool = True
    strong: float = 0.1
    strong_history: float = 0.8
    implicit: bool = False
    beside: bool | None = None


@dataclass(frozen=True)
class Setup:
    """What is compared: the like/dislike methods (names of :data:`METHODS`) and the rankers (of
    :data:`RANKERS`); the profile model's base parameters; the paper's rule's HBLCoClust
    parameters (default :data:`~recsys.model.settings.PAPER_PARAMS`) and the features it
    co-clusters; the profile model's ablations and controls (of its like/dislike predictions, and of
    its lists); ``grids`` replaces the declared grid of a method (name → list of points);
    ``blended``: the rankers (and ``item_model``, the product's item model alone) given the lists'
    blend (:mod:`recsys.evaluation.blends`)."""

    methods: tuple = METHODS
    rankers: tuple = RANKERS
    profile: dict = field(default_factory=dict)
    paper: dict | None = None
    paper_features: str = "all"
    ablations: dict = field(default_factory=lambda: dict(ABLATIONS))
    controls: dict = field(default_factory=lambda: dict(CONTROLS))
    list_controls: dict = field(default_factory=lambda: dict(LIST_CONTROLS))
    grids: dict = field(default_factory=dict)
    blended: tuple = BLENDED


def as_interactions(ratings, protocol: Protocol):
    """Interactions (implicit feedback) as the protocol measures lists: every one a relevant like, a
    rating of at least :data:`~recsys.evaluation.ranking.RELEVANT` above the like threshold — so that
    the anchors' inputs (likes, all, relevant) are each the interactions, and every held-out
    interaction is relevant.  The profile model reads them as interactions (its ``feedback``)."""
    value = float(max(RELEVANT, protocol.like_threshold + 1))
    if "count" in ratings.columns:  # kept for the methods that read counts (the "weighted" input, confidence)
        counts = ratings.groupby(["user", "item"], sort=False, as_index=False)["count"].sum()
        return counts.assign(rating=value)[["user", "item", "rating", "count"]]
    return ratings[["user", "item"]].drop_duplicates().assign(rating=value)


# the item model's and EASE's penalty per like of an input item (EDLAE's dropout emphasis, Steck
# 2020), tried on interactions by both alike: on a held-out tenth of MovieLens 100K's five training
# folds (their test folds unread), EASE with it gained 0.001-0.003 NDCG@10 (δ 1.6-3.2, λ 50-200)
PER_LIKE = {"small": [0.0, 2.0], "full": [0.0, 1.0, 2.0, 4.0]}
PER_LIKE_SETTING = {"profile": "item_l2_per_like", "ease": "l2_per_like"}

# the anchors whose matrix values enter the model: given counts, they may read them (the "weighted"
# input); RP3beta walks the 0/1 graph and BPR samples pairs, whatever the values
READS_COUNTS = ("ease", "itemknn", "ials")


def interaction_grids(grids: dict, counted: bool, size: str = "small") -> dict:
    """The grids for interactions: one 0/1 input (likes, all and relevant are each the
    interactions); with counts, the methods that can read them also try them — the anchors of
    :data:`READS_COUNTS` their ``weighted`` input (``log2(1 + count)``), the profile model its
    ``confidence`` — so that each chooses on the tuning part whether the counts help.  The item
    model and EASE each also try a penalty per like (:data:`PER_LIKE` of the grids' ``size``)."""
    out = {}
    for name, points in grids.items():
        base = [p for p in points if p.get("input", "all") == "all"] or points
        setting = PER_LIKE_SETTING.get(name)
        if setting:  # a point that sets it already keeps its own
            base = [q for p in base for q in ([p] if setting in p else [{**p, setting: d} for d in PER_LIKE[size]])]
        if counted and name in READS_COUNTS:
            base = base + [{**p, "input": "weighted"} for p in base]
        elif counted and name == "profile":
            base = [{**p, "confidence": c} for c in CONFIDENCES for p in base]
        out[name] = base
    return out


def split_for_tuning(ratings, fraction: float = 0.1, seed: int = 0):
    """``(fit, tune)``: the training ratings split once, by a hash of (user, item) and ``seed``."""
    held = holdout_mask(ratings, fraction, seed + 1)  # not the profile model's own held-out part
    return ratings[~held], ratings[held]


class Fitted(NamedTuple):
    """A method as the protocol leaves it: fitted on the fit part at its chosen point (its tuning
    scores chose the cut-off; ``None`` for a rule of its own), and refitted on all training ratings."""

    tuning: Method | None
    final: Method


@dataclass
class _Run:
    """One run of the protocol: the data, and what has been measured so far."""

    protocol: Protocol
    train: Training
    fit: Training
    tune: object  # the tuning ratings
    test: object
    y: np.ndarray
    y_tune: np.ndarray
    makers: dict
    grids: dict
    catalogue: np.ndarray
    profile_params: dict = field(default_factory=dict)
    paper_covered: np.ndarray | None = None
    # figures also read on the ratings the paper's rule covers, kept until it has said which
    # (measured beside, it may come last): (figures, predictions, covered, natural cut-off or None)
    on_paper: list | None = None
    results: dict = field(default_factory=dict)
    ablations: dict = field(default_factory=dict)
    lists: dict = field(default_factory=dict)
    list_controls: dict = field(default_factory=dict)
    test_scores: dict = field(default_factory=dict)  # name -> (score, prediction), for the bootstrap
    user_ndcg: dict = field(default_factory=dict)  # name -> NDCG@10 per test-list user, for the bootstrap
    fitted: dict = field(default_factory=dict)  # name -> Fitted (like/dislike)
    rankers: dict = field(default_factory=dict)  # name -> final fitted ranker
    tuned_rankers: dict = field(default_factory=dict)  # name -> the ranker chosen, as fitted on the fit part
    # the lists' control without the blend, fitted on all training ratings (the item model's blended
    # row reuses it); the other controls' models are let go: the full-support one holds items² weights
    unblended: ProfileMethod | None = None
    finals: dict = field(default_factory=dict)  # (name, point) -> (method fitted on all training, seconds)

    def result(
        self, like, scores: Scores, cut, fit_seconds: float, predict_seconds: float, natural=None, **extra
    ) -> dict:
        """The result of a method predicting ``like`` with ``scores`` on the test ratings (and at
        its ``natural`` cut-off, ``(cut-off, predictions)``, on the paper's ratings)."""
        out = {
            **metrics(self.y, like, scores.covered, scores.score),
            "threshold": cut,
            "fit_seconds": fit_seconds,
            "predict_seconds": predict_seconds,
            **extra,
        }
        if self.on_paper is not None:
            self.on_paper.append((out, like, scores.covered, natural))
        elif self.paper_covered is not None:
            self._on_paper(out, like, scores.covered, natural)
        return out

    def paper_known(self, covered: np.ndarray) -> None:
        """The ratings the paper's rule covers: every figure kept for them is completed."""
        self.paper_covered = covered
        for kept in self.on_paper or ():
            self._on_paper(*kept)
        self.on_paper = None

    def _on_paper(self, out: dict, like, covered, natural) -> None:
        """``out`` with its accuracy on the ratings the paper's rule covers, in :func:`metrics`'s
        place (after the AUC), and at its natural cut-off: the comparison the paper reports."""
        pc = self.paper_covered & covered
        acc = accuracy_on(self.y, like, pc)
        keys = list(out)
        tail = {k: out.pop(k) for k in keys[keys.index("auc_full") + 1 :]}
        out.update({"accuracy_on_paper_covered": float("nan") if acc is None else acc, **tail})
        if natural is not None:
            # the paper scored its baselines at their own cut-off: a predicted rating above 2, P >= 0.5
            nat = accuracy_on(self.y, natural[1], pc)
            out.update(natural_cut_off=natural[0], accuracy_on_paper_covered_natural=nat)

    def keep_scores(self, name: str, like, scores: Scores) -> None:
        self.test_scores[name] = (fill_uncovered(scores.score, scores.covered), np.where(scores.covered, like, ~self.y))

    def final(self, name: str, point: dict) -> tuple[Method, float]:
        """``name`` at ``point`` fitted on all training ratings (once, whichever task asks first)."""
        key = (name, repr(sorted(point.items())))
        if key not in self.finals:
            t = time.perf_counter()
            self.finals[key] = (self.makers[name](point).fit(self.train), time.perf_counter() - t)
        return self.finals[key]


def _score(method: Method, ratings) -> tuple[Scores, float]:
    t = time.perf_counter()
    scores = method.score(ratings["user"].to_numpy(), ratings["item"].to_numpy())
    return scores, time.perf_counter() - t


class Outcome(NamedTuple):
    """A like/dislike method measured on the test ratings, before it is recorded (:func:`record`):
    what :func:`own_rule` and :func:`like_final` give, picklable (a method measured in the process
    beside, :mod:`recsys.evaluation.beside`, comes without its fitted models)."""

    name: str
    like: np.ndarray
    scores: Scores
    cut: float | None
    fit_seconds: float
    predict_seconds: float
    extra: dict  # params, grid, tuning or the rule's description
    natural: tuple | None  # (the method's own cut-off, its predictions there), for the paper's comparison
    fitted: Fitted | None = None


def own_rule(run: _Run, name: str) -> Outcome:
    """A method with a rule of its own: fitted on all training ratings, no cut-off tuned."""
    method, fit_s = run.final(name, {})
    scores, predict_s = _score(method, run.test)
    like = scores.covered & (scores.score >= method.fixed_cut_off)
    extra = {"params": getattr(method, "model_params", {}), "grid": [{}], **method.describe()}
    return Outcome(name, like, scores, None, fit_s, predict_s, extra, None, Fitted(None, method))


def like_final(run: _Run, name: str, choice: Choice) -> Outcome:
    """A tuned like/dislike method: the cut-off from its tuning scores, then the test ratings."""
    cut = tune_threshold(choice.scores.score, choice.scores.covered, run.y_tune)
    final, fit_s = run.final(name, choice.point)
    scores, predict_s = _score(final, run.test)
    extra = {"params": choice.point, "grid": choice.grid, "tuning": choice.summary()}
    natural = None
    if final.natural_cut_off is not None:
        natural = (final.natural_cut_off, final.natural_like(scores.score))
    fitted = Fitted(choice.model, final)
    return Outcome(name, scores.score >= cut, scores, cut, fit_s, predict_s, extra, natural, fitted)


def record(run: _Run, o: Outcome) -> None:
    """``o``'s figures into the run (read on the ratings the paper's rule covers as soon as it has
    said which, :meth:`_Run.paper_known`)."""
    out = run.result(o.like, o.scores, o.cut, o.fit_seconds, o.predict_seconds, o.natural, **o.extra)
    if o.name == "profile_paper":
        run.paper_known(o.scores.covered)
    run.results[o.name] = out
    run.keep_scores(o.name, o.like, o.scores)
    if o.fitted is not None:
        run.fitted[o.name] = o.fitted


def _list_final(run: _Run, name: str, choice: Choice, task: RankingTask) -> None:
    """A tuned ranker: its lists for the test users."""
    final, fit_s = run.final(name, choice.point)
    t = time.perf_counter()
    res = _measured(run, name, final, task)
    res.update(
        seconds=time.perf_counter() - t,
        fit_seconds=fit_s,
        params=choice.point,
        grid=choice.grid,
        tuning=choice.summary(),
    )
    run.lists[name] = res
    run.rankers[name] = final
    run.tuned_rankers[name] = choice.model


def _variant(run: _Run, name: str, groups) -> dict:
    """The profile model with only the evidence groups ``groups``: weights refitted, cut-off retuned."""
    tuning, final = (m.with_evidence(groups) for m in run.fitted["profile"])
    tune_scores, _ = _score(tuning, run.tune)
    cut = tune_threshold(tune_scores.score, tune_scores.covered, run.y_tune)
    scores, predict_s = _score(final, run.test)
    like = scores.score >= cut
    run.keep_scores(name, like, scores)  # the ablations get intervals against the profile model too
    profile = run.results["profile"]
    return run.result(
        like,
        scores,
        cut,
        profile["fit_seconds"],
        predict_s,
        evidence=list(groups),
        params=profile["params"],
        grid="the profile model's choice",
    )


def _control(run: _Run, name: str, overrides: dict, profile_params: dict) -> dict:
    """The profile model at its chosen point with ``overrides``: fitted on the fit part for its
    cut-off, refitted on all training ratings."""
    point = run.results["profile"]["params"]
    make = lambda: ProfileMethod(point, **{**profile_params, **overrides})  # noqa: E731
    tuning = make().fit(run.fit)
    tune_scores, _ = _score(tuning, run.tune)
    cut = tune_threshold(tune_scores.score, tune_scores.covered, run.y_tune)
    t = time.perf_counter()
    final = make().fit(run.train)
    fit_s = time.perf_counter() - t
    scores, predict_s = _score(final, run.test)
    run.keep_scores(name, scores.score >= cut, scores)
    return run.result(
        scores.score >= cut,
        scores,
        cut,
        fit_s,
        predict_s,
        control=overrides,
        params=point,
        grid="the profile model's choice",
    )


def evaluate(
    train,
    test,
    attributes=None,
    items=None,
    *,
    protocol: Protocol | None = None,
    setup: Setup | None = None,
    progress=None,
) -> dict:
    """Run the protocol (module docstring) on one train/test split; returns every figure as a dict:
    ``methods``, ``ablations``, ``ci``, ``topn``, ``strong``, ``profile`` (the fitted model's
    counts), ``protocol`` and ``seconds``.  The profile model's refits share their co-clusters,
    neighbourhoods and item models' solves where the inputs are the same
    (:func:`~recsys.model.shared.shared_fits`)."""
    with shared_fits():
        return _evaluate(train, test, attributes, items, protocol, setup, progress)


def _evaluate(train, test, attributes, items, protocol: Protocol | None, setup: Setup | None, progress) -> dict:
    protocol, setup = protocol or Protocol(), setup or Setup()
    say = progress or (lambda message: None)
    t0 = time.perf_counter()
    if protocol.implicit:
        train, test = as_interactions(train, protocol), as_interactions(test, protocol)
        setup = replace(setup, methods=(), profile={**setup.profile, "feedback": "implicit"})
    run = _prepare(train, test, attributes, items, protocol, setup)
    rankers = [r for r in setup.rankers if r in run.makers] if protocol.topn else []
    tune_task = RankingTask.of(run.fit.ratings, run.tune, run.catalogue) if rankers else None
    test_task = RankingTask.of(train, test, run.catalogue) if rankers else None
    own = sorted((m for m in setup.methods if m in OWN_RULE), key=lambda m: m != "profile_paper")
    searched = [m for m in setup.methods if m in run.makers and m not in OWN_RULE]
    listed = [r for r in rankers if r not in searched]
    far = _beside_names(run, own + searched + [r for r in listed if r not in setup.blended])
    here = lambda name: _piece(run, setup, name, tune_task, test_task, say)  # noqa: E731
    with Beside(measure_elsewhere, (train, test, attributes, items, protocol, setup), far, say, here) as beside:
        outcomes = {}
        for name in own + searched + listed:
            if name not in far:
                outcomes[name] = _measure(run, setup, name, rankers, tune_task, test_task, say)
        for name in own + searched:  # figures read on the paper's ratings are completed when it comes
            if name not in far:
                record(run, outcomes[name])
        if "profile" in run.fitted:
            _ablate(run, setup, say)
        if rankers and "profile" in run.lists:
            _list_controls(run, setup, test_task, say)
            _blended_lists(run, setup, tune_task, test_task, say)
        new_users, strong = None, {}
        if rankers and protocol.strong:
            from .strong import NewUsers

            say(f"strong generalisation: {protocol.strong:.0%} of the users held out of training")
            new_users = NewUsers(run)
            # the rankers measured here first, while the process beside still works through its queue
            strong = {name: new_users.lists(name, say) for name in rankers if name not in far}
        for name, outcome in beside.take().items():
            if isinstance(outcome, Listed):
                run.lists[name], run.user_ndcg[name] = outcome.figures, outcome.user_ndcg
            else:
                record(run, outcome)
    if new_users is not None:
        strong.update((name, new_users.lists(name, say)) for name in rankers if name in far)
    _in_order(run, own + searched, searched + listed)
    out = _report(run, setup, say)
    if rankers:
        out["topn"] = _topn_report(run, test_task, say)
        if new_users is not None:
            out["strong"] = new_users.report({name: strong[name] for name in rankers})
    out["seconds"] = time.perf_counter() - t0
    return out


def _in_order(run: _Run, likes: list, lists: list) -> None:
    """The like/dislike methods' test scores in the order of ``likes``, the rankers' NDCG per user
    in the order of ``lists`` (the order one process measures them in), then the ablations' and
    controls': the report lists them so."""
    run.test_scores = _first(run.test_scores, likes)
    run.user_ndcg = _first(run.user_ndcg, lists)


def _first(d: dict, names: list) -> dict:
    first = {n: d[n] for n in names if n in d}
    return {**first, **{n: v for n, v in d.items() if n not in first}}


def _beside_names(run: _Run, names: list) -> list:
    """The methods of ``names`` measured in the process beside (:mod:`recsys.evaluation.beside`):
    those that run on one core (:data:`ONE_CORE`), where this process may use two cores and the
    training ratings are enough for the second process to pay for its start (``protocol.beside``
    None); all or none of them as ``protocol.beside`` says."""
    wanted = run.protocol.beside
    if wanted is None:
        wanted = cores() >= 2 and len(run.train.ratings) >= BESIDE_MIN_RATINGS
    return [n for n in names if n in ONE_CORE] if wanted else []


class Listed(NamedTuple):
    """A ranker's test figures and NDCG@10 per test user, as the process beside measures them."""

    figures: dict
    user_ndcg: np.ndarray


def measure_elsewhere(data: tuple, names, say) -> Iterator[tuple[str, Outcome | Listed]]:
    """The methods ``names`` (an iterable, drawn as each is started) measured on ``data`` (the
    arguments of :func:`_prepare`), as the process beside measures them: like/dislike methods'
    outcomes without their fitted models, rankers' figures."""
    train, test, *_, setup = data
    run = _prepare(*data)
    tasks = (None, None)
    for name in names:
        if name in setup.rankers and tasks[0] is None:  # the lists' tasks, made once a ranker comes
            tasks = RankingTask.of(run.fit.ratings, run.tune, run.catalogue), RankingTask.of(train, test, run.catalogue)
        outcome = _piece(run, setup, name, *tasks, say)
        yield name, outcome._replace(fitted=None) if isinstance(outcome, Outcome) else outcome


def _piece(run: _Run, setup: Setup, name: str, tune_task, test_task, say) -> Outcome | Listed:
    """A method of the queue shared with the process beside, measured in this process: a like/dislike
    method's outcome, or a ranker's figures."""
    rankers = [name] if name in setup.rankers else []
    outcome = _measure(run, setup, name, rankers, tune_task, test_task, say)
    return Listed(run.lists[name], run.user_ndcg[name]) if rankers else outcome


def _measure(run: _Run, setup: Setup, name: str, rankers: list, tune_task, test_task, say) -> Outcome | None:
    """``name`` measured: its rule of its own, or its search on the tuning part for each of its tasks
    then its final fit; a ranker's lists are recorded, a like/dislike method's outcome returned."""
    if name in OWN_RULE:
        say(f"{name}: its own rule, fitted on all {len(run.train.ratings):,} training ratings")
        return own_rule(run, name)
    tasks = {"like": (run.tune, run.y_tune)} if name in setup.methods else {}
    if name in rankers:
        tasks["list"] = tune_task
    by = " and ".join("AUC" if t == "like" else "NDCG@10" for t in tasks)
    say(f"{name}: {len(run.grids[name])} setting(s) fitted on the fit part, chosen by {by} on the tuning part")
    # a grid given by the caller is searched as given; a declared one past its open edges
    axes = None if name in setup.grids else declared_axes(name, len(run.catalogue))
    make = lambda point: run.makers[name](point)  # noqa: E731
    extra = EXTRA_FITS[run.protocol.grid]
    with shared_neighbourhoods():  # KNNBaseline's k: its grid's fits share one similarity matrix
        choices = sweep(make, run.grids[name], run.fit, tasks, say, axes=axes, max_extra=extra)
    if "list" in choices:
        _list_final(run, name, choices["list"], test_task)
    return like_final(run, name, choices["like"]) if "like" in choices else None


def _prepare(train, test, attributes, items, protocol: Protocol, setup: Setup) -> _Run:
    fit_part, tune_part = split_for_tuning(train, protocol.tuning_fraction, protocol.seed)
    profile_params = {"like_threshold": protocol.like_threshold, "random_state": protocol.seed, **setup.profile}
    makers = method_factories(
        protocol.like_threshold, protocol.seed, profile_params, setup.paper or PAPER_PARAMS, setup.paper_features
    )
    grids = {name: setup.grids.get(name) or declared_grid(name, protocol.grid) for name in makers}
    if protocol.implicit:
        grids = interaction_grids(grids, "count" in train.columns, protocol.grid)
    run = _Run(
        protocol=protocol,
        train=Training(train, attributes, items),
        fit=Training(fit_part, attributes, items),
        tune=tune_part,
        test=test,
        y=test["rating"].to_numpy(dtype=np.float64) > protocol.like_threshold,
        y_tune=tune_part["rating"].to_numpy(dtype=np.float64) > protocol.like_threshold,
        makers=makers,
        grids=grids,
        catalogue=catalogue_of(train, items),
        profile_params=profile_params,
        on_paper=[] if "profile_paper" in setup.methods else None,
    )
    if protocol.implicit:  # lists only: no like/dislike to measure
        return run
    _check_both_classes(run.y, "test ratings", "give more ratings, or a larger test fraction")
    _check_both_classes(
        run.y_tune,
        f"tuning ratings ({protocol.tuning_fraction:.0%} of the training ratings)",
        "give more training ratings",
    )
    return run


def _check_both_classes(y: np.ndarray, what: str, hint: str) -> None:
    """AUC, balanced accuracy and the tuned cut-offs need likes and dislikes among ``y``."""
    likes = int(y.sum())
    if likes == 0 or likes == len(y):
        raise RatingsError(
            f"the {what} hold {likes:,} likes and {len(y) - likes:,} dislikes: the evaluation needs both; {hint}"
        )


def _ablate(run: _Run, setup: Setup, say) -> None:
    """``like_share`` (the profile model's like-share terms alone), the ablations and the controls."""
    variants = {"like_share": ("like_shares",)} if "like_share" in setup.methods else {}
    variants.update(setup.ablations)
    for name, groups in variants.items():
        say(f"{name}: evidence {', '.join(groups)}")
        target = run.results if name == "like_share" else run.ablations
        target[name] = _variant(run, name, groups)
    for name, overrides in setup.controls.items():
        say(f"{name} (control): profile with {overrides}")
        run.ablations[name] = _control(run, name, overrides, run.profile_params)


def _measured(run: _Run, name: str, ranker, task: RankingTask) -> dict:
    """The test figures of ``ranker``'s lists (recall also at :data:`~recsys.evaluation.ranking.RECALL_K`),
    its NDCG@10 per user kept for the intervals under ``name``."""
    lists = top_lists(ranker, task, k=RECALL_K)
    run.user_ndcg[name] = ndcg_per_user(lists, task.relevant)
    return list_metrics(lists, task.relevant, len(task.catalogue), recall_k=RECALL_K)


def _list_controls(run: _Run, setup: Setup, task: RankingTask, say) -> None:
    """The profile model's lists at its chosen point with ``setup.list_controls``' overrides."""
    point = run.lists["profile"]["params"]
    for name, overrides in setup.list_controls.items():
        say(f"{name} (control of the lists): profile with {overrides}")
        t = time.perf_counter()
        method = ProfileMethod(point, **{**run.profile_params, **overrides}).fit(run.train)
        if overrides == _UNBLENDED:
            run.unblended = method
        res = _measured(run, name, method, task)
        run.list_controls[name] = {**res, "seconds": time.perf_counter() - t, "control": overrides, "params": point}


def _blended_lists(run: _Run, setup: Setup, tune_task: RankingTask, test_task: RankingTask, say) -> None:
    """``setup.blended``' rankers with the lists' blend chosen for each on the tuning tenth by one
    procedure (:mod:`recsys.evaluation.blends`), as list controls named ``<ranker>_blend``; the
    product's item model alone is one of them (``item_model_blend``)."""
    from .blends import Blended, choose_blend, popularity_of

    profile_tuned, profile_final = run.tuned_rankers["profile"], run.rankers["profile"]
    thr = run.protocol.like_threshold
    pop_tune = popularity_of(run.fit.ratings, run.catalogue, thr)
    pop_test = popularity_of(run.train.ratings, run.catalogue, thr)
    point = run.lists["profile"]["params"]
    for name in setup.blended:
        t = time.perf_counter()
        if name == "item_model":
            plain = {**run.profile_params, **_UNBLENDED}
            tuned = ProfileMethod(point, **plain).fit(run.fit)
            # the lists' control without the blend is this very model on all training ratings: fitted once
            final = run.unblended or ProfileMethod(point, **plain).fit(run.train)
        elif name in run.rankers:
            tuned, final = run.tuned_rankers[name], run.rankers[name]
        else:
            continue
        say(f"{name}_blend (control of the lists): {name} with the lists' blend chosen on the tuning part")
        blend, report = choose_blend(tuned, profile_tuned, tune_task, pop_tune, run.protocol.seed)
        res = _measured(run, f"{name}_blend", Blended(final, profile_final, blend, pop_test, test_task), test_task)
        run.list_controls[f"{name}_blend"] = {
            **res,
            "seconds": time.perf_counter() - t,
            "control": {"blend": name},
            "blend": blend.to_dict(),
            "blend_choice": report["chosen"] if report.get("users") else None,
            "params": point if name == "item_model" else run.lists[name]["params"],
        }


def _report(run: _Run, setup: Setup, say) -> dict:
    p = run.protocol
    out = {
        "protocol": {
            "tuning_fraction": p.tuning_fraction,
            "seed": p.seed,
            "like_threshold": p.like_threshold,
            "grid": p.grid,
            "n_fit": int(len(run.fit.ratings)),
            "n_tune": int(len(run.tune)),
            "selection": "every method's setting: the best AUC (like/dislike) or NDCG@10 (lists) on the tuning part",
            "cut_off": "best balanced accuracy on the tuning part; majority and profile_paper keep their own rule",
            "implicit": p.implicit,
        },
        "n_test": int(len(run.test)),
        "like_share_test": None if p.implicit else float(run.y.mean()),
        "methods": {m: run.results[m] for m in METHODS if m in run.results},
        "ablations": run.ablations,
        "roc": {m: roc_points(run.y, s) for m, (s, _) in run.test_scores.items() if m not in run.ablations},
    }
    if "profile" in run.fitted:
        model = run.fitted["profile"].final.model
        out["profile"] = {"params": model.get_params(), "weights": model.weights_.to_dict(), "report": model.report_}
        if p.n_boot:
            say(f"paired bootstrap over users ({p.n_boot} resamples)")
            users = np.unique(run.test["user"].to_numpy(), return_inverse=True)[1]
            out["ci"] = paired_bootstrap(run.y, run.test_scores, "profile", users, p.n_boot, p.seed)
    return out


def _topn_report(run: _Run, task: RankingTask, say) -> dict:
    out = {
        "relevant": "every held-out interaction" if run.protocol.implicit else f"test rating >= {RELEVANT:g}",
        "k": K,
        "candidates": "every catalogue item not rated in training",
        "catalogue": int(len(run.catalogue)),
        "methods": {m: run.lists[m] for m in RANKERS if m in run.lists},
        "controls": run.list_controls,
    }
    if run.protocol.n_boot and "profile" in run.user_ndcg:
        say(f"paired bootstrap of NDCG@10 over users ({run.protocol.n_boot} resamples)")
        out["ci"] = paired_bootstrap_means(run.user_ndcg, "profile", run.protocol.n_boot, run.protocol.seed)
    # each ranker's NDCG@10 per test user (the task's order): intervals pooled over folds need them
    out["per_user_ndcg"] = {m: np.round(v, 6).tolist() for m, v in run.user_ndcg.items()}
    return out


def roc_points(y: np.ndarray, score: np.ndarray, n: int = 101) -> dict:
    """The ROC curve at ``n`` score quantiles: ``fpr`` and ``tpr`` lists, for a plot."""
    y = np.asarray(y, dtype=bool)
    cuts = np.unique(np.quantile(score, np.linspace(0, 1, n)))[::-1]
    pos, neg = max(int(y.sum()), 1), max(int((~y).sum()), 1)
    tpr = [0.0] + [float((score[y] >= c).sum() / pos) for c in cuts] + [1.0]
    fpr = [0.0] + [float((score[~y] >= c).sum() / neg) for c in cuts] + [1.0]
    return {"fpr": fpr, "tpr": tpr}
