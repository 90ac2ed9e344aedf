"""One evaluation protocol for every method: like/dislike metrics at fairly tuned cut-offs,
ablations of the profile model, paired bootstrap intervals and top-N ranking quality.

The protocol (:func:`evaluate`):

1. split the training ratings once (fixed seed) into a *fit* part (90 %) and a *tuning* part (10 %);
2. fit every method on the fit part, score the tuning part, and choose the method's cut-off on its
   score — the one with the best balanced accuracy there;
3. refit every method on all training ratings and score the test ratings; a rating is predicted
   a like iff its score reaches the method's cut-off.

``majority`` (always like) and ``profile_paper`` (the paper's rule, which has no cut-off) are
fitted on all training ratings and keep their own rule (:attr:`Method.fixed_cut_off
<recsys.evaluation.methods.Method.fixed_cut_off>`); their ``threshold`` is null.  Test
ratings never reach fitting or tuning.

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

Top-N (:func:`recsys.evaluation.topn.topn`): every user with at least one *relevant* test rating (rating >= 4, the usual
MovieLens convention; it is stricter than a like) gets every catalogue movie they did not rate in
training ranked; precision, recall, NDCG and hit rate at 10 and catalogue coverage (the share of
the catalogue that appears in some top-10 list).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import RatingsError
from ..model.ratings import holdout_mask
from ..model.settings import PAPER_PARAMS
from .intervals import paired_bootstrap
from .methods import Method, ProfileMethod, Scores, Training, method_factories
from .metrics import fill_uncovered, metrics, tune_threshold
from .topn import topn

METHODS = ("majority", "bias", "like_share", "svd", "svdpp", "knn_baseline", "coclustering", "naive_bayes",
           "profile_paper", "profile")  # fmt: skip
# ablations: name -> evidence groups kept
ABLATIONS = {
    "no_coclusters": ("like_shares", "baseline"),
    "no_like_shares": ("baseline", "like_coclusters", "dislike_coclusters"),
    "no_baseline": ("like_shares", "like_coclusters", "dislike_coclusters"),
    "no_dislike_coclusters": ("like_shares", "baseline", "like_coclusters"),
    "coclusters_only": ("like_coclusters", "dislike_coclusters"),
}
# controls: the profile model refitted with a parameter changed; name -> overrides
CONTROLS = {"neighbours_from_ratings": {"neighbours": "ratings"}}


def split_for_tuning(ratings, fraction: float = 0.1, seed: int = 0):
    """``(fit, tune)``: the training ratings split once, by a hash of (user, item) and ``seed``."""
    held = holdout_mask(ratings, fraction, seed + 1)  # not the profile model's own held-out part
    return ratings[~held], ratings[held]


class Fitted(NamedTuple):
    """A method fitted twice by the protocol: on the fit part (its scores on the tuning part choose
    the cut-off; ``None`` for a rule of its own) and on all training ratings (scored on the test)."""

    tuning: Method | None
    final: Method


@dataclass
class _Run:
    """One run of the protocol: the data, and what has been measured so far."""

    train: Training
    fit: Training
    tune: object  # the tuning ratings
    test: object
    y: np.ndarray
    y_tune: np.ndarray
    paper_covered: np.ndarray | None = None
    results: dict = field(default_factory=dict)
    ablations: dict = field(default_factory=dict)
    test_scores: dict = field(default_factory=dict)  # name -> (score, prediction), for the bootstrap
    fitted: dict = field(default_factory=dict)  # name -> Fitted

    def result(self, like, scores: Scores, cut, fit_seconds: float, predict_seconds: float, **extra) -> dict:
        """The result of a method predicting ``like`` with ``scores`` on the test ratings."""
        return {
            **metrics(self.y, like, scores.covered, scores.score, self.paper_covered),
            "threshold": cut,
            "fit_seconds": fit_seconds,
            "predict_seconds": predict_seconds,
            **extra,
        }

    def keep_scores(self, name: str, like, scores: Scores) -> None:
        self.test_scores[name] = (fill_uncovered(scores.score, scores.covered), np.where(scores.covered, like, ~self.y))


def _fit(make, train: Training) -> tuple[Method, float]:
    t = time.perf_counter()
    method = make().fit(train)
    return method, time.perf_counter() - t


def _score(method: Method, ratings) -> tuple[Scores, float]:
    t = time.perf_counter()
    scores = method.score(ratings["user"].to_numpy(), ratings["item"].to_numpy())
    return scores, time.perf_counter() - t


def _own_rule(run: _Run, name: str, make) -> None:
    """A method with a rule of its own: fitted on all training ratings, no cut-off tuned."""
    method, fit_s = _fit(make, run.train)
    scores, predict_s = _score(method, run.test)
    like = scores.covered & (scores.score >= method.fixed_cut_off)
    if name == "profile_paper":
        run.paper_covered = scores.covered
    run.results[name] = run.result(like, scores, None, fit_s, predict_s, **method.describe())
    run.keep_scores(name, like, scores)
    run.fitted[name] = Fitted(None, method)


def _tuned(run: _Run, name: str, make) -> dict:
    """Fit on the fit part, tune the cut-off on the tuning part, refit on all training ratings."""
    tuning, _ = _fit(make, run.fit)
    tune_scores, _ = _score(tuning, run.tune)
    cut = tune_threshold(tune_scores.score, tune_scores.covered, run.y_tune)
    final, fit_s = _fit(make, run.train)
    scores, predict_s = _score(final, run.test)
    like = scores.score >= cut
    out = run.result(like, scores, cut, fit_s, predict_s)
    if final.natural_cut_off is not None and run.paper_covered is not None:
        # the paper scored its baselines at their own cut-off: a predicted rating above 2, P >= 0.5
        pc = run.paper_covered & scores.covered
        nat = final.natural_like(scores.score)
        out["natural_cut_off"] = final.natural_cut_off
        out["accuracy_on_paper_covered_natural"] = float((nat[pc] == run.y[pc]).mean()) if pc.any() else None
    run.keep_scores(name, like, scores)
    run.fitted[name] = Fitted(tuning, final)
    return out


def _variant(run: _Run, name: str, groups) -> dict:
    """The profile model with only the evidence groups ``groups``: weights refitted, cut-off retuned."""
    tuning, final = (m.with_evidence(groups) for m in run.fitted["profile"])
    tune_scores, _ = _score(tuning, run.tune)
    cut = tune_threshold(tune_scores.score, tune_scores.covered, run.y_tune)
    scores, predict_s = _score(final, run.test)
    like = scores.score >= cut
    if name == "like_share":
        run.keep_scores(name, like, scores)
    fit_s = run.results["profile"]["fit_seconds"]
    return run.result(like, scores, cut, fit_s, predict_s, evidence=list(groups))


@dataclass(frozen=True)
class Protocol:
    """How the methods are measured: the like threshold, the seed of every split and fit, the
    share of the training ratings that tunes the cut-offs, the bootstrap resamples (0: none),
    and whether top-N lists are measured too."""

    like_threshold: float = 2.0
    seed: int = 0
    tuning_fraction: float = 0.1
    n_boot: int = 1000
    topn: bool = True


@dataclass(frozen=True)
class Setup:
    """What is compared: the like/dislike methods (names of :data:`METHODS`); the profile
    model's parameters; the paper's rule's HBLCoClust parameters (default
    :data:`~recsys.model.settings.PAPER_PARAMS`) and the features it co-clusters; the profile
    model's ablations (name → evidence groups kept) and controls (name → parameter overrides)."""

    methods: tuple = METHODS
    profile: dict = field(default_factory=dict)
    paper: dict | None = None
    paper_features: str = "all"
    ablations: dict = field(default_factory=lambda: dict(ABLATIONS))
    controls: dict = field(default_factory=lambda: dict(CONTROLS))


def evaluate(train, test, attributes=None, items=None, *, protocol: Protocol | None = None,
             setup: Setup | None = None, progress=None) -> dict:  # fmt: skip
    """Run the protocol (module docstring) on one train/test split; returns every figure as a dict:
    ``methods``, ``ablations``, ``ci``, ``topn``, ``profile`` (the fitted model's counts),
    ``protocol`` and ``seconds``."""
    protocol, setup = protocol or Protocol(), setup or Setup()
    say = progress or (lambda message: None)
    t0 = time.perf_counter()
    fit_part, tune_part = split_for_tuning(train, protocol.tuning_fraction, protocol.seed)
    run = _Run(
        train=Training(train, attributes, items),
        fit=Training(fit_part, attributes, items),
        tune=tune_part,
        test=test,
        y=test["rating"].to_numpy(dtype=np.float64) > protocol.like_threshold,
        y_tune=tune_part["rating"].to_numpy(dtype=np.float64) > protocol.like_threshold,
    )
    _check_both_classes(run.y, "test ratings", "give more ratings, or a larger test fraction")
    _check_both_classes(run.y_tune, f"tuning ratings ({protocol.tuning_fraction:.0%} of the training ratings)",
                        "give more training ratings")  # fmt: skip
    profile_params = {"like_threshold": protocol.like_threshold, "random_state": protocol.seed, **setup.profile}
    makers = method_factories(protocol.like_threshold, protocol.seed, profile_params, setup.paper or PAPER_PARAMS,
                              setup.paper_features)  # fmt: skip
    # methods with a rule of their own first, the paper's first of all: the ratings it covers are a
    # column of every other result
    own = sorted((m for m in setup.methods if m in makers and makers[m]().fixed_cut_off is not None),
                 key=lambda m: m != "profile_paper")  # fmt: skip
    for name in own:
        say(f"{name}: its own rule, fitted on all {len(train):,} training ratings")
        _own_rule(run, name, makers[name])
    for name in (m for m in setup.methods if m in makers and m not in own):
        say(f"{name}: fit on {len(fit_part):,} ratings, cut-off on {len(tune_part):,}, refit on {len(train):,}")
        run.results[name] = _tuned(run, name, makers[name])
    if "profile" in run.fitted:
        _ablate(run, setup.methods, setup.ablations, say)
        for name, overrides in setup.controls.items():
            say(f"{name} (control): profile with {overrides}")
            make = lambda o=overrides: ProfileMethod(**{**profile_params, **o})  # noqa: E731
            run.ablations[name] = {**_tuned(run, name, make), "control": overrides}
            run.test_scores.pop(name)
    out = _report(run, protocol, say)
    if protocol.topn:
        say("top-N")
        out["topn"] = topn(train, test, run.fitted, protocol.like_threshold)
    out["seconds"] = time.perf_counter() - t0
    return out


def _check_both_classes(y: np.ndarray, what: str, hint: str) -> None:
    """AUC, balanced accuracy and the tuned cut-offs need likes and dislikes among ``y``."""
    likes = int(y.sum())
    if likes == 0 or likes == len(y):
        raise RatingsError(
            f"the {what} hold {likes:,} likes and {len(y) - likes:,} dislikes: the evaluation needs both; {hint}"
        )


def _ablate(run: _Run, methods, ablations: dict, say) -> None:
    """``like_share`` (the profile model's like-share terms alone) and the ablations."""
    variants = {"like_share": ("like_shares",)} if "like_share" in methods else {}
    variants.update(ablations)
    for name, groups in variants.items():
        say(f"{name}: evidence {', '.join(groups)}")
        target = run.results if name == "like_share" else run.ablations
        target[name] = _variant(run, name, groups)


def _report(run: _Run, protocol: Protocol, say) -> dict:
    out = {
        "protocol": {
            "tuning_fraction": protocol.tuning_fraction,
            "seed": protocol.seed,
            "like_threshold": protocol.like_threshold,
            "n_fit": int(len(run.fit.ratings)),
            "n_tune": int(len(run.tune)),
            "cut_off": "best balanced accuracy on the tuning part; majority and profile_paper keep their own rule",
        },
        "n_test": int(len(run.test)),
        "like_share_test": float(run.y.mean()),
        "methods": {m: run.results[m] for m in METHODS if m in run.results},
        "ablations": run.ablations,
    }
    if "profile" in run.fitted:
        model = run.fitted["profile"].final.model
        out["profile"] = {"params": model.get_params(), "weights": model.weights_.to_dict(), "report": model.report_}
        if protocol.n_boot:
            say(f"paired bootstrap ({protocol.n_boot} resamples)")
            out["ci"] = paired_bootstrap(run.y, run.test_scores, "profile", protocol.n_boot, protocol.seed)
    return out
