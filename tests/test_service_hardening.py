"""``recsys serve`` against a hostile client, in a real server on 127.0.0.1: reloads that cannot be
reached from outside, bodies that cannot give a 500, slow clients cut off while others are served,
workers that agree on one model, answers that name no server path and carry the security headers.
The API fuzzed from its own schema is in tests/test_service_fuzz.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import requests
from service_kit import Server, a_person, train_demo

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("hardened")
    return {"a": train_demo(d / "a", hostile=False), "b": train_demo(d / "b", random_state=1, hostile=False)}


def model_id(server: Server) -> str:
    return server.get("/health").json()["model"]["id"]


# -- reloads ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", [{}, {"FORWARDED_ALLOW_IPS": "*"}], ids=["default", "FORWARDED_ALLOW_IPS=*"])
def test_a_forwarded_request_cannot_reload(models, env):
    """uvicorn believes X-Forwarded-For from FORWARDED_ALLOW_IPS: with '*', a client anywhere that
    says it is 127.0.0.1 was local.  Forwarded headers are now believed only from the proxies
    --forwarded-allow-ips names, and a forwarded request is never a local one."""
    server = Server(models["a"], env=env)
    try:
        before = model_id(server)
        body = {"path": str(models["b"])}
        for header in ({"x-forwarded-for": "127.0.0.1"}, {"forwarded": "for=127.0.0.1"}, {"x-real-ip": "127.0.0.1"}):
            r = server.post("/admin/reload", json=body, headers=header)
            assert r.status_code == 403 and "this machine only" in r.json()["detail"], (header, r.text)
        assert model_id(server) == before
        assert server.post("/admin/reload", json=body).status_code == 200  # the same machine, not forwarded
    finally:
        server.stop()


def test_behind_a_proxy_or_on_the_network_a_reload_needs_the_token(models):
    from fastapi.testclient import TestClient

    from recsys.service.app import Settings, create_app

    server = Server(models["a"], "--forwarded-allow-ips", "127.0.0.1")
    try:
        r = server.post("/admin/reload", json={"path": str(models["b"])})
        assert r.status_code == 403 and "behind a proxy" in r.json()["detail"] and "--admin-token" in r.json()["detail"]
    finally:
        server.stop()
    # bound to a network address (not started here: tests listen on 127.0.0.1 only)
    settings = Settings(str(models["a"]), str(models["a"].parent / "control-network.json"), local=False)
    with TestClient(create_app(settings), base_url="http://localhost", client=("127.0.0.1", 50000)) as client:
        r = client.post("/admin/reload", json={"path": str(models["b"])})
    assert r.status_code == 403 and "bound to a network address" in r.json()["detail"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_reload_body_that_is_not_declared_json_is_refused(server, models, content_type):
    """A page of another site can post a body without a preflight only as text/plain, a form or
    with no type: FastAPI ≥ 0.132 reads none of them as JSON."""
    before = model_id(server)
    headers = {"content-type": content_type} if content_type else {}
    body = json.dumps({"path": str(models["b"])}).encode()
    r = requests.post(server.url + "/admin/reload", data=body, headers=headers, timeout=30)
    if content_type is None:  # requests sends no Content-Type for bytes
        assert "content-type" not in r.request.headers
    assert r.status_code == 422 and model_id(server) == before


def test_a_foreign_host_is_refused(server):
    """A DNS-rebinding page reaches the server under its own name: that Host is not answered."""
    for host in ("evil.example", "evil.example:80", f"127.0.0.1.evil.example:{server.port}"):
        r = server.get("/health", headers={"host": host})
        assert r.status_code == 400, host
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}", "LOCALHOST"):
        assert server.get("/health", headers={"host": host}).status_code == 200, host


def test_allowed_hosts_adds_names(models):
    server = Server(models["a"], "--allowed-hosts", "recs.example.org,*.internal.example")
    try:
        for host, status in (("recs.example.org", 200), ("a.internal.example", 200), ("example.org", 400)):
            assert server.get("/health", headers={"host": host}).status_code == status, host
    finally:
        server.stop()


# -- bodies ----------------------------------------------------------------------------------------
def test_ids_and_ratings_out_of_range_are_422(server, model):
    known = int(model.profiles_.items[0])
    other = int(model.profiles_.items[1])
    bodies = {
        "item 2^64": {"ratings": [{"item": 2**64, "rating": 4}, {"item": known, "rating": 5}]},
        "item -2^63-1": {"ratings": [{"item": -(2**63) - 1, "rating": 4}, {"item": known, "rating": 5}]},
        "item 2^53+1": {"ratings": [{"item": 2**53 + 1, "rating": 4}, {"item": known, "rating": 5}]},
        "rating of 400 digits": {"ratings": [{"item": known, "rating": int("9" * 400)}]},
        "rated twice: 0-padded": {"ratings": [{"item": f"0{known}", "rating": 4}, {"item": str(known), "rating": 5}]},
        "rated twice: text and number": {"ratings": [{"item": str(known), "rating": 4}, {"item": known, "rating": 5}]},
    }
    for name, body in bodies.items():
        r = server.post("/recommendations", json=body)
        assert r.status_code == 422, (name, r.status_code, r.text[:300])
    for raw in (b'{"ratings": [{"item": %d, "rating": 1e400}]}', b'{"ratings": [{"item": %d, "rating": NaN}]}'):
        r = server.post("/recommendations", data=raw % known, headers={"content-type": "application/json"})
        assert r.status_code == 422, raw
    # ids written other than in decimal digits are not the item: ignored, never a second rating of it
    body = {"ratings": [{"item": known, "rating": 5}, {"item": other, "rating": 4}]}
    for odd in (f" {other}", f"+{other}_", "٤٢", f"{other}.0"):
        r = server.post("/recommendations", json={"ratings": [*body["ratings"], {"item": odd, "rating": 3}]})
        assert r.status_code == 200 and r.json()["ignored"] == [odd], (odd, r.text[:300])


# -- slow clients ----------------------------------------------------------------------------------
def slow_client(port: int, part: str, closed_after: list, stop: threading.Event) -> None:
    """A client sending its request's headers (``part="headers"``), or its body after quick headers
    (``part="body"``), a byte every 2 s; records how long the server kept the connection open."""
    body = b'{"ratings": [{"item": 1, "rating": 5}]}'
    head = b"POST /recommendations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: %d\r\n\r\n" % len(body)
    slow, start = (head + body, 0) if part == "headers" else (body, len(head))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        t0 = time.monotonic()
        s.sendall((head + body)[:start])
        try:
            for k in range(len(slow)):
                if stop.is_set():
                    return
                s.sendall(slow[k : k + 1])
                s.settimeout(2.0)
                try:  # the server's answer (408) or its close ends the wait early
                    if s.recv(4096) == b"":
                        break
                except TimeoutError:
                    continue
                break
        except OSError:  # reset by the server
            pass
        closed_after.append(time.monotonic() - t0)


@pytest.mark.slow
def test_slow_clients_are_cut_off_while_others_are_served(server, model):
    """Twenty slow clients (headers or body a byte at a time) are cut off at the deadlines while
    twenty people use the page: nobody waits behind them.  Latencies are read against the same
    traffic measured just before, without the slow clients (medians, a ratio in one run: the
    machine's own load moves both); a server held by the slow clients would make people wait
    seconds (5 s deadlines), which the 99th percentile is read against."""
    closed: dict[str, list] = {"headers": [], "body": []}
    latencies: dict[str, list] = {"alone": [], "beside slow clients": []}
    errors, stop, phase = [], threading.Event(), ["alone"]
    person = a_person(model, n=10)

    def normal_client(k: int) -> None:
        """The page's traffic at a person's pace: health, a user's list, a new person's list."""
        with requests.Session() as http:
            for t in range(10_000):
                if stop.is_set():
                    return
                t0 = time.perf_counter()
                if (k + t) % 3 == 0:
                    r = http.get(server.url + "/health", timeout=30)
                elif (k + t) % 3 == 1:
                    r = http.get(server.url + f"/users/{1 + k}/recommendations", timeout=30)
                else:
                    r = http.post(server.url + "/recommendations", json={"ratings": person}, timeout=30)
                latencies[phase[0]].append(time.perf_counter() - t0)
                if r.status_code != 200:
                    errors.append(r.status_code)
                time.sleep(0.25)

    slow = [
        threading.Thread(target=slow_client, args=(server.port, part, closed[part], stop))
        for part in ("headers", "body")
        for _ in range(10)
    ]
    normal = [threading.Thread(target=normal_client, args=(k,)) for k in range(20)]
    for t in normal:
        t.start()
    time.sleep(5)
    phase[0] = "beside slow clients"
    for t in slow:
        t.start()
    for t in slow:
        t.join(20)
    stop.set()
    for t in normal:
        t.join(30)
    assert len(closed["headers"]) == 10 and len(closed["body"]) == 10, closed
    assert max(closed["headers"]) < 10 and max(closed["body"]) < 10, closed  # the defaults: 5 s each
    # medians against each other: the suite's second process moves a p99 of ~200 latencies (its
    # second-largest) by tens of ms; the tail is read against the seconds a held server would cost
    alone, beside = (np.percentile(latencies[p], 50) for p in ("alone", "beside slow clients"))
    tail = np.percentile(latencies["beside slow clients"], 99)
    assert errors == [] and len(latencies["alone"]) > 100 and len(latencies["beside slow clients"]) > 200
    assert beside <= 2 * alone + 0.05 and tail < 1.0, (alone, beside, tail)


@pytest.mark.slow
def test_a_silent_connection_is_closed_and_answered_408(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers never end
        answer = s.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408") and 4 < time.monotonic() - t0 < 8, answer[:100]


# -- workers and reloads ---------------------------------------------------------------------------
def worker_models(server: Server, seconds: float) -> dict:
    """The model of each worker, asked on fresh connections until they agree or ``seconds`` pass."""
    seen, deadline = {}, time.monotonic() + seconds
    while time.monotonic() < deadline:
        h = requests.get(server.url + "/health", headers={"connection": "close"}, timeout=30).json()
        seen[h["worker"]] = (h["generation"], h["model"]["id"])
        if len(seen) == 2 and len(set(seen.values())) == 1:
            break
        time.sleep(0.02)
    return seen


@pytest.mark.slow
def test_two_reloads_at_once_leave_every_worker_on_one_model(models):
    server = Server(models["a"], "--workers", "2")
    try:
        assert len(set(worker_models(server, 30).values())) == 1  # both up, on the first model
        for _ in range(3):
            answers: list = []

            def reload(path, answers=answers):
                r = requests.post(
                    server.url + "/admin/reload", json={"path": str(path)}, headers={"connection": "close"}, timeout=60
                )
                answers.append((r.status_code, r.json()["generation"], r.json()["model"]["id"]))

            threads = [threading.Thread(target=reload, args=(models[k],)) for k in ("a", "b")]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            t0 = time.monotonic()
            seen = worker_models(server, 5)
            assert len(seen) == 2 and len(set(seen.values())) == 1, seen
            assert time.monotonic() - t0 <= 2.0
            # the two reloads were taken in turn: the one published last is what both serve
            assert sorted(g for _, g, _ in answers)[1] == next(iter(seen.values()))[0]
            assert max(answers, key=lambda a: a[1])[2] == next(iter(seen.values()))[1]
    finally:
        server.stop()


def replace_directory(path: Path, source: Path) -> None:
    """Replace ``path`` by a copy of ``source`` as ``recsys train --out`` does (renames)."""
    tmp = path.with_name(f".{path.name}-new")
    shutil.copytree(source, tmp)
    old = path.with_name(f".{path.name}-old")
    os.replace(path, old)
    os.replace(tmp, path)
    shutil.rmtree(old)


@pytest.mark.slow
def test_a_directory_replaced_during_reloads_never_serves_a_mixture(models, tmp_path):
    from recsys.store import load_with_hash

    target = tmp_path / "live"
    shutil.copytree(models["a"], target)
    hashes = {load_with_hash(models[k])[1][:12] for k in ("a", "b")}
    server = Server(models["a"])
    stop = threading.Event()

    def churn():
        k = 0
        while not stop.is_set():
            replace_directory(target, models["ab"[k % 2]])
            k += 1
            time.sleep(0.01)

    churner = threading.Thread(target=churn)
    churner.start()
    try:
        statuses = {}
        for _ in range(40):
            before = model_id(server)
            r = server.post("/admin/reload", json={"path": str(target)})
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            after = model_id(server)
            assert r.status_code in (200, 422), r.text[:300]
            assert after in hashes  # a whole model, never manifest of one and arrays of the other
            if r.status_code == 422:
                assert after == before and "still serving" in r.json()["detail"][0]["msg"]
        assert statuses.get(200, 0) > 0, statuses
    finally:
        stop.set()
        churner.join()
        server.stop()


def test_a_load_reads_one_directory_even_when_it_is_replaced_midway(models, tmp_path, monkeypatch):
    """The manifest read, the directory replaced, then the arrays read: both of the first."""
    from recsys import store

    target = tmp_path / "live"
    shutil.copytree(models["a"], target)
    manifest = store._manifest

    def manifest_then_replace(path, raw):
        replace_directory(target, models["b"])
        return manifest(path, raw)

    expected, digest = store.load_with_hash(models["a"])
    monkeypatch.setattr(store, "_manifest", manifest_then_replace)
    model, loaded = store.load_with_hash(target)
    assert loaded == digest and (target / "arrays.npz").read_bytes() == (models["b"] / "arrays.npz").read_bytes()
    assert model.manifest_ == expected.manifest_
    assert np.array_equal(model.profiles_.ratings.values, expected.profiles_.ratings.values)
    assert [len(c) for c in (model.profiles_.like, model.profiles_.dislike)] == [
        len(c) for c in (expected.profiles_.like, expected.profiles_.dislike)
    ]


def test_a_failed_catch_up_is_tried_again(models, tmp_path, monkeypatch):
    """A worker that cannot load the published model keeps its own and tries again until it can."""
    from recsys.service import slot as slots

    monkeypatch.setattr(slots.ModelSlot, "RETRY_FIRST", 0.05)
    control = tmp_path / "control.json"
    live = tmp_path / "live"
    shutil.copytree(models["b"], live)
    publisher, follower = slots.ModelSlot(models["a"], control), slots.ModelSlot(models["a"], control)
    publisher.reload(live)
    arrays = (live / "arrays.npz").read_bytes()
    (live / "arrays.npz").write_bytes(b"broken for a while")
    deadline = time.monotonic() + 5
    while follower._failures < 2 and time.monotonic() < deadline:
        assert follower.current().generation == 0  # the old model answers meanwhile
        time.sleep(0.01)
    assert follower._failures >= 2
    (live / "arrays.npz").write_bytes(arrays)  # the same content as published: it loads now
    deadline = time.monotonic() + 10
    while follower.current().generation != 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert follower.current().generation == 1 and follower.current().model_id == publisher.current().model_id


# -- what answers say ------------------------------------------------------------------------------
def test_health_and_reports_name_no_server_path(server, models):
    h = server.get("/health")
    assert h.ok
    text = h.text + server.get("/users/1/report").text
    for secret in (str(models["a"]), str(models["a"].resolve()), str(Path.home()), "/tmp"):
        assert secret not in text
    worker = h.json()["worker"]  # one worker: uvicorn serves in the process started
    assert "path" not in h.json()["model"] and worker != str(server.proc.pid) and len(worker) == 8


def test_every_answer_carries_the_security_headers(server, model):
    answers = [
        server.get("/"),
        server.get("/health"),
        server.get("/page.js"),
        server.get("/docs"),
        server.get("/users/no-such-user/recommendations"),
        server.get("/health", headers={"host": "evil.example"}),
        server.post("/recommendations", data=b"x" * 2_000_000),
    ]
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 404, 400, 413]
    for r in answers:
        assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
    page = answers[0].text
    assert '<script src="/page.js"></script>' in page and page.count("<script") == 1  # nothing inline


def test_docs_need_no_third_party_and_can_be_switched_off(server, models):
    docs = server.get("/docs")
    assert docs.ok and "<script" not in docs.text and "cdn" not in docs.text.lower()
    assert "/recommendations" in docs.text and "NewPerson" in docs.text
    assert server.get("/redoc").status_code == 404
    quiet = Server(models["a"], "--no-docs")
    try:
        assert quiet.get("/docs").status_code == 404 and quiet.get("/openapi.json").status_code == 404
        assert quiet.get("/health").ok and 'href="/docs"' not in quiet.get("/").text
    finally:
        quiet.stop()


def test_serve_refuses_bad_deadlines_and_host_patterns(models):
    from service_kit import run_cli

    for args, says in (
        (("--header-timeout", "0"), "--header-timeout must be between"),
        (("--limit-concurrency", "0"), "--limit-concurrency must be at least 1"),
        (("--allowed-hosts", "a.*.example"), "--allowed-hosts: 'a.*.example'"),
    ):
        r = run_cli("serve", str(models["a"]), *args)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
