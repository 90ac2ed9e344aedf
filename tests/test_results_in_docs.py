"""The scale figures the README and docs/benchmarks.md print are those of the results file.

Each row of the two cost tables is rebuilt from ``benchmarks/results/recsys_scale.json`` (the
benchmark's own output, stamped per run) with the tables' rounding and compared cell for cell: a
figure edited by hand, or a results file regenerated without its tables, fails here. The
MovieLens text of the README and of docs/evaluation.md is rendered from ``experiments/results/``
by ``experiments.movielens_pages`` and checked verbatim; docs/recommender.md's content tables
are checked against ``benchmarks/results/content.json``, and the README's confirmation tables
against ``experiments/results/confirmation/``.
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
    rows = _table_rows(ROOT / "README.md", r"\d+ M, (movielens|popular|concentrated)\b")
    labels = [re.match(r"(\d+) M, (\w+)", r[0]).groups() for r in rows]
    assert {s for n, s in labels if n == "1"} == {"movielens", "popular", "concentrated"}
    assert {"10", "25"} <= {n for n, _ in labels}
    for cells, (size, structure) in zip(rows, labels):
        run = _run(int(size) * 1_000_000, structure)
        assert cells[1:] == [
            f"{run['seconds']:.1f} s",
            _ratio(run),
            f"{run['peak_mb'] / 1024:.2f} GB",
            " / ".join(_ndcg(run, m) for m in ("product", "ease", "ials", "sansa")),
        ], cells[0]


def test_the_readme_cost_paragraph_is_rendered_from_the_results_file():
    """Every figure under the README's cost table is a row's of the results file
    (:func:`benchmarks.scale_pages.readme_paragraph`)."""
    from benchmarks.scale_pages import readme_paragraph

    assert readme_paragraph(RUNS) in (ROOT / "README.md").read_text()


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


def test_the_refit_item_model_table_is_its_results_file():
    """docs/benchmarks.md's table of the 1 M rows without and with ``--refit-item-model`` is rendered
    from ``benchmarks/results/recsys_scale_refit_item_model.json`` (:func:`benchmarks.scale_pages.refit_table`),
    all six rows of it."""
    from benchmarks.scale_pages import refit_table

    runs = json.loads((ROOT / "benchmarks/results/recsys_scale_refit_item_model.json").read_text())["runs"]
    table = refit_table(runs)
    assert len(table.splitlines()) == 2 + 6
    assert table in (ROOT / "docs/benchmarks.md").read_text()


# docs/recommender.md's content tables: row label -> the method's key in content.json's summaries
CONTENT_AUC_ROWS = {
    "the profile model": "profile",
    "— without the attribute terms": "profile/no_attributes",
    "— without the co-cluster terms": "profile/no_coclusters",
    '*control:* `attribute_fit="means"`': "profile/mean_attributes",
    "attribute logistic regression": "attribute_logistic",
    "rating baseline (Surprise BaselineOnly)": "bias",
    "KNNBaseline": "knn_baseline",
    "Naive Bayes over the attributes": "naive_bayes",
}
CONTENT_NDCG_ROWS = {
    "the profile model (blended lists)": "profile",
    "— the item model alone (no blend)": "profile/item_model_lists",
    "— without the attribute terms": "profile/no_attributes",
    "most popular": "popularity",
    "EASE": "ease",
    "ItemKNN": "itemknn",
}


def test_docs_content_tables_are_the_results_file():
    """Every cell of docs/recommender.md's two content tables (the figure, and the difference to the
    profile model where a row shows one) is benchmarks/results/content.json's."""
    summaries = json.loads((ROOT / "benchmarks/results/content.json").read_text())["summary"]
    text = (ROOT / "docs/recommender.md").read_text()
    for header, rows, metric in (
        ("| AUC (test", CONTENT_AUC_ROWS, "auc"),
        ("| top-10 NDCG", CONTENT_NDCG_ROWS, "ndcg@10"),
    ):
        table = text[text.index(header) :].split("\n\n")[0].splitlines()
        names = [c.strip() for c in table[0].strip("|").split("|")][1:]
        assert names == [s["name"].replace("-", " ", 1) if s["name"].startswith("content") else s["name"]
                         for s in summaries]  # fmt: skip
        seen = set()
        for line in table[2:]:
            label, *cells = [c.strip() for c in line.strip("|").split("|")]
            key = rows[label]
            seen.add(label)
            for cell, s in zip(cells, summaries, strict=True):
                value, profile = s[metric][key], s[metric]["profile"]
                assert cell.replace("*", "").split()[0] == f"{value:.4f}", (label, s["name"])
                if "(" in cell:
                    digits = len(cell.split("(")[1].split(")")[0].lstrip("+−-").split(".")[1])
                    want = f"{value - profile:+.{digits}f}".replace("-", "−")
                    assert cell.split("(")[1].rstrip(")") == want, (label, s["name"], cell)
        assert seen == set(rows)


def test_the_readme_confirmation_tables_are_the_results_files():
    """The README's confirmation tables are ``experiments.confirm.readme_section`` of the data sets
    in experiments/results/confirmation/, each run once at the protocol's tagged commit."""
    from experiments.confirm import DATASETS, readme_section, runs_in

    runs = runs_in(ROOT / "experiments/results/confirmation", DATASETS)
    assert runs, "no confirmation results"
    assert len({r["evaluation"]["commit"] for r in runs.values()}) == 1, "every data set run at one commit"
    assert readme_section(runs) in (ROOT / "README.md").read_text()


def _movielens_results() -> dict:
    return json.loads((ROOT / "experiments/results/movielens.json").read_text())


def test_the_readme_movielens_section_is_rendered_from_the_results():
    """The README's MovieLens table and every figure and word of its prose (the readings by the pooled
    interval's rule, the open edges, the seeds, the cornac check) are
    :func:`experiments.movielens_pages.readme_section` of the results files."""
    from experiments.movielens_pages import section_from

    assert section_from(ROOT / "experiments/results") in (ROOT / "README.md").read_text()


def test_the_evaluation_page_is_rendered_from_the_results():
    from experiments.movielens_pages import evaluation_from

    page = (ROOT / "docs/evaluation.md").read_text()
    for part in evaluation_from(ROOT / "experiments/results"):
        assert part in page


def test_no_chosen_setting_of_the_movielens_run_sits_on_an_open_edge():
    from experiments.movielens import open_edges

    payload = _movielens_results()
    assert open_edges(payload["results"]) == []


def test_the_cornac_check_ran_against_these_results():
    """cornac.json's "ours" figures are movielens.json's (a rerun of the experiment without the
    check's leaves them apart)."""
    payload = _movielens_results()
    runs = json.loads((ROOT / "experiments/results/cornac.json").read_text())["runs"]
    for fold, run in runs.items():
        topn = payload["results"][fold]["topn"]["methods"]
        assert run["ours"]["ndcg@10"] == {"profile": topn["profile"]["ndcg@10"], "ease": topn["ease"]["ndcg@10"]}


def test_the_readme_implicit_paragraph_is_rendered_from_the_results():
    """The README's figures on interactions are :func:`experiments.implicit.readme_paragraph` of
    experiments/results/implicit/."""
    from experiments.common import runs_in
    from experiments.implicit import DATASETS, readme_paragraph

    runs = runs_in(ROOT / "experiments/results/implicit", DATASETS)
    assert readme_paragraph(runs) in (ROOT / "README.md").read_text()


def test_the_paragraph_counts_rows_below_level_and_above_ease_by_their_intervals():
    """A row is below or above EASE only where its paired interval excludes 0; rows without
    per-user values are not counted."""
    from benchmarks.scale_pages import _against_ease

    def row(low, high):
        return {"ndcg@10_versus": {"ease": {"diff": (low + high) / 2, "diff_ci": [low, high]}}}

    rows = [row(-0.002, -0.0003), row(-0.002, 0.003), row(0.0, 0.004), row(0.001, 0.004), {}]
    assert _against_ease(rows) == (
        "On the 95 % paired interval over test users (4 of those rows), the lists are below EASE's in 1, "
        "level with them in 2, above in 1."
    )
    assert _against_ease([{}]) == ""
