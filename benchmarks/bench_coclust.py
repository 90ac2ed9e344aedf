"""Speed and memory of coclust on Classic3.

1. MinHash throughput: relation × hash-function evaluations per second (all cores) at 6,000
   hash functions over Classic3, beside a plain numpy loop over hash functions measured in the
   same run (on a subset, scaled), so the ratio is meaningful on a noisy machine.
2. The full HBLCoClust pipeline (both orientations) with the paper's Classic3 parameters
   (nhashes 2000, nkeys 3, minO 50, minF 4, thr 0.2, spthr 0.5): wall time per step, peak
   memory (in a fresh process), co-clusters found and their purity.

Usage: python benchmarks/bench_coclust.py [--data DIR] [--runs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.memory import peak_rss_mb  # noqa: E402
from experiments.common import child_json, data_home  # noqa: E402

PAPER = dict(n_bands=2000, band_size=3, min_rows=50, min_cols=4, max_feature_freq=0.8, min_density=0.5)


def classic3(data: Path):
    from ingest.benchmarks import read_classic3

    return read_classic3(home=data)


def minhash_throughput(rel, n_hashes=6000, repeats=5) -> dict:
    from coclust.minhash import HashFamily, minhash_values

    H = HashFamily.sample(n_hashes, random_state=0)
    minhash_values(rel.matrix[:8], H)  # compile / load from cache
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        minhash_values(rel.matrix, H)
        times.append(time.perf_counter() - t)
    best = min(times)
    # reference: numpy loop over hash functions, uint64 arithmetic with % P, on 60 functions
    X = rel.matrix
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    x = X.indices.astype(np.uint64)
    P = np.uint64((1 << 31) - 1)
    k = 60
    t = time.perf_counter()
    for h in range(k):
        v = (H.a[h] * x + H.b[h]) % P
        out = np.full(X.shape[0], P)
        np.minimum.at(out, rows, v)
    ref = (time.perf_counter() - t) / k * n_hashes
    evals = X.nnz * n_hashes
    return {
        "hash_functions": n_hashes,
        "relations": int(X.nnz),
        "seconds_best": best,
        "seconds_all": times,
        "evaluations_per_second": evals / best,
        "numpy_loop_evaluations_per_second": evals / ref,
        "speedup_vs_numpy_loop": ref / best,
    }


def pipeline(data: Path, runs: int) -> dict:
    from coclust import HBLCoClust, metrics

    rel = classic3(data)
    out = {"params": PAPER, "runs": []}
    for run in range(runs + 1):
        model = HBLCoClust(random_state=run, **PAPER)
        t = time.perf_counter()
        model.fit(rel.matrix)
        wall = time.perf_counter() - t
        cc = model.coclusters_
        obj, feat = metrics.coverage(cc, rel.matrix.shape)
        out["runs"].append(
            {
                "warm": run > 0,  # run 0 includes compiling or loading the numba cache
                "seconds": wall,
                "steps": model.timings_,
                "seeds": model.n_seeds_,
                "regions": model.n_regions_,
                "concepts": model.n_concepts_,
                "coclusters": len(cc),
                "purity": metrics.purity(cc, rel.labels) if cc else None,
                "objects_covered": obj,
                "features_covered": feat,
            }
        )
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=data_home())
    ap.add_argument("--runs", type=int, default=3, help="warm runs of the pipeline (after one cold run)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--pipeline-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.pipeline_only:  # child process: its peak RSS is the pipeline's alone
        print(json.dumps(pipeline(args.data, args.runs)))
        return

    rel = classic3(args.data)
    mh = minhash_throughput(rel)
    print(f"MinHash, {mh['hash_functions']} functions × {mh['relations']:,} relations (Classic3):")
    print(
        f"  compiled: {mh['evaluations_per_second'] / 1e9:.2f} billion evaluations/s "
        f"(best of {len(mh['seconds_all'])}: {mh['seconds_best']:.3f} s)"
    )
    print(
        f"  numpy loop over hash functions: {mh['numpy_loop_evaluations_per_second'] / 1e9:.3f} billion/s "
        f"→ speed-up ×{mh['speedup_vs_numpy_loop']:.0f}"
    )

    pl = child_json(
        ["benchmarks/bench_coclust.py", "--pipeline-only", "--data", str(args.data), "--runs", str(args.runs)]
    )
    print(f"\nHBLCoClust on Classic3 {PAPER}, both orientations:")
    for r in pl["runs"]:
        steps = ", ".join(f"{k} {v:.2f}" for k, v in r["steps"].items() if k != "total")
        print(
            f"  {'warm' if r['warm'] else 'cold'}: {r['seconds']:.2f} s ({steps}); seeds {r['seeds']:,}, "
            f"regions {r['regions']:,}, concepts {r['concepts']:,} → {r['coclusters']} co-clusters, "
            f"purity {r['purity']:.3f}, objects covered {r['objects_covered']:.3f}"
        )
    warm = [r["seconds"] for r in pl["runs"] if r["warm"]]
    if warm:
        print(f"  warm wall time: median {np.median(warm):.2f} s, max {max(warm):.2f} s")
    print(f"  peak memory of the pipeline process: {pl['peak_rss_mb']:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"minhash": mh, "pipeline": pl}, indent=2))


if __name__ == "__main__":
    main()
