"""The page of ``recsys serve`` clicked through in real headless Chromium (Playwright driving
Debian's ``chromium`` through ``executable_path``): search, rate five movies, get ten
recommendations without the rated ones, each with its reasons; hostile titles stay text; the page
asks nothing of any other address."""

from __future__ import annotations

import os
import shutil

import pytest
from kit import FAST
from service_kit import HOSTILE, Server, train_demo

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    if os.environ.get("RECSYS_REQUIRE_BROWSER"):
        raise RuntimeError("RECSYS_REQUIRE_BROWSER is set but no chromium is installed")
    pytest.skip("headless Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api")
# waits through locators: the page's Content-Security-Policy forbids the eval a string predicate
# of wait_for_function needs whenever it has to poll
expect = playwright.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(train_demo(tmp_path_factory.mktemp("page") / "model"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def test_a_new_person_rates_five_movies_and_gets_ten(server, browser):
    page = browser.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(server.url + "/")
    rated = []
    for query in ("garden", "station", "mirror", "the", "the"):
        page.fill("#search", query)
        expect(page.locator("#results-title")).to_contain_text(query)  # the results of this search, not the starters
        page.wait_for_selector("#results li[data-item]")
        shown = page.eval_on_selector_all("#results li[data-item]", "els => els.map(e => e.dataset.item)")
        rated.append(next(item for item in shown if item not in rated))
        # the row by its item, not its place: a rating re-renders the results while the next search runs
        page.locator(f"#results li[data-item='{rated[-1]}'] button[data-rating='5']").click()
        expect(page.locator("#rated li")).to_have_count(len(rated))
    # the list answers all five ratings, not the four before (whose answer may still be shown)
    expect(page.locator("#recommendations")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#recommendations > li")).to_have_count(10)
    expect(page.locator("#rated-count")).to_have_text("5")
    listed = page.eval_on_selector_all("#recommendations > li", "els => els.map(e => e.dataset.item)")
    assert len(listed) == 10 and not set(listed) & set(rated)
    reasons = page.locator("#recommendations").inner_text()
    assert reasons.count("you liked") >= 10 and "your movies" in reasons
    groups = page.eval_on_selector_all("#groups dt", "els => els.map(e => e.textContent)")
    named = page.eval_on_selector_all("#recommendations a.group", "els => els.map(e => e.textContent)")
    assert groups and set(named) == set(groups) and len(groups) == len(set(groups))  # each group once
    assert all(g.startswith("L") for g in groups) and "users who liked" in page.locator("#groups").inner_text()
    assert page.locator("#status").inner_text() == ""
    assert all(u.startswith(server.url) for u in asked), asked


def test_hostile_titles_are_shown_as_text(server, browser):
    page = browser.new_page()
    page.goto(server.url + "/")
    page.fill("#search", "<script>")
    page.wait_for_selector("#results li[data-item]")
    assert HOSTILE in page.locator("#results").inner_text()
    page.locator("#results button[data-rating='5']").first.click()
    page.wait_for_selector("#recommendations > li")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#results img").count() == 0


def test_a_known_users_report_opens(server, browser):
    page = browser.new_page()
    page.goto(server.url + "/")
    page.fill("#user", "5")
    page.click("#known button")
    page.wait_for_url("**/users/5/report")
    assert "User 5" in page.locator("h1").inner_text()
    assert page.locator("#recommendations").inner_text().count("you liked") >= 5


def test_the_page_opens_with_popular_varied_movies_to_rate(server, browser):
    import json
    import urllib.request

    page = browser.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#results li[data-item]")).to_have_count(12)
    expect(page.locator("#results li[data-item] button[data-rating='5']")).to_have_count(12)
    shown = page.eval_on_selector_all("#results li[data-item]", "els => els.map(e => e.dataset.item)")
    assert len(shown) == 12 and "Popular movies" in page.locator("#results-title").inner_text()
    with urllib.request.urlopen(server.url + "/items/starters?limit=12") as r:
        starters = json.load(r)["items"]
    assert [str(it["item"]) for it in starters] == shown
    page.locator("#results li[data-item] button[data-rating='5']").first.click()
    page.wait_for_selector("#recommendations > li")
    page.fill("#search", "")  # an emptied search comes back to the starters
    expect(page.locator("#results-title")).to_have_text("Popular movies to start with")


def test_the_api_reference_renders_offline(server, browser):
    page = browser.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(server.url + "/docs")
    text = page.locator("body").inner_text()
    for path in ("/items/starters", "/recommendations", "/users/{user}/recommendations", "/health"):
        assert path in text, path
    assert all(u.startswith(server.url) for u in asked), asked  # nothing from a CDN: it works offline


@pytest.fixture(scope="module")
def implicit_server(tmp_path_factory):
    """A model of plays (no ratings: implicit feedback), served."""
    from test_implicit import plays

    from recsys.model import ProfileRecommender
    from recsys.store import save

    out = tmp_path_factory.mktemp("implicit") / "model"
    save(ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(plays()), out, {"split": "all"})
    s = Server(out)
    yield s
    s.stop()


def test_a_new_person_picks_items_of_a_model_of_plays(implicit_server, browser):
    """No stars and no like chance for a model of implicit feedback: a person picks the items they
    chose and gets a list whose reasons name the groups who chose both; their report has no dislike side."""
    page = browser.new_page()
    page.goto(implicit_server.url + "/")
    assert "Pick a few items" in page.locator("h1").inner_text()
    expect(page.locator("#results li[data-item]")).to_have_count(12)
    assert page.locator("#results button[data-rating]").count() == 0
    for k in range(3):
        row = page.locator("#results li[data-item]").nth(k)
        row.locator("button", has_text="I chose it").click()
        expect(page.locator("#rated li")).to_have_count(k + 1)
    expect(page.locator("#recommendations")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#recommendations > li")).to_have_count(10)
    reasons = page.locator("#recommendations").inner_text()
    assert "you chose" in reasons and "your items" in reasons and "like-probability" not in reasons
    assert "users who chose" in page.locator("#groups").inner_text()
    assert page.locator("#status").inner_text() == ""
    page.goto(implicit_server.url + "/users/u0/report")
    text = page.locator("body").inner_text()
    assert "What this user chooses" in text and "Dislikes" not in text and "dislike co-clusters" not in text
