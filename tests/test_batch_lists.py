"""Lists for blocks of people (recsys.model.batch) against a reference built from the per-person
definitions: the fold-in (NewUser.of), the item model's row sums with new items' keys
(list_scores), the candidates (list_blend.candidates) and the terms of each candidate
(new_user_terms).  Every list score must be the same float."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kit import FAST, taste_data

from recsys.model import ProfileRecommender
from recsys.model.batch import Lister, People
from recsys.model.list_blend import ListBlend, candidates, log_likes, logit
from recsys.model.listing import list_key, list_scores
from recsys.model.people import person_of, user_person
from recsys.model.scoring import person_probability


@pytest.fixture(scope="module")
def model():
    return _fitted("means")


@pytest.fixture(scope="module")
def joint_model():
    return _fitted("joint")


def _fitted(attribute_fit: str):
    train, _, attrs, items = taste_data()
    # two items with attributes and no rating: new items, listed from their attributes
    extra = pd.DataFrame(
        {
            "item": [60, 61, 60, 61],
            "kind": ["genre", "genre", "director", "director"],
            "value": ["g0", "g1", "d0", "d1"],
        }
    )
    titles = pd.concat([items, pd.DataFrame({"item": [60, 61], "title": ["New A", "New B"]})], ignore_index=True)
    return ProfileRecommender(like_params=FAST, dislike_params=FAST, item_l2=50.0, attribute_fit=attribute_fit).fit(
        train, pd.concat([attrs, extra], ignore_index=True), titles
    )


def reference(model, items, ratings, rated, n_candidates: int) -> np.ndarray:
    """Every item's list score for the person of ``ratings`` of ``items`` (indices), from the
    per-person definitions."""
    fp = model.profiles_
    person = person_of(model, np.asarray(items, dtype=np.int64), np.asarray(ratings, dtype=np.float64))
    key = list_scores(model.fitted_, person.liked)
    score = np.full(fp.n_items, -np.inf)
    if n_candidates == 0:
        listable = np.full(fp.n_items, len(person.liked) > 0)
        listable[np.asarray(rated, dtype=np.int64)] = False
        return np.where(listable, key, -np.inf)
    listable = model.fitted_.scoreable & (len(person.liked) > 0)
    listable[np.asarray(rated, dtype=np.int64)] = False
    popularity = log_likes(fp.item_counts[0])
    cand = candidates(key, popularity, listable, n_candidates)
    if not len(cand):
        return score
    p = person_probability(model, person, cand)
    blend = model.list_blend_
    score[cand] = key[cand] + blend.popularity * popularity[cand] + blend.like * logit(p)
    return score


def _people(model, rng, n_new: int):
    """Every training user, then new people from random subsets of their ratings."""
    fp = model.profiles_
    rows = [(fp.ratings.row(u), fp.ratings.row_values(u)) for u in range(fp.n_users)]
    for _ in range(n_new):
        u = int(rng.integers(fp.n_users))
        keep = rng.random(fp.ratings.lengths[u]) < 0.5
        rows.append((fp.ratings.row(u)[keep], fp.ratings.row_values(u)[keep]))
    return rows


@pytest.mark.parametrize(
    "blend",
    [
        ListBlend(),
        ListBlend(popularity=0.3, like=0.7, candidates=5),
        ListBlend(popularity=0.0, like=1.5, candidates=12),
    ],
)
@pytest.mark.parametrize("budget", [0, 2])
def test_block_lists_are_the_per_person_lists(model, blend, budget):
    m = copy.copy(model)
    profiles = dataclasses.replace(model.profiles_, user_budget=budget)  # a fold-in budget binds at 2
    m.fitted_ = dataclasses.replace(model.fitted_, list_blend=blend, profiles=profiles)
    rows = _people(m, np.random.default_rng(budget), 25)
    n_candidates = 0 if blend.plain else blend.candidates
    lister = Lister(m)
    got = []
    for _, _, scored in lister.blocks(People.of(rows), n_candidates):
        got += [scored.dense(t) for t in range(len(scored.n_cand))]
        items, scores, lengths = scored.tops(7)  # the block's lists at once: each person's top
        for t in range(len(scored.n_cand)):
            want_items, want_scores = scored.top(t, 7)
            assert lengths[t] == len(want_items)
            assert np.array_equal(items[t, : lengths[t]], want_items)
            assert np.array_equal(scores[t, : lengths[t]], want_scores)
    assert len(got) == len(rows)
    for (items, ratings), mine in zip(rows, got, strict=True):
        want = reference(m, items, ratings, items, n_candidates)
        assert np.array_equal(np.isfinite(want), np.isfinite(mine))
        assert np.array_equal(want, mine), np.abs(want - mine)[np.isfinite(want)].max()


def test_block_lists_of_the_joint_attribute_fit_are_the_per_person_lists(joint_model):
    """The joint fit's attribute terms (each person's ridge fit in the batch kernel) as the
    per-person definition computes them; blended, so that the terms are read."""
    test_block_lists_are_the_per_person_lists(joint_model, ListBlend(popularity=0.3, like=0.7, candidates=5), 2)


@pytest.mark.parametrize("by_item", [0, 2])
@pytest.mark.parametrize("budget", [0, 2])
def test_co_clusters_found_by_item_or_by_mask_give_the_same_lists(model, by_item, budget):
    """The neighbours' co-clusters found by one pass over every co-cluster (a batch) or through
    each person's items (one list): the same list scores, against the per-person reference, in
    blocks of many people and one person at a time."""
    m = copy.copy(model)
    m.fitted_ = dataclasses.replace(model.fitted_, profiles=dataclasses.replace(model.profiles_, user_budget=budget))
    rows = _people(m, np.random.default_rng(7), 10)[::3]
    blend = m.list_blend_
    n_candidates = 0 if blend.plain else blend.candidates
    lister = Lister(m)
    lister.by_item = by_item
    together = [s.dense(t) for _, _, s in lister.blocks(People.of(rows), n_candidates) for t in range(len(s.n_cand))]
    alone = [next(iter(lister.blocks(People.of([row]), n_candidates)))[2].dense(0) for row in rows[:8]]
    for k, (items, ratings) in enumerate(rows):
        want = reference(m, items, ratings, items, n_candidates)
        assert np.array_equal(want, together[k])
        if k < len(alone):
            assert np.array_equal(want, alone[k])


@pytest.mark.parametrize("by_bits", [False, True])
def test_neighbour_rows_read_by_scan_or_by_bitsets_give_the_same_lists(model, by_bits):
    """The neighbours' votes read from their whole rows, or from their rows' bitsets at the
    candidates still short of votes (``_ranked_residuals``): the per-person reference's scores."""
    rows = _people(model, np.random.default_rng(11), 10)
    blend = ListBlend(popularity=0.3, like=0.7, candidates=8)
    m = copy.copy(model)
    m.fitted_ = dataclasses.replace(model.fitted_, list_blend=blend)
    lister = Lister(m)
    lister.by_bits = by_bits
    assert (lister._ranked_residuals() is None) != by_bits
    got = [s.dense(t) for _, _, s in lister.blocks(People.of(rows), blend.candidates) for t in range(len(s.n_cand))]
    for (items, ratings), mine in zip(rows, got, strict=True):
        assert np.array_equal(reference(m, items, ratings, items, blend.candidates), mine)


def test_a_list_never_names_what_it_is_told_not_to(model):
    """``list_key``'s ``rated`` (here: nothing, then the person's first items) is what is excluded."""
    m = copy.copy(model)
    m.fitted_ = dataclasses.replace(model.fitted_, list_blend=ListBlend(popularity=0.3, like=0.7, candidates=5))
    fp = m.profiles_
    person = user_person(m, 3)
    for rated in (np.zeros(0, dtype=np.int64), person.items[:4]):
        want = reference(m, person.items, person.ratings, rated, 5)
        assert np.array_equal(list_key(m, person, rated, 0).score, want)
    assert np.isfinite(list_key(m, person, [], 0).score[fp.ratings.row(3)]).any()  # rated items may be listed


def test_blocks_split_over_threads_give_the_lists_of_one_block(model, monkeypatch):
    import recsys.model.batch as batch

    rows = _people(model, np.random.default_rng(7), 40)
    one = np.vstack([s.dense(t) for _, _, s in Lister(model).blocks(People.of(rows)) for t in range(len(s.n_cand))])
    monkeypatch.setattr(batch, "_MIN_BLOCK", 1)
    monkeypatch.setattr(batch, "BLOCK_CELLS", 7 * model.profiles_.n_items)  # blocks of 7 people, on threads
    split = Lister(model).blocks(People.of(rows))
    many = np.vstack([s.dense(t) for _, _, s in split for t in range(len(s.n_cand))])
    assert np.array_equal(one, many)


def test_lists_of_known_and_unknown_users(model):
    fp = model.profiles_
    users = [fp.users[0], "nobody", fp.users[5]]
    lists = model.lists(users, 4)
    assert lists[1] is None and len(lists[0]) == 4
    assert [i for i, _ in lists[0]] == [r["item"] for r in model.recommend(fp.users[0], 4)]


@given(n=st.integers(0, 5000), workers=st.integers(1, 8), most=st.integers(1, 2000))
def test_blocks_cover_everyone_once_and_share_the_work_evenly(n, workers, most):
    from recsys.model.batch import _FIRST_BLOCK, _MIN_BLOCK, block_bounds

    bounds = block_bounds(n, workers, most)
    if n == 0:
        assert bounds == []
        return
    assert [lo for lo, _ in bounds] == [0] + [hi for _, hi in bounds[:-1]]  # contiguous, in order
    assert bounds[-1][1] == n and all(hi > lo for lo, hi in bounds)
    if len(bounds) == 1:  # a few people: one block, within the cap
        assert -(-n // workers) < _MIN_BLOCK and n <= most
        return
    first, rest = bounds[0][1], [hi - lo for lo, hi in bounds[1:]]
    assert first <= min(_FIRST_BLOCK, most) and max(rest) <= most  # no block past the cap
    assert max(rest) - min(rest) <= 1  # the threads' blocks are equal to within one person
    assert len(rest) % workers == 0 or len(rest) == n - first  # a multiple of the workers (or one a person)
