"""The scale figures the README and docs/benchmarks.md print are those of the results file.

Each row of the two cost tables is rebuilt from ``benchmarks/results/recsys_scale.json`` (the
benchmark's own output, stamped per run) with the tables' rounding and compared cell for cell: a
figure edited by hand, or a results file regenerated without its tables, fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = json.loads((ROOT / "benchmarks/results/recsys_scale.json").read_text())["runs"]
PEERS = ("ease", "ials", "sansa", "popular")


def _run(ratings: int, structure: str, shape: str = "movielens") -> dict:
    found = [
        r
        for r in RUNS
        if (r["ratings"], r["structure"], r["shape"], r.get("train_args", "")) == (ratings, structure, shape, "")
    ]
    assert len(found) == 1, (ratings, structure, shape)
    return found[0]


def _ndcg(run: dict, method: str) -> str:
    value = run["ndcg@10"] if method == "product" else run["peers"].get(method, {}).get("ndcg@10")
    return "—" if value is None else f"{value:.4f}"


def _ratio(run: dict) -> str:
    ease = run["peers"].get("ease")
    return f"{run['seconds'] / ease['fit_seconds']:.1f} ×" if ease else "—"


def _table_rows(path: Path, first_cell: str) -> list[list[str]]:
    rows = []
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.match(first_cell, cells[0]):
            rows.append(cells)
    return rows


def test_the_readme_cost_table_is_the_results_file():
    rows = _table_rows(ROOT / "README.md", r"(movielens|popular|concentrated) \(")
    assert {r[0].split()[0] for r in rows} == {"movielens", "popular", "concentrated"}
    for cells in rows:
        run = _run(1_000_000, cells[0].split()[0])
        assert cells[1:] == [
            f"{run['seconds']:.1f} s",
            _ratio(run),
            f"{run['peak_mb'] / 1024:.2f} GB",
            " / ".join(_ndcg(run, m) for m in ("product", "ease", "ials", "sansa")),
        ], cells[0]


def test_the_benchmark_table_is_the_results_file():
    rows = _table_rows(ROOT / "docs/benchmarks.md", r"\d+ M \(")
    assert len(rows) >= 7
    for cells in rows:
        size, structure = re.match(r"(\d+) M \([\d,]+ × [\d,]+\), (\w+)", cells[0]).groups()
        run = _run(int(size) * 1_000_000, structure, "netflix" if "Netflix shape" in cells[0] else "movielens")
        assert cells[0].startswith(f"{size} M ({run['users']:,} × {run['items']:,})")
        measured = "auc" in run
        assert cells[1:] == [
            f"{run['seconds']:.1f} s",
            _ratio(run),
            f"{run['peak_mb'] / 1024:.2f} GB",
            f"{run['lists']['ms_per_user']:.2f} ms",
            f"{run['auc']:.4f}" if measured else "not measured",
            " / ".join(_ndcg(run, m) if (m != "product" or measured) else "—" for m in ("product", *PEERS)),
        ], cells[0]


def test_the_readme_movielens_table_is_the_results_file():
    """The README's MovieLens table is :func:`experiments.movielens.readme_table` of the results
    file, line for line."""
    from experiments.movielens import readme_table

    payload = json.loads((ROOT / "experiments/results/movielens.json").read_text())
    lines = readme_table(payload["results"], payload["folds"])
    readme = (ROOT / "README.md").read_text()
    assert "\n".join(lines) + "\n" in readme
