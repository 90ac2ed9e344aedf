"""Speed and memory of the recommender's command line, each measured in a fresh process.

1. ``recsys train`` on MovieLens 100K u1 with the default parameters: wall time and peak memory
   (target: at most 20 s and 1.5 GB on a 2-core machine).
2. ``recsys predict MODEL 1 20``, one pair with its explanation, from the saved model (target 1 s).
3. ``recsys predict MODEL --pairs u1.test``, the 20,000 test pairs (target 3 s).
4. ``recsys recommend MODEL --users FILE``, lists for all 943 users (target 5 s).
5. In one process, the model loaded: one user's list of 10 with its reasons, and a new person's list
   from 20 ratings (``recommend`` with their ratings), 50 ms each at most (median of the users).
6. With ``--tenfold``: ``recsys train --ratings`` on ten times MovieLens 100K — ten catalogues side
   by side, each a seeded 80 % sample of ``u.data`` with its own user and movie ids (9,430 users,
   about 16,500 movies, 800,000 ratings) — time and peak memory, once: what grows with the data.

Each command runs in a child process (``python -m benchmarks.bench_recsys --child …``) that calls
the CLI and then reports its own peak memory (VmHWM); wall times are the child's whole life,
interpreter start and imports included, as a user sees them.  Medians over ``--repeats``.

Usage: python benchmarks/bench_recsys.py [--data DIR] [--repeats 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from experiments.runner import peak_rss_mb  # noqa: E402

# the child imports nothing more than the command it measures: numpy, coclust and the experiments
# helpers are imported by the parent only

TARGETS = {
    "train_seconds": 20.0,
    "train_peak_mb": 1536.0,
    "predict_one_seconds": 1.0,
    "predict_pairs_seconds": 3.0,
    "users_lists_seconds": 5.0,
    "list_with_reasons_ms": 50.0,
    "new_user_list_ms": 50.0,
}


def child(argv: list[str]) -> None:
    """Run ``recsys ARGV`` in this process, then print its peak memory."""
    from recsys.cli import app

    try:
        app(argv, standalone_mode=False)
    finally:
        print(json.dumps({"peak_mb": peak_rss_mb()}), file=sys.stderr)


def timed(args: list[str], home: Path) -> tuple[float, float]:
    from experiments.runner import run_child

    t = time.perf_counter()
    res = run_child(["benchmarks/bench_recsys.py", "--child", *args], env={"RECSYS_DATA": str(home)})
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"recsys {' '.join(args)} failed:\n{res.stderr[-2000:]}")
    peak = json.loads(res.stderr.strip().splitlines()[-1])["peak_mb"]
    return wall, peak


def _in_process(model_dir: Path, home: Path) -> dict:
    """Median milliseconds of one user's list with reasons, and of a new person's list from 20
    ratings, over 50 users, the model loaded once (what a service pays per request)."""
    import numpy as np

    from ingest.movielens import read_ml100k_ratings
    from recsys.store import load

    model = load(model_dir)
    model.recommend(1, 10)  # first use: lazy caches
    test = read_ml100k_ratings(home / "ml-100k" / "u1.test")
    users = sorted(test["user"].unique())[:50]
    known, new = [], []
    for u in users:
        t = time.perf_counter()
        model.recommend(u, 10)
        known.append(time.perf_counter() - t)
        mine = test[test["user"] == u].head(20)
        t = time.perf_counter()
        model.recommend(dict(zip(mine["item"], mine["rating"])), 10)
        new.append(time.perf_counter() - t)
    return {"list_with_reasons_ms": 1000 * float(np.median(known)), "new_user_list_ms": 1000 * float(np.median(new))}


def tenfold(home: Path, out: Path, seed: int = 0) -> Path:
    """Ten copies of MovieLens 100K side by side (distinct user and movie ids), each a seeded 80 %
    sample of its ratings, as a ``user,item,rating,timestamp`` CSV at ``out``."""
    import numpy as np

    from ingest.movielens import read_ml100k_ratings

    r = read_ml100k_ratings(home / "ml-100k" / "u.data")
    rng = np.random.default_rng(seed)
    with out.open("w") as f:
        f.write("user,item,rating,timestamp\n")
        for k in range(10):
            p = r[rng.random(len(r)) < 0.8]
            for row in zip(p["user"], p["item"], p["rating"], p["timestamp"], strict=True):
                f.write(f"{row[0]}_{k},{row[1]}_{k},{row[2]},{row[3]}\n")
    return out


def _print_figures(res: dict, first_wall: float, n_pairs: int, size_mb: float) -> None:
    """The figures beside their targets."""
    print("recsys on MovieLens 100K u1, fresh process each (median):")
    print(f"  first train (compiles if the numba cache is cold): {first_wall:.1f} s")
    for key, label in (
        ("train_seconds", "train, default parameters"),
        ("train_peak_mb", "train, peak memory (MB)"),
        ("predict_one_seconds", "predict one pair with its explanation"),
        ("predict_pairs_seconds", f"predict --pairs ({n_pairs:,} pairs)"),
        ("users_lists_seconds", "recommend --users (943 users)"),
        ("list_with_reasons_ms", "one list of 10 with reasons, in process (ms)"),
        ("new_user_list_ms", "a new person's list from 20 ratings (ms)"),
    ):
        ok = "ok" if res[key] <= TARGETS[key] else "OVER"
        print(f"  {label:<42} {res[key]:8.2f}   target <= {TARGETS[key]:g}  {ok}")
    print(f"  model directory: {size_mb:.1f} MB")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    import numpy as np

    from experiments.runner import data_home

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=data_home())
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--tenfold", action="store_true", help="only: train on ten times MovieLens 100K (item 6)")
    args = ap.parse_args()
    if args.tenfold:
        with tempfile.TemporaryDirectory() as tmp:
            ratings = tenfold(args.data, Path(tmp) / "tenfold.csv")
            model = Path(tmp) / "m"
            wall, peak = timed(["train", "--ratings", str(ratings), "--out", str(model), "--quiet"], args.data)
            n = sum(1 for _ in ratings.open()) - 1
        print(f"recsys train on ten times MovieLens 100K ({n:,} ratings): {wall:.1f} s, peak {peak:,.0f} MB")
        return
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "u1"
        # the first fit of a fresh environment also compiles coclust's kernels: report it apart
        first_wall, first_peak = timed(["train", "--out", str(model), "--quiet"], args.data)
        train = [timed(["train", "--out", str(model), "--quiet"], args.data) for _ in range(max(1, args.repeats // 2))]
        one = [timed(["predict", str(model), "1", "20"], args.data) for _ in range(args.repeats)]
        pairs_file = args.data / "ml-100k" / "u1.test"
        out = Path(tmp) / "pred.csv"
        pairs = [
            timed(["predict", str(model), "--pairs", str(pairs_file), "--format", "csv", "--out", str(out)], args.data)
            for _ in range(args.repeats)
        ]
        n_pairs = sum(1 for _ in out.open()) - 1
        users_file = Path(tmp) / "users.txt"
        users_file.write_text("\n".join(str(u) for u in range(1, 944)) + "\n")
        lists = [
            timed(["recommend", str(model), "--users", str(users_file), "--out", str(Path(tmp) / "l.csv")], args.data)
            for _ in range(args.repeats)
        ]
        in_process = _in_process(model, args.data)
        size_mb = sum(f.stat().st_size for f in model.iterdir()) / 1e6
    res = {
        "first_train_seconds": first_wall,
        "train_seconds": float(np.median([w for w, _ in train])),
        "train_peak_mb": float(max(p for _, p in train)),
        "predict_one_seconds": float(np.median([w for w, _ in one])),
        "predict_pairs_seconds": float(np.median([w for w, _ in pairs])),
        "users_lists_seconds": float(np.median([w for w, _ in lists])),
        **in_process,
        "pairs": n_pairs,
        "model_mb": size_mb,
        "runs": {"train": train, "predict_one": one, "predict_pairs": pairs},
    }
    _print_figures(res, first_wall, n_pairs, size_mb)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
