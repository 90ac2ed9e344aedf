"""Self-contained HTML profile reports (``recsys report``): one page per user, and an index.

A page shows the user's like and dislike profiles (attributes by kind, with their co-cluster
support), the user's strongest co-clusters as small member × movie grids, the top
recommendations with their reasons, and the evidence behind one movie as a bar chart.  Titles,
never bare ids.  Everything is inline (CSS, SVG): the file opens from disk and requests nothing.
Templates (Jinja2, autoescaped) live in ``recsys/present/templates``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import ParameterError
from ..files import atomic_open
from ..files import plain as _plain
from ..model.explanation import describe_cocluster, explain_profile
from ..model.people import known_index
from ..model.settings import DISLIKE, LIKE
from .digest import digest
from .html import environment, markup

GRID_USERS, GRID_MOVIES, CELL = 10, 12, 16
PROFILE_VALUES = 8


def _short(name: str, n: int = 22) -> str:
    name = re.sub(r"\s*\[[^\]]*\]$", "", name)  # the id in brackets
    return name if len(name) <= n else name[: n - 1] + "…"


def cocluster_grid(env, fp, side: str, c: int, u: int) -> dict:
    """A co-cluster as a small SVG grid: some members (the user first) × its movies."""
    cc = fp.coclusters(side)
    members = cc.users.row(c)
    others = members[members != u]
    rows = ([u] if u in members else []) + others[: GRID_USERS - 1].tolist()
    movies = cc.items.row(c)
    counts = fp.item_counts[0 if side == LIKE else 1]
    movies = movies[np.lexsort((movies, -counts[movies]))][:GRID_MOVIES]
    if len(movies) == 0:  # attribute-only co-clusters: no movie columns to draw
        return {**describe_cocluster(fp, side, c), "svg": markup("")}
    left, top = 64, 118
    frame = {"left": left, "top": top, "cell": CELL}
    frame |= {"width": left + CELL * len(movies) + 96, "height": top + CELL * len(rows) + 4}  # room for the titles
    found_r, value = fp.ratings.lookup(np.repeat(rows, len(movies)), np.tile(movies, len(rows)))
    columns = [
        {"x": left + j * CELL + CELL // 2, "name": fp.item_name(m), "short": _short(fp.item_name(m))}
        for j, m in enumerate(movies)
    ]
    grid_rows = []
    for a, user in enumerate(rows):
        cells = []
        for j, m in enumerate(movies):
            k = a * len(movies) + j
            if not found_r[k]:
                fill, stroke, what = "#ffffff", "#c8ced6", "not rated"
            elif fp.implicit:
                fill, stroke, what = "#2f7d4f", "#2f7d4f", "chosen"
            elif value[k] > fp.like_threshold:
                fill, stroke, what = "#2f7d4f", "#2f7d4f", f"liked ({value[k]:g})"
            else:
                fill, stroke, what = "#f3d2d0", "#b0413e", f"disliked ({value[k]:g})"
            cells.append({"x": left + j * CELL, "fill": fill, "stroke": stroke, "what": what, "name": fp.item_name(m)})
        grid_rows.append({"y": top + a * CELL, "label": str(fp.users[user]), "me": user == u, "cells": cells})
    about = describe_cocluster(fp, side, c)
    svg = env.get_template("grid.svg.j2").render(**frame, columns=columns, rows=grid_rows, id=about["id"])
    return {**about, "svg": markup(svg)}


def evidence_chart(env, ex) -> dict | None:
    """The explanation of one prediction as a horizontal bar chart (log-odds contributions)."""
    if not ex.lines:
        return None
    lines = ex.lines
    values = np.array([ln.contribution for ln in lines])
    span = max(float(np.abs(values).max()), 1e-9)
    label_w, plot_w, row = 330, 420, 20
    zero = label_w + 10 + plot_w // 2
    bars = []
    for k, (ln, v) in enumerate(zip(lines, values, strict=True)):
        w = abs(v) / span * (plot_w // 2 - 40)
        x = zero if v >= 0 else zero - w
        bars.append(
            {
                "y": k * row,
                "label": _short(ln.text, 52),
                "value": float(v),
                "x": x,
                "w": max(w, 1),
                "fill": "#2f7d4f" if v >= 0 else "#b0413e",
                "tx": zero + w + 4 if v >= 0 else zero - w - 4,
                "anchor": "start" if v >= 0 else "end",
            }
        )
    svg = env.get_template("bars.svg.j2").render(
        width=label_w + plot_w + 40, height=row * len(bars) + 6, zero=zero, label_x=label_w, bars=bars
    )
    vote_lines = [ln for ln in lines if ln.parts]
    parts = max(vote_lines, key=lambda ln: abs(ln.contribution)).parts if vote_lines else []
    return {
        "item_name": ex.item_name,
        "logit": ex.logit,
        "score": ex.score,
        "prediction": ex.prediction,
        "threshold": ex.threshold,
        "threshold_rule": ex.threshold_rule,
        "svg": markup(svg),
        "parts": parts,
    }


def _profile_side(prof: dict, side: str) -> dict:
    kinds = []
    for kind, values in prof[side].items():
        top = values[:PROFILE_VALUES]
        peak = max((v["coclusters"] for v in top), default=1)
        kinds.append(
            {
                "name": kind,
                "total": len(values),
                "values": [{**v, "width": 100 * v["coclusters"] / peak} for v in top],
            }
        )
    kinds.sort(key=lambda k: -k["total"])
    movies = prof[f"{side}_movies"][:PROFILE_VALUES]
    peak = max((m["coclusters"] for m in movies), default=1)
    return {
        "name": side,
        "title": ("Chosen" if prof.get("feedback") == "implicit" else "Likes") if side == LIKE else "Dislikes",
        "kinds": kinds,
        "movies": [{**m, "width": 100 * m["coclusters"] / peak} for m in movies],
        "n_movies": len(prof[f"{side}_movies"]),
    }


def render_user(model, user, item=None, n: int = 10, model_path: str = "", index_href: str | None = None) -> str:
    """The HTML page of ``user``; ``item`` is the movie whose evidence is charted (default: the top recommendation)."""
    u = known_index(model, "user", user)
    fp = model.profiles_
    env = environment()
    prof = explain_profile(fp, u, top_coclusters=4)
    recs = model.recommend(fp.users[u], n)
    ex = _charted(model, u, recs, item)
    likes, dislikes = fp.user_counts
    return env.get_template("report.html.j2").render(
        version=__version__,
        user=_plain(fp.users[u]),
        n_ratings=int(likes[u] + dislikes[u]),
        n_likes=int(likes[u]),
        like_threshold=f"{fp.like_threshold:g}",
        implicit=fp.implicit,
        like_coclusters=prof["like_coclusters"],
        dislike_coclusters=prof.get("dislike_coclusters", 0),
        sides=[_profile_side(prof, side) for side in ((LIKE,) if fp.implicit else (LIKE, DISLIKE))],
        grids=_grids(env, fp, u),
        digest=digest(recs, feedback=fp.feedback),
        evidence=evidence_chart(env, ex) if ex is not None else None,
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        model_path=model_path,
        index_href=index_href,
    )


def _charted(model, u: int, recs: list, item):
    """The explanation charted on a page: of ``item``, else of the top recommendation, else none."""
    fp = model.profiles_
    if item is None:
        return model.predict(fp.users[u], recs[0]["item"]) if recs else None
    ex = model.predict(fp.users[u], fp.items[known_index(model, "item", item)])
    if not ex.covered:
        raise ParameterError(f"no evidence for item {item!r}: {ex.reason}")
    return ex


def _grids(env, fp, u: int) -> list[dict]:
    """The user's four strongest like co-clusters and largest dislike co-cluster, as grids."""
    like_cc = fp.like.of_user.row(u)
    size = fp.like.users.lengths[like_cc] * np.maximum(fp.like.items.lengths[like_cc], 1)
    strongest = like_cc[np.lexsort((like_cc, -size))][:4]
    grids = [cocluster_grid(env, fp, LIKE, int(c), u) for c in strongest]
    dis_cc = fp.dislike.of_user.row(u)
    if len(dis_cc):
        grids.append(cocluster_grid(env, fp, DISLIKE, int(dis_cc[np.argmax(fp.dislike.users.lengths[dis_cc])]), u))
    return grids


def write_user(model, user, out: str | Path, item=None, n: int = 10, model_path: str = "") -> Path:
    """Write one user's page to ``out`` (atomically)."""
    html = render_user(model, user, item, n, model_path)
    with atomic_open(out) as f:
        f.write(html)
    return Path(out)


def user_file(user) -> str:
    return "user-" + re.sub(r"[^A-Za-z0-9_.-]", "_", str(user)) + ".html"


def write_all(
    model, out_dir: str | Path, users=None, n: int = 10, model_path: str = "", progress=None, links: list | None = None
) -> Path:
    """One page per user (all, or ``users``) and ``index.html`` linking them, in ``out_dir``;
    ``links``: more ``(text, href)`` pairs the index shows first (the evaluation page, say)."""
    model.check_fitted()
    fp = model.profiles_
    idx = (
        np.arange(fp.n_users)
        if users is None
        else np.array([known_index(model, "user", x) for x in users], dtype=np.int64)
    )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = environment()
    likes, dislikes = fp.user_counts
    rows = []
    for k, u in enumerate(idx):
        user = _plain(fp.users[u])
        with atomic_open(out_dir / user_file(user)) as f:
            f.write(render_user(model, user, None, n, model_path, index_href="index.html"))
        prof = explain_profile(fp, int(u), top_coclusters=0)
        top = sorted(
            ((v["coclusters"], f"{kind}: {v['value']}") for kind, vs in prof[LIKE].items() for v in vs[:2]),
            reverse=True,
        )[:3]
        rows.append(
            {
                "user": user,
                "href": user_file(user),
                "ratings": int(likes[u] + dislikes[u]),
                "likes": int(likes[u]),
                "coclusters": prof["like_coclusters"],
                "top": "; ".join(t for _, t in top),
            }
        )
        if progress and (k + 1) % 50 == 0:
            progress(f"{k + 1:,} of {len(idx):,} pages")
    html = env.get_template("index.html.j2").render(
        version=__version__,
        implicit=fp.implicit,
        users=rows,
        like_coclusters=len(fp.like),
        dislike_coclusters=len(fp.dislike),
        model_path=model_path,
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        links=links or [],
    )
    with atomic_open(out_dir / "index.html") as f:
        f.write(html)
    return out_dir / "index.html"
