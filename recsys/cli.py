"""The ``recsys`` command line: a thin face over :mod:`ingest`, :mod:`coclust` and :mod:`recsys`.

Errors a user can cause (the project's own :class:`recsys.errors.RecsysError` and
:class:`ingest.errors.DataError`: a missing or malformed file, an unknown id, a bad option value)
print one red line on stderr and exit with code 2, never a traceback; anything else is a bug and
keeps its traceback.  Heavy modules are imported inside the commands that need them, so that
``recsys predict`` starts fast.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

import typer

from . import __version__

app = typer.Typer(
    help="Explainable movie recommendations from co-clusters (HBLCoClust).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _user_error_types() -> tuple:
    from ingest.errors import DataError

    from .errors import RecsysError

    types = [RecsysError, DataError]
    # a co-clustering budget exceeded by the user's parameters is their mistake too; the class is
    # looked up only if coclust was loaded (importing it compiles nothing, but loads numba)
    inclose = sys.modules.get("coclust.inclose")
    if inclose is not None:
        types.append(inclose.ConceptBudgetExceeded)
    backend = sys.modules.get("coclust.dask")  # an unreachable or failing Dask scheduler
    if backend is not None:
        types.append(backend.DaskBackendError)
    return tuple(types)


def fail(message: str, code: int = 2) -> None:
    """Print one error line on stderr and exit."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


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
        except Exception as exc:
            if isinstance(exc, _user_error_types()):
                fail(str(exc))
            raise

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


# -- shared options ---------------------------------------------------------------------------
HOME = typer.Option(None, "--home", help="Data home (default: $RECSYS_DATA or ~/recsys_data).")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress output.")
JSON = typer.Option(False, "--json", help="Print JSON.")
DATASET = typer.Option(
    None, "--dataset", "-d", help="ml-100k (default), ml-1m, ml-latest-small, ml-25m or demo (offline, generated)."
)
SPLIT = typer.Option(
    None,
    "--split",
    "-s",
    help="ml-100k: u1..u5, ua, ub (default u1). Any data: all, random:FRACTION:SEED, leave-k-out:K:SEED or "
    "temporal:FRACTION (default: all to train, random:0.2:0 to evaluate).",
)
ATTRIBUTES = typer.Option(
    None,
    "--attributes",
    "-a",
    help="Attribute kinds, comma separated (default: every kind the data has; ml-100k: genre, director, writer, "
    "cast; ml-latest-small: genre, tag).",
)
TOP_CAST = typer.Option(3, "--top-cast", help="Keep the first N billed cast members (ml-100k); 0 keeps all.")
RATINGS = typer.Option(
    None, "--ratings", help="Your own ratings CSV/TSV (header; user, item, rating[, timestamp]) instead of --dataset."
)
ITEMS = typer.Option(
    None, "--items", help="Your own item table: wide (item, title, genres, … with |-separated values) or long "
    "(item, kind, value)."
)  # fmt: skip
RATINGS_COLUMNS = typer.Option(
    None, "--ratings-columns", help="Header names of your ratings file, e.g. user=reader,item=book,rating=stars."
)
ITEMS_COLUMNS = typer.Option(None, "--items-columns", help="Header name of the item id in your item file: item=NAME.")
DUPLICATES = typer.Option(
    "error", "--duplicates", help="A (user, item) rated twice: error (default), last (keep the later) or mean."
)
NO_DOWNLOAD = typer.Option(
    False, "--no-download", help="Never download: a missing data set is an error (default: fetch it on first use)."
)
LIKE_THRESHOLD = typer.Option(
    2.0, "--like-threshold", help="A rating above it is a like (default 2: the paper's rule, rating > 2)."
)
SEED = typer.Option(0, "--seed", help="Random state.")
SCHEDULER = typer.Option(
    None,
    "--scheduler",
    metavar="ADDRESS",
    help="Run the co-clustering's LSH step on this Dask scheduler (tcp://host:8786; needs the dask extra).",
)
FEATURES = typer.Option(
    "movies", "--features", help="Co-cluster the users × movies relation (movies) or every feature as the paper (all)."
)
PAPER = typer.Option(False, "--paper-params", help="The paper's co-clustering parameters and features (slow).")
N_BANDS = typer.Option(None, "--n-bands", help="HBLCoClust nhashes (default 300; the paper's 5000).")
BAND_SIZE = typer.Option(None, "--band-size", help="HBLCoClust nkeys (default 4).")
MIN_ROWS = typer.Option(None, "--min-rows", help="HBLCoClust minO (default 2).")
MIN_COLS = typer.Option(None, "--min-cols", help="HBLCoClust minF (default 2).")
MIN_DENSITY = typer.Option(None, "--min-density", help="HBLCoClust spthr (default 0.8).")
SKIP_COVERED = typer.Option(None, "--skip-covered/--all-regions", help="Region heuristic (default: skip covered).")
MODE = typer.Option("scored", "--mode", help="scored (like-probability, default) or paper (the paper's rule).")
MODEL_DIR = typer.Argument(..., help="A model directory written by `recsys train`.")


def _progress(quiet: bool):
    """A callback printing each step with its elapsed time on stderr (silent with --quiet)."""
    start = time.perf_counter()
    if quiet:
        return None

    def say(message: str) -> None:
        typer.secho(f"[{time.perf_counter() - start:6.1f}s] {message}", err=True, fg=typer.colors.BRIGHT_BLACK)

    return say


def _kinds(attributes: str | None) -> list[str] | None:
    from .errors import ParameterError

    if attributes is None:
        return None
    kinds = [k.strip() for k in attributes.split(",") if k.strip()]
    if not kinds:
        raise ParameterError("--attributes is empty; give e.g. genre,director,writer,cast")
    return kinds


def _load_data(
    dataset, split, attributes, top_cast, home, ratings=None, items=None, ratings_columns=None, items_columns=None,
    duplicates="error", no_download=False, quiet=False, evaluating=False,
):  # fmt: skip
    """The data a command works on: a known data set, or the user's own files; notes go to stderr."""
    from ingest.datasets import default_split, load_files, load_movies
    from ingest.userfiles import DUPLICATES as POLICIES
    from ingest.userfiles import parse_columns

    from .errors import ParameterError

    if duplicates not in POLICIES:
        raise ParameterError(f"--duplicates must be one of {', '.join(POLICIES)}, got {duplicates!r}")
    if top_cast is not None and top_cast < 0:
        raise ParameterError(f"--top-cast must be 0 (all) or more, got {top_cast}")
    kinds = _kinds(attributes)
    if ratings is not None:
        if dataset is not None:
            raise ParameterError("give either --dataset or --ratings, not both")
        data = load_files(
            ratings,
            items,
            split or ("random:0.2:0" if evaluating else "all"),
            kinds,
            columns=parse_columns(ratings_columns),
            item_columns=parse_columns(items_columns),
            duplicates=duplicates,
        )
    else:
        if items is not None:
            raise ParameterError("--items goes with --ratings (your own data)")
        name = dataset or "ml-100k"

        def say(message: str) -> None:
            if not quiet:
                typer.secho(message, err=True, fg=typer.colors.BRIGHT_BLACK)

        data = load_movies(
            name, split or default_split(name, evaluating), home, kinds, top_cast or None,
            duplicates=duplicates, download=not no_download, progress=None if quiet else say,
        )  # fmt: skip
    for note in data.notes:
        typer.secho(f"note: {note}", err=True, fg=typer.colors.YELLOW)
    return data, data.kinds


def _source(dataset, ratings, items) -> dict:
    if ratings is not None:
        return {"ratings_file": str(ratings), "items_file": str(items) if items else None}
    return {"dataset": dataset or "ml-100k"}


def _model_params(
    features, paper, n_bands, band_size, min_rows, min_cols, min_density, skip_covered, seed, like, scheduler=None
):
    from .errors import ParameterError
    from .fit import FEATURES as KNOWN
    from .fit import PAPER_PARAMS, RECOMMENDER_PARAMS

    if features not in KNOWN:
        raise ParameterError(f"--features must be one of {', '.join(KNOWN)}, got {features!r}")
    params = dict(PAPER_PARAMS if paper else RECOMMENDER_PARAMS)
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
    params.update(_backend(scheduler))
    return dict(
        like_threshold=like,
        features="all" if paper else features,
        like_params=params,
        dislike_params=params,
        random_state=seed,
    )


def _backend(scheduler: str | None) -> dict:
    """The co-clustering parameters that send its LSH step to a Dask scheduler."""
    if scheduler is None:
        return {}
    from .errors import ParameterError

    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ParameterError('--scheduler needs dask.distributed: pip install "hblcoclust[dask]"') from None
    return {"backend": "dask", "scheduler": scheduler}


def _load_model(model_dir: Path):
    from .store import load

    return load(model_dir)


# -- commands ---------------------------------------------------------------------------------
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
    already = (data_home(home) / ds.folder / ds.marker).exists()
    path = do_fetch(name, home, progress=not quiet)
    if not quiet:
        typer.echo(f"{name}: {'already in' if already else 'fetched into'} {path}")
        if ds.note:
            typer.echo(ds.note)


@app.command()
@user_errors
def relations(
    dataset: str = DATASET,
    split: str = SPLIT,
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST,
    like_threshold: float = LIKE_THRESHOLD,
    ratings: Path = RATINGS,
    items: Path = ITEMS,
    ratings_columns: str = RATINGS_COLUMNS,
    items_columns: str = ITEMS_COLUMNS,
    duplicates: str = DUPLICATES,
    no_download: bool = NO_DOWNLOAD,
    home: Path = HOME,
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Build the like/dislike user–attribute relations of a training split and summarise them."""
    data, kinds = _load_data(
        dataset, split, attributes, top_cast, home, ratings, items, ratings_columns, items_columns, duplicates,
        no_download, quiet,
    )  # fmt: skip
    summary = data.relations(kinds, like_threshold).summary()
    summary = {**_source(dataset, ratings, items), "split": data.split, "attribute_kinds": kinds, **summary}
    if data.links is not None:
        summary["items_linked_to_imdb"] = data.links.n_linked
        summary["items"] = data.links.n_items
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{summary.get('dataset', ratings)} {data.split} — attributes: {', '.join(kinds) or 'none'}")
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


@app.command()
@user_errors
def train(
    out: Path = typer.Option(..., "--out", "-o", help="Model directory to write."),
    dataset: str = DATASET,
    split: str = SPLIT,
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST,
    ratings: Path = RATINGS,
    items: Path = ITEMS,
    ratings_columns: str = RATINGS_COLUMNS,
    items_columns: str = ITEMS_COLUMNS,
    duplicates: str = DUPLICATES,
    no_download: bool = NO_DOWNLOAD,
    like_threshold: float = LIKE_THRESHOLD,
    features: str = FEATURES,
    paper: bool = PAPER,
    n_bands: int = N_BANDS,
    band_size: int = BAND_SIZE,
    min_rows: int = MIN_ROWS,
    min_cols: int = MIN_COLS,
    min_density: float = MIN_DENSITY,
    skip_covered: bool = SKIP_COVERED,
    seed: int = SEED,
    scheduler: str = SCHEDULER,
    home: Path = HOME,
    quiet: bool = QUIET,
) -> None:
    """Fit the like/dislike profiles and the evidence weights on a training split; save the model."""
    from .model import ProfileRecommender
    from .provenance import provenance
    from .store import fingerprint, save

    say = _progress(quiet)
    data, kinds = _load_data(
        dataset, split, attributes, top_cast, home, ratings, items, ratings_columns, items_columns, duplicates,
        no_download, quiet,
    )  # fmt: skip
    params = _model_params(
        features, paper, n_bands, band_size, min_rows, min_cols, min_density, skip_covered, seed, like_threshold,
        scheduler,
    )  # fmt: skip
    model = ProfileRecommender(**params).fit(data.train, data.attributes, data.items, progress=say)
    save(
        model,
        out,
        provenance(
            **_source(dataset, ratings, items),
            split=data.split,
            attribute_kinds=kinds,
            top_cast=top_cast,
            data_fingerprint=fingerprint(data.train, data.attributes),
        ),
    )
    r = model.report_
    if not quiet:
        typer.echo(
            f"trained in {r['timings']['fit']:.1f} s: {r['like_coclusters']:,} like and "
            f"{r['dislike_coclusters']:,} dislike co-clusters → {out}"
        )


def _print_explanation(ex) -> None:
    if ex.mode == "paper":
        how = ex.threshold_rule
    else:
        how = (
            f"like-probability {ex.score:.3f}; cut-off {ex.threshold:.3f} ({ex.threshold_rule})"
            if ex.covered
            else ex.reason
        )
    verdict = ex.prediction.upper() if ex.covered else f"NO PREDICTION ({ex.reason})"
    typer.echo(f"user {ex.user}, {ex.item_name}: {verdict}")
    if ex.covered:
        typer.echo(f"  {how}")
    if ex.lines:
        typer.echo(f"  why (log-odds of like; the lines add up to {ex.logit:+.3f}):")
        for line in ex.lines:
            detail = f" — {line.detail}" if line.detail else ""
            typer.echo(f"    {line.contribution:+.3f}  {line.text}{detail}")
            for part in line.parts:
                typer.echo(f"             {part['contribution']:+.3f}  {part['text']}")
    for side in ("like", "dislike"):
        rows = ex.profile_matches.get(side, [])
        if rows or ex.mode == "paper":
            shown = ", ".join(f"{r['attribute']} ({r['coclusters']})" for r in rows[:8]) or "—"
            more = f", … {len(rows) - 8} more" if len(rows) > 8 else ""
            typer.echo(f"  in your {side} profile (co-clusters holding it): {shown}{more}")


@app.command()
@user_errors
def predict(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(None, help="User id (omit with --pairs)."),
    item: str = typer.Argument(None, help="Movie id (omit with --pairs)."),
    mode: str = MODE,
    threshold: float = typer.Option(
        None, "--threshold", help="Like-probability cut-off (default: the model's, tuned on held-out ratings)."
    ),
    pairs: Path = typer.Option(
        None, "--pairs", help="Score every user<TAB>item line of this file (header optional; extra fields ignored)."
    ),
    fmt: str = typer.Option("json", "--format", help="With --pairs: json or csv."),
    out: Path = typer.Option(None, "--out", "-o", help="With --pairs: write here instead of stdout."),
    as_json: bool = JSON,
) -> None:
    """Predict whether USER likes ITEM, and why; or score every pair of a file with --pairs."""
    from .errors import ParameterError
    from .pairs import FORMATS, read_pairs, write_predictions

    if pairs is not None:
        if user is not None or item is not None:
            raise ParameterError("give either USER ITEM or --pairs FILE, not both")
        if fmt not in FORMATS:
            raise ParameterError(f"--format must be json or csv, got {fmt!r}")
        users, items = read_pairs(pairs)
        model = _load_model(model_dir)
        p = model.predict_many(users, items, mode=mode, threshold=threshold)
        write_predictions(p.records(), out, fmt)
        return
    if user is None or item is None:
        raise ParameterError("give USER and ITEM, or --pairs FILE")
    model = _load_model(model_dir)
    ex = model.predict(user, item, mode=mode, threshold=threshold)
    if ex.reason in ("unknown user", "unknown item"):
        what = user if ex.reason == "unknown user" else item
        raise ParameterError(f"{ex.reason} {what}: not in the model's training data")
    if as_json:
        typer.echo(json.dumps(ex.to_dict(), default=str))
        return
    _print_explanation(ex)


@app.command()
@user_errors
def recommend(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    n: int = typer.Option(10, "-n", help="How many movies."),
    mode: str = MODE,
    as_json: bool = JSON,
) -> None:
    """The movies USER has not rated that USER is most likely to pick and like, with reasons."""
    model = _load_model(model_dir)
    recs = model.recommend(user, n, mode=mode)
    if as_json:
        typer.echo(json.dumps(recs, default=str))
        return
    if not recs:
        typer.echo(f"no movie to recommend to user {user}")
        return
    how = (
        "score = like-probability × share of your co-cluster neighbours who liked it"
        if mode == "scored"
        else "score = J(like profile) − J(dislike profile) (the paper)"
    )
    typer.echo(f"top {len(recs)} for user {user} ({how}):")
    for r in recs:
        typer.echo(f"{r['rank']:>3}. {r['name']}  score {r['score']:.3f}")
        for reason in r["reasons"]:
            typer.echo(f"       · {reason}")


@app.command()
@user_errors
def explain(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    limit: int = typer.Option(10, "--limit", help="Attributes shown per kind."),
    as_json: bool = JSON,
) -> None:
    """USER's like and dislike profiles: attributes by kind, movies, and the largest co-clusters."""
    model = _load_model(model_dir)
    prof = model.explain(user)
    if as_json:
        typer.echo(json.dumps(prof, default=str))
        return
    typer.echo(
        f"user {prof['user']}: {prof['like_coclusters']:,} like and {prof['dislike_coclusters']:,} dislike co-clusters"
        " (number in brackets: how many of them hold the attribute)"
    )
    for side in ("like", "dislike"):
        typer.echo(f"{side.upper()} profile:")
        if not prof[side] and not prof[f"{side}_movies"]:
            typer.echo("  (empty)")
        movies = prof[f"{side}_movies"]
        if movies:
            shown = ", ".join(f"{m['name']} ({m['coclusters']})" for m in movies[:limit])
            more = f", … {len(movies) - limit} more" if len(movies) > limit else ""
            typer.echo(f"  movies [{len(movies)}]: {shown}{more}")
        for kind, values in prof[side].items():
            shown = ", ".join(f"{v['value']} ({v['coclusters']})" for v in values[:limit])
            more = f", … {len(values) - limit} more" if len(values) > limit else ""
            typer.echo(f"  {kind} [{len(values)}]: {shown}{more}")
        for cc in prof[f"{side}_strongest"][:3]:
            typer.echo(f"  co-cluster {cc['id']}: {cc['text']}")


@app.command()
@user_errors
def export(
    model_dir: Path = MODEL_DIR,
    fmt: str = typer.Option("json", "--format", help="json or csv."),
    out: Path = typer.Option(..., "--out", "-o", help="File to write."),
    quiet: bool = QUIET,
) -> None:
    """Write every user's like and dislike profile, with co-cluster support, to FILE."""
    from .errors import ParameterError
    from .export import FORMATS, write_profiles

    if fmt not in FORMATS:
        raise ParameterError(f"--format must be json or csv, got {fmt!r}")
    model = _load_model(model_dir)
    n = write_profiles(model, out, fmt, source=str(model_dir))
    if not quiet:
        typer.echo(f"wrote {n:,} profiles to {out}")


@app.command()
@user_errors
def evaluate(
    dataset: str = DATASET,
    split: str = SPLIT,
    attributes: str = ATTRIBUTES,
    top_cast: int = TOP_CAST,
    ratings: Path = RATINGS,
    items: Path = ITEMS,
    ratings_columns: str = RATINGS_COLUMNS,
    items_columns: str = ITEMS_COLUMNS,
    duplicates: str = DUPLICATES,
    no_download: bool = NO_DOWNLOAD,
    like_threshold: float = LIKE_THRESHOLD,
    features: str = FEATURES,
    n_bands: int = N_BANDS,
    band_size: int = BAND_SIZE,
    min_rows: int = MIN_ROWS,
    min_cols: int = MIN_COLS,
    min_density: float = MIN_DENSITY,
    skip_covered: bool = SKIP_COVERED,
    seed: int = SEED,
    methods: str = typer.Option(None, "--methods", help="Only these methods, comma separated (default: all)."),
    topn: bool = typer.Option(True, "--topn/--no-topn", help="Also measure top-10 lists."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Resamples for the confidence intervals (0: none)."),
    paper_n_bands: int = typer.Option(5000, "--paper-n-bands", help="nhashes of the paper's rule (the paper: 5000)."),
    scheduler: str = SCHEDULER,
    home: Path = HOME,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    quiet: bool = QUIET,
) -> None:
    """Compare every method on a split under one protocol (cut-offs tuned alike), with ablations,
    95 % bootstrap intervals and top-N lists."""
    from .errors import ParameterError
    from .evaluation import METHODS
    from .evaluation import evaluate as run_evaluation
    from .fit import PAPER_PARAMS
    from .provenance import provenance

    if bootstrap < 0:
        raise ParameterError(f"--bootstrap must be 0 or more, got {bootstrap}")
    if paper_n_bands < 1:
        raise ParameterError(f"--paper-n-bands must be at least 1, got {paper_n_bands}")
    chosen = METHODS if methods is None else tuple(m.strip() for m in methods.split(",") if m.strip())
    unknown = set(chosen) - set(METHODS)
    if unknown or not chosen:
        raise ParameterError(f"--methods must be among {', '.join(METHODS)}; got {methods!r}")
    say = _progress(quiet)
    data, kinds = _load_data(
        dataset, split, attributes, top_cast, home, ratings, items, ratings_columns, items_columns, duplicates,
        no_download, quiet, evaluating=True,
    )  # fmt: skip
    if data.test is None:
        raise ParameterError(f"split {data.split!r} has no test ratings to evaluate on; use e.g. --split random:0.2:0")
    params = _model_params(
        features, False, n_bands, band_size, min_rows, min_cols, min_density, skip_covered, seed, like_threshold,
        scheduler,
    )  # fmt: skip
    res = run_evaluation(
        data.train,
        data.test,
        data.attributes,
        data.items,
        like_threshold=like_threshold,
        seed=seed,
        methods=chosen,
        profile_params=params,
        paper_params={**PAPER_PARAMS, "n_bands": paper_n_bands, **_backend(scheduler)},
        with_topn=topn,
        n_boot=bootstrap,
        progress=say,
    )
    res = {
        **_source(dataset, ratings, items),
        "split": data.split,
        "attribute_kinds": kinds,
        **res,
        **provenance(),
    }
    if as_json:
        typer.echo(json.dumps(res, default=_json_default))
        return
    _print_evaluation(res)


def _json_default(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def _print_evaluation(res: dict) -> None:
    typer.echo(
        f"{res.get('dataset', res.get('ratings_file'))} {res['split']}: {res['n_test']:,} test ratings, "
        f"{res['like_share_test']:.1%} likes "
        "(the always-like accuracy). Cut-offs: best balanced accuracy on a held-out 10% of training, every method."
    )
    cols = ("auc_full", "balanced_accuracy_full", "accuracy_full", "dislike_recall_full", "coverage", "threshold")
    head = f"{'method':<22}" + "".join(f"{c.replace('_full', '').replace('_', ' '):>19}" for c in cols)
    for title, group in (("methods", res["methods"]), ("ablations of profile", res["ablations"])):
        typer.echo(f"\n{title}:")
        typer.echo(head)
        for name, r in group.items():
            cells = "".join(f"{'—':>19}" if r[c] is None else f"{r[c]:>19.4f}" for c in cols)
            typer.echo(f"{name:<22}{cells}")
    if "ci" in res:
        typer.echo("\nprofile minus each method, 95% paired bootstrap interval:")
        for name, c in res["ci"]["versus"].items():
            a, b = c["auc_diff_ci"], c["balanced_accuracy_diff_ci"]
            typer.echo(
                f"  {name:<20} AUC {c['auc_diff']:+.4f} [{a[0]:+.4f}, {a[1]:+.4f}]   "
                f"balanced accuracy {c['balanced_accuracy_diff']:+.4f} [{b[0]:+.4f}, {b[1]:+.4f}]"
            )
    if "topn" in res:
        t = res["topn"]
        typer.echo(f"\ntop-{t['k']} ({t['relevant']} is relevant; {t['candidates']}):")
        for name, r in t["methods"].items():
            typer.echo(
                f"  {name:<14} precision {r['precision@10']:.4f}  recall {r['recall@10']:.4f}  "
                f"ndcg {r['ndcg@10']:.4f}  hit rate {r['hit_rate@10']:.4f}  coverage {r['catalogue_coverage']:.4f}"
            )
    typer.echo(f"\n{res['seconds']:.0f} s; commit {res['commit']}")


@app.command()
@user_errors
def report(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(None, help="User id (omit with --all)."),
    out: Path = typer.Option(..., "--out", "-o", help="HTML file to write (a directory with --all)."),
    all_users: bool = typer.Option(False, "--all", help="One page per user and an index.html, in the --out directory."),
    users: str = typer.Option(None, "--users", help="With --all: only these users (comma separated)."),
    item: str = typer.Option(None, "--item", help="The movie whose evidence is charted (default: the top pick)."),
    n: int = typer.Option(10, "-n", help="Recommendations shown."),
    quiet: bool = QUIET,
) -> None:
    """A self-contained HTML page of USER's profiles, co-clusters, recommendations and evidence."""
    from .errors import ParameterError
    from .report import write_all, write_user

    if all_users == (user is not None):
        raise ParameterError("give USER, or --all (with an --out directory)")
    if n < 1:
        raise ParameterError(f"-n must be at least 1, got {n}")
    model = _load_model(model_dir)
    if all_users:
        chosen = [u.strip() for u in users.split(",") if u.strip()] if users else None
        index = write_all(model, out, chosen, n, str(model_dir), progress=_progress(quiet))
        if not quiet:
            typer.echo(f"wrote {index} and one page per user")
        return
    if users:
        raise ParameterError("--users goes with --all")
    path = write_user(model, user, out, item, n, str(model_dir))
    if not quiet:
        typer.echo(f"wrote {path}")


@app.command()
@user_errors
def demo(
    out: Path = typer.Option(
        Path("recsys-demo"), "--out", "-o", help="Directory for the model, evaluation and report."
    ),
    users: int = typer.Option(20, "--users", help="Report pages for this many users (the most active)."),
    quiet: bool = QUIET,
) -> None:
    """Train on the generated demo data (no network), evaluate every method and write an HTML report."""
    import numpy as np

    from .evaluation import evaluate as run_evaluation
    from .model import ProfileRecommender
    from .provenance import provenance
    from .report import write_all
    from .store import fingerprint, save

    say = _progress(quiet)
    data, kinds = _load_data("demo", "random:0.2:0", None, None, None, quiet=quiet, evaluating=True)
    say and say(f"demo data: {len(data.train):,} training and {len(data.test):,} test ratings; attributes {kinds}")
    res = run_evaluation(data.train, data.test, data.attributes, data.items, n_boot=200, progress=say)
    model = ProfileRecommender().fit(data.train, data.attributes, data.items, progress=say)
    out.mkdir(parents=True, exist_ok=True)
    save(model, out / "model", provenance(dataset="demo", split=data.split, attribute_kinds=kinds,
                                          data_fingerprint=fingerprint(data.train, data.attributes)))  # fmt: skip
    from ._files import atomic_open

    with atomic_open(out / "evaluation.json") as f:
        json.dump({"dataset": "demo", "split": data.split, **res, **provenance()}, f, default=_json_default, indent=1)
    fp = model.profiles_
    counts = fp.ratings.lengths
    top = fp.users[np.argsort(-counts, kind="stable")[: max(1, users)]]
    index = write_all(model, out / "report", top.tolist(), 10, str(out / "model"), progress=say)
    if quiet:
        return
    _print_evaluation({"dataset": "demo", "split": data.split, **res, **provenance()})
    typer.echo(f"\nmodel: {out / 'model'}\nevaluation: {out / 'evaluation.json'}\nreport: {index}")


def run() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
