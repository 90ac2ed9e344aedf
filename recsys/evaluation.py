"""One evaluation protocol for every method: like/dislike metrics at fairly tuned cut-offs,
ablations of the profile model, paired bootstrap intervals and top-N ranking quality.

The protocol (:func:`evaluate`):

1. split the training ratings once (fixed seed) into a *fit* part (90 %) and a *tuning* part (10 %);
2. fit every method on the fit part, score the tuning part, and choose the method's cut-off on its
   score — the one with the best balanced accuracy there;
3. refit every method on all training ratings and score the test ratings; a rating is predicted
   a like iff its score reaches the method's cut-off.

``majority`` (always like) and ``profile_paper`` (the paper's rule, which has no cut-off) are
fitted on all training ratings and keep their own rule; their ``threshold`` is null.  Test
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

Top-N (:func:`topn`): every user with at least one *relevant* test rating (rating >= 4, the usual
MovieLens convention; it is stricter than a like) gets every catalogue movie they did not rate in
training ranked; precision, recall, NDCG and hit rate at 10 and catalogue coverage (the share of
the catalogue that appears in some top-10 list).
"""

from __future__ import annotations

import time

import numpy as np

from ._logistic import best_balanced_threshold
from .baselines import SURPRISE_METHODS, Majority, NaiveBayes, Popularity, SurpriseMethod
from .evidence import GROUPS
from .fit import PAPER_PARAMS, holdout_mask
from .model import LIKE, ProfileRecommender

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
# the cut-off a method has without tuning: Surprise's predicted ratings against the like threshold
# (filled in at run time), Naive Bayes at P(like) = 0.5
NATURAL_CUT_OFF = {"naive_bayes": 0.5}
# controls: the profile model refitted with a parameter changed; name -> overrides
CONTROLS = {"neighbours_from_ratings": {"neighbours": "ratings"}}
TOPN_METHODS = ("popularity", "svd", "knn_baseline", "profile")
RELEVANT = 4.0
K = 10


def roc_auc(y: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half), by ranks.

    >>> roc_auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.5, 0.5]))
    0.875
    """
    y = np.asarray(y, dtype=bool)
    score = np.asarray(score, dtype=np.float64)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    s = score[order]
    ranks = np.empty(len(s))
    starts = np.r_[0, np.flatnonzero(np.diff(s) != 0) + 1]
    ends = np.r_[starts[1:], len(s)]
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def fill_uncovered(score: np.ndarray, covered: np.ndarray) -> np.ndarray:
    """Scores with the uncovered (or NaN) ones set to the mean of the covered ones."""
    s = np.asarray(score, dtype=np.float64)
    ok = np.asarray(covered, dtype=bool) & np.isfinite(s)
    fill = float(s[ok].mean()) if ok.any() else 0.0
    return np.where(ok, s, fill)


def metrics(y, like, covered, score, paper_covered=None) -> dict:
    """The metrics of one method: ``like`` are its predictions, valid where ``covered``."""
    y = np.asarray(y, dtype=bool)
    like = np.asarray(like, dtype=bool)
    covered = np.asarray(covered, dtype=bool)
    full = np.where(covered, like, ~y)
    dis_true, dis_pred = ~y, ~full
    out = {
        "n": int(len(y)),
        "coverage": float(covered.mean()),
        "accuracy_covered": float((like[covered] == y[covered]).mean()) if covered.any() else float("nan"),
        "majority_covered": float(y[covered].mean()) if covered.any() else float("nan"),
        "accuracy_full": float((full == y).mean()),
        "majority_accuracy_full": float(y.mean()),
        "balanced_accuracy_full": float(0.5 * (full[y].mean() + (~full[~y]).mean())),
        "dislike_recall_full": float((dis_pred & dis_true).sum() / max(dis_true.sum(), 1)),
        "dislike_precision_full": float((dis_pred & dis_true).sum() / max(dis_pred.sum(), 1)),
        "auc_full": roc_auc(y, fill_uncovered(score, covered)),
    }
    if paper_covered is not None:
        pc = np.asarray(paper_covered, dtype=bool) & covered
        out["accuracy_on_paper_covered"] = float((like[pc] == y[pc]).mean()) if pc.any() else float("nan")
    return out


def tune_threshold(score, covered, y) -> float:
    """The cut-off with the best balanced accuracy on the covered ratings."""
    covered = np.asarray(covered, dtype=bool) & np.isfinite(score)
    if not covered.any():
        return float("nan")
    return float(best_balanced_threshold(np.asarray(score)[covered], np.asarray(y, dtype=bool)[covered]))


def split_for_tuning(ratings, fraction: float = 0.1, seed: int = 0):
    """``(fit, tune)``: the training ratings split once, by a hash of (user, item) and ``seed``."""
    held = holdout_mask(ratings, fraction, seed + 1)  # not the profile model's own held-out part
    return ratings[~held], ratings[held]


class _Scored:
    """A fitted method's scores on some ratings."""

    def __init__(self, score, covered, seconds):
        self.score = np.asarray(score, dtype=np.float64)
        self.covered = np.asarray(covered, dtype=bool)
        self.seconds = seconds


def _fit_score(make, fit_data, score_data, attrs, items):
    t = time.perf_counter()
    m = make()
    if isinstance(m, ProfileRecommender):
        m.fit(fit_data, attrs, items)
    elif isinstance(m, (NaiveBayes, Majority)):
        m.fit(fit_data, attrs)
    else:
        m.fit(fit_data)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    users, its = score_data["user"].to_numpy(), score_data["item"].to_numpy()
    if isinstance(m, ProfileRecommender):
        p = m.predict_many(users, its)
        score, cov = p.score, p.covered
    else:
        score, cov = m.score(users, its)
    return m, _Scored(score, cov, time.perf_counter() - t), fit_s


def evaluate(
    train,
    test,
    attributes=None,
    items=None,
    *,
    like_threshold: float = 2.0,
    seed: int = 0,
    methods=METHODS,
    profile_params: dict | None = None,
    paper_params: dict | None = None,
    paper_features: str = "all",
    ablations: dict | None = None,
    controls: dict | None = None,
    with_topn: bool = True,
    n_boot: int = 1000,
    tuning_fraction: float = 0.1,
    progress=None,
) -> dict:
    """Run the protocol (module docstring) on one train/test split; returns every figure as a dict:
    ``methods``, ``ablations``, ``ci``, ``topn``, ``profile`` (the fitted model's counts),
    ``protocol`` and ``seconds``."""
    say = progress or (lambda message: None)
    t0 = time.perf_counter()
    y = test["rating"].to_numpy(dtype=np.float64) > like_threshold
    fit_part, tune_part = split_for_tuning(train, tuning_fraction, seed)
    y_tune = tune_part["rating"].to_numpy(dtype=np.float64) > like_threshold
    profile_params = dict(profile_params or {})
    profile_params.setdefault("like_threshold", like_threshold)
    profile_params.setdefault("random_state", seed)
    ablations = ABLATIONS if ablations is None else ablations
    controls = CONTROLS if controls is None else controls
    makers = {
        **{name: (lambda n=name: SurpriseMethod(n, seed)) for name in SURPRISE_METHODS},
        "naive_bayes": lambda: NaiveBayes(like_threshold),
        "profile": lambda: ProfileRecommender(**profile_params),
    }
    results, test_scores, models = {}, {}, {}

    # the paper's rule: its own parameters, all training ratings, no cut-off
    paper_cov = None
    if "profile_paper" in methods:
        say("profile_paper: the paper's rule with the paper's parameters")
        t = time.perf_counter()
        paper = ProfileRecommender(
            **{**profile_params, "features": paper_features, "like_params": paper_params or PAPER_PARAMS,
               "dislike_params": paper_params or PAPER_PARAMS}
        ).fit(train, attributes, items, scored=False)  # fmt: skip
        fit_s = time.perf_counter() - t
        t = time.perf_counter()
        pp = paper.predict_many(test["user"].to_numpy(), test["item"].to_numpy(), mode="paper")
        paper_cov = pp.covered
        results["profile_paper"] = {
            **metrics(y, pp.prediction == LIKE, pp.covered, pp.score, paper_cov),
            "threshold": None,
            "fit_seconds": fit_s,
            "predict_seconds": time.perf_counter() - t,
            "rule": "paper: the larger Jaccard similarity wins; no cut-off",
            "coclusters": {"like": paper.report_["like_coclusters"], "dislike": paper.report_["dislike_coclusters"]},
            "relations": paper.report_["relations"],
        }
        test_scores["profile_paper"] = (
            fill_uncovered(pp.score, pp.covered),
            np.where(pp.covered, pp.prediction == LIKE, ~y),
        )

    tuned = [m for m in methods if m in makers]
    for name in tuned:
        say(f"{name}: fit on {len(fit_part):,} ratings, cut-off on {len(tune_part):,}, refit on {len(train):,}")
        inner, tune_sc, _ = _fit_score(makers[name], fit_part, tune_part, attributes, items)
        cut = tune_threshold(tune_sc.score, tune_sc.covered, y_tune)
        full, test_sc, fit_s = _fit_score(makers[name], train, test, attributes, items)
        like = test_sc.score >= cut
        results[name] = {
            **metrics(y, like, test_sc.covered, test_sc.score, paper_cov),
            "threshold": cut,
            "fit_seconds": fit_s,
            "predict_seconds": test_sc.seconds,
        }
        natural = NATURAL_CUT_OFF.get(name, like_threshold if name in SURPRISE_METHODS else None)
        if natural is not None and paper_cov is not None:
            # the paper scored its baselines at their own cut-off: a predicted rating above 2, P >= 0.5
            nat = test_sc.score > natural if name in SURPRISE_METHODS else test_sc.score >= natural
            pc = paper_cov & test_sc.covered
            results[name]["natural_cut_off"] = natural
            results[name]["accuracy_on_paper_covered_natural"] = float((nat[pc] == y[pc]).mean()) if pc.any() else None
        test_scores[name] = (fill_uncovered(test_sc.score, test_sc.covered), np.where(test_sc.covered, like, ~y))
        models[name] = (inner, full)

    # like_share and the ablations: the profile model refitted with evidence groups removed
    variants = {}
    if "profile" in models:
        inner, full = models["profile"]
        if "like_share" in methods:
            variants["like_share"] = ("like_shares",)
        for name, groups in ablations.items():
            variants[name] = groups
    ablation_results = {}
    for name, groups in variants.items():
        say(f"{name}: evidence {', '.join(groups)}")
        a_inner, a_full = inner.with_evidence(groups), full.with_evidence(groups)
        p = a_inner.predict_many(tune_part["user"].to_numpy(), tune_part["item"].to_numpy())
        cut = tune_threshold(p.score, p.covered, y_tune)
        t = time.perf_counter()
        q = a_full.predict_many(test["user"].to_numpy(), test["item"].to_numpy())
        like = q.score >= cut
        r = {
            **metrics(y, like, q.covered, q.score, paper_cov),
            "threshold": cut,
            "fit_seconds": results["profile"]["fit_seconds"],
            "predict_seconds": time.perf_counter() - t,
            "evidence": list(groups),
        }
        if name == "like_share":
            results[name] = r
            test_scores[name] = (fill_uncovered(q.score, q.covered), np.where(q.covered, like, ~y))
        else:
            ablation_results[name] = r
    for name, overrides in controls.items() if "profile" in models else ():
        say(f"{name} (control): profile with {overrides}")
        make = lambda o=overrides: ProfileRecommender(**{**profile_params, **o})  # noqa: E731
        _, tune_sc, _ = _fit_score(make, fit_part, tune_part, attributes, items)
        cut = tune_threshold(tune_sc.score, tune_sc.covered, y_tune)
        _, test_sc, fit_s = _fit_score(make, train, test, attributes, items)
        ablation_results[name] = {
            **metrics(y, test_sc.score >= cut, test_sc.covered, test_sc.score, paper_cov),
            "threshold": cut,
            "fit_seconds": fit_s,
            "predict_seconds": test_sc.seconds,
            "control": overrides,
        }
    if "majority" in methods:
        t = time.perf_counter()
        results["majority"] = {
            **metrics(y, np.ones(len(y), bool), np.ones(len(y), bool), np.zeros(len(y)), paper_cov),
            "threshold": None,
            "fit_seconds": 0.0,
            "predict_seconds": time.perf_counter() - t,
        }
        test_scores["majority"] = (np.zeros(len(y)), np.ones(len(y), bool))

    out = {
        "protocol": {
            "tuning_fraction": tuning_fraction,
            "seed": seed,
            "like_threshold": like_threshold,
            "n_fit": int(len(fit_part)),
            "n_tune": int(len(tune_part)),
            "cut_off": "best balanced accuracy on the tuning part; majority and profile_paper keep their own rule",
        },
        "n_test": int(len(test)),
        "like_share_test": float(y.mean()),
        "methods": {m: results[m] for m in METHODS if m in results},
        "ablations": ablation_results,
    }
    if "profile" in models:
        full = models["profile"][1]
        out["profile"] = {
            "params": {k: v for k, v in full.get_params().items()},
            "weights": full.weights_.to_dict(),
            "report": full.report_,
        }
        if n_boot:
            say(f"paired bootstrap ({n_boot} resamples)")
            out["ci"] = paired_bootstrap(y, test_scores, "profile", n_boot, seed)
    if with_topn:
        say("top-N")
        out["topn"] = topn(train, test, attributes, items, models, like_threshold, seed)
    out["seconds"] = time.perf_counter() - t0
    return out


# -- uncertainty ------------------------------------------------------------------------------
def _weighted_auc(y: np.ndarray, s: np.ndarray, W: np.ndarray) -> np.ndarray:
    """AUC under each row of case weights ``W`` (resample counts), ties counted half."""
    order = np.argsort(s, kind="mergesort")
    ss, yy, Ws = s[order], y[order], W[:, order]
    starts = np.r_[0, np.flatnonzero(np.diff(ss) != 0) + 1]
    pos = Ws * yy
    neg = Ws * ~yy
    pos_g = np.add.reduceat(pos, starts, axis=1)
    neg_g = np.add.reduceat(neg, starts, axis=1)
    neg_below = np.cumsum(neg_g, axis=1) - neg_g
    num = (pos_g * (neg_below + 0.5 * neg_g)).sum(axis=1)
    return num / (pos.sum(axis=1) * neg.sum(axis=1))


def _weighted_balanced_accuracy(y: np.ndarray, pred: np.ndarray, W: np.ndarray) -> np.ndarray:
    tpr = (W * (y & pred)).sum(axis=1) / (W * y).sum(axis=1)
    tnr = (W * (~y & ~pred)).sum(axis=1) / (W * ~y).sum(axis=1)
    return 0.5 * (tpr + tnr)


def paired_bootstrap(y, scores: dict, reference: str, n_boot: int = 1000, seed: int = 0, chunk: int = 100) -> dict:
    """95 % paired bootstrap intervals of ``reference - other`` for AUC and balanced accuracy.

    ``scores[m] = (score, prediction)`` on the test ratings (uncovered scores filled, uncovered
    predictions wrong).  Every resample draws test ratings with replacement, the same draw for
    both methods.
    """
    y = np.asarray(y, dtype=bool)
    rng = np.random.default_rng(seed)
    others = [m for m in scores if m != reference]
    diffs = {m: {"auc": [], "ba": []} for m in others}
    ref_s, ref_p = scores[reference]
    for lo in range(0, n_boot, chunk):
        b = min(chunk, n_boot - lo)
        W = rng.multinomial(len(y), np.full(len(y), 1.0 / len(y)), size=b).astype(np.float64)
        auc_ref = _weighted_auc(y, ref_s, W)
        ba_ref = _weighted_balanced_accuracy(y, ref_p, W)
        for m in others:
            s, p = scores[m]
            diffs[m]["auc"].append(auc_ref - _weighted_auc(y, s, W))
            diffs[m]["ba"].append(ba_ref - _weighted_balanced_accuracy(y, p, W))
    out = {"reference": reference, "resamples": n_boot, "seed": seed, "level": 0.95, "versus": {}}
    ones = np.ones((1, len(y)))
    for m in others:
        auc = np.concatenate(diffs[m]["auc"])
        ba = np.concatenate(diffs[m]["ba"])
        s, p = scores[m]
        out["versus"][m] = {
            "auc_diff": float(_weighted_auc(y, ref_s, ones)[0] - _weighted_auc(y, s, ones)[0]),
            "auc_diff_ci": [float(np.percentile(auc, 2.5)), float(np.percentile(auc, 97.5))],
            "balanced_accuracy_diff": float(
                _weighted_balanced_accuracy(y, ref_p, ones)[0] - _weighted_balanced_accuracy(y, p, ones)[0]
            ),
            "balanced_accuracy_diff_ci": [float(np.percentile(ba, 2.5)), float(np.percentile(ba, 97.5))],
        }
    return out


# -- top-N ------------------------------------------------------------------------------------
def ranking_metrics(recommended: list, relevant: list, n_catalogue: int, k: int = K) -> dict:
    """Precision, recall, NDCG and hit rate at ``k``, averaged over users, and catalogue coverage.

    ``recommended[j]`` is user ``j``'s ranked list, ``relevant[j]`` the set of relevant items.

    >>> ranking_metrics([[1, 2, 3]], [{2, 9}], n_catalogue=10, k=3)["ndcg@3"]
    0.3868528072345416
    """
    p, r, nd, hit = [], [], [], []
    seen = set()
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    for rec, rel in zip(recommended, relevant, strict=True):
        rec = list(rec)[:k]
        seen.update(rec)
        hits = np.array([x in rel for x in rec], dtype=float)
        dcg = float((hits * discount[: len(hits)]).sum())
        idcg = float(discount[: min(k, len(rel))].sum())
        p.append(hits.sum() / k)
        r.append(hits.sum() / len(rel))
        nd.append(dcg / idcg if idcg > 0 else 0.0)
        hit.append(float(hits.any()))
    return {
        f"precision@{k}": float(np.mean(p)),
        f"recall@{k}": float(np.mean(r)),
        f"ndcg@{k}": float(np.mean(nd)),
        f"hit_rate@{k}": float(np.mean(hit)),
        "catalogue_coverage": len(seen) / max(n_catalogue, 1),
        "users": len(recommended),
    }


def topn(train, test, attributes, items, models: dict, like_threshold: float, seed: int = 0, k: int = K) -> dict:
    """Top-``k`` lists of every user with a relevant test rating, for the :data:`TOPN_METHODS`
    available (``models`` holds the fitted ``(inner, full)`` methods of :func:`evaluate`)."""
    profile = models.get("profile", (None, None))[1]
    if profile is not None:
        catalogue = profile.profiles_.items
    else:
        catalogue = np.unique(np.concatenate([train["item"].to_numpy(), test["item"].to_numpy()]))
    rel = test[test["rating"] >= RELEVANT]
    relevant = {u: set(g.tolist()) for u, g in rel.groupby("user")["item"]}
    users = sorted(relevant)
    rated = {u: set(g.tolist()) for u, g in train.groupby("user")["item"]}
    rankers = {"popularity": Popularity(like_threshold).fit(train)}
    for name in ("svd", "knn_baseline"):
        if name in models:  # the methods evaluated; the others are left out of the lists too
            rankers[name] = models[name][1]
    out = {
        "relevant": f"test rating >= {RELEVANT:g}",
        "k": k,
        "candidates": "every catalogue item not rated in training",
        "catalogue": int(len(catalogue)),
        "methods": {},
    }
    for name in TOPN_METHODS:
        if (name == "profile" and profile is None) or (name in ("svd", "knn_baseline") and name not in rankers):
            continue
        t = time.perf_counter()
        lists = []
        for u in users:
            seen = rated.get(u, set())
            cand = np.array([x for x in catalogue.tolist() if x not in seen], dtype=catalogue.dtype)
            if name == "profile":
                fp = profile.profiles_
                ui = int(fp.user_index([u])[0])
                if ui < 0:
                    lists.append([])
                    continue
                ci = fp.item_index(cand)
                ranking = profile.rank_items(ui, ci)
                lists.append([fp.items[ci[j]].item() for j in ranking.order[:k]])
            else:
                s = rankers[name].rank_scores(u, cand)
                order = np.lexsort((np.arange(len(cand)), -s))[:k]
                lists.append(cand[order].tolist())
        res = ranking_metrics(lists, [relevant[u] for u in users], len(catalogue), k)
        res["seconds"] = time.perf_counter() - t
        out["methods"][name] = res
    return out


def ablation_groups() -> dict:
    """The ablations and the evidence groups each keeps (for documentation)."""
    return {name: {"keeps": list(g), "drops": [x for x in GROUPS if x not in g]} for name, g in ABLATIONS.items()}
