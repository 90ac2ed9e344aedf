"""The ``recsys`` command line: a thin face over :mod:`ingest`, :mod:`coclust` and :mod:`recsys`.

Errors a user can cause (a missing or malformed file, an unknown name, a bad option value)
print one red line on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import typer

from . import __version__

app = typer.Typer(
    help="Explainable movie recommendations from co-clusters (HBLCoClust).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

USER_ERRORS = (ValueError, FileNotFoundError, NotADirectoryError, PermissionError, OSError, KeyError)


def fail(message: str) -> None:
    """Print one error line on stderr and exit 2."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(2)


def user_errors(fn):
    """Turn the user's mistakes raised inside ``fn`` into :func:`fail`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            typer.secho("interrupted", err=True, fg=typer.colors.RED)
            raise typer.Exit(130) from None
        except USER_ERRORS as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            fail(str(msg))

    return wrapper


def _version(value: bool) -> None:
    if value:
        typer.echo(f"recsys {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Explainable movie recommendations from co-clusters (HBLCoClust).

    Data sets are read from the data home: $RECSYS_DATA, or ~/recsys_data.
    """


HOME = typer.Option(None, "--home", help="Data home (default: $RECSYS_DATA or ~/recsys_data).")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")


@app.command()
@user_errors
def fetch(
    name: str = typer.Argument(..., help="Data set: ml-100k, ml-1m, ml-latest-small, ml-25m, imdb."),
    home: Path = HOME,
    quiet: bool = QUIET,
) -> None:
    """Download a data set into the data home (checksummed; a re-run uses the cache)."""
    from ingest.datahome import data_home, dataset
    from ingest.datahome import fetch as do_fetch

    ds = dataset(name)
    target = data_home(home) / ds.folder
    already = (target / ds.marker).exists()
    path = do_fetch(name, home, progress=not quiet)
    if not quiet:
        typer.echo(f"{name}: {'already in' if already else 'fetched into'} {path}")
        if ds.note:
            typer.echo(ds.note)


def _kinds(attributes: str) -> list[str]:
    kinds = [k.strip() for k in attributes.split(",") if k.strip()]
    if not kinds:
        raise ValueError("--attributes is empty; give e.g. genre,director,writer,cast")
    return kinds


TOP_CAST_3 = typer.Option(3, "--top-cast", help="Keep the first N billed cast members (ml-100k); 0 keeps all.")
ATTRIBUTES = typer.Option(
    "genre,director,writer,cast",
    "--attributes",
    "-a",
    help="Attribute kinds, comma separated (ml-100k: genre, director, writer, cast; "
    "IMDb dumps: genre, actor, actress, director, writer).",
)


@app.command()
@user_errors
def relations(
    dataset: str = typer.Option("ml-100k", "--dataset", "-d", help="ml-100k, ml-1m, ml-latest-small or ml-25m."),
    split: str = typer.Option("u1", "--split", "-s", help="ml-100k: u1..u5, ua, ub; other releases: all."),
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST_3,
    threshold: float = typer.Option(2.0, "--threshold", help="A rating above it is a like."),
    home: Path = HOME,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Build the like/dislike user–attribute relations of a training split and summarise them."""

    data, kinds = _load_data(dataset, split, attributes, top_cast, home)
    summary = data.relations(kinds, threshold).summary()
    summary = {"dataset": dataset, "split": split, "attribute_kinds": kinds, **summary}
    if data.links is not None:
        summary["items_linked_to_imdb"] = data.links.n_linked
        summary["items"] = data.links.n_items
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{dataset} {split} — attributes: {', '.join(kinds)}")
    for key in (
        "users",
        "movies",
        "attributes",
        "features",
        "relations",
        "movie_relations",
        "attribute_relations",
        "like_relations",
        "dislike_relations",
    ):
        typer.echo(f"  {key.replace('_', ' '):<20} {summary[key]:>10,}")
    typer.echo("  attributes by kind   " + ", ".join(f"{k} {v:,}" for k, v in summary["attributes_by_kind"].items()))
    if data.links is not None:
        typer.echo(f"  {data.links}")


def _progress(quiet: bool):
    """A callback printing each step with its elapsed time on stderr (silent with --quiet)."""
    import time

    start = time.perf_counter()
    if quiet:
        return None

    def say(message: str) -> None:
        typer.secho(f"[{time.perf_counter() - start:6.1f}s] {message}", err=True, fg=typer.colors.BRIGHT_BLACK)

    return say


def _parse_user(value: str):
    """MovieLens ids are integers; other data sets may use strings."""
    try:
        return int(value)
    except ValueError:
        return value


def _coclust_params(n_bands, band_size, min_rows, min_cols, min_density, skip_covered) -> dict:
    from .model import DEFAULT_PARAMS

    params = dict(DEFAULT_PARAMS)
    for key, value in (
        ("n_bands", n_bands),
        ("band_size", band_size),
        ("min_rows", min_rows),
        ("min_cols", min_cols),
        ("min_density", min_density),
        ("skip_covered", skip_covered),
    ):
        if value is not None:
            params[key] = value
    return params


DATASET = typer.Option("ml-100k", "--dataset", "-d", help="ml-100k, ml-1m, ml-latest-small or ml-25m.")
SPLIT = typer.Option("u1", "--split", "-s", help="ml-100k: u1..u5, ua, ub; other releases: all.")
N_BANDS = typer.Option(None, "--n-bands", help="HBLCoClust nhashes (default 5000, the paper's).")
BAND_SIZE = typer.Option(None, "--band-size", help="HBLCoClust nkeys (default 4).")
MIN_ROWS = typer.Option(None, "--min-rows", help="HBLCoClust minO (default 2).")
MIN_COLS = typer.Option(None, "--min-cols", help="HBLCoClust minF (default 2).")
MIN_DENSITY = typer.Option(None, "--min-density", help="HBLCoClust spthr (default 0.8).")
SKIP_COVERED = typer.Option(None, "--skip-covered/--all-regions", help="Region heuristic (default: skip covered).")
MODE = typer.Option("scored", "--mode", help="scored (default) or paper.")
MODEL_DIR = typer.Argument(..., help="A model directory written by `recsys train`.")


def _load_data(dataset, split, attributes, top_cast, home):
    from ingest.datasets import load_movies

    kinds = _kinds(attributes)
    if top_cast is not None and top_cast < 0:
        raise ValueError(f"--top-cast must be 0 (all) or more, got {top_cast}")
    return load_movies(dataset, split, home, kinds, top_cast or None), kinds


@app.command()
@user_errors
def train(
    out: Path = typer.Option(..., "--out", "-o", help="Model directory to write."),
    dataset: str = DATASET,
    split: str = SPLIT,
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST_3,
    mode: str = MODE,
    fallback: str = typer.Option("none", "--fallback", help="none or svd: predict what the profiles miss."),
    n_bands: int = N_BANDS,
    band_size: int = BAND_SIZE,
    min_rows: int = MIN_ROWS,
    min_cols: int = MIN_COLS,
    min_density: float = MIN_DENSITY,
    skip_covered: bool = SKIP_COVERED,
    seed: int = typer.Option(0, "--seed", help="Random state."),
    home: Path = HOME,
    quiet: bool = QUIET,
) -> None:
    """Fit the like/dislike profiles on a training split and save the model directory."""
    from .model import ProfileRecommender
    from .store import fingerprint, save

    if fallback not in ("none", "svd"):
        raise ValueError(f"--fallback must be none or svd, got {fallback!r}")
    say = _progress(quiet)
    data, kinds = _load_data(dataset, split, attributes, top_cast, home)
    params = _coclust_params(n_bands, band_size, min_rows, min_cols, min_density, skip_covered)
    model = ProfileRecommender(
        mode=mode,
        like_params=params,
        dislike_params=params,
        fallback=None if fallback == "none" else fallback,
        random_state=seed,
    )
    model.fit(data.train, data.attributes, progress=say)
    save(
        model,
        out,
        fingerprint(data.train, data.attributes),
        {"dataset": dataset, "split": split, "attribute_kinds": kinds, "top_cast": top_cast},
    )
    c = model.core_.counts
    if not quiet:
        typer.echo(
            f"trained in {model.timings_['total']:.1f} s: {c['like_coclusters']:,} like and "
            f"{c['dislike_coclusters']:,} dislike co-clusters → {out}"
        )


def _load_model(model_dir: Path):
    from .store import load

    return load(model_dir)


def _fmt_matches(rows: list, limit: int = 8) -> str:
    if not rows:
        return "—"
    shown = ", ".join(f"{r['attribute']} ({r['coclusters']})" for r in rows[:limit])
    return shown + (f", … {len(rows) - limit} more" if len(rows) > limit else "")


@app.command()
@user_errors
def predict(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    item: str = typer.Argument(..., help="Movie id."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Predict whether USER likes ITEM, with the attributes and co-clusters behind it."""
    model = _load_model(model_dir)
    p = model.predict(_parse_user(user), _parse_user(item))
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "user": p.user,
                    "item": p.item,
                    "label": p.label,
                    "score": p.score,
                    "jaccard_like": p.jaccard_like,
                    "jaccard_dislike": p.jaccard_dislike,
                    "source": p.source,
                    "evidence": p.evidence,
                },
                default=str,
            )
        )
        return
    if model.mode == "scored":
        how = f"like probability {p.score:.3f}, decision threshold {model.decision_threshold_:.3f}"
    else:
        how = "the larger Jaccard similarity wins (paper)"
    typer.echo(f"user {p.user}, movie {p.item}: {p.label.upper()}  ({how}; source {p.source})")
    typer.echo(f"  Jaccard with like profile {p.jaccard_like:.3f}, with dislike profile {p.jaccard_dislike:.3f}")
    ev = p.evidence
    typer.echo(f"  matches your like profile:    {_fmt_matches(ev['like_matches'])}")
    typer.echo(f"  matches your dislike profile: {_fmt_matches(ev['dislike_matches'])}")
    if "contributions" in ev:
        from .model import TERM_TEXT

        typer.echo("  evidence (contribution to the like score, log-odds):")
        for k, v in sorted(ev["contributions"].items(), key=lambda kv: -abs(kv[1])):
            typer.echo(f"    {v:+.2f}  {TERM_TEXT[k]}")
        nb = ev["neighbours"]["like_coclusters"]
        typer.echo(f"  users sharing your like co-clusters: {nb['liked']} liked it, {nb['disliked']} disliked it")


@app.command()
@user_errors
def recommend(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    n: int = typer.Option(10, "-n", help="How many movies."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Unrated movies that match USER's like profile most over the dislike profile, with reasons."""
    model = _load_model(model_dir)
    top = model.recommend(_parse_user(user), n)
    if as_json:
        typer.echo(json.dumps(top.to_dict("records"), default=str))
        return
    if top.empty:
        typer.echo(f"no covered movie to recommend to user {user}")
        return
    for rank, row in enumerate(top.itertuples(index=False), start=1):
        typer.echo(f"{rank:>2}. movie {row.item}  score {row.score:.3f}")
        typer.echo(f"    because: {_fmt_matches(row.evidence['like_matches'], 6)}")


@app.command()
@user_errors
def explain(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    limit: int = typer.Option(10, "--limit", help="Attributes shown per kind."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """USER's like and dislike profiles, attributes grouped by kind."""
    model = _load_model(model_dir)
    prof = model.explain(_parse_user(user))
    if as_json:
        typer.echo(json.dumps(prof, default=str))
        return
    typer.echo(
        f"user {prof['user']}: {prof['like_coclusters']:,} like and {prof['dislike_coclusters']:,} dislike co-clusters"
    )
    for side in ("like", "dislike"):
        typer.echo(f"{side.upper()} profile:")
        if not prof[side]:
            typer.echo("  (empty)")
        for kind, values in prof[side].items():
            shown = ", ".join(f"{v['value']} ({v['coclusters']})" for v in values[:limit])
            more = f", … {len(values) - limit} more" if len(values) > limit else ""
            typer.echo(f"  {kind} [{len(values)}]: {shown}{more}")


@app.command()
@user_errors
def export(
    model_dir: Path = MODEL_DIR,
    fmt: str = typer.Option("json", "--format", help="json or csv."),
    out: Path = typer.Option(..., "--out", "-o", help="File to write."),
    quiet: bool = QUIET,
) -> None:
    """Write every user's like and dislike profile, with co-cluster support, to FILE."""
    import os
    import tempfile

    import pandas as pd

    if fmt not in ("json", "csv"):
        raise ValueError(f"--format must be json or csv, got {fmt!r}")
    model = _load_model(model_dir)
    profiles = [model.explain(u) for u in model.core_.users]
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            if fmt == "json":
                json.dump({"model": str(model_dir), "profiles": profiles}, f, default=str)
            else:
                rows = [
                    (p["user"], side, kind, v["value"], v["coclusters"])
                    for p in profiles
                    for side in ("like", "dislike")
                    for kind, values in p[side].items()
                    for v in values
                ]
                pd.DataFrame(rows, columns=["user", "profile", "kind", "value", "coclusters"]).to_csv(f, index=False)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if not quiet:
        typer.echo(f"wrote {len(profiles):,} profiles to {out}")


@app.command()
@user_errors
def evaluate(
    dataset: str = DATASET,
    split: str = SPLIT,
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST_3,
    n_bands: int = N_BANDS,
    band_size: int = BAND_SIZE,
    min_rows: int = MIN_ROWS,
    min_cols: int = MIN_COLS,
    min_density: float = MIN_DENSITY,
    skip_covered: bool = SKIP_COVERED,
    seed: int = typer.Option(0, "--seed", help="Random state."),
    home: Path = HOME,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    quiet: bool = QUIET,
) -> None:
    """Fit every method on a split and compare them on its test ratings."""
    from .evaluation import METHODS
    from .evaluation import evaluate as run_evaluation
    from .model import ProfileRecommender

    say = _progress(quiet)
    data, kinds = _load_data(dataset, split, attributes, top_cast, home)
    if data.test is None:
        raise ValueError(f"{dataset} split {split!r} has no test ratings to evaluate on")
    params = _coclust_params(n_bands, band_size, min_rows, min_cols, min_density, skip_covered)
    model = ProfileRecommender(mode="scored", like_params=params, dislike_params=params, random_state=seed)
    model.fit(data.train, data.attributes, progress=say)
    res = run_evaluation(data.train, data.test, data.attributes, model=model, random_state=seed, progress=say)
    rel = res["relations"]
    keys = (
        "coverage",
        "accuracy_covered",
        "accuracy_full",
        "balanced_accuracy_full",
        "dislike_recall_full",
        "auc_full",
    )
    if as_json:
        out = {
            "dataset": dataset,
            "split": split,
            "n_test": int(len(data.test)),
            "relations": {"users": rel["users"], "attributes": rel["attributes"], "relations": rel["relations"]},
            "methods": {
                m: {k: res["methods"][m][k] for k in (*keys, "dislike_precision_full", "accuracy_on_paper_covered")}
                for m in METHODS
            },
            "model": res["model"],
            "seconds": res["seconds"] + model.timings_.get("total", 0.0),
        }
        typer.echo(json.dumps(out, default=float))
        return
    typer.echo(
        f"{dataset} {split}: {len(data.test):,} test ratings, {(data.test['rating'] > 2).mean():.1%} likes; "
        f"relations {rel['users']:,} users × {rel['attributes']:,} attributes, {rel['relations']:,} relations"
    )
    head = f"{'method':<14}" + "".join(f"{k.replace('_full', '').replace('_', ' '):>18}" for k in keys)
    typer.echo(head)
    for m in METHODS:
        r = res["methods"][m]
        typer.echo(f"{m:<14}" + "".join(f"{r[k]:>18.4f}" for k in keys))
    typer.echo("(metrics without 'covered' count every test rating; an uncovered rating counts as wrong)")


def run() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
