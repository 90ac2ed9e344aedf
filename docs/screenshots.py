"""Redraw the README's screenshots in headless Chromium: ``python docs/screenshots.py MODEL``.

MODEL is a model of MovieLens 100K u1 (``recsys train --dataset ml-100k --split u1 --out MODEL``);
the report of user 13 (its top and its list) and the service page after five ratings are written
beside this file.  Needs the dev extra (playwright) and Debian's ``chromium``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

HERE = Path(__file__).resolve().parent
RATED = ("Star Wars", "Fargo", "Godfather, The", "Toy Story", "Pulp Fiction")


def main(model: str) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        report = Path(tmp) / "report-13.html"
        subprocess.run([sys.executable, "-m", "recsys.cli", "report", model, "13", "--out", str(report)], check=True)
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(report.as_uri())
        page.screenshot(path=str(HERE / "report.png"))
        page.locator("#recommendations").screenshot(path=str(HERE / "report-reasons.png"))
        server = subprocess.Popen([sys.executable, "-m", "recsys.cli", "serve", model, "--port", "8765", "--quiet"])
        try:
            _wait("http://127.0.0.1:8765/health")
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto("http://127.0.0.1:8765/")
            for n, title in enumerate(RATED, start=1):
                page.fill("#search", title)
                page.locator("#results li .name", has_text=title).first.wait_for()
                row = page.locator("#results li", has_text=title).first
                row.locator("button[data-rating='5']").click()
                expect(page.locator("#rated li")).to_have_count(n)
            page.fill("#search", "")
            page.locator("#results-title", has_text="Popular").wait_for()
            expect(page.locator("#recommendations > li")).to_have_count(10)
            page.screenshot(path=str(HERE / "serve.png"), full_page=False)
        finally:
            server.terminate()
        browser.close()


def _wait(url: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.3)


if __name__ == "__main__":
    main(sys.argv[1])
