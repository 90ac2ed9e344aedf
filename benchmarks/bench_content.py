"""The content shapes: does the product use what items are, where tastes live in the item table?

Data, each seeded (``--shapes``):

- ``content-0.9``, ``content-0.3``: the content-driven test bed,
  :meth:`benchmarks.synthetic_ratings.Shape.content_driven` (2,000 readers, 6,000 items, about 60
  ratings each, genres and a director per item) with 90 % or 30 % of the taste in the attributes;
  the attribute terms were designed while looking at it;
- ``books``: a second shape of another construction, :class:`benchmarks.synthetic_books.Books`
  (450 readers, 700 books with one author and one or two genres, 30–90 ratings a reader, each
  liking two genres and six authors);
- ``books-flat``: the same with the books' quality and the readers' generosity nearly gone
  (sd 0.2 instead of 0.6 and 0.5) and half the noise: what a reader likes is then almost only
  which genres and authors, the case where a per-(reader, attribute) logistic regression is
  strongest.

Each data set is evaluated by ``recsys evaluate --split random:0.2:0``
in a child process, every method tuned by the evaluation's one procedure on the training ratings:
the like/dislike methods (majority, rating baseline, KNNBaseline, Naive Bayes over the attributes,
the attribute logistic regression, the profile model and its ablations, ``no_attributes`` among
them) and the top-10 lists
(popularity, EASE, ItemKNN, the profile model), with 95 % paired bootstrap intervals over users.

Usage: python benchmarks/bench_content.py [--shapes content-0.9,content-0.3,books,books-flat] [--seed 0]
[--bootstrap 1000] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import synthetic_books, synthetic_ratings  # noqa: E402
from experiments.common import provenance_md, write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results"
METHODS = "majority,bias,knn_baseline,naive_bayes,attribute_logistic,profile,popularity,ease,itemknn"
SHAPES = ("content-0.9", "content-0.3", "books", "books-flat")


def shape_of(name: str, seed: int):
    """The generator's shape called ``name`` (see the module docstring)."""
    if name.startswith("content-"):
        return synthetic_ratings.Shape.content_driven(content=float(name.removeprefix("content-")), seed=seed)
    if name == "books":
        return synthetic_books.Books(seed=seed)
    if name == "books-flat":
        return synthetic_books.Books(quality=0.2, generosity=0.2, noise=1.0, seed=seed)
    raise ValueError(f"unknown shape {name!r}: one of {', '.join(SHAPES)} (content-<share> for any share)")


def evaluate(name: str, shape, n_boot: int, work: Path, methods: str = METHODS) -> dict:
    """``recsys evaluate`` of the data of ``shape`` (called ``name``) in a child process."""
    generator = synthetic_books if isinstance(shape, synthetic_books.Books) else synthetic_ratings
    ratings, items = generator.write(shape, work / name)
    cmd = [
        sys.executable,
        "-m",
        "recsys.cli",
        "evaluate",
        "--ratings",
        str(ratings),
        "--items",
        str(items),
        "--split",
        "random:0.2:0",
        "--methods",
        methods,
        "--bootstrap",
        str(n_boot),
        "--strong-users",
        "0",
        "--json",
        "--quiet",
    ]
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return {"name": name, "shape": asdict(shape), "seconds": time.perf_counter() - t, "evaluation": result}


def summary(run: dict) -> dict:
    ev = run["evaluation"]
    versus = ev.get("ci", {}).get("versus", {})
    auc = {m: r["auc_full"] for m, r in ev["methods"].items()}
    auc.update({f"profile/{m}": r["auc_full"] for m, r in ev["ablations"].items()})
    ndcg = {m: r["ndcg@10"] for m, r in ev["topn"]["methods"].items()}
    ndcg.update({f"profile/{m}": r["ndcg@10"] for m, r in ev["topn"].get("controls", {}).items()})
    return {
        "name": run.get("name") or f"content {run['shape']['content']:g}",  # runs before the books shapes
        "like_share_test": ev["like_share_test"],
        "auc": auc,
        "auc_diff_ci": {m: [c["auc_diff"], *c["auc_diff_ci"]] for m, c in versus.items()},
        "ndcg@10": ndcg,
        "ndcg_diff_ci": {m: [c["diff"], *c["diff_ci"]] for m, c in ev["topn"].get("ci", {}).get("versus", {}).items()},
    }


def table(runs: list[dict]) -> str:
    lines = [
        "# The content shapes",
        "",
        "`content-*`: the test bed, `Shape.content_driven` (2,000 readers × 6,000 items, ~60 ratings each; "
        "genres and a director per item, 90 % or 30 % of the taste in them). `books`: `synthetic_books.Books` "
        "(450 readers × 700 books, one author and 1–2 genres a book, 30–90 ratings a reader who likes two "
        "genres and six authors); `books-flat`: the same with the books' quality and the readers' generosity "
        "nearly gone and half the noise. `recsys evaluate --split random:0.2:0`; every method tuned on the "
        "training ratings only. "
        "Intervals: profile minus the method, 95 % paired bootstrap over users. `profile/…` rows are the "
        "ablations (evidence removed) and controls (a setting changed; for lists: `random_support`, "
        "`full_support`, `no_attributes`, `item_model_lists` — the item model alone, no blend).",
        "",
    ]
    for run in runs:
        s = summary(run)
        lines += [
            f"## {s['name']} (likes: {s['like_share_test']:.1%} of the test ratings)",
            "",
            "| like/dislike | AUC | profile − it [95 %] |",
            "|---|---|---|",
        ]
        for m, v in sorted(s["auc"].items(), key=lambda kv: -kv[1]):
            d = s["auc_diff_ci"].get(m.removeprefix("profile/"))
            ci = f"{d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]" if d else ""
            lines.append(f"| {m} | {v:.4f} | {ci} |")
        lines += ["", "| top-10 list | NDCG@10 | profile − it [95 %] |", "|---|---|---|"]
        for m, v in sorted(s["ndcg@10"].items(), key=lambda kv: -kv[1]):
            d = s["ndcg_diff_ci"].get(m.removeprefix("profile/"))
            ci = f"{d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]" if d else ""
            lines.append(f"| {m} | {v:.4f} | {ci} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default=",".join(SHAPES), help="the data sets, comma separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--render", type=Path, metavar="JSON", help="only rewrite the Markdown of this results file")
    args = parser.parse_args(argv)
    if args.render:
        render(args.render)
        return
    started = time.perf_counter()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.shapes.split(","):
            print(name, file=sys.stderr, flush=True)
            runs.append(evaluate(name, shape_of(name, args.seed), args.bootstrap, Path(tmp)))
    payload = {"summary": [summary(r) for r in runs], "runs": runs}
    write_results(args.out, "content", payload, table(runs), started)


def render(path: Path) -> None:
    """Rewrite ``path``'s Markdown from its figures; the measurement keeps its provenance and the
    text says which commit rendered it."""
    from recsys.provenance import commit

    payload = json.loads(Path(path).read_text())
    head, _, rest = table(payload["runs"]).partition("\n\n")
    note = f"_Text rendered from the JSON by commit `{commit()}`; the figures are those of the run below._\n\n"
    Path(path).with_suffix(".md").write_text(head + "\n\n" + provenance_md(payload["_provenance"]) + note + rest)


if __name__ == "__main__":
    main()
