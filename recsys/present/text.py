"""Plain text for a terminal: a prediction and why, a list of recommendations, a user's profiles,
the relations of a data set.  Each function returns lines; the command line prints them."""

from __future__ import annotations

RELATION_COUNTS = (
    "users",
    "movies",
    "attributes",
    "features",
    "relations",
    "movie_relations",
    "attribute_relations",
    "like_relations",
    "dislike_relations",
)


def explanation_lines(ex) -> list[str]:
    """A prediction (:class:`~recsys.model.explanation.Explanation`): verdict, score and cut-off,
    the terms of the log-odds with the neighbours behind each vote, the profile matches."""
    from ..model.settings import RELEVANCE

    relevance = ex.prediction == RELEVANCE  # a model of implicit feedback: a score, no verdict
    verdict = ex.prediction.upper() if ex.covered else f"NO PREDICTION ({ex.reason})"
    if relevance and ex.covered:
        verdict = f"relevance {ex.score:.3f}"
    lines = [f"user {ex.user}, {ex.item_name}: {verdict}"]
    if ex.covered:
        how = (
            ex.threshold_rule
            if ex.mode == "paper" or relevance
            else (f"like-probability {ex.score:.3f}; cut-off {ex.threshold:.3f} ({ex.threshold_rule})")
        )
        lines.append(f"  {how}")
        if ex.reason:  # a covered pair with a reason: a new item, scored from its attributes alone
            lines.append(f"  {ex.reason}")
    if ex.lines:
        total = (
            f"the relevance; the lines add up to {ex.score:+.3f}"
            if relevance
            else f"log-odds of like; the lines add up to {ex.logit:+.3f}"
        )
        lines.append(f"  why ({total}):")
        for line in ex.lines:
            detail = f" — {line.detail}" if line.detail else ""
            lines.append(f"    {line.contribution:+.3f}  {line.text}{detail}")
            lines += [f"             {part['contribution']:+.3f}  {part['text']}" for part in line.parts]
    for side in ("like",) if relevance else ("like", "dislike"):
        rows = ex.profile_matches.get(side, [])
        if rows or ex.mode == "paper":
            which = "" if relevance else f"{side} "
            lines.append(f"  in your {which}profile (co-clusters holding it): {_shown(rows, 8, _attribute)}")
    return lines


def recommendation_lines(recs: list[dict], user, mode: str, feedback: str = "explicit") -> list[str]:
    """A user's recommendations, best first: each with the terms of its score that weigh most and
    the sum of the rest (:mod:`recsys.present.digest`), then the groups those terms name, once.
    ``feedback``: the model's (:mod:`recsys.model.feedback`), whose words a like takes."""
    from ..model.feedback import IMPLICIT, LIKED
    from .digest import digest

    if not recs:
        return [f"no movie to recommend to user {user}"]
    liked = LIKED[feedback]
    how = (
        "score = your items' part (the weights on it of the items you chose: the largest listed, the rest "
        "summed) plus its popularity, weighed on held-out interactions"
        if feedback == IMPLICIT
        else "score = your movies' part (the weights on it of the movies you liked: the largest listed, the rest "
        "summed) plus its popularity and your like chance, weighed on held-out ratings"
        if mode == "scored"
        else "score = J(like profile) − J(dislike profile) (the paper)"
    )
    if any(r.get("new") for r in recs):
        how += "; a new movie's part comes from its attributes"
    whom = "you" if user == "you" else f"user {user}"
    lines = [f"top {len(recs)} for {whom} ({how}):"]
    d = digest(recs, feedback=feedback)
    for r in d["items"]:
        p = f"  P(like) {r['like_probability']:.2f}" if r.get("like_probability") is not None else ""
        new = "  new: no rating yet" if r.get("new") else ""
        score = f"  score {r['score']:.3f}" if r["own"] is None else ""
        lines.append(f"{r['rank']:>3}. {r['name']}{score}{p}{new}")
        if r["own"] is not None:
            parts = " ".join(f"{t['weight']:+.3f} {t['label']}" for t in r["blend"])
            mine = ("your items" if feedback == IMPLICIT else "your movies") if not r.get("new") else "its attributes"
            lines.append(f"       score {r['score']:.3f} = {r['own']:+.3f} {mine}{' ' + parts if parts else ''}")
        for t in r["shown"]:
            weight = "" if t["weight"] is None else f"{t['weight']:+.3f}  "
            group = f"  (group {t['group']} {liked} both)" if t["group"] else ""
            lines.append(f"       {weight}{t['text']}{group}")
        listed = r["more"]["terms_listed"]
        if listed:
            what = listed[0]["text"] if len(listed) == 1 else f"{r['more']['terms']} more"
            lines.append(f"       {r['more']['weight']:+.3f}  and {what}")
    if d["groups"]:
        lines.append(f"groups named above (people who {liked} every movie of the group):")
        lines += [f"  {gid:<6} {g['text']}" for gid, g in d["groups"].items()]
    return lines


def profile_lines(prof: dict, limit: int = 10) -> list[str]:
    """A user's like and dislike profiles (:meth:`ProfileRecommender.explain`), ``limit`` values a kind."""
    implicit = prof.get("feedback") == "implicit"
    counts = (
        f"{prof['like_coclusters']:,} co-clusters of the items they chose"
        if implicit
        else f"{prof['like_coclusters']:,} like and {prof['dislike_coclusters']:,} dislike co-clusters"
    )
    lines = [f"user {prof['user']}: {counts} (number in brackets: how many of them hold the attribute)"]
    for side in ("like",) if implicit else ("like", "dislike"):
        lines.append("PROFILE (the items they chose):" if implicit else f"{side.upper()} profile:")
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
