"""The MovieLens figures of README.md and docs/evaluation.md, rendered from the results files so that
no figure or word in them is typed by hand.

:func:`readme_section`: the README's table (:func:`experiments.movielens.readme_table`), then what it
says in words chosen by the protocol's rule on the pooled interval
(:func:`experiments.confirm.reading`: above or below only when the 95 % interval of the five-fold
mean difference excludes 0), the settings still on an open edge, the spread over the tuning split's
seeds and the check in cornac's harness.  :func:`evaluation_tables`: docs/evaluation.md's two
tables, every method and control with its five-fold mean.

``tests/test_results_in_docs.py`` checks that the pages hold them as rendered from
``experiments/results/``; after a rerun, ``python -m experiments.movielens_pages`` prints both to
paste.
"""

from __future__ import annotations

import json
from pathlib import Path

from recsys.evaluation.grids import EXTRA_FITS

from .common import RESULTS, measured_code
from .confirm import compared, reading
from .movielens import PAPER, fold_mean, open_edges, pooled_list_interval, readme_table
from .seeds import runs_in

FOLDS = ["u1", "u2", "u3", "u4", "u5"]


def _interval(c: dict) -> str:
    lo, hi = c["diff_ci"]
    return f"{c['diff']:+.4f} [{lo:+.4f}, {hi:+.4f}]"


def _versus(pooled: dict, name: str, label: str) -> str:
    """``**above EASE** (+0.0078 [+0.0039, +0.0113])``: the product against ``name``, by the rule."""
    c = pooled[name]
    return f"**{compared(c, label)}** ({_interval(c)})"


def _mean(results: dict, folds: list, *path: str) -> float:
    """The five-fold mean of ``results[fold][path...]``."""

    def at(r: dict):
        for key in path:
            r = r[key]
        return r

    return fold_mean(results, folds, at)


def _lists_paragraph(results: dict, folds: list) -> str:
    pooled = pooled_list_interval(results, folds)
    beyond = pooled_list_interval(results, folds, reference="item_model_blend")
    control = lambda name: _mean(results, folds, "topn", "controls", name, "ndcg@10")  # noqa: E731
    blend = [
        f"{label} + blend scores {control(name):.4f} and the product is {_versus(pooled, name, 'it')}"
        for name, label in (("ease_blend", "EASE"), ("ials_blend", "iALS"))
    ]
    added = [
        f"{_interval(beyond[name])} against {label} + blend ({reading(beyond[name]['diff_ci'])})"
        for name, label in (("ease_blend", "EASE"), ("ials_blend", "iALS"))
    ]
    return (
        "On the five-fold mean, the product minus each with the 95 % interval of that mean (users resampled "
        f"within folds), the lists are {_versus(pooled, 'ease', 'EASE')} and {_versus(pooled, 'ials', 'iALS')}. "
        "Given the same blend of popularity and the person's like-probability, chosen for each on the tuning "
        f"tenth, {blend[0]}; {blend[1]}. What the co-cluster item model adds beyond the blend, its own score "
        f"with that blend ({control('item_model_blend'):.4f}) against theirs: {added[0]}, {added[1]}. What the "
        "co-clusters do is choose the pairs: the same item model on as many random pairs scores "
        f"{control('random_support'):.4f}, on every pair {control('full_support'):.4f}."
        + (
            " Read like for like, the co-clusters give the lists their named reasons, not accuracy beyond the anchors."
            if not any(reading(beyond[name]["diff_ci"]) == "above" for name in ("ease_blend", "ials_blend"))
            else ""
        )
    )


def _auc_paragraph(results: dict, folds: list) -> str:
    auc = lambda group, name: _mean(results, folds, group, name, "auc_full")  # noqa: E731
    tuned = ("svd", "attribute_logistic", "svdpp", "knn_baseline", "coclustering", "bias", "naive_bayes")
    names = {"svd": "SVD's", "attribute_logistic": "the attribute logistic regression's"}
    ranked = sorted(tuned, key=lambda m: -auc("methods", m))
    best = auc("methods", "profile")
    first, second = ranked[0], ranked[1]
    if best > auc("methods", first):
        said = (
            f"the profile model has the highest AUC of every tuned method on the mean ({best:.4f} against "
            f"{names.get(first, first + chr(39) + 's')} {auc('methods', first):.4f} and "
            f"{names.get(second, second + chr(39) + 's')} {auc('methods', second):.4f})"
        )
    else:
        said = f"the profile model's AUC ({best:.4f}) is below {first}'s ({auc('methods', first):.4f}) on the mean"
    plain = auc("ablations", "neighbours_from_ratings") - best
    u1 = results["u1"]["methods"]
    return (
        f"On like/dislike {said}; the same model with neighbourhoods from plain co-ratings is {plain:+.4f}: the "
        "price of votes that name their groups. The paper's rule reproduces the paper's accuracy on the "
        f"ratings it covers on u1 ({u1['profile_paper']['accuracy_covered']:.3f} against "
        f'{PAPER["profile_paper"]["accuracy_covered"]:.3f}), where always saying "like" scores '
        f"{u1['profile_paper']['majority_covered']:.3f}."
    )


def _edges_sentence(results: dict) -> str:
    edges = open_edges(results)
    if not edges:
        return "No chosen setting of any method sits on an open edge of its search, on any fold."
    return "Settings still on an open edge after the search: " + "; ".join(edges) + "."


def _seeds_sentence(seeds: list[dict], commit: str) -> str:
    from .seeds import spread

    commits = sorted({r.get("commit") or "?" for r in seeds})
    link = "[experiments/results/seeds.md](experiments/results/seeds.md), `python -m experiments.seeds`"
    code = measured_code(commit)
    if code is None or any(measured_code(c) != code for c in commits):
        return (
            f"The spread over three seeds of the tuning split ({link}) was measured at "
            f"{', '.join(c[:7] for c in commits)}, not with the code measured above: it is not repeated here until "
            "it is run again."
        )
    s = spread(seeds, FOLDS)
    keys = sorted(s["profile"]["by_seed"])
    lead = {m: ", ".join(f"{s['profile']['by_seed'][k] - s[m]['by_seed'][k]:+.4f}" for k in keys) for m in s}
    return (
        f"Over three seeds of the tuning split ({', '.join(map(str, keys))}, seed 0 the table's run; {link}) the "
        f"five-fold means move by at most {s['profile']['range']:.4f} (product), {s['ease']['range']:.4f} (EASE) "
        f"and {s['ials']['range']:.4f} (iALS); product − EASE is {lead['ease']}, product − iALS {lead['ials']}."
    )


def _cornac_sentence(cornac: dict, commit: str) -> str:
    link = (
        "[experiments/results/cornac.md](experiments/results/cornac.md), `python -m experiments.cornac_check "
        "--folds u1,u2,u3,u4,u5`"
    )
    runs = list(cornac["runs"].values())
    theirs = [r["cornac"]["difference"] for r in runs]
    ours = [r["ours"]["difference"] for r in runs]
    same = sum((c > 0) == (o > 0) for c, o in zip(theirs, ours, strict=True))
    close = sum(abs(c - o) <= 0.01 for c, o in zip(theirs, ours, strict=True))
    as_it_comes = [r["cornac"]["ndcg@10"]["ease"] for r in runs]
    return (
        f"**In cornac's own harness** (its `BaseMethod` on the fold files, `Experiment` and NDCG@10; {link}, at "
        f"{cornac['_provenance']['commit'][:7]} against the table at {commit[:7]}), the product runs as a cornac "
        "`Recommender` (`recsys.cornac_recommender.CoClusterRecommender`) at the settings our protocol chose, "
        f"beside EASE at its own: product − EASE has our sign on {same} of {len(ours)} folds and is within 0.01 "
        f"of ours on {close} of {len(ours)} (mean {sum(theirs) / len(theirs):+.4f} there, "
        f"{sum(ours) / len(ours):+.4f} here), once EASE gets the rule the product applies to itself — a user's "
        f"rated items last. cornac's EASE as it comes scores {min(as_it_comes):.2f}–{max(as_it_comes):.2f}: "
        "cornac ranks the training items a user rated below 4 among the candidates."
    )


def readme_section(payload: dict, seeds: list[dict], cornac: dict) -> str:
    """The README's MovieLens section from the experiment's results (``payload``: movielens.json),
    the seed runs and the cornac check."""
    results, folds = payload["results"], payload["folds"]
    commit = payload["_provenance"]["commit"]
    intro = (
        "MovieLens 100K, the five folds u1–u5, every method's settings chosen by the same procedure on a\n"
        "held-out tenth of its training ratings, scored once on the test\n"
        "([experiments/results/movielens.md](experiments/results/movielens.md),\n"
        f"`python -m experiments.movielens` at {commit[:7]}). 82 % of the test ratings are likes, so accuracy\n"
        "is read beside balanced accuracy and ROC-AUC; intervals resample users."
    )
    prose = [
        _lists_paragraph(results, folds),
        _auc_paragraph(results, folds) + " " + _edges_sentence(results),
        _seeds_sentence(seeds, commit),
        _cornac_sentence(cornac, commit),
    ]
    table = "\n".join(readme_table(results, folds))
    more = (
        "Every figure, per fold and with its interval: [docs/evaluation.md](docs/evaluation.md). The "
        "confirmation on data the design never saw is below."
    )
    return "\n\n".join([intro, table, *prose, more]) + "\n"


def section_from(results: Path = RESULTS) -> str:
    """:func:`readme_section` of the results files in ``results``."""
    payload = json.loads((results / "movielens.json").read_text())
    seeds = runs_in(results / "seeds", results / "movielens.json")
    cornac = json.loads((results / "cornac.json").read_text())
    return readme_section(payload, seeds, cornac)


_LIST_ROWS = {
    ("methods", "ials"): "iALS (implicit)",
    ("methods", "ease"): "EASE (cornac), λ and input tuned",
    ("methods", "rp3beta"): "RP3beta",
    ("methods", "itemknn"): "ItemKNN (shrinkage, TF-IDF / BM25 weighting)",
    ("methods", "bpr"): "BPR (implicit)",
    ("methods", "popularity"): "most popular",
    ("controls", "ials_blend"): "iALS (implicit) + the product's blend",
    ("controls", "ease_blend"): "EASE (cornac) + the product's blend",
}
_LIST_CONTROLS = {
    "item_model_blend": "*control:* the item model + the same blend, chosen as for EASE and iALS",
    "full_support": "*control:* the item model on every pair (EASE's regression), blended",
    "item_model_lists": "*control:* the item model alone, no blend",
    "random_support": "*control:* the item model on as many random pairs per movie",
}
_AUC_ABLATIONS = {
    "no_attributes": "— without the attribute terms",
    "no_item_model": "— without the item-model terms",
    "no_coclusters": "— without any co-cluster term",
}
_AUC_METHODS = {
    "svd": "Surprise SVD",
    "attribute_logistic": "attribute logistic regression (user, movie, attribute, user × attribute)",
    "svdpp": "Surprise SVD++",
    "knn_baseline": "Surprise KNNBaseline (item)",
    "coclustering": "Surprise CoClustering",
    "bias": "Surprise BaselineOnly (the rating baseline)",
    "naive_bayes": "Naive Bayes over the attributes",
    "profile_paper": "the paper's rule",
}


def _signed(v: float) -> str:
    return f"{v:+.4f}".replace("-", "−")


def _minus(c: dict) -> str:
    lo, hi = c["diff_ci"]
    return f"{_signed(c['diff'])} [{_signed(lo)}, {_signed(hi)}]"


def _row(cells: list[str]) -> str:
    """A Markdown table row; an empty cell is ``| |``."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def evaluation_tables(payload: dict) -> tuple[str, str]:
    """docs/evaluation.md's lists table (NDCG@10, the product minus each with the pooled interval,
    new users' lists where a method folds them in) and its like/dislike table (AUC, balanced
    accuracy), five-fold means."""
    import numpy as np

    results, folds = payload["results"], payload["folds"]
    pooled = pooled_list_interval(results, folds)
    ndcg = lambda group, name: _mean(results, folds, "topn", group, name, "ndcg@10")  # noqa: E731

    def new_users(name: str) -> str:
        per_fold = [results[f]["strong"]["methods"].get(name, {}) for f in folds]
        if not all(x.get("supported") for x in per_fold):
            return "needs a refit" if per_fold[0] else ""
        return f"{np.mean([x['ndcg@10'] for x in per_fold]):.4f}"

    strong = [results[f]["strong"]["methods"]["profile"] for f in folds]
    in_model = np.mean([x["ndcg@10"] for x in strong]) / np.mean([x["in_model_ndcg@10"] for x in strong])
    lists = [
        "| five-fold mean | top-10 NDCG | product − method | new users (no refit) |",
        "|---|---|---|---|",
        f"| the product: the co-cluster item model, blended | **{ndcg('methods', 'profile'):.4f}** | | "
        f"**{new_users('profile')}** ({in_model:.3f} × the same users in the model) |",
    ]
    ranked = sorted(_LIST_ROWS, key=lambda k: -ndcg(*k))
    for group, name in ranked:
        fold_in = new_users(name) if group == "methods" else ""
        cells = [_LIST_ROWS[group, name], f"{ndcg(group, name):.4f}", _minus(pooled[name]), fold_in]
        lists.append(_row(cells))
    for name, label in _LIST_CONTROLS.items():
        shown = _minus(pooled[name]) if name == "item_model_blend" else ""
        lists.append(_row([label, f"{ndcg('controls', name):.4f}", shown, ""]))

    auc = lambda group, name: _mean(results, folds, group, name, "auc_full")  # noqa: E731
    balanced = lambda group, name: _mean(results, folds, group, name, "balanced_accuracy_full")  # noqa: E731
    spread = float(np.std([results[f]["methods"]["profile"]["auc_full"] for f in folds]))
    aucs = [
        "| five-fold mean | AUC | balanced accuracy |",
        "|---|---|---|",
        f"| the product: the profile model | {auc('methods', 'profile'):.4f} ± {spread:.4f} | "
        f"{balanced('methods', 'profile'):.4f} |",
    ]
    for name, label in _AUC_ABLATIONS.items():
        drops = [
            results[f]["ablations"][name]["auc_full"] < results[f]["methods"]["profile"]["auc_full"] for f in folds
        ]
        where = "every fold" if all(drops) else f"lower on {sum(drops)} of {len(folds)} folds"
        diff = auc("ablations", name) - auc("methods", "profile")
        aucs.append(
            f"| {label} | {auc('ablations', name):.4f} ({_signed(diff)}, {where}) | {balanced('ablations', name):.4f} |"
        )
    aucs.append(
        "| *control:* neighbourhoods from plain co-ratings instead | "
        f"{auc('ablations', 'neighbours_from_ratings'):.4f} | {balanced('ablations', 'neighbours_from_ratings'):.4f} |"
    )
    for name in sorted(_AUC_METHODS, key=lambda m: -auc("methods", m)):
        aucs.append(f"| {_AUC_METHODS[name]} | {auc('methods', name):.4f} | {balanced('methods', name):.4f} |")
    return "\n".join(lists) + "\n", "\n".join(aucs) + "\n"


_NAMES = {
    "svd": "SVD",
    "attribute_logistic": "the attribute logistic regression",
    "knn_baseline": "KNNBaseline",
    "itemknn": "ItemKNN",
    "rp3beta": "RP3beta",
    "ials": "iALS",
    "bpr": "BPR",
    "svdpp": "SVD++",
    "ease": "EASE",
    "popularity": "popularity",
}
# what was tried on u1's tuning ratings to close the gap to the plain co-rating neighbourhoods (the
# item-model and neighbourhood issues' experiments, not this results file)
_TRIED = (
    "No co-cluster construction of the neighbourhoods we measured closes that gap: finer co-clusters (band "
    "size 3, crossed with the whole tuning grid, five folds: +0.0001 AUC, the control moving with it), votes "
    "from the control's cosine restricted to co-cluster co-members, soft co-cluster memberships, closed user "
    "sets, co-cluster-local votes and richer dislike co-clusters all stayed under the control on u1's tuning "
    "ratings (the nearest, the control's own cosine kept to pairs that share a co-cluster, by 0.0006). The "
    "cosine of the users' like-only vectors, with no co-clusters at all, already falls short of the signed one "
    "by 0.001 there: part of what the control knows is who disliked the same movies, which the like "
    "co-clusters cannot see and the thin dislike relation (18 % of the ratings) does not give."
)


def _per_fold(results: dict, folds: list, name: str) -> tuple[list, list]:
    """The profile model minus ``name`` in AUC per fold, and each fold's 95 % interval over users."""
    cs = [results[f]["ci"]["versus"][name] for f in folds]
    return [c["auc_diff"] for c in cs], [c["auc_diff_ci"] for c in cs]


def _range(values: list) -> str:
    return f"{_signed(min(values))} to {_signed(max(values))}"


def _choices(results: dict, folds: list, method: str, setting: str) -> str:
    """``weighted on 3 folds, relevant on 1, likes on 1``: what ``method`` chose for ``setting``."""
    chosen = [str(results[f]["topn"]["methods"][method]["params"].get(setting)) for f in folds]
    counts = sorted({c: chosen.count(c) for c in chosen}.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{c} on {n} fold{'s' if n > 1 else ''}" for c, n in counts)


def _docs_lists_paragraph(results: dict, folds: list) -> str:
    strong = {m: [results[f]["strong"]["methods"][m] for f in folds] for m in ("profile", "ease", "ials")}
    higher = {
        m: sum(p["ndcg@10"] > x["ndcg@10"] for p, x in zip(strong["profile"], strong[m], strict=True))
        for m in ("ease", "ials")
    }
    ratio = sum(x["ndcg@10"] for x in strong["profile"]) / sum(x["in_model_ndcg@10"] for x in strong["profile"])
    return (
        "The anchors' inputs are part of their search (all ratings, likes, relevant ≥ 4 or rating-weighted; the "
        f"choice per fold is in the results' settings table): EASE chose {_choices(results, folds, 'ease', 'input')}; "
        f"iALS {_choices(results, folds, 'ials', 'input')}. A new user's list, folded in from 80 % of their "
        f"ratings without a refit, scores {ratio:.3f} × what the same users score in the model, and is higher than "
        f"EASE's new users on {higher['ease']} of {len(folds)} folds and iALS's on {higher['ials']} of "
        f"{len(folds)} (no interval computed for these)."
    )


def _docs_auc_paragraph(results: dict, folds: list, variants: dict | None) -> str:
    auc = lambda group, name: _mean(results, folds, group, name, "auc_full")  # noqa: E731
    best = auc("methods", "profile")
    over = []
    for m in ("svd", "attribute_logistic", "knn_baseline"):
        diffs, cis = _per_fold(results, folds, m)
        above = sum(lo > 0 for lo, _ in cis)
        over.append(
            f"{_signed(best - auc('methods', m))} over {_NAMES[m]} ({_range(diffs)} per fold, {above} of "
            f"{len(folds)} fold intervals above 0)"
        )
    terms = []
    for name, what in (("no_item_model", "the item model's terms"), ("no_attributes", "the attribute terms")):
        diffs, cis = _per_fold(results, folds, name)
        terms.append(
            f"{what} {_signed(best - auc('ablations', name))} ({_range(diffs)} per fold, "
            f"{sum(lo > 0 for lo, _ in cis)} of {len(folds)} intervals above 0)"
        )
    plain = auc("ablations", "neighbours_from_ratings")
    _, cis = _per_fold(results, folds, "neighbours_from_ratings")
    none = auc("ablations", "no_coclusters")
    recovered = (best - none) / (plain - none) if plain > none else float("nan")
    dislike = best - auc("ablations", "no_dislike_coclusters")
    side = "higher" if plain > best else "lower"
    text = (
        f"The profile model's AUC on the mean: {'; '.join(over)}. What its parts add: {'; '.join(terms)}. The "
        f"same model with neighbourhoods from plain co-ratings is **{abs(plain - best):.4f} {side}** "
        f"({sum(hi < 0 for _, hi in cis)} of {len(folds)} fold intervals below 0): that is what the co-cluster "
        "neighbourhoods cost for making every vote a named group (they recover "
        f"{recovered * 100:.0f} % of what plain neighbourhoods add over none). The dislike co-clusters add "
        f"{_signed(dislike)}. {_TRIED}"
    )
    if variants:
        done = [v for v in variants.values() if "accuracy_covered" in v]
        acc = [v["accuracy_covered"] for v in done]
        maj = [v["majority_covered"] for v in done]
        u1 = results["u1"]["methods"]["profile_paper"]["auc_full"] if "u1" in results else None
        text += (
            f" The paper's own rule reproduces its accuracy on the ratings it covers ({min(acc):.4f}–{max(acc):.4f} "
            f"against the paper's {PAPER['profile_paper']['accuracy_covered']:.4f}, on u1) but always saying "
            f'"like" scores {min(maj):.4f}–{max(maj):.4f} there, and its AUC is '
            f"{auc('methods', 'profile_paper'):.2f} on the mean"
            + (f" ({u1:.2f} on u1)" if u1 is not None else "")
            + ": it barely separates likes from dislikes."
        )
    return text


_SEARCHED = ("itemknn", "rp3beta", "ials", "bpr", "svd", "svdpp", "ease")


def search_paragraph(results: dict, folds: list) -> str:
    """docs/evaluation.md's paragraph on the search: its rule, how far it went in the run (points fitted
    per method and fold, largest over folds) and what still sits on an open edge."""
    points = {}
    for m in _SEARCHED:
        group = "topn" if m in results[folds[0]]["topn"]["methods"] else "methods"
        rows = [results[f]["topn"]["methods"][m] if group == "topn" else results[f]["methods"][m] for f in folds]
        points[m] = max(len(r["grid"]) for r in rows)
    fitted = ", ".join(f"{points[m]} for {_NAMES[m]}" for m in _SEARCHED)
    edges = open_edges(results)
    end = (
        "every choice ended interior or at a declared bound"
        if not edges
        else "every choice ended interior or at a declared bound except: " + "; ".join(edges)
    )
    knn = [results[f]["topn"]["methods"]["itemknn"]["params"] for f in folds]
    shrinks = sorted({k["shrink"] for k in knn})
    weights = sorted({k["weighting"] for k in knn})
    return (
        "**A search that cannot stop on an edge.** The full grids start from the ranges the literature searches "
        "(Ferrari Dacrema et al. 2019/2021: ItemKNN's neighbours, shrinkage and TF-IDF / BM25 feature weighting, "
        "RP3beta's α, β and neighbours, BPR's rates; Rendle et al. 2022: iALS's factors to 256, regularisation, "
        "α, iterations), and every numeric setting is declared with its search rule "
        "(`recsys.evaluation.grids.AXES`, `recsys.evaluation.search`): when a method's choice sits on an open end "
        "of the values tried along that setting, the next value past it is fitted (×2 or ÷2, ±0.25 for RP3beta's "
        f"exponents), up to {EXTRA_FITS['full']} more fits per method and fold (16 when the five-fold run above was "
        "made: a larger cap changes no search that ended off every open edge), until the choice is interior or a "
        "declared bound is "
        "reached (a count of 1, a regularisation or shrinkage of 0, RP3beta's exponents at 0 or 2, neighbours at "
        "the catalogue's size, 1,024 factors). Each result records per setting the values tried, the one chosen "
        "and whether it still sits on an open edge; the experiment's table of chosen settings says so per fold. "
        f"In the five-fold run above the rule fitted up to {fitted} points per fold, and {end}. The ItemKNN of "
        f"the table shrinks by {' or '.join(f'{v:g}' for v in shrinks)} and weights by "
        f"{' or '.join(w.upper() if w != 'none' else 'nothing' for w in weights)}. Lists across the five folds "
        "are compared by the interval of the **five-fold mean** difference (users resampled within each fold, "
        "the per-user NDCG@10 kept in the results), not by counting per-fold intervals. Every list table also "
        "gives recall at 20 (the lists asked 20 long; their first 10 are the top-10 lists).\n"
    )


def evaluation_section(payload: dict, seeds: list[dict]) -> str:
    """docs/evaluation.md from its first figure to the end of what the like/dislike table says."""
    results, folds = payload["results"], payload["folds"]
    prov = payload["_provenance"]
    lists, aucs = evaluation_tables(payload)
    intro = (
        "MovieLens 100K, the five folds u1–u5, every method tuned by the protocol below; per-fold figures, "
        "intervals and the settings chosen in "
        "[`experiments/results/movielens.md`](../experiments/results/movielens.md) "
        f"(`python -m experiments.movielens` at {prov['commit'][:7]}, run as parallel processes over the folds "
        f"and merged with `--merge`: {prov['wall_seconds']:,.0f} s on this 2-core machine). Lists first — top-10 "
        "NDCG, a test rating ≥ 4 is relevant; the interval is the 95 % paired interval of the **five-fold mean** "
        "difference, users resampled within folds:"
    )
    return (
        "\n\n".join(
            [
                intro,
                lists.rstrip("\n"),
                # the docs' tables sign with "−"; the README's paragraph, beside its table, with "-"
                (_lists_paragraph(results, folds) + " " + _docs_lists_paragraph(results, folds)).replace("-0.", "−0."),
                _seeds_sentence(seeds, prov["commit"])
                .replace("](experiments/", "](../experiments/")
                .replace("-0.", "−0."),
                "Like or dislike — AUC of telling a test rating above 2 from one at or below it:",
                aucs.rstrip("\n"),
                _docs_auc_paragraph(results, folds, payload.get("paper_variants")),
            ]
        )
        + "\n"
    )


def evaluation_from(results: Path = RESULTS) -> tuple[str, str]:
    """:func:`evaluation_section` and :func:`search_paragraph` of the results files in ``results``."""
    payload = json.loads((results / "movielens.json").read_text())
    seeds = runs_in(results / "seeds", results / "movielens.json")
    return evaluation_section(payload, seeds), search_paragraph(payload["results"], payload["folds"])


if __name__ == "__main__":
    print(section_from(), end="")
    print("\n---- docs/evaluation.md ----\n")
    print(*evaluation_from(), sep="\n")
