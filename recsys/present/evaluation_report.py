"""An evaluation as a self-contained HTML page (``recsys evaluate --report FILE``): the ROC curves
of the like/dislike methods, the NDCG@10 of every list method with the user-level interval of its
difference to the profile model, lists for new users, the ablations, and the setting each method
was given by the selection procedure, with its grid.  Inline SVG and CSS; requests nothing."""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import __version__
from ..files import atomic_open
from .html import environment, markup

PALETTE = (
    "#1b6ca8",
    "#d1495b",
    "#2f7d4f",
    "#edae49",
    "#66a182",
    "#8d6a9f",
    "#00798c",
    "#c2703d",
    "#5c5c5c",
    "#e377c2",
    "#17becf",
)
ROC_SIZE, ROC_PAD = 360, 36


def roc_svg(env, roc: dict, order: list) -> tuple:
    """The ROC curves as one SVG, and the legend (method, colour, AUC)."""
    curves = []
    for k, name in enumerate(m for m in order if m in roc):
        pts = " ".join(
            f"{ROC_PAD + f * ROC_SIZE:.1f},{ROC_PAD + (1 - t) * ROC_SIZE:.1f}"
            for f, t in zip(roc[name]["fpr"], roc[name]["tpr"], strict=True)
        )
        curves.append({"name": name, "points": pts, "colour": PALETTE[k % len(PALETTE)]})
    svg = env.get_template("roc.svg.j2").render(size=ROC_SIZE, pad=ROC_PAD, curves=curves)
    return markup(svg), curves


def _difference(c: dict | None, key: str) -> tuple | None:
    """The paired difference against the product and its interval, when the results have one."""
    return c and (c[key], *c[f"{key}_ci"])


def _like_rows(res: dict) -> list[dict]:
    """The like/dislike table's rows: each method's results as computed (the template names them)."""
    ci = res.get("ci", {}).get("versus", {})
    return [{**r, "name": name, "diff": _difference(ci.get(name), "auc_diff")} for name, r in res["methods"].items()]


def _list_rows(topn: dict) -> list[dict]:
    """The lists table's rows, with each NDCG@10 bar's width relative to the best."""
    ci = topn.get("ci", {}).get("versus", {})
    peak = max((r["ndcg@10"] for r in topn["methods"].values()), default=1.0) or 1.0
    return [
        {**r, "name": name, "width": 100 * r["ndcg@10"] / peak, "diff": _difference(ci.get(name), "diff")}
        for name, r in topn["methods"].items()
    ]


def _settings(res: dict) -> list[dict]:
    """Each method's chosen setting and its grid, for both tasks."""
    out = []
    lists = res.get("topn", {}).get("methods", {})
    for task, group in (("like/dislike (AUC)", res["methods"]), ("lists (NDCG@10)", lists)):
        for name, r in group.items():
            grid = r.get("grid")
            out.append(
                {
                    "task": task,
                    "name": name,
                    "params": json.dumps(r.get("params", {}), default=str),
                    "grid": len(grid) if isinstance(grid, list) else grid,
                    "tuning": ", ".join(f"{v:.4f}" for v in r.get("tuning", {}).get("values", [])),
                }
            )
    return out


def render_evaluation(res: dict) -> str:
    """The HTML page of an evaluation result (:func:`recsys.evaluation.evaluate` plus its source)."""
    env = environment()
    svg, curves = roc_svg(env, res.get("roc", {}), list(res["methods"]))
    auc = {name: r["auc_full"] for name, r in res["methods"].items()}
    for c in curves:
        c["auc"] = auc.get(c["name"])
    strong = res.get("strong")
    return env.get_template("evaluation.html.j2").render(
        version=__version__,
        source=res.get("dataset") or res.get("ratings_file") or "",
        split=res.get("split", ""),
        n_test=res["n_test"],
        like_share=res["like_share_test"],
        protocol=res["protocol"],
        like_rows=_like_rows(res),
        ablations=[
            {"name": n, "auc": r["auc_full"], "ba": r["balanced_accuracy_full"]} for n, r in res["ablations"].items()
        ],
        roc=svg,
        curves=curves,
        topn=res.get("topn"),
        list_rows=_list_rows(res["topn"]) if "topn" in res else [],
        strong=strong,
        settings=_settings(res),
        commit=res.get("commit") or "unknown",
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )


def write_evaluation(res: dict, path: str | Path) -> Path:
    """Write the page of ``res`` to ``path`` (atomically)."""
    with atomic_open(path) as f:
        f.write(render_evaluation(res))
    return Path(path)
