"""How much a table's figure moves with the seed of the tuning split: the product's, EASE's and
iALS's lists on MovieLens 100K's five folds, each method's setting chosen (full search) on a
tuning tenth drawn with seeds 0, 1 and 2, refitted and scored once on the test.

Seed 0 is the table's own run (``results/movielens.json``: the same protocol, the same seed; the
rankers' figures do not depend on the other methods measured beside them, so running it again
only repeats them — at 7b1233d it did, to the digit).  Each other (seed, fold) is one
``recsys.evaluation.evaluate`` run of these three rankers under the table's protocol but the
seed, written to ``results/seeds/<seed>-<fold>.json`` as it finishes (a run already there is not
repeated); ``results/seeds.md`` gives per method the five-fold mean NDCG@10 of each seed and
their spread.

Usage: python -m experiments.seeds [--seeds 1,2] [--folds u1,...,u5] [--out DIR] [--render]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from .common import RESULTS, measured_code
from .runner import data_home

RANKERS = ("ease", "ials", "profile")


def run_one(seed: int, fold: str, out: Path, home: Path) -> Path:
    from recsys.evaluation import Protocol, Setup
    from recsys.provenance import provenance

    from .movielens import evaluate_split

    path = out / f"{seed}-{fold}.json"
    if path.exists():
        return path
    protocol = Protocol(seed=seed, grid="full", n_boot=0)  # the table's (movielens.run_fold) but the seed
    setup = Setup(methods=(), rankers=RANKERS, ablations={}, controls={}, list_controls={}, blended=())
    res = evaluate_split(fold, home, protocol, setup, tag=f"{seed} {fold}")
    topn = res["topn"]["methods"]
    payload = {
        "seed": seed,
        "fold": fold,
        "seconds": res["wall_seconds"],
        **provenance(),
        "ndcg@10": {m: r["ndcg@10"] for m, r in topn.items()},
        "params": {m: r["params"] for m, r in topn.items()},
    }
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1))
    return path


def table_runs(payload: dict) -> list[dict]:
    """Seed 0: the rankers' figures of the table's own run (``payload``: ``results/movielens.json``),
    one per fold, as :func:`run_one` writes them."""
    out = []
    for fold in payload["folds"]:
        topn = payload["results"][fold]["topn"]["methods"]
        out.append(
            {
                "seed": 0,
                "fold": fold,
                "commit": payload["_provenance"]["commit"],
                "from": "movielens.json",
                "ndcg@10": {m: topn[m]["ndcg@10"] for m in RANKERS},
                "params": {m: topn[m]["params"] for m in RANKERS},
            }
        )
    return out


def runs_in(out: Path, table: Path | None = None) -> list[dict]:
    """The seed runs in ``out``, with seed 0 from the table (``table``: movielens.json, by default
    beside ``out``) for the folds ``out`` has no seed-0 run of."""
    runs = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    table = table or out.parent / "movielens.json"
    if table.exists():
        have = {(r["seed"], r["fold"]) for r in runs}
        runs += [r for r in table_runs(json.loads(table.read_text())) if (0, r["fold"]) not in have]
    return runs


def spread(runs: list[dict], folds: list[str]) -> dict:
    """Per method: each seed's mean NDCG@10 over ``folds`` (seeds with every fold only), and the
    spread of those means (max − min, and the standard deviation)."""
    seeds = sorted({r["seed"] for r in runs})
    by = {(r["seed"], r["fold"]): r for r in runs}
    out = {}
    for m in RANKERS:
        means = {
            s: float(np.mean([by[s, f]["ndcg@10"][m] for f in folds]))
            for s in seeds
            if all((s, f) in by and m in by[s, f]["ndcg@10"] for f in folds)
        }
        if means:
            v = np.array(list(means.values()))
            out[m] = {
                "by_seed": means,
                "range": float(v.max() - v.min()),
                "std": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
            }
    return out


def markdown(runs: list[dict], folds: list[str]) -> str:
    s = spread(runs, folds)
    all_seeds = sorted({r["seed"] for r in runs})
    commits = sorted({r.get("commit") or "?" for r in runs})
    same = len(commits) > 1 and len({measured_code(c) for c in commits}) == 1 and measured_code(commits[0]) is not None
    said = f"{', '.join(c[:12] for c in commits)}" + (" (the same recsys, coclust and ingest at each)" if same else "")
    lines = [
        "# The tuning split's seed: how much the lists' figures move",
        "",
        f"MovieLens 100K, folds {', '.join(folds)}; commit(s) {said}. Each method's setting is "
        "chosen by the full search on a tuning tenth drawn with each seed, refitted on all training ratings, "
        "scored once on the test. Seed 0 is the table's own run (movielens.json).",
        "",
        "| method | " + " | ".join(f"seed {k}" for k in all_seeds) + " | range | sd |",
        "|---|" + "---|" * (len(all_seeds) + 2),
    ]
    for m, x in s.items():
        cells = " | ".join(
            f"{x['by_seed'][k]:.4f}" if k in x["by_seed"] else "—" for k in sorted({r["seed"] for r in runs})
        )
        lines.append(f"| {m} | {cells} | {x['range']:.4f} | {x['std']:.4f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1,2", help="seeds to run (0: the table's run, read from movielens.json)")
    ap.add_argument("--folds", default="u1,u2,u3,u4,u5")
    ap.add_argument("--out", type=Path, default=RESULTS / "seeds")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--render", action="store_true", help="only rewrite seeds.md from the runs present")
    args = ap.parse_args(argv)
    folds = [f.strip() for f in args.folds.split(",") if f.strip()]
    if not args.render:
        for seed in (int(s) for s in args.seeds.split(",") if s.strip()):
            for fold in folds:
                run_one(seed, fold, args.out, data_home(args.data))
    md = markdown(runs_in(args.out), folds)
    (args.out.parent / "seeds.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
