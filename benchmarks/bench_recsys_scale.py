"""The recommender against the size *and the structure* of its data, beside its peers in the same run.

For each size (``--sizes``, default 1 M ratings) and each structure of
:data:`benchmarks.synthetic_ratings.STRUCTURES` (``--structures``; how concentrated the most rated
movies are, the like share, how much tastes choose what is rated), seeded ratings are generated in a
MovieLens shape (users in proportion to the ratings, movies as their square root; ``--shape
netflix``: 4,800 users per million ratings and Netflix's 17,770 movies), 10 % held out at random,
and in the same run:

- ``recsys train --ratings … --items … --split random:0.1:0`` as a child process: its wall time,
  peak resident memory (its own, :mod:`benchmarks.peak`), the seconds of each phase (from its progress
  lines) and the model's size;
- the held-out like/dislike AUC and top-10 NDCG of the model (a held-out rating ≥ 4 is relevant,
  every unrated movie a candidate: :mod:`recsys.evaluation.ranking`);
- ``recsys recommend MODEL --users …`` for every user of the split, as a child process: the lists'
  wall time per user, process start included;
- its peers (:mod:`benchmarks.peers`: EASE, iALS, SANSA, the most popular items), each tuned on a
  tenth of the training ratings with grids extended past any edge the choice sits on, refitted and
  scored on the same split, each in its own child process: fit time, peak memory, NDCG@10 (with
  ``--train-args=--implicit`` they learn from every rating, as the product then does);
- the product's NDCG@10 minus each peer's with a 95 % paired bootstrap interval over the test users
  (``ndcg@10_versus``): a difference whose interval holds 0 is a level, not a win or a loss.

Per size it prints the product's train time over EASE's fit time and the spread of the train time
across structures (the largest over the smallest).

Usage: python benchmarks/bench_recsys_scale.py [--sizes 1000000,10000000] [--structures movielens,...]
       [--shape movielens|netflix] [--peers ease,ials,sansa,popular] [--max-fits 16] [--json FILE]
       [--keep DIR] [--train-args "--scaling off"] [--plot PNG]

``--json`` adds the runs to the file (a run of the same size, structure, shape and train arguments
replaces the one there; each run carries its own commit stamp); ``--plot`` draws time and peak
memory against ratings from every run in that file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic_ratings import STRUCTURES, Shape  # noqa: E402

SPLIT = "random:0.1:0"
PEERS = ("ease", "ials", "sansa", "popular")
PHASE = re.compile(r"^\[\s*([\d.]+)s\] (.*)$")
# Netflix Prize: 480,189 users, 17,770 movies, 100,480,507 ratings
NETFLIX_USERS_PER_MILLION, NETFLIX_ITEMS, NETFLIX_RATINGS = 4_800, 17_770, 100_480_507


def shape_of(n: int, structure: str, shape: str) -> Shape:
    """The generator's shape of ``n`` ratings for a structure and a growth shape."""
    knobs = STRUCTURES[structure]
    if shape == "netflix":
        users = max(50, round(NETFLIX_USERS_PER_MILLION * n / 1e6))
        return replace(Shape(), n_users=users, n_items=NETFLIX_ITEMS, n_ratings=n, **knobs)
    return Shape.like_movielens(n, **knobs)


def child(cmd: list[str], log: Path) -> tuple[float, float, str]:
    """Run ``cmd`` (``python -m MODULE …``); its wall seconds, peak resident MB and output (an error
    raises with its end).  The peak is the child's own (:mod:`benchmarks.peak`), not ``wait4``'s,
    which starts from what this process held when it forked."""
    peak_file = log.with_suffix(".peak")
    peak_file.unlink(missing_ok=True)
    if cmd[1:2] == ["-m"]:
        cmd = [cmd[0], "-m", "benchmarks.peak", str(peak_file), *cmd[2:]]
    start = time.perf_counter()
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "200"})
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    text = log.read_text()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} … failed:\n{text[-2000:]}")
    own = peak_file.read_text().strip() if peak_file.exists() else ""
    return seconds, (int(own) if own else usage.ru_maxrss) / 1024, text


def train(ratings: Path, items: Path, out: Path, extra: tuple[str, ...] = ()) -> dict:
    """``recsys train`` as a child process: wall time, peak memory, phases and model size."""
    cmd = [
        sys.executable,
        "-m",
        "recsys.cli",
        "train",
        "--ratings",
        str(ratings),
        "--items",
        str(items),
        "--split",
        SPLIT,
        "-o",
        str(out),
        *extra,
    ]
    seconds, peak, text = child(cmd, out.with_suffix(".log"))
    marks = [(float(m.group(1)), m.group(2)) for m in map(PHASE.match, text.splitlines()) if m]
    total = re.search(r"trained in ([\d.]+) s", text)
    ends = [t for t, _ in marks[1:]] + [float(total.group(1)) if total else seconds]
    phases: dict[str, float] = {}
    for (t, name), end in zip(marks, ends, strict=True):
        key = re.sub(r"\d[\d,]* ", "", name.split(":")[0])  # "co-clustering the like relation (…)" → one key
        key = re.sub(r" \(.*\)", "", key)
        phases[key] = phases.get(key, 0.0) + end - t
    size = sum(p.stat().st_size for p in out.iterdir())
    return {"seconds": seconds, "peak_mb": peak, "model_mb": size / 2**20, "phases": phases}


def lists(model: Path, users: list, work: Path) -> dict:
    """``recsys recommend MODEL --users FILE`` for ``users``: wall time per user, process start included."""
    ids = work / "users.txt"
    ids.write_text("\n".join(map(str, users)) + "\n")
    cmd = [
        sys.executable,
        "-m",
        "recsys.cli",
        "recommend",
        str(model),
        "--users",
        str(ids),
        "-n",
        "10",
        "--format",
        "csv",
        "--out",
        str(work / "lists.csv"),
    ]
    seconds, peak, _ = child(cmd, work / "lists.log")
    return {
        "users": len(users),
        "seconds": seconds,
        "ms_per_user": 1000 * seconds / max(len(users), 1),
        "peak_mb": peak,
    }


def accuracy(ratings_csv: Path, model_dir: Path, per_user: Path | None = None) -> dict:
    """Held-out AUC and NDCG@10 of the saved model, scored as the evaluation scores every method;
    ``per_user``: a ``.npy`` file for the NDCG@10 of every test user (sorted ids, as the peers')."""
    import numpy as np
    import pandas as pd

    from ingest.splits import split_ratings
    from recsys.evaluation.methods import ProfileMethod
    from recsys.evaluation.metrics import fill_uncovered, roc_auc
    from recsys.evaluation.ranking import RankingTask, catalogue_of, ndcg_per_user, top_lists
    from recsys.store import load

    ratings = pd.read_csv(ratings_csv)
    fit, test = split_ratings(ratings, SPLIT)
    profile = ProfileMethod()
    profile.model = load(model_dir)
    task = RankingTask.of(fit, test, catalogue_of(fit))
    auc = None  # a model of interactions (--train-args --implicit) has no like-probability
    if not profile.model.fitted_.implicit:
        scores = profile.score(test["user"].to_numpy(), test["item"].to_numpy())
        auc = roc_auc(test["rating"].to_numpy() > 2, fill_uncovered(scores.score, scores.covered))
    values = ndcg_per_user(top_lists(profile, task), task.relevant)
    if per_user is not None:
        np.save(per_user, values)
    return {"auc": auc, "ndcg@10": float(values.mean()), "users_listed": len(task)}


def peer(
    name: str,
    ratings_csv: Path,
    max_fits: int,
    work: Path,
    weights_per_item: float | None = None,
    implicit: bool = False,
) -> dict:
    """One peer tuned, refitted and scored in its own child process (:mod:`benchmarks.peers`);
    SANSA keeps ``weights_per_item`` (the product's); ``implicit``: it learns from every rating, as
    the product trained with ``--implicit``; its NDCG@10 per test user goes to ``work/ndcg-NAME.npy``."""
    options = ["--weights-per-item", f"{weights_per_item:.1f}"] if name == "sansa" and weights_per_item else []
    options += ["--implicit"] if implicit else []
    per_user = work / f"ndcg-{name}.npy"
    per_user.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.peers",
        "--method",
        name,
        "--ratings",
        str(ratings_csv),
        "--max-fits",
        str(max_fits),
        "--per-user",
        str(per_user),
        *options,
    ]
    try:
        seconds, peak, text = child(cmd, work / f"peer-{name}.log")
    except RuntimeError as exc:
        return {"method": name, "failed": str(exc)[-500:]}
    out = json.loads(text.strip().splitlines()[-1])
    out["process_peak_mb"], out["process_seconds"] = peak, seconds
    out.pop("points", None)
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000", help="ratings per run, comma separated ('': only --plot)")
    parser.add_argument("--structures", default=",".join(STRUCTURES), help=f"of {', '.join(STRUCTURES)}")
    parser.add_argument("--shape", choices=("movielens", "netflix"), default="movielens")
    parser.add_argument("--peers", default=",".join(PEERS), help=f"of {', '.join(PEERS)} ('' for none)")
    parser.add_argument("--max-fits", type=int, default=16, help="each peer's tuning fits (default 16)")
    parser.add_argument("--json", help="write the figures here (stamped with the commit)")
    parser.add_argument("--keep", help="keep the data and models here (data already there is reused)")
    parser.add_argument(
        "--no-accuracy",
        action="store_true",
        help="skip the held-out AUC and NDCG (in this process: the longest step at 25 M ratings)",
    )
    parser.add_argument("--train-args", default="", help="more arguments of recsys train, e.g. '--scaling off'")
    parser.add_argument("--plot", help="draw time and memory against ratings from the --json file into this PNG")
    parser.add_argument(
        "--extrapolate",
        type=int,
        default=NETFLIX_RATINGS,
        help="from the --json file's runs, the fitted growth's time and memory at this many ratings "
        f"(default {NETFLIX_RATINGS:,}: the Netflix Prize's)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.plot and not args.json:
        parser.error("--plot draws the runs of the --json file: give --json too")
    structures = [s for s in args.structures.split(",") if s]
    unknown = set(structures) - set(STRUCTURES)
    if unknown:
        parser.error(f"unknown structure(s) {sorted(unknown)}; known: {', '.join(STRUCTURES)}")
    peers = [p for p in args.peers.split(",") if p]
    if args.sizes == "":  # only plot
        if not args.plot:
            parser.error("--sizes '' measures nothing: give --plot")
        plot(json.loads(Path(args.json).read_text())["runs"], Path(args.plot))
        _print_growth(args)
        return
    from recsys.provenance import provenance

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="recsys-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            rows = []
            for structure in structures:
                row = measure(n, structure, args, peers, work)
                row["provenance"] = provenance()
                rows.append(row)
                print(_line(row), flush=True)
                if args.json:  # after every run: a long run killed later keeps what it measured
                    _merge(Path(args.json), row)
            if len(rows) > 1:
                times = [r["seconds"] for r in rows]
                print(
                    f"    {n:,} ratings: train time across structures {min(times):.1f}–{max(times):.1f} s, "
                    f"spread {max(times) / min(times):.2f} ×",
                    flush=True,
                )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.plot:
        plot(json.loads(Path(args.json).read_text())["runs"], Path(args.plot))
    _print_growth(args)


def _print_growth(args) -> None:
    if args.json and Path(args.json).exists():
        for line in growth(json.loads(Path(args.json).read_text())["runs"], args.extrapolate):
            print(line, flush=True)


def growth_fit(runs: list[dict], group: tuple[str, str, str], to: int) -> dict | None:
    """The rows of ``group`` (shape, structure, train arguments) at 1 M ratings and up, their train
    time and peak memory fitted as ``c · ratings^b`` (least squares in logs), and both extrapolated
    to ``to`` ratings; None below two sizes."""
    import numpy as np

    sel = sorted((r for r in runs if group_of(r) == group and r["ratings"] >= 1_000_000), key=lambda r: r["ratings"])
    if len({r["ratings"] for r in sel}) < 2:
        return None
    x = np.log([r["ratings"] for r in sel])
    fits = {key: np.polyfit(x, np.log([r[key] for r in sel]), 1) for key in ("seconds", "peak_mb")}
    (bt, at), (bm, am) = fits["seconds"], fits["peak_mb"]
    return {
        "rows": sel,
        "time_exponent": float(bt),
        "memory_exponent": float(bm),
        "minutes": float(np.exp(at + bt * np.log(to)) / 60),
        "gb": float(np.exp(am + bm * np.log(to)) / 1024),
    }


def growth(runs: list[dict], to: int) -> list[str]:
    """For each shape, structure and train arguments measured at two sizes or more (1 M ratings and
    up): :func:`growth_fit`, said as an extrapolation from the sizes measured."""
    out = []
    for group in sorted({group_of(r) for r in runs}):
        fit = growth_fit(runs, group, to)
        if fit is None:
            continue
        sizes = ", ".join(f"{r['ratings'] / 1e6:g} M" for r in fit["rows"])
        out.append(
            f"    growth of {group[1]} ({group[0]}{', ' + group[2] if group[2] else ''}) from {sizes}: time "
            f"∝ ratings^{fit['time_exponent']:.2f}, memory ∝ ratings^{fit['memory_exponent']:.2f}; at {to:,} "
            f"ratings (extrapolated): {fit['minutes']:.0f} min, {fit['gb']:.1f} GB"
        )
    return out


def group_of(r: dict) -> tuple[str, str, str]:
    return r.get("shape", "movielens"), r.get("structure", "popular"), r.get("train_args", "")


def measure(n: int, structure: str, args, peers: list[str], work: Path) -> dict:
    """Every figure of one size and structure."""
    import pandas as pd

    from ingest.splits import split_ratings

    shape = shape_of(n, structure, args.shape)
    here = work / f"{args.shape}-{structure}-{n}"
    here.mkdir(parents=True, exist_ok=True)
    ratings_csv, items_csv = here / "ratings.csv", here / "items.csv"
    start = time.perf_counter()
    if not (args.keep and ratings_csv.exists() and items_csv.exists()):  # seeded: the same data
        # in a child: generated here, 25 M ratings left this process holding GBs that every later
        # child's kernel-counted peak started from
        code = (
            "from pathlib import Path; from benchmarks.bench_recsys_scale import shape_of; "
            "from benchmarks.synthetic_ratings import write; "
            f"write(shape_of({n}, {structure!r}, {args.shape!r}), Path({str(here)!r}))"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
    row = {
        "ratings": n,
        "structure": structure,
        "shape": args.shape,
        "users": shape.n_users,
        "items": shape.n_items,
        "generate_seconds": time.perf_counter() - start,
        "train_args": args.train_args,
    }
    row.update(train(ratings_csv, items_csv, here / "model", tuple(shlex.split(args.train_args))))
    product_per_user = here / "ndcg-product.npy"
    product_per_user.unlink(missing_ok=True)
    if not args.no_accuracy:
        row.update(accuracy(ratings_csv, here / "model", product_per_user))
    ratings = pd.read_csv(ratings_csv, usecols=["user", "item", "rating"])
    row["head_share"] = float(ratings["item"].value_counts().iloc[0] / ratings["user"].nunique())
    row["like_share"] = float((ratings["rating"] > 2).mean())
    row["ratings_generated"] = len(ratings)
    fit, _ = split_ratings(ratings, SPLIT)
    del ratings
    row["lists"] = lists(here / "model", sorted(fit["user"].unique().tolist()), here)
    per_item = _weights_per_item(here / "model")
    row["item_weights_per_item"] = per_item
    implicit = "--implicit" in shlex.split(args.train_args)  # the peers get the product's input
    row["peers"] = {name: peer(name, ratings_csv, args.max_fits, here, per_item, implicit) for name in peers}
    ease = row["peers"].get("ease", {})
    if ease.get("fit_seconds"):
        row["train_over_ease_fit"] = row["seconds"] / ease["fit_seconds"]
    versus = ndcg_versus(here, peers)
    if versus:
        row["ndcg@10_versus"] = versus
    return row


def ndcg_versus(here: Path, peers: list[str]) -> dict:
    """The product's NDCG@10 minus each peer's, averaged over the test users, with its 95 % paired
    bootstrap interval over users (:func:`recsys.evaluation.intervals.paired_bootstrap_means`), from
    the per-user files this run wrote in ``here``; {} without the product's."""
    import numpy as np

    from recsys.evaluation.intervals import paired_bootstrap_means

    files = {"product": here / "ndcg-product.npy", **{p: here / f"ndcg-{p}.npy" for p in peers}}
    values = {m: np.load(f) for m, f in files.items() if f.exists()}
    if "product" not in values:
        return {}
    # the same split and RankingTask order the same users; a count that differs is another split's
    values = {m: v for m, v in values.items() if len(v) == len(values["product"])}
    return paired_bootstrap_means(values, "product")["versus"] if len(values) > 1 else {}


def _weights_per_item(model: Path) -> float | None:
    """The trained model's item weights per movie (its report's), for SANSA to keep as many."""
    report = json.loads((model / "manifest.json").read_text())["report"].get("item_model", {})
    return report["weights"] / report["items"] if report.get("items") else None


def _merge(path: Path, row: dict) -> None:
    """Add ``row`` to the runs of ``path`` (replacing a run of the same size, structure, shape and
    train arguments)."""
    runs = json.loads(path.read_text())["runs"] if path.exists() else []

    def key(r: dict) -> tuple:
        return r["ratings"], r.get("structure", "popular"), r.get("shape", "movielens"), r.get("train_args", "")

    runs = [r for r in runs if key(r) != key(row)] + [row]
    runs.sort(
        key=lambda r: (
            r.get("shape", "movielens"),
            r.get("structure", "popular"),
            r.get("train_args", ""),
            r["ratings"],
        )
    )
    path.write_text(json.dumps({"runs": runs}, indent=1, default=float))


def plot(runs: list[dict], path: Path) -> None:
    """Train time and peak memory against ratings, one line per shape, structure and train
    arguments, log-log, with a line of slope 1 (linear growth) through the first point of 1 M or more."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    groups = sorted(
        {(r.get("shape", "movielens"), r.get("structure", "popular"), r.get("train_args", "")) for r in runs}
    )
    for shape, structure, extra in groups:
        sel = sorted(
            (
                r
                for r in runs
                if (r.get("shape", "movielens"), r.get("structure", "popular"), r.get("train_args", ""))
                == (shape, structure, extra)
            ),
            key=lambda r: r["ratings"],
        )
        x = [r["ratings"] for r in sel]
        label = f"{structure} ({shape}{', ' + extra if extra else ''})"
        for ax, key, scale in ((axes[0], "seconds", 1.0), (axes[1], "peak_mb", 1 / 1024)):
            y = [r[key] * scale for r in sel]
            line = ax.plot(x, y, "o-", label=label)[0]
            if len(x) > 1:
                a = next((t for t, n in enumerate(x) if n >= 1_000_000), 0)
                ax.plot([x[a], x[-1]], [y[a], y[a] * x[-1] / x[a]], ":", lw=1, color=line.get_color())
    for ax, ylabel in ((axes[0], "training time (s)"), (axes[1], "peak memory (GB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ratings (synthetic; dotted: linear growth)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("recsys train against data size and structure (2 cores, 24 GB)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _line(row: dict) -> str:
    per_million = row["seconds"] / (row["ratings"] / 1e6)
    phases = ", ".join(f"{k} {v:.1f}" for k, v in sorted(row["phases"].items(), key=lambda kv: -kv[1])[:5])
    peers = "; ".join(
        f"{name} {p['ndcg@10']:.4f} (fit {p['fit_seconds']:.1f} s, {p['process_peak_mb']:,.0f} MB)"
        if "ndcg@10" in p
        else f"{name} {'skipped: ' + p['skipped'] if 'skipped' in p else 'failed'}"
        for name, p in row["peers"].items()
    )
    ratio = f", {row['train_over_ease_fit']:.1f} × EASE's fit" if "train_over_ease_fit" in row else ""
    auc = "" if row.get("auc") is None else f"; AUC {row['auc']:.4f}"
    held = f"{auc}; NDCG@10 {row['ndcg@10']:.4f}" if "ndcg@10" in row else "; accuracy not measured"
    return (
        f"{row['ratings']:>11,} ratings, {row['structure']} ({row['users']:,} × {row['items']:,}, head "
        f"{row['head_share']:.2f}, likes {row['like_share']:.2f}): train {row['seconds']:.1f} s ({per_million:.0f} "
        f"s per million{ratio}), peak {row['peak_mb']:,.0f} MB, model {row['model_mb']:.0f} MB{held}; lists "
        f"{row['lists']['ms_per_user']:.2f} ms a user\n"
        f"    peers: {peers}\n    slowest phases (s): {phases}"
    )


if __name__ == "__main__":
    main()
