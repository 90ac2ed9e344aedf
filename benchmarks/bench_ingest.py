"""Ingest figures: MovieLens-100K u1 relations build time, and IMDb streaming memory.

1. Build the u1.base like/dislike relations (genre + director + writer + cast) from the data
   home: wall time, summary counts.
2. Stream a synthetic 2-million-row ``title.principals.tsv.gz`` (official format) filtered to
   2,000 titles, in a fresh process: peak memory (RSS) and time; for contrast, the peak of
   reading the whole file with one ``pandas.read_csv``.

Usage: python benchmarks/bench_ingest.py [--data DIR] [--rows N] [--titles N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from experiments.runner import child_json, data_home, peak_rss_mb  # noqa: E402


def make_principals(path: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    n_titles = rows // 5
    cats = np.array(["actor", "actress", "director", "writer", "producer", "composer", "self"])
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as f:
        f.write("tconst\tordering\tnconst\tcategory\tjob\tcharacters\n")
        block = 200_000
        for lo in range(0, rows, block):
            n = min(block, rows - lo)
            t = rng.integers(1, n_titles + 1, n)
            p = rng.integers(1, rows // 3, n)
            c = cats[rng.integers(0, len(cats), n)]
            lines = [
                f'tt{a:07d}\t{i % 10 + 1}\tnm{b:07d}\t{k}\t\\N\t["Role {i}"]\n'
                for i, (a, b, k) in enumerate(zip(t, p, c, strict=True), start=lo)
            ]
            f.write("".join(lines))


def child(mode: str, path: str, titles: int) -> None:
    import pandas as pd

    from ingest.imdb import read_principals

    wanted = [f"tt{i:07d}" for i in range(1, titles + 1)]
    t = time.perf_counter()
    if mode == "stream":
        n = len(read_principals(path, wanted))
    else:
        df = pd.read_csv(path, sep="\t", dtype=str, quoting=3)
        n = int(df["tconst"].isin(wanted).sum())
    print(json.dumps({"rows_kept": n, "seconds": time.perf_counter() - t, "peak_rss_mb": peak_rss_mb()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=data_home())
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--titles", type=int, default=2_000)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return

    from ingest.datasets import load_movies

    t = time.perf_counter()
    data = load_movies("ml-100k", "u1", args.data)
    rel = data.relations()
    dt = time.perf_counter() - t
    s = rel.summary()
    print(
        f"ml-100k u1.base relations (genre, director, writer, cast): {dt:.2f} s — users {s['users']:,}, "
        f"attributes {s['attributes']:,}, relations {s['relations']:,} "
        f"(like {s['like_relations']:,}, dislike {s['dislike_relations']:,})"
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "title.principals.tsv.gz"
        t = time.perf_counter()
        make_principals(path, args.rows)
        print(
            f"\nsynthetic title.principals: {args.rows:,} rows, {path.stat().st_size / 1e6:.1f} MB gzip "
            f"(written in {time.perf_counter() - t:.1f} s)"
        )
        for mode in ("stream", "read_csv"):
            r = child_json(["benchmarks/bench_ingest.py", "--child", mode, str(path), str(args.titles)])
            label = (
                "streamed (actor/actress/director/writer rows), filtered to"
                if mode == "stream"
                else "whole-file pandas.read_csv (all rows), then filtered to"
            )
            print(
                f"  {label} {args.titles:,} titles: {r['rows_kept']:,} rows kept, {r['seconds']:.1f} s, "
                f"peak RSS {r['peak_rss_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()
