"""An evaluation's figures as tables a person reads: plain text for the terminal (``recsys
evaluate``), Markdown for the results files (``experiments.movielens``)."""

from __future__ import annotations

import numpy as np

TEXT_COLUMNS = ("auc_full", "balanced_accuracy_full", "accuracy_full", "dislike_recall_full", "coverage", "threshold")
TOPN_COLUMNS = ("precision@10", "recall@10", "ndcg@10", "hit_rate@10", "catalogue_coverage")
SHORT = {
    "auc_full": "AUC",
    "balanced_accuracy_full": "bal. acc.",
    "accuracy_full": "accuracy",
    "majority_accuracy_full": "always-like acc.",
    "dislike_recall_full": "dislike recall",
    "dislike_precision_full": "dislike precision",
    "coverage": "coverage",
    "threshold": "cut-off",
    "fit_seconds": "fit s",
    "predict_seconds": "predict s",
}


def cell(v, digits: int = 4) -> str:
    """A figure as text; ``—`` for a missing or non-finite one."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "—"
    return f"{v:.{digits}f}"


def markdown_table(rows: dict, columns) -> list[str]:
    """One Markdown row per method (``rows``: name → figures); seconds with one decimal."""
    out = ["| method | " + " | ".join(SHORT.get(c, c) for c in columns) + " |", "|---|" + "---|" * len(columns)]
    for name, r in rows.items():
        cells = (cell(r.get(c), 1 if c.endswith("seconds") else 4) for c in columns)
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def text_lines(res: dict) -> list[str]:
    """The whole of an evaluation (:func:`recsys.evaluation.evaluate` plus its source) as text; of
    interactions (implicit feedback), the lists alone."""
    source, grids = (
        f"{res.get('dataset', res.get('ratings_file'))} {res['split']}",
        res["protocol"].get("grid", "small"),
    )
    if res["protocol"].get("implicit"):
        lines = [
            f"{source}: {res['n_test']:,} held-out interactions (implicit feedback: lists only, every held-out "
            f"interaction relevant). Settings: each method's best on a held-out 10% of training ({grids} grids)."
        ]
        return lines + _topn_lines(res.get("topn", {}), res.get("strong")) + ["", source_line(res)]
    lines = [
        f"{source}: {res['n_test']:,} test ratings, {res['like_share_test']:.1%} likes (the always-like accuracy). "
        f"Settings: each method's best on a held-out 10% of training ({grids} grids); cut-offs: best balanced "
        "accuracy there."
    ]
    head = f"{'method':<22}" + "".join(f"{c.replace('_full', '').replace('_', ' '):>19}" for c in TEXT_COLUMNS)
    for title, group in (("methods", res["methods"]), ("ablations of profile", res["ablations"])):
        lines += ["", f"{title}:", head]
        for name, r in group.items():
            cells = (f"{'—':>19}" if r[c] is None else f"{r[c]:>19.4f}" for c in TEXT_COLUMNS)
            lines.append(f"{name:<22}" + "".join(cells) + _params(r))
    if "ci" in res:
        lines += ["", "profile minus each method, 95% paired bootstrap over users:"]
        for name, c in res["ci"]["versus"].items():
            a, b = c["auc_diff_ci"], c["balanced_accuracy_diff_ci"]
            lines.append(
                f"  {name:<20} AUC {c['auc_diff']:+.4f} [{a[0]:+.4f}, {a[1]:+.4f}]   "
                f"balanced accuracy {c['balanced_accuracy_diff']:+.4f} [{b[0]:+.4f}, {b[1]:+.4f}]"
            )
    if "topn" in res:
        lines += _topn_lines(res["topn"], res.get("strong"))
    lines += ["", source_line(res)]
    return lines


def _params(r: dict) -> str:
    """A method's chosen setting, when it is a few plain values, and the settings whose choice sits
    on an open edge of the values tried (better ones may lie beyond: ``--grid full`` extends them)."""
    p = r.get("params")
    plain = isinstance(p, dict) and all(isinstance(v, (int, float, str)) for v in p.values())
    axes = r.get("tuning", {}).get("axes", {})
    edges = ", ".join(f"{a} {v['open_edge']}" for a, v in axes.items() if v.get("open_edge"))
    return (f"   {p}" if plain and p else "") + (f"   (on an open edge: {edges})" if edges else "")


def _topn_lines(t: dict, strong: dict | None) -> list[str]:
    if not t:
        return []
    lines = ["", f"top-{t['k']} ({t['relevant']} is relevant; {t['candidates']}):"]
    ci = t.get("ci", {}).get("versus", {})
    for name, r in t["methods"].items():
        c = ci.get(name)
        diff = f"  profile − it {c['diff']:+.4f} [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}]" if c else ""
        recall20 = f"  recall@20 {r['recall@20']:.4f}" if "recall@20" in r else ""
        lines.append(
            f"  {name:<11} ndcg {r['ndcg@10']:.4f}  precision {r['precision@10']:.4f}  recall {r['recall@10']:.4f}"
            f"{recall20}  hit rate {r['hit_rate@10']:.4f}  coverage {r['catalogue_coverage']:.4f}{diff}{_params(r)}"
        )
    for name, r in t.get("controls", {}).items():
        c = ci.get(name)
        diff = f"  profile − it {c['diff']:+.4f} [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}]" if c else ""
        control = r["control"]
        what = f"{control['blend']} with the lists' blend" if "blend" in control else f"profile with {control}"
        lines.append(f"  {name:<11} ndcg {r['ndcg@10']:.4f}  (control: {what}){diff}")
    if strong:
        given = f"{strong['history_share']:.0%} of their ratings given, no refit; in brackets: in the model"
        lines += ["", f"lists for {strong['users_with_relevant']} users held out of training ({given}):"]
        for name, r in strong["methods"].items():
            got = f"ndcg {r['ndcg@10']:.4f} ({r['in_model_ndcg@10']:.4f})" if r["supported"] else r["reason"]
            lines.append(f"  {name:<11} {got}")
    return lines


def brief_lines(res: dict, ours: str = "profile") -> list[str]:
    """An evaluation in a screenful (``recsys demo``): AUC and balanced accuracy of every
    like/dislike method and NDCG@10 of every list method, best first, each table followed by a
    sentence on who leads and by how much (the paired interval over users decides the word:
    ahead only when the interval is above 0)."""
    lines = [
        f"{res['n_test']:,} test ratings, {res['like_share_test']:.1%} of them likes; every method tuned on a "
        "held-out tenth of the training ratings.",
        "",
        f"like or dislike      {'AUC':>7} {'bal. acc.':>10}",
    ]
    methods = res["methods"]
    by_auc = sorted(methods, key=lambda m: -(methods[m]["auc_full"] or 0))
    lines += [
        f"  {m:<18} {cell(methods[m]['auc_full']):>7} {cell(methods[m]['balanced_accuracy_full']):>10}" for m in by_auc
    ]
    versus = res.get("ci", {}).get("versus", {})
    lines.append(_lead_sentence("AUC", by_auc, ours, {m: (c["auc_diff"], c["auc_diff_ci"]) for m, c in versus.items()}))
    if "topn" in res:
        t = res["topn"]
        lists = t["methods"]
        by_ndcg = sorted(lists, key=lambda m: -lists[m]["ndcg@10"])
        lines += ["", f"top-{t['k']} lists        NDCG@{t['k']}  ({t['relevant']} is relevant)"]
        lines += [f"  {m:<18} {cell(lists[m]['ndcg@10']):>7}" for m in by_ndcg]
        diffs = {m: (c["diff"], c["diff_ci"]) for m, c in t.get("ci", {}).get("versus", {}).items()}
        lines.append(_lead_sentence(f"NDCG@{t['k']}", by_ndcg, ours, diffs))
    strong = res.get("strong")
    if strong:
        got = {m: r["ndcg@10"] for m, r in strong["methods"].items() if r["supported"]}
        best = sorted(got, key=lambda m: -got[m])
        lines.append(
            f"For {strong['users_with_relevant']} people held out of training (no refit): "
            + ", ".join(f"{m} {got[m]:.4f}" for m in best[:3])
            + "."
        )
    return lines


def _lead_sentence(metric: str, ranked: list[str], ours: str, diffs: dict) -> str:
    """Who leads on ``metric``; ``diffs[m]`` is (ours − m, its 95 % interval)."""
    if ours not in ranked or len(ranked) < 2:
        return ""
    if ranked[0] != ours:
        lead = ranked[0]
        d, (lo, hi) = diffs.get(lead, (float("nan"), (float("nan"), float("nan"))))
        word = "ahead of" if hi < 0 else "level with"
        return f"On {metric} {lead} leads {ours} by {-d:.4f} [95 % {-hi:.4f}, {-lo:.4f}]: {lead} is {word} {ours} here."
    runner = ranked[1]
    d, (lo, hi) = diffs.get(runner, (float("nan"), (float("nan"), float("nan"))))
    word = "ahead of" if lo > 0 else "level with"
    return f"On {metric} {ours} leads {runner} by {d:.4f} [95 % {lo:.4f}, {hi:.4f}]: {ours} is {word} {runner} here."


def source_line(res: dict, seconds: float | None = None) -> str:
    """The seconds (``res["seconds"]`` unless given) and the code a result came from: the commit,
    else the package's version."""
    from .. import __version__

    where = f"commit {res['commit'][:12]}" if res.get("commit") else f"recsys {__version__} (no git checkout)"
    return f"{res['seconds'] if seconds is None else seconds:.0f} s; {where}"
