"""The ``recsys`` commands: each reads its options, calls the library, prints the result.

Heavy modules are imported inside the commands that need them, so that ``recsys predict``
starts fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..errors import ParameterError
from . import serving
from .base import StepProgress, app, echo_lines, notes, progress, user_errors
from .options import (
    DATA,
    JSON,
    LIKE_THRESHOLD,
    MODE,
    MODEL,
    MODEL_DIR,
    QUIET,
    ModelChoice,
    chosen_format,
    options,
    output_format,
)

__all__ = ["app"]

PAPER = typer.Option(False, "--paper-params", help="The paper's co-clustering parameters and features (slow).")


def _load(data, quiet: bool, evaluating: bool = False):
    """The data a command works on; its notes (fallbacks) go to stderr."""
    loaded = data.load(evaluating=evaluating, progress=notes(quiet))
    for note in loaded.notes:
        typer.secho(f"note: {note}", err=True, fg=typer.colors.YELLOW)
    return loaded


def _load_beside_kernels(data, quiet: bool):
    """:func:`_load`, while the kernels every fit uses load from numba's cache on a thread beside it
    (:func:`recsys.first_use.load_ahead`)."""
    from ..first_use import load_ahead

    loading = load_ahead(["fit", "scaled"])
    try:
        return _load(data, quiet)
    finally:  # before anything else loads or compiles a kernel, or the process ends
        loading.join()


def _first_use(quiet: bool, scaled: bool = False, evaluating: bool = False) -> None:
    """Before a fit, compile the kernels it will need that numba's cache lacks, on every core, and say
    so (:mod:`recsys.first_use`; ``scaled``: the fit applies the scaling rules; ``evaluating``: the
    evaluation's kernels too)."""
    from ..first_use import FIRST_USE_NOTE, MAX_PROCESSES, listed, missing, precompile
    from ..model.threads import cores

    if scaled:  # evaluate.txt holds fit.txt's kernels, not scaled.txt's
        names = ["scaled", "evaluate"] if evaluating else ["scaled"]
    else:
        names = ["evaluate" if evaluating else "fit"]
    absent = missing({kernel: s for name in names for kernel, s in listed(name).items()})
    if not absent:
        return
    processes = min(cores(), len(absent), MAX_PROCESSES)
    if not quiet:
        typer.secho(FIRST_USE_NOTE.format(kernels=len(absent), processes=processes), err=True, fg=typer.colors.YELLOW)
    precompile(absent, processes)


def _load_model(model_dir: Path):
    from ..store import load

    return load(model_dir)


def _show(as_json: bool, obj, lines) -> None:
    """``obj`` as one JSON line, or ``lines`` (a list of text lines, or a function of none giving it)."""
    from ..files import json_default

    if as_json:
        typer.echo(json.dumps(obj, default=json_default))
    else:
        echo_lines(lines() if callable(lines) else lines)


@app.command()
@user_errors
def fetch(
    name: str = typer.Argument(..., help="Data set: ml-100k, ml-1m, ml-latest-small, ml-25m, imdb."),
    home: Path = typer.Option(None, "--home", help="Data home.", show_default="$RECSYS_DATA or ~/recsys_data"),
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
@options(DATA)
def relations(
    data=None,
    like_threshold: float = LIKE_THRESHOLD,
    fmt: str = output_format("text", "json"),
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Build the like/dislike user–attribute relations of a training split and summarise them."""
    from ..present.text import relations_lines

    loaded = _load(data, quiet)
    summary = loaded.relations(data.kinds, like_threshold).summary()
    summary = {**data.describe(), "split": loaded.split, "attribute_kinds": loaded.kinds, **summary}
    if loaded.links is not None:
        summary["items_linked_to_imdb"] = loaded.links.n_linked
        summary["items"] = loaded.links.n_items
        summary["imdb_links_refused"] = loaded.links.rejected
    title = f"{summary.get('dataset', data.ratings)} {loaded.split} — attributes: {', '.join(loaded.kinds) or 'none'}"
    _show(
        chosen_format(fmt, as_json, ("text", "json")) == "json",
        summary,
        lambda: relations_lines(summary, title, loaded.links),
    )


@app.command()
@user_errors
@options(MODEL)
@options(DATA)
def train(
    out: Path = typer.Option(..., "--out", "-o", help="Model directory to write."),
    data=None,
    model: ModelChoice = None,
    paper: bool = PAPER,
    max_memory: float = typer.Option(
        None,
        "--max-memory",
        metavar="GB",
        help="Stop before fitting when the estimated peak memory is above this.",
        show_default="the memory available now",
    ),
    quiet: bool = QUIET,
) -> None:
    """Fit the like/dislike profiles and the evidence weights on a training split; save the model."""
    from ..model import ProfileRecommender
    from ..model.feedback import resolve
    from ..model.memory import check_memory
    from ..model.settings import scales
    from ..provenance import provenance
    from ..store import fingerprint, save

    recommender = ProfileRecommender(**model.params(paper))
    recommender.check_params()  # before reading any data
    if max_memory is not None and max_memory <= 0:
        raise ParameterError(f"--max-memory must be a positive number of GB, got {max_memory}")
    loaded = _load_beside_kernels(data, quiet)
    train = loaded.train
    if resolve(recommender.feedback, train) == "implicit" and "rating" not in train.columns:
        typer.secho(
            f"note: {data.ratings} has no rating column: read as interactions (implicit feedback)",
            err=True,
            fg=typer.colors.YELLOW,
        )
    check_memory(
        len(train),
        train["user"].nunique(),
        train["item"].nunique(),
        scales(recommender.scaling, len(train)),
        None if max_memory is None else max_memory * 1e9,
    )
    _first_use(quiet, scales(recommender.scaling, len(train)))
    recommender.fit(loaded.train, loaded.attributes, loaded.items, progress=progress(quiet))
    stamp = provenance(
        **data.describe(),
        split=loaded.split,
        attribute_kinds=loaded.kinds,
        top_cast=data.top_cast,
        data_fingerprint=fingerprint(loaded.train, loaded.attributes),
    )
    save(recommender, out, stamp)
    r = recommender.report_
    if not quiet:
        found = (
            f"{r['like_coclusters']:,} co-clusters of the interactions"
            if recommender.fitted_.implicit
            else f"{r['like_coclusters']:,} like and {r['dislike_coclusters']:,} dislike co-clusters"
        )
        typer.echo(f"trained in {r['timings']['fit']:.1f} s: {found} → {out}")


@app.command()
@user_errors
def predict(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(None, help="User id (omit with --pairs)."),
    item: str = typer.Argument(None, help="Movie id (omit with --pairs)."),
    mode: str = MODE,
    threshold: float = typer.Option(
        None, "--threshold", help="Like-probability cut-off.", show_default="the model's, tuned on held-out ratings"
    ),
    pairs: Path = typer.Option(
        None, "--pairs", help="Score every user<TAB>item line of this file (header optional; extra fields ignored)."
    ),
    fmt: str = output_format("text", "json", "csv", note=" (csv with --pairs only; text with --pairs is json)"),
    out: Path = typer.Option(None, "--out", "-o", help="With --pairs: write here instead of stdout."),
    as_json: bool = JSON,
) -> None:
    """Predict whether USER likes ITEM, and why; or score every pair of a file with --pairs."""
    from ..present.pairs import read_pairs, write_predictions
    from ..present.text import explanation_lines

    fmt = chosen_format(fmt, as_json, ("text", "json", "csv"))
    if pairs is not None:
        if user is not None or item is not None:
            raise ParameterError("give either USER ITEM or --pairs FILE, not both")
        fmt = "json" if fmt == "text" else fmt
        users, items = read_pairs(pairs)
        p = _load_model(model_dir).predict_many(users, items, mode=mode, threshold=threshold)
        write_predictions(p.records(), out, fmt)
        return
    if user is None or item is None:
        raise ParameterError("give USER and ITEM, or --pairs FILE")
    if fmt == "csv":
        raise ParameterError("--format csv goes with --pairs; one prediction is text or json")
    ex = _load_model(model_dir).predict(user, item, mode=mode, threshold=threshold, unknown="raise")
    _show(fmt == "json", ex.to_dict(), lambda: explanation_lines(ex))


@app.command()
@user_errors
def recommend(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(None, help="User id (omit with --ratings or --users)."),
    mode: str = MODE,
    n: int = typer.Option(10, "-n", help="How many movies."),
    ratings: Path = typer.Option(
        None,
        "--ratings",
        help="A new person's ratings (item,rating lines with a header; for a model of interactions, item lines): "
        "their list, no refit.",
    ),
    users: Path = typer.Option(None, "--users", help="Lists for every user of this file (one id a line)."),
    fmt: str = output_format("text", "json", "csv", note=" (text has the reasons; with --users text is csv)"),
    out: Path = typer.Option(None, "--out", "-o", help="Write here instead of stdout."),
    as_json: bool = JSON,
) -> None:
    """The movies USER is most likely to like, with the reasons (or a new person's, or many users').

    A known USER's list leaves out what they rated; --ratings FILE gives the list of a person the
    model has never seen (no refit); --users FILE writes the lists of every user it names."""
    from ..present.lists import list_rows, read_users, write_rows
    from ..present.text import recommendation_lines

    fmt = chosen_format(fmt, as_json, ("text", "json", "csv"))
    if sum(x is not None for x in (user, ratings, users)) != 1:
        raise ParameterError("give one of USER, --ratings FILE or --users FILE")
    if users is not None:
        if fmt == "text":
            fmt = "csv"
        ids = read_users(users)
        model = _load_model(model_dir)
        rows = list_rows(ids, model.lists(ids, n), set(model.fitted_.new_items().tolist()))
        write_rows(rows, ("user", "rank", "item", "score", "reason"), out, fmt)
        return
    model = _load_model(model_dir)
    if ratings is not None:
        recs, who = model.recommend(_person(model, ratings), n), "you"
    else:
        recs, who = model.recommend(user, n, mode=mode), user
    if fmt == "csv":
        write_rows(recs, ("rank", "item", "score"), out, fmt)
        return
    from ..files import atomic_open, json_default

    feedback = model.profiles_.feedback
    text = (
        json.dumps(recs, default=json_default)
        if fmt == "json"
        else "\n".join(recommendation_lines(recs, who, mode, feedback))
    )
    if out is None:
        typer.echo(text)
        return
    with atomic_open(out) as f:
        f.write(text + "\n")


def _person(model, ratings: Path):
    """A new person's ratings file (their items, for a model of interactions), read; a note names
    the items the model does not know (ignored)."""
    from ingest.userfiles import read_person

    person = read_person(ratings, implicit=model.fitted_.implicit)
    unknown = [i for i, k in zip(person["item"], model.profiles_.item_index(person["item"].tolist())) if k < 0]
    if unknown:
        typer.secho(
            f"note: {len(unknown)} rated item(s) not in the model, ignored: {', '.join(unknown[:5])}",
            err=True,
            fg=typer.colors.YELLOW,
        )
    return person


@app.command()
@user_errors
def explain(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(..., help="User id."),
    limit: int = typer.Option(10, "--limit", help="Attributes shown per kind."),
    fmt: str = output_format("text", "json"),
    as_json: bool = JSON,
) -> None:
    """USER's like and dislike profiles: attributes by kind, movies, and the largest co-clusters."""
    from ..present.text import profile_lines

    prof = _load_model(model_dir).explain(user)
    _show(chosen_format(fmt, as_json, ("text", "json")) == "json", prof, lambda: profile_lines(prof, limit))


@app.command()
@user_errors
def export(
    model_dir: Path = MODEL_DIR,
    fmt: str = output_format("json", "csv"),
    out: Path = typer.Option(..., "--out", "-o", help="File to write."),
    quiet: bool = QUIET,
) -> None:
    """Write every user's like and dislike profile, with co-cluster support, to FILE."""
    from ..present.export import write_profiles

    fmt = chosen_format(fmt, False, ("json", "csv"))
    n = write_profiles(_load_model(model_dir), out, fmt, source=str(model_dir))
    if not quiet:
        typer.echo(f"wrote {n:,} profiles to {out}")


@app.command()
@user_errors
@options(MODEL)
@options(DATA)
def evaluate(
    data=None,
    model: ModelChoice = None,
    methods: str = typer.Option(
        None, "--methods", help="Only these methods (like/dislike methods and list methods), comma separated."
    ),
    topn: bool = typer.Option(True, "--topn/--no-topn", help="Also measure top-10 lists."),
    grid: str = typer.Option("small", "--grid", help="The methods' grids: small (minutes) or full (an hour)."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Resamples of users for the intervals (0: none)."),
    strong: float = typer.Option(
        0.1, "--strong-users", help="Share of the users held out of training for the new-user lists (0: none)."
    ),
    paper_n_bands: int = typer.Option(5000, "--paper-n-bands", help="nhashes of the paper's rule (the paper: 5000)."),
    report_file: Path = typer.Option(None, "--report", help="Also write the evaluation as an HTML page here."),
    fmt: str = output_format("text", "json"),
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Compare every method on a split under one protocol, with ablations and intervals.

    Each method's setting is chosen from its grid on the training ratings alone, cut-offs are tuned
    alike; like/dislike and top-10 lists, user-level intervals, lists for people held out."""
    from ..evaluation import Protocol
    from ..evaluation import evaluate as run_evaluation
    from ..evaluation.summary import text_lines
    from ..model.settings import scales
    from ..provenance import provenance

    fmt = chosen_format(fmt, as_json, ("text", "json"))
    protocol = Protocol(
        like_threshold=model.like_threshold, seed=model.seed, grid=grid, n_boot=bootstrap, topn=topn, strong=strong
    )
    setup = _evaluation_setup(model, methods, paper_n_bands)
    _check_evaluation(protocol, setup)
    loaded = _load(data, quiet, evaluating=True)
    if loaded.test is None:
        raise ParameterError(
            f"split {loaded.split!r} has no test ratings to evaluate on; use e.g. --split random:0.2:0"
        )
    if model.implicit or "rating" not in loaded.train.columns:
        protocol = _implicit(protocol, setup, methods is not None)
    _first_use(quiet, scales(model.scaling, len(loaded.train)), evaluating=True)
    res = run_evaluation(
        loaded.train,
        loaded.test,
        loaded.attributes,
        loaded.items,
        protocol=protocol,
        setup=setup,
        progress=progress(quiet),
    )
    res = {**data.describe(), "split": loaded.split, "attribute_kinds": loaded.kinds, **res, **provenance()}
    if report_file is not None:
        from ..present.evaluation_report import write_evaluation

        write_evaluation(res, report_file)
    _show(fmt == "json", res, lambda: text_lines(res) + ([f"report: {report_file}"] if report_file else []))


def _implicit(protocol, setup, chosen: bool):
    """The protocol for interactions (implicit feedback): lists only, so like/dislike methods the
    user ``chosen`` are an error (those of the default set are left out)."""
    from dataclasses import replace

    like_only = [m for m in setup.methods if m not in setup.rankers]
    if chosen and like_only:
        raise ParameterError(
            f"interactions (implicit feedback) have lists only: {', '.join(like_only)} predict likes and "
            "dislikes; choose among the list methods"
        )
    return replace(protocol, implicit=True)


def _evaluation_setup(model: ModelChoice, methods: str | None, paper_n_bands: int):
    """The methods asked for, the profile model's parameters and the paper's rule's."""
    from ..evaluation import METHODS, RANKERS, Setup

    known = (*METHODS, *(r for r in RANKERS if r not in METHODS))
    chosen = known if methods is None else tuple(m.strip() for m in methods.split(",") if m.strip())
    if set(chosen) - set(known) or not chosen:
        raise ParameterError(f"--methods must be among {', '.join(known)}; got {methods!r}")
    paper = ModelChoice(
        model.features, {"n_bands": paper_n_bands}, model.like_threshold, model.seed, model.scheduler, model.scaling
    )
    return Setup(
        methods=tuple(m for m in chosen if m in METHODS),
        rankers=tuple(r for r in chosen if r in RANKERS),
        profile=model.params(),
        paper=paper.params(paper=True)["like_params"],
    )


def _check_evaluation(protocol, setup) -> None:
    """The user's options, checked before any data is read."""
    from ..evaluation.grids import GRIDS_NAMES
    from ..model import ProfileRecommender

    if protocol.grid not in GRIDS_NAMES:
        raise ParameterError(f"--grid must be one of {', '.join(GRIDS_NAMES)}, got {protocol.grid!r}")
    if protocol.n_boot < 0:
        raise ParameterError(f"--bootstrap must be 0 or more, got {protocol.n_boot}")
    if not 0 <= protocol.strong < 1:
        raise ParameterError(f"--strong-users must be in [0, 1), got {protocol.strong}")
    ProfileRecommender(**setup.profile).check_params()
    ProfileRecommender(like_params=setup.paper, dislike_params=setup.paper).check_params()


@app.command()
@user_errors
def report(
    model_dir: Path = MODEL_DIR,
    user: str = typer.Argument(None, help="User id (omit with --all)."),
    out: Path = typer.Option(
        None,
        "--out",
        "-o",
        help="HTML file to write; with --all a directory.",
        show_default="report-USER.html; with --all: reports",
    ),
    all_users: bool = typer.Option(False, "--all", help="One page per user and an index.html, in the --out directory."),
    users: str = typer.Option(None, "--users", help="With --all: only these users (comma separated)."),
    item: str = typer.Option(None, "--item", help="The movie whose evidence is charted.", show_default="the top pick"),
    n: int = typer.Option(10, "-n", help="Recommendations shown."),
    quiet: bool = QUIET,
) -> None:
    """A self-contained HTML page of USER's profiles, co-clusters, recommendations and evidence."""
    from ..present.report import write_all, write_user

    if all_users == (user is not None):
        raise ParameterError("give USER, or --all (with an --out directory)")
    if users and not all_users:
        raise ParameterError("--users goes with --all")
    if n < 1:
        raise ParameterError(f"-n must be at least 1, got {n}")
    if out is None:
        out = Path("reports") if all_users else Path(f"report-{_file_safe(user)}.html")
    model = _load_model(model_dir)
    if all_users:
        chosen = [u.strip() for u in users.split(",") if u.strip()] if users else None
        index = write_all(model, out, chosen, n, str(model_dir), progress=progress(quiet))
        if not quiet:
            typer.echo(f"wrote {index} and one page per user")
        return
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
    from ..demo import STEPS, run_demo
    from ..evaluation.summary import brief_lines, source_line

    _first_use(quiet, evaluating=True)
    done = run_demo(out, users, progress=None if quiet else StepProgress(STEPS))
    if quiet:
        return
    echo_lines(["", *brief_lines(done.evaluation), ""])
    typer.echo(f"Every table (ablations, controls, intervals): {done.evaluation_text} and {done.evaluation_page}")
    typer.echo(f"Model: {done.model}    people's pages: {done.report}")
    typer.echo(source_line(done.evaluation, done.evaluation["demo_seconds"]))


@app.command()
@user_errors
def serve(
    model_dir: Path = MODEL_DIR,
    host: str = serving.HOST,
    port: int = serving.PORT,
    workers: int = serving.WORKERS,
    admin_token: str = serving.ADMIN_TOKEN,
    max_body: int = serving.MAX_BODY,
    requests_per_connection: int = serving.REQUESTS_PER_CONNECTION,
    forwarded_allow_ips: str = serving.FORWARDED_ALLOW_IPS,
    allowed_hosts: list[str] = serving.ALLOWED_HOSTS,
    header_timeout: float = serving.HEADER_TIMEOUT,
    body_timeout: float = serving.BODY_TIMEOUT,
    limit_concurrency: int = serving.LIMIT_CONCURRENCY,
    docs: bool = serving.DOCS,
    quiet: bool = QUIET,
) -> None:
    """Serve MODEL over HTTP: JSON endpoints, their reference at /docs, and a page to rate movies.

    At / a new person rates a few movies and sees their list with its reasons. Behind a reverse
    proxy: see docs/serving.md."""
    options = dict(locals())  # every option of the command is an argument of run, by the same name
    from ..service.run import run

    run(options.pop("model_dir"), **options)


def _file_safe(text: str) -> str:
    """``text`` usable in a file name: letters, digits, ``.``, ``-`` and ``_`` kept, others ``_``."""
    import re

    return re.sub(r"[^\w.-]", "_", text).strip(".") or "user"
