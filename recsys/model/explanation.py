"""Explanations: the terms that make a score, the neighbours and co-clusters behind them — the
numbers, computed in the model (``recsys.present`` renders them as text, pages and files).

A scored prediction's logit is ``intercept + sum_t w_t x_t``.  Its explanation lists

* ``average user and movie``: ``intercept + sum_t w_t mean_t`` (the means on the data the
  weights were fitted on), then
* one line per term, ``w_t (x_t - mean_t)``.  A co-cluster vote term is further split into the
  neighbours that cast it: the three with the largest shares, each with its rating residual and
  the most specific (smallest) co-cluster it shares with the user or the movie, then the other
  neighbours together, then minus the term's average,

so the lines add up to the logit, and each vote line to its parts, exactly (tested to 1e-6).
Co-clusters are named by what a person can read: their size, two or three of their movies by
title, and the attributes that distinguish their movies.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..files import plain as _plain
from .feedback import LIKED, LIKED_BY
from .profiles import FittedProfiles
from .terms import ATTRIBUTE_TERMS, TERM, VOTE_TERMS, compute_terms, paper_scores, vote

EXAMPLES = 3  # movies shown per co-cluster


@dataclass
class Line:
    """One contribution to the logit."""

    term: str
    text: str
    contribution: float
    value: float | None = None
    detail: str = ""
    parts: list = field(default_factory=list)


@dataclass
class Explanation:
    """A prediction and why.  In scored mode ``sum(line.contribution) == logit``."""

    user: object
    item: object
    item_name: str
    mode: str
    prediction: str
    score: float | None
    covered: bool
    reason: str
    logit: float | None = None
    threshold: float | None = None
    threshold_rule: str = ""
    lines: list = field(default_factory=list)
    profile_matches: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("user", "item"):
            d[k] = d[k].item() if isinstance(d[k], np.generic) else d[k]
        return d


# -- co-clusters in words ---------------------------------------------------------------------
def cocluster_label(side: str, c: int) -> str:
    return f"{'L' if side == 'like' else 'D'}{c}"


def describe_cocluster(fp: FittedProfiles, side: str, c: int, n_examples: int = EXAMPLES) -> dict:
    """A co-cluster as a person reads it: members, example movies (the most liked of its movies
    for a like co-cluster, the most disliked for a dislike one), the attributes its movies share
    (``attributes``, with how many of its movies carry each) and the attribute relations of the
    co-cluster itself (``liked_attributes``: held by most of its users).

    The fitted profiles never change, so descriptions are kept (a list's reasons name the same
    co-clusters again and again); the dict is a copy, its lists are shared: read them only."""
    memo = fp.memo("describe_cocluster", limit=20_000)
    key = (side, int(c), n_examples)
    if key not in memo:
        memo[key] = _describe(fp, side, int(c), n_examples)
    return dict(memo[key])


def _describe(fp: FittedProfiles, side: str, c: int, n_examples: int) -> dict:
    cc = fp.coclusters(side)
    users = cc.users.row(c)
    items = cc.items.row(c)
    counts = fp.item_counts[0 if side == "like" else 1]
    ex = items[np.lexsort((items, -counts[items]))][:n_examples]
    # what the co-cluster's movies have in common: attributes carried by several of them, most
    # frequent first, the rarer in the catalogue first among equals
    attrs, per_cc = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if len(items):
        _, pos = fp.item_attributes.rows_entries(items)
        counts_cc = np.bincount(fp.item_attributes.idx[pos], minlength=len(fp.attributes))
        attrs = np.flatnonzero(counts_cc >= min(2, len(items)))
        overall = fp.attribute_counts
        attrs = attrs[np.lexsort((attrs, overall[attrs], -counts_cc[attrs]))]
        per_cc = counts_cc[attrs]
    verb = LIKED[fp.feedback] if side == "like" else "disliked"
    movies = [fp.item_name(i) for i in ex]
    more = len(items) - len(ex)
    text = f"{len(users)} users who {verb} " + ", ".join(movies)
    if more > 0:
        text += f" and {more} more movie{'s' if more > 1 else ''}"
    shown = [f"{fp.attributes[a]} ({k}/{len(items)})" for a, k in zip(attrs[:3], per_cc[:3])]
    if shown:
        text += "; " + ", ".join(shown)
    return {
        "id": cocluster_label(side, c),
        "side": side,
        "users": int(len(users)),
        "movies": int(len(items)),
        "examples": [{"item": _plain(fp.items[i]), "name": fp.item_name(i)} for i in ex],
        "attributes": [{"attribute": a, "movies": k} for a, k in zip(fp.attributes[attrs].tolist(), per_cc.tolist())],
        "liked_attributes": fp.attributes[cc.attributes.row(c)].tolist(),
        "text": text,
    }


def member_mask(of, row: int, n: int) -> np.ndarray:
    """``mask[c]``: co-cluster ``c`` is in row ``row`` of ``of`` (users or items × co-clusters).
    What two rows share is then ``other[mask[other]]``: a gather, where ``intersect1d`` sorts both
    rows again for every pair (most of an explanation's time, before)."""
    mask = np.zeros(n, dtype=bool)
    mask[of.row(row)] = True
    return mask


# -- the neighbours and co-clusters behind a vote -----------------------------------------------
def vote_parts(fp: FittedProfiles, name: str, u: int, i: int, k: int, shrinkage: float):
    """The vote ``name`` on (u, i) split by the neighbours that cast it: ``(value, parts)``.

    Each part is one neighbour (a user who rated the movie, or a movie the user rated) with its
    share of ``value`` (``similarity * residual / (sum of similarities + shrinkage)``; the shares add
    up to ``value``), its residual, and the co-clusters its similarity comes from: how many it
    shares with the user (or the movie) and the most specific of them (the smallest).
    """
    side, who = VOTE_TERMS[name]
    cc = fp.coclusters(side)
    res, (_, neigh, sim, val) = vote(fp, name, np.array([u]), np.array([i]), k, shrinkage, detail=True)
    value = float(res.value[0])
    denom = float(res.weight[0]) + shrinkage
    if who == "users":
        anchor, of, sizes = u, cc.of_user, cc.users.lengths
    else:
        anchor, of, sizes = i, cc.of_item, cc.items.lengths
    mine = member_mask(of, anchor, len(cc))
    parts = []
    for v, s, r in zip(neigh.astype(np.int64), sim, val):
        theirs = of.row(v)
        shared = theirs[mine[theirs]]
        best = int(shared[np.lexsort((shared, sizes[shared]))][0]) if len(shared) else None
        parts.append(
            {
                "neighbour": int(v),
                "similarity": float(s),
                "residual": float(r),
                "share": float(s * r / denom),
                "shared": int(len(shared)),
                "example": best,
            }
        )
    return value, parts


# -- predictions ------------------------------------------------------------------------------
def explain_prediction(model, preds, mode: str, threshold: float | None) -> Explanation:
    """The explanation of the single prediction ``preds`` (a one-pair :class:`~recsys.model.Predictions`)."""
    fp = model.profiles_
    user, item = preds.user[0], preds.item[0]
    u, i = int(fp.user_index([user])[0]), int(fp.item_index([item])[0])
    score = float(preds.score[0])
    ex = Explanation(
        user=user,
        item=item,
        item_name=fp.item_name(i) if i >= 0 else f"item {item}",
        mode=mode,
        prediction=str(preds.prediction[0]),
        score=None if np.isnan(score) else score,
        covered=bool(preds.covered[0]),
        reason=str(preds.reason[0]),
    )
    if u >= 0 and i >= 0:
        ex.profile_matches = profile_matches(fp, u, i)
    if not ex.covered:
        return ex
    if mode == "paper":
        jl, jd = paper_scores(fp, np.array([u]), np.array([i]))
        ex.threshold_rule = (
            f"the paper's rule: Jaccard with the like profile {jl[0]:.3f} vs the dislike profile {jd[0]:.3f}; "
            "the larger wins, ties go to like"
        )
        return ex
    if model.fitted_.implicit:
        _add_relevance(ex, model, u, i)
    else:
        _add_terms(ex, model, u, i, threshold)
    return ex


def _add_relevance(ex: Explanation, model, u: int, i: int) -> None:
    """A model of implicit feedback's relevance in its parts (they add up to the score): the item
    model's weights from the items the user chose, the three largest named with a co-cluster
    holding both, and the lists' popularity part."""
    fp = model.profiles_
    chose, weights = fp.liked_sources(fp.ratings.row(u), fp.ratings.row_values(u))
    part = _contributions(fp, chose, np.array([i]), values=weights)[0]
    parts = [
        {"cocluster": c.get("cocluster"), "item": c["item"], "contribution": c["weight"], "text": c["text"]}
        for c in part["named"]
    ]
    n = part["others"]["movies"]
    if n:
        rest = f"{n} other item{'s' if n > 1 else ''} of yours"
        parts.append({"cocluster": None, "text": rest, "contribution": part["others"]["weight"]})
    item_part = sum(p["contribution"] for p in parts)
    ex.lines.append(Line("item_model", "the co-cluster item model, from the items you chose", item_part, parts=parts))
    likes = int(fp.item_counts[0][i])
    popularity = float(model.fitted_.list_blend.popularity * np.log1p(likes))
    ex.lines.append(Line("popularity", f"{LIKED_BY[fp.feedback]} {likes:,} people", popularity, value=likes))
    ex.threshold_rule = "a relevance score to rank by (implicit feedback: no like-probability, no verdict)"


def _add_terms(ex: Explanation, model, u: int, i: int, threshold: float | None) -> None:
    """The scored mode's logit, cut-off and one line per term of the log-odds."""
    ((_, w),) = model.fitted_.weights_for(np.array([i]))  # a new item's score has weights of its own
    terms = compute_terms(model.profiles_, np.array([u]), np.array([i]), w.names, model.n_votes, model.shrinkage)
    ex.logit = float(w.logit(terms)[0])
    ex.threshold = float(w.threshold if threshold is None else threshold)
    ex.threshold_rule = (
        "given"
        if threshold is not None
        else "fitted: the cut-off with the best balanced accuracy on held-out training ratings"
    )
    base = w.intercept + sum(w.coef[t] * w.means[t] for t in w.coef)
    ex.lines.append(Line("average", "an average user and movie", float(base)))
    fp = model.profiles_
    for t, coef in w.coef.items():
        x = float(terms[t][0])
        line = Line(t, TERM[t].text, float(coef * (x - w.means[t])), value=x, detail=_term_detail(fp, t, u, i))
        if t in VOTE_TERMS and model.neighbours == "ratings":
            line.detail = "neighbours from plain co-ratings (a control): no co-cluster carries this vote"
        elif t in VOTE_TERMS:
            _split_vote(line, model, t, u, i, coef, w.means[t])
        elif t in ("item_model", "item_residuals"):
            _split_item_term(line, fp, t, u, i, coef, w.means[t])
        elif t in ATTRIBUTE_TERMS:
            _split_attribute_term(line, fp, t, u, i, coef, w.means[t])
        ex.lines.append(line)


def _split_attribute_term(line: Line, fp: FittedProfiles, t: str, u: int, i: int, coef: float, mean: float) -> None:
    """An attribute term split into the movie's attributes that carry it (each its selectivity
    weight times its value: the user's mean residual on it, or its movies' mean bias), the others,
    and the average (the parts add up to the line)."""
    parts = fp.attribute_evidence.parts(fp.item_attributes, u, i)
    key = "user" if t == "user_attributes" else "item"
    order = sorted(range(len(parts)), key=lambda k: (-abs(parts[k][key]), parts[k]["attribute"]))
    mine = fp.ratings.row(u)
    for k in order[:3]:
        p = parts[k]
        name = fp.attributes[p["attribute"]]
        if key == "user":
            which, pos = fp.item_attributes.rows_entries(mine)
            n = int((fp.item_attributes.idx[pos] == p["attribute"]).sum())
            movies = f"{name}: you rated {n} movie{'s' if n != 1 else ''} with it, "
            if fp.attribute_evidence.joint:
                text = movies + f"{p['rated']:+.2f} of your ratings' surprise is its own (fitted with the others)"
            else:
                text = movies + f"{p['rated']:+.2f} against expectation (shrunk); {p['weight']:.0%} of the weight"
        else:
            value = fp.attribute_evidence.items[p["attribute"]]
            text = (
                f"{name}: its movies are rated {value:+.2f} against the average (shrunk); "
                f"{p['weight']:.0%} of the weight"
            )
        part = {"cocluster": None, "attribute": str(name), "contribution": float(coef * p[key]), "text": text}
        line.parts.append(part)
    rest = order[3:]
    if rest:
        line.parts.append(
            {
                "cocluster": None,
                "text": f"{len(rest)} other attribute{'s' if len(rest) > 1 else ''}",
                "contribution": float(coef * sum(parts[k][key] for k in rest)),
            }
        )
    average = {"cocluster": None, "text": "minus the average of this evidence", "contribution": float(-coef * mean)}
    line.parts.append(average)
    line.detail = f"{len(parts)} attribute{'s' if len(parts) != 1 else ''} of this movie" if parts else "no attribute"


def _split_item_term(line: Line, fp: FittedProfiles, t: str, u: int, i: int, coef: float, mean: float) -> None:
    """An item-model term split into the movies of the user that carry it (their weight on this
    movie, times the rating residual for ``item_residuals``), the others, and the average."""
    if t == "item_model":
        items, values, W = fp.liked.row(u), np.ones(len(fp.liked.row(u))), fp.item_weights
    else:
        items, values, W = fp.residuals.row(u), fp.residuals.row_values(u), fp.residual_weights
    found, weight = W.lookup(items, np.full(len(items), i))
    share = weight[found] * values[found]
    src = items[found]
    order = np.lexsort((src, -np.abs(share)))
    holds_i = member_mask(fp.like.of_item, i, len(fp.like))
    for k in order[:3]:
        j = int(src[k])
        both = int(holds_i[fp.like.of_item.row(j)].sum())
        rating = fp.ratings.lookup([u], [j])[1][0]
        what = "liked" if t == "item_model" else f"rated {rating:g} ({values[found][k]:+.2f} against expectation)"
        line.parts.append(
            {
                "cocluster": None,
                "item": _plain(fp.items[j]),
                "contribution": float(coef * share[k]),
                "text": f"you {what} {fp.item_name(j)}: weight {weight[found][k]:+.3f}, "
                f"{both} like co-cluster{'s' if both != 1 else ''} hold both",
            }
        )
    rest = order[3:]
    if len(rest):
        others = f"{len(rest)} other movie{'s' if len(rest) > 1 else ''} of yours"
        line.parts.append({"cocluster": None, "text": others, "contribution": float(coef * share[rest].sum())})
    average = {"cocluster": None, "text": "minus the average of this evidence", "contribution": float(-coef * mean)}
    line.parts.append(average)
    line.detail = f"{int(found.sum())} of your movies carry it"


def _split_vote(line: Line, model, t: str, u: int, i: int, coef: float, mean: float) -> None:
    """A vote term's line split into its three strongest neighbours, the others, and the average
    (the parts add up to the line)."""
    fp = model.profiles_
    _, parts = vote_parts(fp, t, u, i, model.n_votes, model.shrinkage)
    side, who = VOTE_TERMS[t]
    order = sorted(range(len(parts)), key=lambda j: -abs(parts[j]["share"]))
    line.parts += [_neighbour_part(fp, side, who, u, i, parts[j], coef) for j in order[:3]]
    rest = order[3:]
    if rest:
        line.parts.append(
            {
                "cocluster": None,
                "text": f"{len(rest)} other neighbour{'s' if len(rest) > 1 else ''}",
                "contribution": float(coef * sum(parts[j]["share"] for j in rest)),
            }
        )
    line.parts.append(
        {"cocluster": None, "text": "minus the average of this evidence", "contribution": float(-coef * mean)}
    )
    n_used = len(parts)
    line.detail = (
        f"{n_used} neighbour{'s' if n_used != 1 else ''} voted, mean residual "
        f"{np.mean([p['residual'] for p in parts]):+.2f}"
        if n_used
        else "no neighbour voted"
    )


def _neighbour_part(fp: FittedProfiles, side: str, who: str, u: int, i: int, part: dict, coef: float) -> dict:
    """One neighbour's share of a vote, in words: who it is, what it rated, which co-clusters tie it."""
    v = part["neighbour"]
    verb = "like" if side == "like" else "dislike"
    if who == "users":
        rating = fp.ratings.lookup([v], [i])[1][0]
        text = (
            f"user {fp.users[v]} rated it {rating:g} ({part['residual']:+.2f} against expectation); shares "
            f"{part['shared']} of your {verb} co-clusters"
        )
    else:
        rating = fp.ratings.lookup([u], [v])[1][0]
        text = (
            f"you rated {fp.item_name(v)} {rating:g} ({part['residual']:+.2f} against expectation); it shares "
            f"{part['shared']} {verb} co-clusters with this movie"
        )
    label = None
    if part["example"] is not None:
        d = describe_cocluster(fp, side, part["example"])
        label = d["id"]
        text += f", e.g. [{d['id']}] {d['text']}"
    return {
        "cocluster": label,
        "neighbour": _plain(fp.users[v] if who == "users" else fp.items[v]),
        "text": text,
        "contribution": float(coef * part["share"]),
    }


def _term_detail(fp: FittedProfiles, t: str, u: int, i: int) -> str:
    if t == "user_like_share":
        likes, dislikes = fp.user_counts
        return f"you liked {likes[u]} of your {likes[u] + dislikes[u]} ratings"
    if t == "item_like_share":
        likes, dislikes = fp.item_counts
        return f"liked by {likes[i]} of its {likes[i] + dislikes[i]} raters"
    if t == "baseline":
        return f"{fp.global_mean:.2f} {fp.user_bias[u]:+.2f} {fp.item_bias[i]:+.2f}"
    return ""


def profile_matches(fp: FittedProfiles, u: int, i: int) -> dict:
    """The item's attributes (and itself) found in the user's like and dislike profiles, with the
    number of the user's co-clusters holding each (the paper's evidence)."""
    attrs = fp.item_attributes.row(i)
    # the user's co-clusters holding the movie and each of its attributes, per side: only what the
    # profiles (everything the user's co-clusters hold) would say about this movie
    support = {}
    for side in ("like", "dislike"):
        cc = fp.coclusters(side)
        mine = member_mask(cc.of_user, u, len(cc))
        held = [cc.of_item.row(i)] + [cc.of_attribute.row(a) for a in attrs]
        support[side] = [int(mine[rows].sum()) for rows in held]
    names = [f"this movie ({fp.item_name(i)})"] + fp.attributes[attrs].tolist()
    out = {}
    for side, other in (("like", "dislike"), ("dislike", "like")):
        # in the profile: held on this side and not on the other (the paper removes the intersection)
        rows = [
            {"attribute": name, "coclusters": k}
            for name, k, o in zip(names, support[side], support[other])
            if k > 0 and o == 0
        ]
        rows.sort(key=lambda r: -r["coclusters"])
        out[side] = rows
    return out


# -- recommendations --------------------------------------------------------------------------
def explain_item_list(
    fp: FittedProfiles,
    liked: np.ndarray,
    top: np.ndarray,
    listed,
    probability: np.ndarray,
    new_items=None,
    values: np.ndarray | None = None,
) -> list[dict]:
    """Each recommended item with its list score, its like-probability and the parts of its score
    (``listed``: the model's :class:`~recsys.model.recommender.ListScores`).

    The item model's part is the contributions of the movies the person liked: every contribution
    ``W[liked, item]`` (times ``values``, an interaction's confidence, when given), the three
    largest named with the co-clusters holding both movies, the rest in ``others``.  A new item (no
    training rating; ``new_items`` is the model's
    :class:`~recsys.model.attributes.AttributeEvidence` when its lists take them) is flagged ``new``
    and explained by its attributes instead: each attribute's share of the weights times the
    person's mean score of the rated movies carrying it.  When the lists blend
    (:mod:`recsys.model.list_blend`), ``popularity`` (its training likes) and ``like`` (the
    like-probability) add their parts, each a reason of its own; all the parts add up to the score."""
    out = []
    top = np.asarray(top, dtype=np.int64)
    parts = _contributions(fp, liked, top, values=values)
    likes = fp.item_counts[0]
    for rank, (i, p, part) in enumerate(zip(top.tolist(), probability, parts, strict=True), start=1):
        new = new_items is not None and not fp.item_rated[i]
        if new:
            part = _attribute_contributions(fp, new_items.new_item_parts(listed.item, i))
        reasons = [c["text"] for c in part["named"]]
        pop, like = float(listed.popularity[i]), float(listed.like[i])
        if pop:
            reasons.append(f"{LIKED_BY[fp.feedback]} {int(likes[i]):,} people ({pop:+.3f})")
        if like:
            reasons.append(f"your like chance from your ratings: {listed.probability[i]:.0%} ({like:+.3f})")
        out.append(
            {
                "rank": rank,
                "item": _plain(fp.items[i]),
                "name": fp.item_name(i),
                "score": float(listed.score[i]),
                "like_probability": None if np.isnan(p) else float(p),
                "new": bool(new),
                "contributions": part["named"],
                "others": part["others"],
                "popularity": {"weight": pop, "likes": int(likes[i])},
                "like": {
                    "weight": like,
                    "probability": None if np.isnan(listed.probability[i]) else float(listed.probability[i]),
                },
                "reasons": reasons,
            }
        )
    return out


def _attribute_contributions(fp: FittedProfiles, parts: list[dict], shown: int = 3) -> dict:
    """A new item's attribute parts (:meth:`~recsys.model.attributes.AttributeEvidence.new_item_parts`)
    as list contributions: the ``shown`` largest named, the rest summed."""
    order = sorted(range(len(parts)), key=lambda k: (-abs(parts[k]["contribution"]), parts[k]["attribute"]))
    named = []
    for k in order[:shown]:
        q = parts[k]
        name = str(fp.attributes[q["attribute"]])
        text = (
            f"new, no rating yet — {name}: your scores of the {q['rated']} rated movies with it average "
            f"{q['mean']:+.3f} ({q['share']:.0%} of the weight)"
        )
        named.append(
            {
                "attribute": name,
                "weight": q["contribution"],
                "share": q["share"],
                "mean": q["mean"],
                "rated": q["rated"],
                "text": text,
            }
        )
    rest = [parts[k]["contribution"] for k in order[shown:]]
    return {"named": named, "others": {"movies": 0, "attributes": len(rest), "weight": float(np.sum(rest))}}


def _contributions(
    fp: FittedProfiles, liked: np.ndarray, items: np.ndarray, shown: int = 3, values: np.ndarray | None = None
) -> list[dict]:
    """For each of ``items``, the liked movies' contributions to it — their weight on it, times
    their ``values`` when given (an interaction's confidence, :mod:`recsys.model.feedback`): the
    ``shown`` largest, each with the largest like co-cluster holding both movies, and the rest
    summed.  The weights of all the items are looked up and ordered at once (largest first, ties
    by movie)."""
    W = fp.item_weights
    liked = np.asarray(liked, dtype=np.int64)
    x = np.ones(len(liked)) if values is None else np.asarray(values, dtype=np.float64)
    pos = W.positions((items[:, None] + liked[None, :] * np.int64(W.shape[1])).ravel()).reshape(len(items), len(liked))
    found = pos >= 0
    weight = np.where(found, W.values[pos] * x[None, :], 0.0)
    # not found sorts last; then by decreasing contribution; then by movie
    order = np.lexsort((np.broadcast_to(liked, pos.shape), -weight, ~found), axis=1)
    weight, pos = np.take_along_axis(weight, order, axis=1), np.take_along_axis(pos, order, axis=1)
    src, conf = liked[order], x[order]
    counts, largest = fp.shared_coclusters
    out = []
    for r, n_found in enumerate(found.sum(axis=1).tolist()):
        named = []
        for k in range(min(shown, n_found)):
            j, w, at, c = int(src[r, k]), weight[r, k], pos[r, k], float(conf[r, k])
            pairs = int(counts[at])
            entry = {"item": _plain(fp.items[j]), "name": fp.item_name(j), "weight": float(w), "coclusters": pairs}
            if c == 1.0:
                text = f"you {LIKED[fp.feedback]} {fp.item_name(j)} ({w:+.3f})"
            else:  # the contribution is the pair's weight times the interaction's confidence
                entry["confidence"] = c
                text = f"you {LIKED[fp.feedback]} {fp.item_name(j)} ({w:+.3f}: {w / c:+.3f} × confidence {c:.2f})"
            if pairs:
                cocluster, held = _pair_reason(fp, int(largest[at]))
                entry["cocluster"] = dict(cocluster)
                text += held
                if pairs > 1:
                    text += f" ({pairs - 1} more co-cluster{'s hold' if pairs > 2 else ' holds'} both)"
            named.append({**entry, "text": text})
        rest = weight[r, shown:n_found]
        out.append({"named": named, "others": {"movies": int(len(rest)), "weight": float(rest.sum())}})
    return out


def _pair_reason(fp: FittedProfiles, c: int) -> tuple[dict, str]:
    """Like co-cluster ``c`` as a contribution names it: ``{id, users, text}`` and the words that
    follow the movie (kept: a list names the same co-clusters again and again)."""
    memo = fp.memo("pair_reason", limit=20_000)
    if c not in memo:
        d = describe_cocluster(fp, "like", c)
        more = d["movies"] - len(d["examples"])
        movies = ", ".join(e["name"] for e in d["examples"]) + (f" and {more} more" if more > 0 else "")
        memo[c] = (
            {"id": d["id"], "users": d["users"], "text": d["text"]},
            f": {d['users']} people who {LIKED[fp.feedback]} both are in [{d['id']}], with {movies}",
        )
    return memo[c]


def explain_paper_list(model, u: int, cand: np.ndarray, ranking, n: int) -> list[dict]:
    """The paper's rule's list: the candidate movies the profiles cover, by ``J(like) - J(dislike)``,
    each with the attributes of the like profile it matches."""
    fp = model.profiles_
    out = []
    for rank, j in enumerate(ranking.order[:n], start=1):
        i = int(cand[j])
        like = profile_matches(fp, u, i).get("like", [])
        reasons = ["in your like profile: " + ", ".join(r["attribute"] for r in like[:4])] if like else []
        out.append(
            {
                "rank": rank,
                "item": _plain(fp.items[i]),
                "name": fp.item_name(i),
                "score": float(ranking.key[j]),
                "like_probability": None,
                "reasons": reasons,
            }
        )
    return out


# -- profiles ---------------------------------------------------------------------------------
def profile_sides(profile: dict) -> tuple:
    """The sides an :func:`explain_profile` holds: like and dislike, or like alone (implicit feedback)."""
    return ("like", "dislike") if "dislike" in profile else ("like",)


def explain_profile(fp: FittedProfiles, u: int, top_coclusters: int = 5) -> dict:
    """The user's like and dislike profiles (the paper's: intersection removed), attributes grouped
    by kind with their co-cluster support, movies by title, and the user's largest co-clusters.
    A model of implicit feedback has no dislikes: its profile is the like side alone, and
    ``feedback`` says so."""
    sides = ("like",) if fp.implicit else ("like", "dislike")
    out = {"user": _plain(fp.users[u]), "feedback": fp.feedback}
    out.update({f"{side}_coclusters": int(fp.coclusters(side).of_user.lengths[u]) for side in sides})
    support = {side: fp.support(side, u) for side in ("like", "dislike")}
    profile = fp.paper_profile(u, support)
    for side in sides:
        p_items, p_attrs = profile[side]
        s_items, s_isup, s_attrs, s_asup = support[side]
        # the supports looked up at once (a heavy user's profile holds thousands of attributes)
        attr_sup = s_asup[np.searchsorted(s_attrs, p_attrs)].tolist()
        groups: dict[str, list] = {}
        for name, sup in zip(fp.attributes[p_attrs].tolist(), attr_sup):
            kind, _, value = name.partition(":")
            groups.setdefault(kind, []).append({"value": value, "coclusters": sup})
        for values in groups.values():
            values.sort(key=lambda v: (-v["coclusters"], v["value"]))
        item_sup = s_isup[np.searchsorted(s_items, p_items)].tolist()
        movies = [
            {"item": item, "name": fp.item_name(i), "coclusters": sup}
            for i, item, sup in zip(p_items.tolist(), fp.items[p_items].tolist(), item_sup)
        ]
        movies.sort(key=lambda m: (-m["coclusters"], m["name"]))
        cc = fp.coclusters(side)
        mine = cc.of_user.row(u)
        size = cc.users.lengths[mine] * np.maximum(cc.items.lengths[mine], 1)
        strongest = mine[np.lexsort((mine, -size))][:top_coclusters]
        out[side] = dict(sorted(groups.items()))
        out[f"{side}_movies"] = movies
        out[f"{side}_strongest"] = [describe_cocluster(fp, side, int(c)) for c in strongest]
    return out
