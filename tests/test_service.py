"""``recsys serve``: the real server (the CLI, uvicorn, a free port on 127.0.0.1) answering like
the library, refusing bad input with the status named, surviving 1,000 malformed requests, and
swapping models without dropping a request.  The page is clicked through in headless Chromium
(tests/test_service_page.py)."""

from __future__ import annotations

import json
import shutil
import threading
import time

import numpy as np
import pytest
import requests
from kit import list_total
from service_kit import HOSTILE, Server, a_person, free_port, run_cli, train_demo

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("served")
    a = train_demo(d / "a")
    b = train_demo(d / "b", random_state=1, hostile=False)
    broken = d / "broken"
    shutil.copytree(a, broken)
    (broken / "arrays.npz").write_bytes(b"not a zip file")
    return {"a": a, "b": b, "broken": broken}


def test_health_names_the_model_and_counts(server, model):
    h = server.get("/health").json()
    fp = model.profiles_
    assert h["status"] == "ok" and h["generation"] == 0 and len(h["model"]["id"]) == 12
    assert h["counts"] == {
        "users": fp.n_users,
        "items": fp.n_items,
        "ratings": fp.ratings.nnz,
        "like_coclusters": len(fp.like),
        "dislike_coclusters": len(fp.dislike),
    }
    assert h["model"]["dataset"] == "demo" and "commit" in h["model"]


def test_title_search(server, model):
    fp = model.profiles_
    found = server.get("/items", params={"q": "GARDEN", "limit": 5}).json()["items"]
    assert 0 < len(found) <= 5 and all("garden" in x["name"].lower() for x in found)
    assert [x["ratings"] for x in found] == sorted((x["ratings"] for x in found), reverse=True)
    everything = server.get("/items", params={"q": "garden", "limit": 100}).json()["items"]
    titles = [t for t in fp.item_titles.tolist() if "garden" in t.lower()]
    assert len(everything) == min(100, len(titles))
    hostile = server.get("/items", params={"q": "<script>"}).json()["items"]
    assert len(hostile) == 1 and HOSTILE in hostile[0]["name"]  # data, returned as text


def test_user_lists_predictions_and_profiles_are_the_librarys(server, model):
    fp = model.profiles_
    for user in fp.users[:5].tolist():
        body = server.get(f"/users/{user}/recommendations", params={"n": 7}).json()
        assert body["user"] == user
        assert body["recommendations"] == json.loads(json.dumps(model.recommend(user, 7)))
        assert not set(x["item"] for x in body["recommendations"]) & set(
            fp.items[fp.ratings.row(fp.user_index([user])[0])].tolist()
        )
        item = body["recommendations"][0]["item"]
        pred = server.get(f"/users/{user}/items/{item}").json()
        ex = model.predict(user, item).to_dict()
        assert pred["score"] == pytest.approx(ex["score"]) and pred["prediction"] == ex["prediction"]
        assert sum(line["contribution"] for line in pred["lines"]) == pytest.approx(pred["logit"], abs=1e-6)
        profile, full = server.get(f"/users/{user}/profile", params={"limit": 3}).json(), model.explain(user)
        assert profile["like"] == {kind: values[:3] for kind, values in json.loads(json.dumps(full["like"])).items()}
        assert profile["counts"]["like"]["movies"] == len(full["like_movies"]) and len(profile["like_movies"]) <= 3
        assert profile["like_strongest"] == json.loads(json.dumps(full["like_strongest"]))


def test_a_new_person_gets_the_fold_in_list(server, model):
    ratings = a_person(model)
    body = server.post(
        "/recommendations", json={"ratings": ratings + [{"item": "no-such-movie", "rating": 4}], "n": 10}
    ).json()
    assert body["ignored"] == ["no-such-movie"]
    expected = model.recommend({r["item"]: r["rating"] for r in ratings}, 10)
    assert body["recommendations"] == json.loads(json.dumps(expected)) and len(expected) == 10
    assert not {r["item"] for r in ratings} & {x["item"] for x in body["recommendations"]}
    for rec in body["recommendations"]:  # each reason's weights and the rest add up to the score
        assert list_total(rec) == pytest.approx(rec["score"], abs=1e-6)


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/users/no-such-user/recommendations", 404, "unknown user no-such-user"),
        ("/users/no-such-user/profile", 404, "unknown user no-such-user"),
        ("/users/1/items/no-such-item", 404, "unknown item no-such-item"),
        ("/users/no-such-user/items/1", 404, "unknown user no-such-user"),
        ("/users/1/recommendations?n=0", 422, "n"),
        ("/users/1/recommendations?n=ten", 422, "n"),
        ("/items?limit=100000", 422, "limit"),
        ("/nowhere", 404, "Not Found"),
    ],
)
def test_bad_requests_are_named(server, path, status, says):
    r = server.get(path)
    assert r.status_code == status and says in json.dumps(r.json())


def _bodies(model):
    ok = {"item": int(model.profiles_.items[0]), "rating": 4}
    return [
        (json.dumps({"ratings": [{**ok, "rating": 9}]}), ["body", "ratings", 0, "rating"], "between 1 and 5"),
        (json.dumps({"ratings": [ok, {**ok, "rating": -1}]}), ["body", "ratings", 1, "rating"], "between"),
        ('{"ratings": [{"item": 1, "rating": NaN}]}', ["body", "ratings", 0, "rating"], "finite number"),
        (json.dumps({"ratings": [{**ok, "rating": "4"}]}), ["body", "ratings", 0, "rating"], "valid number"),
        (json.dumps({"ratings": [{**ok, "rating": True}]}), ["body", "ratings", 0, "rating"], "valid"),
        (json.dumps({"ratings": [{"rating": 4}]}), ["body", "ratings", 0, "item"], "Field required"),
        (json.dumps({"ratings": [ok, ok]}), ["body", "ratings", 1, "item"], "rated twice"),
        (json.dumps({"ratings": []}), ["body", "ratings"], "at least 1"),
        (json.dumps({"ratings": [ok], "n": 0}), ["body", "n"], "greater than or equal"),
        (json.dumps({"ratings": [ok], "n": "10"}), ["body", "n"], "valid integer"),
        (json.dumps({"ratings": [ok], "colour": "red"}), ["body", "colour"], "Extra inputs"),
        (json.dumps({"ratings": [{"item": "nope", "rating": 3}]}), ["body", "ratings"], "none of the rated items"),
        ('{"ratings": [{"item": 1,', ["body", 24], "JSON decode error"),  # loc: the offset
        ("[1, 2]", ["body"], "valid dictionary"),
    ]


def test_bad_bodies_are_422_naming_the_field(server, model):
    for body, loc, says in _bodies(model):
        r = server.post("/recommendations", data=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, body
        detail = r.json()["detail"]
        assert any(d["loc"][: len(loc)] == loc and says in d["msg"] for d in detail), (body, detail)


def test_a_body_over_the_limit_is_413(server, model):
    big = json.dumps({"ratings": a_person(model, 50) * 1000})  # ~1.5 MB, over the default 1 MB
    r = server.post("/recommendations", data=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over the limit of 1,000,000 bytes" in r.json()["detail"]
    chunks = iter([big[i : i + 65536].encode() for i in range(0, len(big), 65536)])
    chunked = server.post("/recommendations", data=chunks, headers={"content-type": "application/json"})
    assert chunked.status_code == 413  # no Content-Length: counted as it streams
    assert server.get("/health").ok


def test_kept_alive_connections_are_recycled(models):
    server = Server(models["a"], "--requests-per-connection", "5")
    try:
        with requests.Session() as http:  # one connection, reopened after every fifth answer
            closing = [http.get(server.url + "/health", timeout=30).headers.get("connection") for _ in range(12)]
        assert closing == [None] * 4 + ["close"] + [None] * 4 + ["close", None, None]
    finally:
        server.stop()


def test_answers_are_plain_json_with_null_for_non_finite_numbers():
    from recsys.service.app import Json

    body = Json({"score": float("nan"), "n": np.int64(3), "title": "Amélie", "x": [np.float64(0.5)]}).body
    assert json.loads(body) == {"score": None, "n": 3, "title": "Amélie", "x": [0.5]}


def test_openapi_schema_lists_the_endpoints(server):
    paths = server.get("/openapi.json").json()["paths"]
    assert {
        "/health",
        "/items",
        "/users/{user}/recommendations",
        "/users/{user}/items/{item}",
        "/recommendations",
        "/users/{user}/profile",
        "/admin/reload",
    } <= set(paths)
    assert "NewPerson" in json.dumps(server.get("/openapi.json").json()["components"])


def test_html_pages_show_hostile_titles_as_text(server, model):
    page = server.get("/")
    assert page.status_code == 200 and "Rate a few movies" in page.text
    assert "http" not in server.get("/page.js").text  # its script calls the service only
    shown = 0
    for user in model.profiles_.users[:20].tolist():
        report = server.get(f"/users/{user}/report").text
        assert "<script>window.__pwned" not in report and "<img src=x" not in report
        shown += "&lt;script&gt;window.__pwned" in report
    assert shown > 0


def malformed_requests(model, n: int, seed: int = 0):
    """A seeded stream of broken requests: wrong methods and paths, odd query values, bodies of
    random bytes, truncated or mutated JSON, wrong types at every field."""
    rng = np.random.default_rng(seed)
    user, item = model.profiles_.users[0].item(), model.profiles_.items[0].item()
    valid = json.dumps({"ratings": [{"item": item, "rating": 4}, {"item": item + 1, "rating": 2}], "n": 5})
    junk = [None, True, -1, 0, 1e308, "", "x" * 300, [], {}, [None], {"a": 1}, "NaN", -0.0, 10**30]
    paths = ["/recommendations"] * 5 + [
        "/users/%s/recommendations",
        "/users/%s/items/%s",
        "/items",
        "/users/%s/profile",
        "/admin/reload",
        "/health",
        "/users//items/",
        "/users/%s",
        "/%2e%2e/%2e%2e/etc/passwd",
    ]
    for _ in range(n):
        kind = rng.integers(6)
        path = str(rng.choice(paths))
        path = path.replace("%s", str(rng.choice([user, item, "ü", "<b>", "-1", "%00", " "])))
        params = {
            str(rng.choice(["n", "q", "limit", "x"])): str(junk[int(rng.integers(len(junk)))])
            for _ in range(rng.integers(3))
        }
        if kind == 0:
            body = rng.bytes(int(rng.integers(0, 2000)))
        elif kind == 1:
            body = valid[: int(rng.integers(len(valid)))].encode()
        elif kind == 2:
            doc = json.loads(valid)
            target = doc["ratings"][int(rng.integers(2))] if rng.random() < 0.7 else doc
            target[str(rng.choice(list(target) + ["extra"]))] = junk[int(rng.integers(len(junk)))]
            body = json.dumps(doc).encode()
        elif kind == 3:
            body = json.dumps(junk[int(rng.integers(len(junk)))]).encode()
        else:
            body = bytearray(valid.encode())
            for _ in range(int(rng.integers(1, 5))):
                body[int(rng.integers(len(body)))] = int(rng.integers(256))
            body = bytes(body)
        method = "POST" if path in ("/recommendations", "/admin/reload") else "GET"
        if rng.random() < 0.2:
            method = str(rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH"]))
        ctype = str(rng.choice(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]))
        yield method, path, params, body, ctype


def test_a_thousand_malformed_requests_break_nothing(server, model):
    statuses = {}
    with requests.Session() as http:
        for method, path, params, body, ctype in malformed_requests(model, 1000):
            headers = {"content-type": ctype} if ctype else {}
            r = http.request(method, server.url + path, params=params, data=body, headers=headers, timeout=30)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            assert r.status_code < 500, (method, path, params, body[:200], r.text[:500])
    assert sum(statuses.values()) == 1000 and statuses.get(422, 0) > 300, statuses  # the checks did the refusing
    h = server.get("/health")
    assert h.ok and h.json()["status"] == "ok"
    assert server.proc.poll() is None


@pytest.mark.slow
def test_reload_swaps_models_without_losing_a_request(models, model):
    server = Server(models["a"])
    try:
        first = server.get("/health").json()["model"]["id"]
        ratings = a_person(model)
        errors, answered, stop = [], [0], threading.Event()

        def client():
            with requests.Session() as http:
                while not stop.is_set():
                    for r in (
                        http.post(server.url + "/recommendations", json={"ratings": ratings}, timeout=30),
                        http.get(server.url + "/users/1/recommendations", timeout=30),
                    ):
                        answered[0] += 1
                        if r.status_code != 200:
                            errors.append(r.status_code)

        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        ids = []
        for path in ("b", "a", "b", "broken", "a"):
            time.sleep(0.3)
            r = server.post("/admin/reload", json={"path": str(models[path])})
            if path == "broken":
                assert r.status_code == 422 and "still serving model" in r.json()["detail"][0]["msg"]
            else:
                assert r.status_code == 200
            ids.append(server.get("/health").json()["model"]["id"])
        stop.set()
        for t in threads:
            t.join()
        assert errors == [] and answered[0] > 20
        assert ids[0] != first and ids == [ids[0], first, ids[0], ids[0], first]  # broken: the old one stays
        assert server.get("/health").json()["generation"] == 4
    finally:
        server.stop()


def test_reload_needs_the_token_when_one_is_set(models):
    server = Server(models["a"], "--admin-token", "s3cret")
    try:
        body = {"path": str(models["b"])}
        assert server.post("/admin/reload", json=body).status_code == 403
        assert server.post("/admin/reload", json=body, headers={"authorization": "Bearer wrong"}).status_code == 403
        assert server.post("/admin/reload", json=body, headers={"authorization": "Bearer s3cret"}).status_code == 200
    finally:
        server.stop()


def test_reload_is_refused_from_outside_the_loopback(models):
    from fastapi.testclient import TestClient

    from recsys.service.app import Settings, create_app

    app = create_app(Settings(str(models["a"]), str(models["a"].parent / "control-outside.json")))
    # a documentation address, never contacted
    with TestClient(app, base_url="http://localhost", client=("192.0.2.7", 50000)) as client:
        r = client.post("/admin/reload", json={"path": str(models["b"])})
    assert r.status_code == 403 and "loopback address only" in r.json()["detail"]


@pytest.mark.slow
def test_every_worker_follows_a_reload(models):
    server = Server(models["a"], "--workers", "2")
    try:
        assert server.post("/admin/reload", json={"path": str(models["b"])}).status_code == 200
        # the other worker loads the new model in the background, answering with the old one meanwhile
        latest, deadline = {}, time.monotonic() + 60
        while time.monotonic() < deadline and not (len(latest) == 2 and set(latest.values()) == {1}):
            h = requests.get(server.url + "/health", headers={"connection": "close"}, timeout=30).json()
            latest[h["worker"]] = h["generation"]
            time.sleep(0.05)
        assert len(latest) == 2 and set(latest.values()) == {1}, latest
    finally:
        server.stop()


def test_a_worker_still_loading_catches_up_with_a_reload(models, tmp_path, monkeypatch):
    """A reload published while another worker loads its first model is not missed by it."""
    from recsys.service import slot as slots

    control = tmp_path / "control.json"
    first = slots.ModelSlot(models["a"], control)
    load = slots.Served.load

    def load_while_the_other_reloads(path, generation):
        if generation == 0 and not hasattr(load_while_the_other_reloads, "done"):
            load_while_the_other_reloads.done = True
            first.reload(models["b"])  # published while the second worker is loading
        return load(path, generation)

    monkeypatch.setattr(slots.Served, "load", staticmethod(load_while_the_other_reloads))
    second = slots.ModelSlot(models["a"], control)
    deadline = time.monotonic() + 30
    while second.current().generation != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert second.current().generation == 1 and second.current().path == str(models["b"].resolve())


@pytest.mark.slow
def test_serve_refuses_a_broken_model_or_a_busy_port(models, server):
    r = run_cli("serve", str(models["broken"]), "--port", str(free_port()))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "corrupt model files" in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("serve", str(models["a"]), "--port", str(server.port))
    assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{server.port}" in r.stderr
    r = run_cli("serve", str(models["a"]), "--workers", "0")
    assert r.returncode == 2 and "--workers must be at least 1" in r.stderr


def test_starters_are_popular_and_varied():
    from recsys.model.csr import Csr
    from recsys.service.starters import varied_popular

    # items 0-5 all comedies, most rated first; 6 and 7 dramas; 8 never rated; 9 has no genre
    popularity = np.array([90, 80, 70, 60, 50, 40, 30, 20, 0, 10])
    genre = [0] * 6 + [1, 1, 1]
    attrs = Csr.from_pairs(list(range(9)), genre, (10, 5))
    names = ["genre:Comedy", "genre:Drama", "genre:War", "genre:Western", "director:X"]  # 4 genres: 2 picks each
    assert varied_popular(popularity, attrs, names, 4).tolist() == [0, 1, 6, 7]
    assert varied_popular(popularity, attrs, names, 3).tolist() == [0, 1, 6]
    picks = varied_popular(popularity, attrs, names, 9)
    assert picks.tolist() == [0, 1, 2, 3, 4, 6, 7, 9, 5]  # 5 comedies at most, then the rest; 8 never rated
