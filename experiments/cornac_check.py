"""The product and EASE through cornac's own harness: cornac's ``BaseMethod`` on MovieLens 100K's
folds, its ``Experiment`` and its NDCG@10 (a test rating >= 4 relevant), beside our protocol's figures
for the same fold and settings (``results/movielens.json``).

Each method runs at the setting our protocol chose for lists on that fold: the product's
``item_l2``/``n_votes`` (:class:`recsys.cornac_recommender.CoClusterRecommender`), EASE's λ and
input.  The two harnesses differ in one rule: cornac ranks the training items a user rated below 4
among the candidates, where ours never lists a rated item — and the product puts them last itself.
So EASE runs twice: cornac's ``EASE`` as it comes (its training matrix: the star ratings), and the
same model given what the product has (:class:`RatedLastEASE`: the fold's chosen input, the
user's rated items last) — the like-for-like comparison with our protocol's difference.

Usage: python -m experiments.cornac_check [--folds u1,...] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import RESULTS, provenance, provenance_md, working_directory


def rated_last_ease():
    """cornac's EASE given what the product has: fitted on the fold's chosen input as our anchor fits
    it (``all``, ``likes``, ``relevant`` or ``weighted``) and a user's rated items scored last."""
    import cornac

    class RatedLastEASE(cornac.models.EASE):
        def __init__(self, name="ease_rated_last", lamb=500, input="weighted"):
            super().__init__(name=name, lamb=lamb, posB=False, verbose=False)
            self.input = input

        def fit(self, train_set, val_set=None):
            # cornac's bookkeeping only: EASE's own fit would invert the Gram a first time for nothing
            cornac.models.Recommender.fit(self, train_set, val_set)
            self.rated = train_set.matrix.tocsr()
            X = self.rated.copy()
            r = X.data
            X.data = {"all": np.ones_like(r), "likes": (r > 2) * 1.0, "relevant": (r >= 4) * 1.0, "weighted": r}[
                self.input
            ]
            X.eliminate_zeros()
            # as our anchor (recsys.evaluation.anchors.EASE, since bfb43c5): the weights learnt from the
            # input's matrix (the stars for ``weighted``), a user's row read with the same values
            G = (X.T @ X).toarray() + self.lamb * np.eye(X.shape[1])  # EASE (Steck 2019), as cornac's fit
            P = np.linalg.inv(G)
            self.B = P / (-np.diag(P))
            np.fill_diagonal(self.B, 0.0)
            self.U = X
            return self

        def score(self, user_idx, item_idx=None):
            s = np.asarray(super().score(user_idx), dtype=np.float64).ravel().copy()
            rated = self.rated.indices[self.rated.indptr[user_idx] : self.rated.indptr[user_idx + 1]]
            s[rated] = s.min() - 1.0
            return s if item_idx is None else s[item_idx]

    return RatedLastEASE


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
        rated_last_ease()(lamb=chosen["ease"]["lamb"], input=chosen["ease"]["input"]),
    ]
    experiment = cornac.Experiment(method, models, [cornac.metrics.NDCG(k=10)], verbose=False)
    with tempfile.TemporaryDirectory() as scratch, working_directory(scratch):  # cornac's log goes there
        experiment.run()
    ndcg = {r.model_name: float(r.metric_avg_results["NDCG@10"]) for r in experiment.result}
    return {
        "ndcg@10": ndcg,
        "difference": ndcg["product"] - ndcg["ease_rated_last"],
        "difference_as_it_comes": ndcg["product"] - ndcg["ease"],
        "settings": {"product": profile, **chosen},
    }


def ours(fold: str, results: dict) -> dict:
    """Our protocol's NDCG@10 of the product and EASE on ``fold`` (``results/movielens.json``), and
    the settings chosen there."""
    topn = results[fold]["topn"]["methods"]
    return {
        "ndcg@10": {"profile": topn["profile"]["ndcg@10"], "ease": topn["ease"]["ndcg@10"]},
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
        "chose for lists on the fold (`results/movielens.json`). cornac ranks a user's training items rated "
        "below 4 among the candidates (ours never lists a rated item; the product puts them last itself): "
        "*EASE as it comes* is cornac's `EASE` on the star ratings, *EASE rated last* the same model on the "
        "fold's chosen input with the user's rated items last — what the product has, and the comparison with ours.",
        "",
        "| fold | cornac: product | cornac: EASE as it comes | cornac: EASE rated last | cornac: product − EASE "
        "rated last | ours: product | ours: EASE | ours: product − EASE | same sign | within 0.01 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fold, r in runs.items():
        c, o = r["cornac"], r["ours"]
        same = (c["difference"] > 0) == (o["difference"] > 0)
        close = abs(c["difference"] - o["difference"]) <= 0.01
        lines.append(
            f"| {fold} | {c['ndcg@10']['product']:.4f} | {c['ndcg@10']['ease']:.4f} "
            f"| {c['ndcg@10']['ease_rated_last']:.4f} | {c['difference']:+.4f} "
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
        chosen = {"profile": mine["chosen"]["profile"], "ease": mine["chosen"]["ease"]}
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
