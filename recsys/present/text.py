"""Plain text for a terminal: a prediction and why, a list of recommendations, a user's profiles,
the relations of a data set.  Each function returns lines; the command line prints them."""

from __future__ import annotations

RELATION_COUNTS = ("users", "movies", "attributes", "features", "relations", "movie_relations", "attribute_relations",
                   "like_relations", "dislike_relations")  # fmt: skip


def explanation_lines(ex) -> list[str]:
    """A prediction (:class:`~recsys.present.explain.Explanation`): verdict, score and cut-off,
    the terms of the log-odds with the neighbours behind each vote, the profile matches."""
    verdict = ex.prediction.upper() if ex.covered else f"NO PREDICTION ({ex.reason})"
    lines = [f"user {ex.user}, {ex.item_name}: {verdict}"]
    if ex.covered:
        how = ex.threshold_rule if ex.mode == "paper" else (
            f"like-probability {ex.score:.3f}; cut-off {ex.threshold:.3f} ({ex.threshold_rule})"
        )  # fmt: skip
        lines.append(f"  {how}")
        if ex.reason:  # a covered pair with a reason: a new item, scored from its attributes alone
            lines.append(f"  {ex.reason}")
    if ex.lines:
        lines.append(f"  why (log-odds of like; the lines add up to {ex.logit:+.3f}):")
        for line in ex.lines:
            detail = f" — {line.detail}" if line.detail else ""
            lines.append(f"    {line.contribution:+.3f}  {line.text}{detail}")
            lines += [f"             {part['contribution']:+.3f}  {part['text']}" for part in line.parts]
    for side in ("like", "dislike"):
        rows = ex.profile_matches.get(side, [])
        if rows or ex.mode == "paper":
            lines.append(f"  in your {side} profile (co-clusters holding it): {_shown(rows, 8, _attribute)}")
    return lines


def recommendation_lines(recs: list[dict], user, mode: str) -> list[str]:
    """A user's recommendations, best first, each with its reasons."""
    if not recs:
        return [f"no movie to recommend to user {user}"]
    how = (
        "score = the sum of the item model's weights from the movies you liked; the largest are listed"
        if mode == "scored"
        else "score = J(like profile) − J(dislike profile) (the paper)"
    )
    if any(r.get("new") for r in recs):
        how += "; a new movie (no rating yet) scores from its attributes"
    if any(r.get("popularity", {}).get("weight") or r.get("like", {}).get("weight") for r in recs):
        how += "; plus its popularity and your like chance, weighed on held-out ratings"
    lines = [f"top {len(recs)} for user {user} ({how}):"]
    for r in recs:
        p = f"  P(like) {r['like_probability']:.2f}" if r.get("like_probability") is not None else ""
        lines.append(f"{r['rank']:>3}. {r['name']}  score {r['score']:.3f}{p}")
        named = len(r.get("contributions", r["reasons"]))  # the blend's reasons follow the contributions'
        lines += [f"       · {reason}" for reason in r["reasons"][:named]]
        others = r.get("others")
        if others and others["movies"]:
            lines.append(f"       · and {others['movies']} more of your movies: {others['weight']:+.3f}")
        elif others and others.get("attributes"):
            lines.append(f"       · and {others['attributes']} more of its attributes: {others['weight']:+.3f}")
        lines += [f"       · {reason}" for reason in r["reasons"][named:]]
    return lines


def profile_lines(prof: dict, limit: int = 10) -> list[str]:
    """A user's like and dislike profiles (:meth:`ProfileRecommender.explain`), ``limit`` values a kind."""
    lines = [
        f"user {prof['user']}: {prof['like_coclusters']:,} like and {prof['dislike_coclusters']:,} dislike co-clusters"
        " (number in brackets: how many of them hold the attribute)"
    ]
    for side in ("like", "dislike"):
        lines.append(f"{side.upper()} profile:")
        movies = prof[f"{side}_movies"]
        if not prof[side] and not movies:
            lines.append("  (empty)")
        if movies:
            lines.append(f"  movies [{len(movies)}]: {_shown(movies, limit, lambda m: m['name'])}")
        for kind, values in prof[side].items():
            lines.append(f"  {kind} [{len(values)}]: {_shown(values, limit, lambda v: v['value'])}")
        lines += [f"  co-cluster {cc['id']}: {cc['text']}" for cc in prof[f"{side}_strongest"][:3]]
    return lines


def relations_lines(summary: dict, title: str, link_report=None) -> list[str]:
    """The counts of a data set's like/dislike relations (``recsys relations``)."""
    lines = [title]
    lines += [f"  {key.replace('_', ' '):<20} {summary[key]:>10,}" for key in RELATION_COUNTS]
    lines.append("  attributes by kind   " + ", ".join(f"{k} {v:,}" for k, v in summary["attributes_by_kind"].items()))
    if link_report is not None:
        lines.append(f"  {link_report}")
    return lines


def _attribute(row: dict) -> str:
    return row["attribute"]


def _shown(rows: list[dict], limit: int, name) -> str:
    """``name (co-clusters)`` of the first ``limit`` rows, and how many more."""
    shown = ", ".join(f"{name(r)} ({r['coclusters']})" for r in rows[:limit]) or "—"
    return shown + (f", … {len(rows) - limit} more" if len(rows) > limit else "")
