"""A list's reasons as a person reads them: for each movie the terms every movie has (its
popularity, the person's like chance) on one line, the few of its own terms that weigh most (the
movies the person liked, with the group that liked both) one short line each, the rest summed
behind a "more"; each group (co-cluster) described once for the whole list, not under every movie.

Everything shown adds up to the score: the blend terms, the shown terms and the "more" (read from
the parts the model returned with the list: the liked movies' contributions or a new movie's
attributes, the sum of the others, popularity and the like chance).
"""

from __future__ import annotations

from ..model.feedback import EXPLICIT, LIKED, LIKED_BY

SHOWN = 3


def terms(rec: dict, feedback: str = EXPLICIT) -> list[dict]:
    """The named terms of a listed movie's own part of the score (the liked movies' contributions,
    or a new movie's attributes), largest first: ``{"text", "weight", "group"}`` (``group``: the
    id of the like co-cluster holding both movies, or None)."""
    out = []
    for c in rec.get("contributions") or []:
        if "attribute" in c:  # a new movie, scored from its attributes
            text = f"{c['attribute']}: your {c['rated']} rated movies with it average {c['mean']:+.2f}"
        else:
            text = f"you {LIKED[feedback]} {c['name']}"
            if "confidence" in c:  # an interaction's count weighs its weight (recsys.model.feedback)
                text += f" (× confidence {c['confidence']:.2f})"
        out.append({"text": text, "weight": float(c["weight"]), "group": (c.get("cocluster") or {}).get("id")})
    return sorted(out, key=lambda t: -abs(t["weight"]))


def blend(rec: dict, feedback: str = EXPLICIT) -> list[dict]:
    """The terms every movie of a blended list has: its popularity and the person's like chance."""
    popularity, like = rec.get("popularity") or {}, rec.get("like") or {}
    out = []
    if popularity.get("weight"):
        out.append(
            {
                "label": "popularity",
                "text": f"{LIKED_BY[feedback]} {popularity['likes']:,} people",
                "weight": float(popularity["weight"]),
            }
        )
    if like.get("weight"):
        chance = (
            "from your ratings" if like.get("probability") is None else f"{like['probability']:.0%} from your ratings"
        )
        out.append({"label": "like chance", "text": chance, "weight": float(like["weight"])})
    return out


def digest(recs: list[dict], shown: int = SHOWN, feedback: str = EXPLICIT) -> dict:
    """``{"items": [...], "groups": {...}}``: for each movie its ``blend`` terms, the ``shown``
    heaviest of its own terms and ``more`` (how many are left, their sum, and ``terms_listed`` for
    a "more" to unfold); every group the shown terms name, once.  ``own`` is the sum of the
    movie's own terms: ``score = own + sum of the blend terms``.  ``feedback``: the model's
    (:mod:`recsys.model.feedback`), whose words a like takes."""
    items, groups = [], {}
    for rec in recs:
        if "contributions" not in rec:  # the paper's rule: reasons without weights
            items.append(
                {
                    **_head(rec),
                    "blend": [],
                    "own": None,
                    "shown": [{"text": r, "weight": None, "group": None} for r in rec["reasons"]],
                    "more": {"terms": 0, "weight": 0.0, "terms_listed": []},
                }
            )
            continue
        named = terms(rec, feedback)
        others = rec.get("others") or {}
        n_others = int(others.get("movies", 0) + others.get("attributes", 0))
        listed = named[shown:] + (
            [{"text": _others_text(others, feedback), "weight": float(others["weight"]), "group": None}]
            if n_others
            else []
        )
        more = sum(t["weight"] for t in listed)
        own = sum(t["weight"] for t in named[:shown]) + more
        more = {"terms": len(named[shown:]) + n_others, "weight": more, "terms_listed": listed}
        items.append({**_head(rec), "blend": blend(rec, feedback), "own": own, "shown": named[:shown], "more": more})
        for c in rec["contributions"]:
            group = c.get("cocluster")
            if group and any(t["group"] == group["id"] for t in named[:shown]):
                groups.setdefault(group["id"], {"users": group["users"], "text": group["text"]})
    return {"items": items, "groups": groups}


def _head(rec: dict) -> dict:
    keys = ("rank", "item", "name", "score", "like_probability", "new")
    return {k: rec.get(k) for k in keys}


def _others_text(others: dict, feedback: str = EXPLICIT) -> str:
    if others.get("movies"):
        return f"{others['movies']} more of the {'movies' if feedback == EXPLICIT else 'items'} you {LIKED[feedback]}"
    return f"{others['attributes']} more of its attributes"
