"""A list's reasons as a person reads them: the shown terms and the rest add up to the score, each
group is described once, the heaviest terms come first."""

import pytest
from kit import FAST, adds_up, taste_data

from recsys.model import ProfileRecommender
from recsys.present.digest import digest
from recsys.present.text import recommendation_lines


@pytest.fixture(scope="module")
def model():
    ratings, _, attributes, items = taste_data()
    return ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(ratings, attributes, items)


def test_shown_terms_and_the_rest_add_up_to_the_score(model):
    users = model.profiles_.users[:20]
    for u in users:
        recs = model.recommend(u, 10)
        d = digest(recs)
        adds_up(d)
        assert all(len(r["shown"]) <= 3 for r in d["items"])
        named = {t["group"] for r in d["items"] for t in r["shown"] if t["group"]}
        assert set(d["groups"]) == named  # every group a shown reason names, described once
        text = "\n".join(recommendation_lines(recs, u, "scored"))
        assert all(text.count(f"  {g} ") == 1 for g in d["groups"])  # described once in the text


def test_the_papers_rule_keeps_its_reasons(model):
    recs = model.recommend(model.profiles_.users[0], 5, mode="paper")
    d = digest(recs)
    assert all(r["own"] is None and r["blend"] == [] for r in d["items"])
    assert [t["text"] for r in d["items"] for t in r["shown"]] == [x for r in recs for x in r["reasons"]]
