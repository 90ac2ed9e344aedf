"""The README's first commands and its quick start, run as written in a temporary directory: a
command of the front door that stops working fails here.

Two parts of them are not run: ``pip install .`` (this suite runs inside the installation it makes,
checked instead), and ``bash .ci/run`` (it is what runs this suite). The commands run the checkout,
as the suite does (``PYTHONPATH``): tests/test_installation.py checks that the installation holds
the same files, byte for byte, and the compiled kernels are then cached once, for one copy."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import pytest

import recsys

README = Path(__file__).resolve().parent.parent / "README.md"
NOT_RUN = ("pip install .", "bash .ci/run")


def bash_blocks(section: str | None) -> list[list[str]]:
    """The command lines of the ```bash blocks of a README section (None: before the first section)."""
    text = README.read_text()
    parts = re.split(r"^## ", text, flags=re.M)
    body = parts[0] if section is None else next(p for p in parts[1:] if p.startswith(section + "\n"))
    blocks = re.findall(r"```bash\n(.*?)```", body, flags=re.S)
    return [[line for line in b.splitlines() if line.strip() and not line.lstrip().startswith("#")] for b in blocks]


def run(line: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """One README line through bash, as a reader pastes it (its comment included)."""
    for part in NOT_RUN:  # `pip install . && recsys demo`: the install is checked, the rest is run
        line = line.replace(part + " && ", "")
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture()
def env(tmp_path):
    bin_dir = str(Path(sys.executable).parent)  # the installation's `recsys`, importing the checkout
    path = {"PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "PYTHONPATH": str(README.parent)}
    return {**os.environ, **path}


@pytest.mark.slow
def test_the_first_commands_install_and_run_the_demo(tmp_path, env):
    (first,) = bash_blocks(None)
    assert first[0].startswith("pip install . && recsys demo") and first[1].startswith("bash .ci/run")
    assert metadata.version("hblcoclust") == recsys.__version__  # what `pip install .` installed
    env = {**env, "RECSYS_DATA": str(tmp_path / "no-data-home")}  # the demo needs no data and no network
    t0 = time.perf_counter()
    res = run(first[0], tmp_path, env)
    seconds = time.perf_counter() - t0
    assert res.returncode == 0, res.stderr
    print(f"recsys demo: {seconds:.0f} s")  # reported by `pytest -s`; the budget is measured in benchmarks
    steps = [line for line in res.stderr.splitlines() if line.strip()]
    assert [s.split("] ")[1][:4] for s in steps] == ["1/4 ", "2/4 ", "3/4 ", "4/4 "], res.stderr
    said = int(re.search(r"prints (\d+) lines", README.read_text()).group(1))  # the README's figure
    assert len(res.stdout.splitlines()) + len(steps) == said, res.stdout
    assert "On AUC " in res.stdout and "On NDCG@10 " in res.stdout and "people's pages:" in res.stdout
    out = tmp_path / "recsys-demo"
    assert (out / "evaluation.txt").read_text().count("\n") > 40 and not (tmp_path / "no-data-home").exists()
    evaluation = json.loads((out / "evaluation.json").read_text())
    assert evaluation["dataset"] == "demo" and evaluation["methods"]["profile"]["auc_full"] > 0.7
    index = (out / "report" / "index.html").read_text()
    pages = sorted(p.name for p in (out / "report").glob("user-*.html"))
    assert len(pages) == 20 and all(f'href="{p}"' in index for p in pages)
    res = run(f"recsys report {out / 'model'} --all --users 1,2 --out pages --quiet", tmp_path, env)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == ["index.html", "user-1.html", "user-2.html"]


@pytest.mark.data
@pytest.mark.slow
def test_the_quick_start_runs_as_written(shared_data, tmp_path, env):
    (block,) = bash_blocks("Quick start")
    (tmp_path / "me.csv").write_text("item,rating\n50,5\n181,4\n1,2\n172,5\n127,1\n")  # as the README says
    env = {**env, "RECSYS_DATA": str(shared_data)}
    outputs = []
    for line in block:
        res = run(line, tmp_path, env)
        assert res.returncode == 0, f"{line}\n{res.stderr}"
        outputs.append(res.stdout)
    assert (tmp_path / "m" / "manifest.json").exists() and (tmp_path / "report-13.html").exists()
    listed = [text for line, text in zip(block, outputs, strict=True) if "recommend" in line]
    assert listed and all("you liked" in text and "groups named above" in text for text in listed)


@pytest.mark.slow
def test_the_data_without_stars_example_runs_as_written(tmp_path, env):
    """The README's example of implicit feedback, but its evaluation (minutes; its path is tested
    in tests/test_implicit.py): generated plays, trained as interactions, listed with reasons."""
    (block,) = bash_blocks("Data without stars")
    said = []
    for line in block:
        if "recsys evaluate" not in line:
            res = run(line, tmp_path, env)
            assert res.returncode == 0, f"{line}\n{res.stderr}"
            said.append(res.stdout + res.stderr)
    assert (tmp_path / "plays" / "plays.csv").exists() and (tmp_path / "played" / "manifest.json").exists()
    assert "read as interactions (implicit feedback)" in said[1]
    assert "you chose" in said[2] and "chose both" in said[2] and "like chance" not in said[2]
