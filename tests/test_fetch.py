"""Downloads against a local HTTP server on 127.0.0.1 serving files the tests build."""

import hashlib
import http.server
import io
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
