"""The product and EASE through cornac's own harness: cornac's ``BaseMethod`` on MovieLens 100K's
folds, its ``Experiment`` and its NDCG@10 (a test rating >= 4 relevant), beside our protocol's figures
for the same fold and settings (``results/movielens.json``).

Each method runs at the setting our protocol chose for lists on that fold: the product's
``item_l2``/``n_votes`` (:class:`recsys.cornac_recommender.CoClusterRecommender`), EASE's λ (cornac's
``EASE`` fits its training matrix as it is: the star ratings, our ``weighted`` input; the fold's
chosen input is reported beside).  The two harnesses differ in one rule, said in the results:
cornac ranks the training items a user rated below 4 among the candidates, ours never lists a rated
item.

Usage: python -m experiments.cornac_check [--folds u1,...] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from .common import RESULTS, provenance, provenance_md


def run_fold(fold: str, chosen: dict, home: Path) -> dict:
    import cornac

    from ingest.datasets import load_movies
    from recsys.cornac_recommender import CoClusterRecommender

    data = load_movies("ml-100k", fold, home=home, top_cast=3)
    triples = {
        part: list(frame[["user", "item", "rating"]].itertuples(index=False, name=None))
        for part, frame in (("train", data.train), ("test", data.test))
    }
    method = cornac.eval_methods.BaseMethod.from_splits(
        triples["train"], triples["test"], rating_threshold=4.0, exclude_unknowns=True, seed=0
    )
    profile = {k: v for k, v in chosen["profile"].items() if k in ("item_l2", "n_votes")}
    models = [
        CoClusterRecommender(name="product", item_attributes=data.attributes, items=data.items, **profile),
        cornac.models.EASE(name="ease", lamb=chosen["ease"]["lamb"], posB=False, verbose=False),
    ]
    experiment = cornac.Experiment(method, models, [cornac.metrics.NDCG(k=10)], verbose=False)
    experiment.run()
    ndcg = {r.model_name: float(r.metric_avg_results["NDCG@10"]) for r in experiment.result}
    return {"ndcg@10": ndcg, "difference": ndcg["product"] - ndcg["ease"], "settings": {"product": profile, **chosen}}


def ours(fold: str, results: dict) -> dict:
    """Our protocol's NDCG@10 of the product and EASE on ``fold``, and the settings chosen there."""
    topn = results[fold]["topn"]["methods"]
    return {
        "ndcg@10": {m: topn[m]["ndcg@10"] for m in ("profile", "ease")},
        "difference": topn["profile"]["ndcg@10"] - topn["ease"]["ndcg@10"],
        "chosen": {"profile": topn["profile"]["params"], "ease": topn["ease"]["params"]},
    }


def markdown(runs: dict, prov: dict) -> str:
    lines = [
        "# The product and EASE in cornac's harness",
        "",
        provenance_md(prov).rstrip(),
        "",
        "cornac's `BaseMethod.from_splits` (MovieLens 100K fold files, `rating_threshold=4.0`, "
        "`exclude_unknowns=True`), `Experiment` and `NDCG(k=10)`; each method at the setting our protocol "
        "chose for lists on the fold. cornac ranks a user's training items rated below 4 among the "
        "candidates (ours never lists a rated item); cornac's EASE fits the star ratings.",
        "",
        "| fold | cornac: product | cornac: EASE | cornac: product − EASE | ours: product | ours: EASE "
        "| ours: product − EASE | same sign | within 0.01 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fold, r in runs.items():
        c, o = r["cornac"], r["ours"]
        same = (c["difference"] > 0) == (o["difference"] > 0)
        close = abs(c["difference"] - o["difference"]) <= 0.01
        lines.append(
            f"| {fold} | {c['ndcg@10']['product']:.4f} | {c['ndcg@10']['ease']:.4f} | {c['difference']:+.4f} "
            f"| {o['ndcg@10']['profile']:.4f} | {o['ndcg@10']['ease']:.4f} | {o['difference']:+.4f} "
            f"| {'yes' if same else 'no'} | {'yes' if close else 'no'} |"
        )
    lines += ["", "Settings (ours chose; cornac ran): " + json.dumps({f: r["ours"]["chosen"] for f, r in runs.items()})]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    from .runner import data_home

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", default="u1")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    results = json.loads((RESULTS / "movielens.json").read_text())["results"]
    runs = {}
    for fold in [f.strip() for f in args.folds.split(",") if f.strip()]:
        mine = ours(fold, results)
        chosen = {"profile": mine["chosen"]["profile"], "ease": {"lamb": mine["chosen"]["ease"]["lamb"]}}
        runs[fold] = {"cornac": run_fold(fold, chosen, data_home(args.data)), "ours": mine}
        print(fold, runs[fold]["cornac"]["ndcg@10"], flush=True)
    prov = provenance(started)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cornac.json").write_text(json.dumps({"_provenance": prov, "runs": runs}, indent=1))
    md = markdown(runs, prov)
    (args.out / "cornac.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
