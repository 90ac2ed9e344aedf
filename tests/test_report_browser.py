"""The HTML report in a real browser: headless Chromium renders it; the DOM holds the user's
profile, the recommendations with reasons and the evidence chart; and the page requests nothing
from the network (Chromium's own net log, checked against a page that does request something).

Chromium is Debian's ``chromium``; ``.ci/run`` installs it and sets RECSYS_REQUIRE_BROWSER=1 so
that a missing browser fails the run instead of skipping the test.
"""

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from kit import FAST

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if CHROMIUM is None:
    if os.environ.get("RECSYS_REQUIRE_BROWSER"):
        raise RuntimeError("RECSYS_REQUIRE_BROWSER is set but no chromium is installed")
    pytest.skip("headless Chromium is not installed (apt-get install -y chromium)", allow_module_level=True)


def render(page, tmp_path):
    """``(dom, page_requests)``: the rendered DOM, and the network requests the page made."""
    netlog = tmp_path / "net.json"
    out = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--log-net-log={netlog}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    text = netlog.read_text()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # the browser may stop before closing the log
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    # the browser's own traffic (update checks, …) has no initiator; a page's requests have its origin
    requests = [
        e["params"]["url"]
        for e in log["events"]
        if e["type"] == start and e.get("params", {}).get("initiator") not in (None, "not an origin")
    ]
    return out.stdout, requests


class Dom(HTMLParser):
    """Text under elements with an id, and every src/href."""

    def __init__(self):
        super().__init__()
        self.stack, self.text, self.links, self.tags = [], {}, [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.stack.append(a.get("id"))
        self.links += [v for k, v in attrs if k in ("src", "href") and v]

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for i in self.stack:
            if i:
                self.text[i] = self.text.get(i, "") + data


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from ingest.datasets import load_movies
    from recsys.model import ProfileRecommender
    from recsys.present.report import write_user

    data = load_movies("demo", "all")
    model = ProfileRecommender(like_params=FAST, dislike_params=FAST).fit(data.train, data.attributes, data.items)
    path = tmp_path_factory.mktemp("report") / "user-5.html"
    write_user(model, 5, path)
    return path, model


def test_report_renders_with_profile_recommendations_and_evidence(report, tmp_path):
    path, model = report
    dom_text, requests = render(path, tmp_path)
    dom = Dom()
    dom.feed(dom_text)
    assert "User 5" in dom_text
    genres = model.explain(5)["like"]["genre"]
    assert genres[0]["value"] in dom.text["like-profile"]
    recs = model.recommend(5, 10)
    rec_text = dom.text["recommendations"]
    assert len(recs) >= 5 and all(r["name"] in rec_text for r in recs)
    assert rec_text.count("you liked") >= len(recs)  # a reason under every recommendation
    assert "Groups named in the list" in rec_text and "users who liked" in rec_text  # each group once, below
    assert "why (" not in dom.text["evidence"] and dom_text.count("<rect") > 10  # grids and bars drawn
    assert requests == []
    assert not [x for x in dom.links if x.startswith(("http:", "https:", "//"))]
    assert "script" not in dom.tags and "link" not in dom.tags


def test_the_network_check_can_fail(tmp_path):
    page = tmp_path / "leaky.html"
    page.write_text('<html><body><img src="http://127.0.0.1:9/pixel.png"></body></html>')
    _, requests = render(page, tmp_path)
    assert requests == ["http://127.0.0.1:9/pixel.png"]


@pytest.mark.slow
def test_evaluation_page_renders_every_method_and_requests_nothing(tmp_path):
    """``recsys evaluate --report``'s page in a real browser: a ROC curve per like/dislike method,
    a row per list method with its interval, the chosen settings; nothing fetched."""
    from kit import evaluation_setup as _setup
    from kit import taste_data

    import recsys.evaluation as ev
    from recsys.present.evaluation_report import write_evaluation

    train, test, attrs, items = taste_data()
    res = ev.evaluate(train, test, attrs, items, protocol=ev.Protocol(n_boot=50), setup=_setup())
    page = write_evaluation({**res, "dataset": "taste", "split": "80/20", "commit": "test"}, tmp_path / "e.html")
    dom_text, requests = render(page, tmp_path)
    dom = Dom()
    dom.feed(dom_text)
    assert dom_text.count('class="roc"') == len(res["methods"])
    assert all(name in dom.text["ndcg"] for name in ev.RANKERS)
    assert len(re.findall(r"\[[+-]", dom.text["ndcg"])) == len(ev.RANKERS) - 1  # an interval for all but the profile
    assert "cannot take a new user" in dom.text["strong"] and "lamb" in dom.text["chosen"]
    assert "random_support" in dom.text["ndcg"] and "full_support" in dom.text["ndcg"]
    assert requests == [] and "script" not in dom.tags
