"""Results are stamped with the commit that made them; a changed results file is not a code change."""

import subprocess

import pytest

from recsys.provenance import commit


def _git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True, capture_output=True
    )


def test_commit_is_dirty_for_code_changes_not_for_results(tmp_path):
    try:
        _git(tmp_path, "init", "-q")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "experiments" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "pkg" / "code.py").write_text("x = 1\n")
    (tmp_path / "experiments" / "results" / "table.md").write_text("old\n")
    (tmp_path / "benchmarks" / "results" / "bench.json").write_text("{}\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "one")
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert commit(tmp_path / "pkg") == head.strip()
    (tmp_path / "experiments" / "results" / "table.md").write_text("regenerated\n")
    (tmp_path / "benchmarks" / "results" / "bench.json").write_text('{"regenerated": 1}\n')
    assert commit(tmp_path / "pkg") == head.strip()
    (tmp_path / "pkg" / "code.py").write_text("x = 2\n")
    assert commit(tmp_path / "pkg") == head.strip() + "-dirty"
