"""Downloads against a local HTTP server on 127.0.0.1 serving files the tests build."""

import hashlib
import http.server
import io
import json
import threading
import zipfile

import pytest
from typer.testing import CliRunner

from ingest import datahome
from ingest.datahome import Dataset, RemoteFile, fetch
from ingest.errors import DownloadError
from recsys.cli import app


def make_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("ml-tiny/u.data", "1\t1\t5\t1\n")
        z.writestr("ml-tiny/README", "tiny\n")
    return buf.getvalue()


class Server:
    """Serves ``files`` (path → bytes); ``truncate`` paths send half the body with the full length."""

    def __init__(self, files, truncate=()):
        self.hits = 0
        self.files = files
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.hits += 1
                body = files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if self.path in truncate else body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def register(monkeypatch, url, digest):
    ds = Dataset("ml-tiny", "ml-tiny", (RemoteFile(url, f"sha256:{digest}"),), "u.data", "tiny test set")
    monkeypatch.setitem(datahome.REGISTRY, "ml-tiny", ds)
    return ds


def leftovers(home):
    return sorted(p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file())


def test_fetch_verifies_unpacks_and_reuses_cache(tmp_path, monkeypatch):
    body = make_zip()
    with Server({"/ml-tiny.zip": body}) as srv:
        register(monkeypatch, srv.url + "/ml-tiny.zip", hashlib.sha256(body).hexdigest())
        out = fetch("ml-tiny", tmp_path, progress=False)
        assert (out / "u.data").read_text() == "1\t1\t5\t1\n" and (out / "README").exists()
        assert srv.hits == 1
        fetch("ml-tiny", tmp_path, progress=False)  # already in place: nothing downloaded
        assert srv.hits == 1
    # the server is gone: a re-fetch after deleting the folder is served by the cache
    import shutil

    shutil.rmtree(out)
    assert (fetch("ml-tiny", tmp_path, progress=False) / "u.data").exists()


def test_corrupted_download_is_rejected_and_leaves_nothing(tmp_path, monkeypatch):
    body = make_zip()
    with Server({"/ml-tiny.zip": body[:-10] + b"0123456789"}) as srv:
        register(monkeypatch, srv.url + "/ml-tiny.zip", hashlib.sha256(body).hexdigest())
        with pytest.raises(DownloadError, match="rejected"):
            fetch("ml-tiny", tmp_path, progress=False)
    assert leftovers(tmp_path) == []


def test_truncated_download_is_rejected_and_leaves_nothing(tmp_path, monkeypatch):
    body = make_zip()
    with Server({"/ml-tiny.zip": body}, truncate={"/ml-tiny.zip"}) as srv:
        register(monkeypatch, srv.url + "/ml-tiny.zip", hashlib.sha256(body).hexdigest())
        with pytest.raises(DownloadError):
            fetch("ml-tiny", tmp_path, progress=False)
    assert leftovers(tmp_path) == []


def test_cli_fetch(tmp_path, monkeypatch):
    body = make_zip()
    runner = CliRunner()
    with Server({"/ml-tiny.zip": body}) as srv:
        register(monkeypatch, srv.url + "/ml-tiny.zip", hashlib.sha256(body).hexdigest())
        res = runner.invoke(app, ["fetch", "ml-tiny", "--home", str(tmp_path), "--quiet"])
        assert res.exit_code == 0, res.output
        assert (tmp_path / "ml-tiny" / "u.data").exists()
        res = runner.invoke(app, ["fetch", "ml-tiny", "--home", str(tmp_path)])
        assert res.exit_code == 0 and "already in" in res.output
    with Server({}) as srv:  # 404
        register(monkeypatch, srv.url + "/gone.zip", "0" * 64)
        res = runner.invoke(app, ["fetch", "ml-tiny", "--home", str(tmp_path / "other"), "--quiet"])
        assert res.exit_code == 2 and "error:" in res.output and "Traceback" not in res.output


def test_missing_file_says_where_to_get_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"recsys fetch ml-100k.*files\.grouplens\.org"):
        datahome.require(tmp_path / "ml-100k" / "u1.base", "ml-100k")


def test_data_home_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RECSYS_DATA", str(tmp_path))
    assert datahome.data_home() == tmp_path
    assert datahome.data_home(tmp_path / "x") == tmp_path / "x"


# a short train (under the rules for large data, the item model's solves capped: 3 s where the
# default rules take 10): the fetch, not the model, is under test
FAST = ["--n-bands", "60", "--band-size", "3", "--min-rows", "3", "--min-cols", "3", "--scaling", "on"]


def _serve_movielens(monkeypatch, shared, srv, with_details=True):
    """Point the registry's ml-100k and its IMDb details at the local server (built from the shared copy)."""
    from dataclasses import replace

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in ("u.data", "u.item", "u1.base", "u1.test"):
            z.write(shared / "ml-100k" / name, f"ml-100k/{name}")
    srv.files["/ml-100k.zip"] = buf.getvalue()
    details = (shared / "ml-100k-imdb" / "movielens100k_details.json").read_bytes()
    if with_details:
        srv.files["/movielens100k_details.json"] = details
    ml = datahome.REGISTRY["ml-100k"]
    url = srv.url + "/ml-100k.zip"
    digest = "sha256:" + hashlib.sha256(buf.getvalue()).hexdigest()
    monkeypatch.setitem(datahome.REGISTRY, "ml-100k", replace(ml, files=(RemoteFile(url, digest),)))
    imdb = datahome.REGISTRY["ml-100k-imdb"]
    pinned = imdb.files[0]
    assert pinned.known_hash == "sha256:" + hashlib.sha256(details).hexdigest()  # the registry pins this very file
    monkeypatch.setitem(
        datahome.REGISTRY,
        "ml-100k-imdb",
        replace(imdb, files=(replace(pinned, url=srv.url + "/movielens100k_details.json"),)),
    )


@pytest.mark.data
@pytest.mark.slow
def test_train_fetches_movielens_and_imdb_details_on_first_use(tmp_path, monkeypatch, shared_data):
    home = tmp_path / "home"
    with Server({}) as srv:
        _serve_movielens(monkeypatch, shared_data, srv)
        res = CliRunner().invoke(
            app, ["train", "--dataset", "ml-100k", "--out", str(tmp_path / "m"), "--home", str(home), *FAST]
        )
        assert res.exit_code == 0, res.output
        assert srv.hits == 2
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["provenance"]["attribute_kinds"] == ["cast", "director", "genre", "writer"]
    assert (home / "ml-100k" / "u1.base").exists() and (home / "ml-100k-imdb" / "movielens100k_details.json").exists()
    # in place now: no server needed
    res = CliRunner().invoke(app, ["relations", "--dataset", "ml-100k", "--home", str(home), "--json"])
    assert res.exit_code == 0, res.output


def test_no_download_keeps_the_message(tmp_path):
    res = CliRunner().invoke(
        app, ["train", "--dataset", "ml-100k", "--out", str(tmp_path / "m"), "--home", str(tmp_path), "--no-download"]
    )
    assert res.exit_code == 2 and not (tmp_path / "m").exists()
    assert "missing data file" in res.output and "recsys fetch ml-100k" in res.output


@pytest.mark.data
@pytest.mark.slow
def test_falls_back_to_genres_when_the_details_cannot_be_had(tmp_path, monkeypatch, shared_data):
    home = tmp_path / "home"
    with Server({}) as srv:
        _serve_movielens(monkeypatch, shared_data, srv, with_details=False)  # the details URL answers 404
        res = CliRunner().invoke(
            app, ["train", "--dataset", "ml-100k", "--out", str(tmp_path / "m"), "--home", str(home), *FAST]
        )
    assert res.exit_code == 0, res.output
    notes = [ln for ln in res.output.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and "director, writer and cast unavailable" in notes[0] and "genres only" in notes[0]
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["provenance"]["attribute_kinds"] == ["genre"]
    # asked for explicitly, a missing kind is an error
    res = CliRunner().invoke(app, ["relations", "--home", str(home), "--attributes", "genre,director", "--no-download"])
    assert res.exit_code == 2 and "movielens100k_details.json" in res.output


def test_tests_cannot_reach_the_internet(tmp_path):
    """The guard of conftest.py: a download from any address but 127.0.0.1 fails, fast."""
    import time
    from dataclasses import replace

    ml = datahome.REGISTRY["ml-100k"]
    t = time.perf_counter()
    with pytest.raises(DownloadError, match="failed"):
        datahome._retrieve(replace(ml.files[0]), tmp_path, progress=False)
    assert time.perf_counter() - t < 10
