"""The scale figures the README and docs/benchmarks.md print are those of the results file.

Each row of the two cost tables is rebuilt from ``benchmarks/results/recsys_scale.json`` (the
benchmark's own output, stamped per run) with the tables' rounding and compared cell for cell: a
figure edited by hand, or a results file regenerated without its tables, fails here. The
MovieLens tables of the README and of docs/evaluation.md are checked the same way against
``experiments/results/movielens.json``, docs/recommender.md's content tables against
``benchmarks/results/content.json``, and the README's confirmation tables against
``experiments/results/confirmation/``.
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


# docs/evaluation.md's two MovieLens tables: each row's label names the results' method or control
_ROWS = {
    ("lists", "the product"): ("methods", "profile"),
    ("lists", "iALS (implicit) + the product's blend"): ("controls", "ials_blend"),
    ("lists", "EASE (cornac) + the product's blend"): ("controls", "ease_blend"),
    ("lists", "iALS (implicit)"): ("methods", "ials"),
    ("lists", "EASE (cornac), λ and input tuned"): ("methods", "ease"),
    ("lists", "RP3beta"): ("methods", "rp3beta"),
    ("lists", "ItemKNN"): ("methods", "itemknn"),
    ("lists", "BPR (implicit)"): ("methods", "bpr"),
    ("lists", "most popular"): ("methods", "popularity"),
    ("lists", "*control:* the item model + the same blend"): ("controls", "item_model_blend"),
    ("lists", "*control:* the item model on every pair"): ("controls", "full_support"),
    ("lists", "*control:* the item model alone"): ("controls", "item_model_lists"),
    ("lists", "*control:* the item model on as many random pairs"): ("controls", "random_support"),
    ("auc", "the product: the profile model"): ("methods", "profile"),
    ("auc", "— without the attribute terms"): ("ablations", "no_attributes"),
    ("auc", "— without the item-model terms"): ("ablations", "no_item_model"),
    ("auc", "— without any co-cluster term"): ("ablations", "no_coclusters"),
    ("auc", "*control:* neighbourhoods from plain co-ratings"): ("ablations", "neighbours_from_ratings"),
    ("auc", "Surprise SVD"): ("methods", "svd"),
    ("auc", "attribute logistic regression"): ("methods", "attribute_logistic"),
    ("auc", "Surprise SVD++"): ("methods", "svdpp"),
    ("auc", "Surprise KNNBaseline"): ("methods", "knn_baseline"),
    ("auc", "Surprise CoClustering"): ("methods", "coclustering"),
    ("auc", "Naive Bayes over the attributes"): ("methods", "naive_bayes"),
    ("auc", "the paper's rule"): ("methods", "profile_paper"),
}


def _rows_of(table: str) -> dict:
    return {label: where for (t, label), where in _ROWS.items() if t == table}


def _label(cells: list[str], table: dict) -> tuple[str, str]:
    # the longest label that starts the cell, so "iALS (implicit)" does not take the blend's row
    found = [k for k in table if cells[0].strip("*").startswith(k.strip("*")) or cells[0].startswith(k)]
    assert found, cells[0]
    return table[max(found, key=len)]


def test_the_evaluation_page_tables_are_the_results_file():
    from experiments.movielens import pooled_list_interval

    payload = json.loads((ROOT / "experiments/results/movielens.json").read_text())
    results, folds = payload["results"], payload["folds"]

    def mean(*path: str) -> float:
        values = []
        for f in folds:
            v = results[f]
            for key in path:
                v = v[key]
            values.append(v)
        return float(sum(values) / len(values))

    pooled = pooled_list_interval(results, folds)
    page = ROOT / "docs/evaluation.md"
    lists = [c for c in _table_rows(page, r".") if len(c) == 4 and re.match(r"\**\d\.\d{4}", c[1])]
    assert len(lists) == len(_rows_of("lists"))
    for cells in lists:
        group, name = _label(cells, _rows_of("lists"))
        value = mean("topn", group, name, "ndcg@10")
        assert cells[1].strip("*") == f"{value:.4f}", cells[0]
        if cells[2]:
            c = pooled[name]
            expected = f"{c['diff']:+.4f} [{c['diff_ci'][0]:+.4f}, {c['diff_ci'][1]:+.4f}]"
            assert cells[2].replace("−", "-") == expected, cells[0]
    aucs = [c for c in _table_rows(page, r".") if len(c) == 3 and re.match(r"\d\.\d{4}", c[1])]
    assert len(aucs) == len(_rows_of("auc"))
    for cells in aucs:
        group, name = _label(cells, _rows_of("auc"))
        value = mean(group, name, "auc_full")
        balanced = mean(group, name, "balanced_accuracy_full")
        assert cells[1].split()[0] == f"{value:.4f}", cells[0]
        assert cells[2] == f"{balanced:.4f}", cells[0]


def test_the_readme_cornac_sentence_is_the_results_file():
    runs = json.loads((ROOT / "experiments/results/cornac.json").read_text())["runs"].values()
    cornac = [r["cornac"]["difference"] for r in runs]
    ours = [r["ours"]["difference"] for r in runs]
    same = sum((c > 0) == (o > 0) for c, o in zip(cornac, ours, strict=True))
    close = sum(abs(c - o) <= 0.01 for c, o in zip(cornac, ours, strict=True))
    as_it_comes = [r["cornac"]["ndcg@10"]["ease"] for r in runs]
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (
        f"product − EASE has our sign on {same} of {len(ours)} folds and is within 0.01 of ours on {close} of "
        f"{len(ours)} (mean {sum(cornac) / len(cornac):+.4f} there, {sum(ours) / len(ours):+.4f} here)"
    ) in readme
    assert f"cornac's EASE as it comes scores {min(as_it_comes):.2f}–{max(as_it_comes):.2f}" in readme


def test_the_readme_seed_sentence_is_the_results_files():
    from experiments.seeds import spread

    runs = [json.loads(p.read_text()) for p in sorted((ROOT / "experiments/results/seeds").glob("*.json"))]
    s = spread(runs, ["u1", "u2", "u3", "u4", "u5"])
    seeds = sorted(s["profile"]["by_seed"])
    lead = {
        m: ", ".join(f"{s['profile']['by_seed'][k] - s[m]['by_seed'][k]:+.4f}" for k in seeds) for m in ("ease", "ials")
    }
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (
        f"move by at most {s['profile']['range']:.4f} (product), {s['ease']['range']:.4f} (EASE) and "
        f"{s['ials']['range']:.4f} (iALS)"
    ) in readme
    for m, name in (("ease", "EASE"), ("ials", "iALS")):
        values = lead[m].rsplit(", ", 1)
        said = "(before the fix) is " if m == "ease" else ""  # EASE's weighted input, fixed in bfb43c5
        assert f"product − {name} {said}{values[0]} and {values[1]}" in readme, lead[m]


def test_the_readme_ease_correction_is_the_results_file():
    """The README's correction of its EASE rows (the weighted input fitted on the stars) says what
    ``experiments/results/ease_stars.json`` says: the means, the pooled difference and its side."""
    cmp = json.loads((ROOT / "experiments/results/ease_stars.json").read_text())["comparison"]
    d = cmp["pooled"]["ease"]
    lo, hi = d["diff_ci"]
    side = "**below EASE**" if hi < 0 else "**above EASE**" if lo > 0 else "**level with EASE**"
    signed = lambda v: f"{v:+.4f}".replace("-", "−")  # noqa: E731
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert (
        f"EASE scores {cmp['means']['ease']:.4f} on the five-fold mean (the table: {cmp['means']['ease_before']:.4f}), "
        f"and the product is {side}: {signed(d['diff'])} [{signed(lo)}, {signed(hi)}]"
    ) in readme
    b = cmp["pooled"]["ease_blend"]
    assert b["diff_ci"][1] < 0  # the sentence says "below it"
    assert (
        f"Given the product's blend, EASE scores {cmp['means']['ease_blend']:.4f} (the table: "
        f"{cmp['means']['ease_blend_before']:.4f}) and the product is below it by {signed(b['diff'])} "
        f"[{signed(b['diff_ci'][0])}, {signed(b['diff_ci'][1])}]"
    ) in readme
    # the experiment's own EASE, through the same pooled interval: the experiment's figures
    from experiments.movielens import pooled_list_interval

    payload = json.loads((ROOT / "experiments/results/movielens.json").read_text())
    assert cmp["pooled"]["ease_before"] == pooled_list_interval(payload["results"], payload["folds"])["ease"]


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
