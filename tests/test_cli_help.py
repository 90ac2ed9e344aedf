"""The command line's help reads in one style, and every hint an error prints names an option of
the command that printed it."""

import re

import pytest
import typer
from typer.testing import CliRunner

from recsys.cli import app

FAST = ["--n-bands", "60", "--band-size", "2"]
COMMANDS = typer.main.get_command(app).commands
runner = CliRunner()


def _options(command: str) -> set[str]:
    return {o for p in COMMANDS[command].params for o in (*p.opts, *p.secondary_opts)} | {"--help"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_in_one_style(command):
    out = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
    assert "<bool>" not in out  # a switch takes no value
    assert "(default" not in out and "by default" not in out  # defaults once, as [default: ...]
    summary = (COMMANDS[command].help or "").split("\n\n")[0]
    assert "\n" not in summary.strip() and summary.strip().endswith("."), summary  # whole in `recsys --help`
    assert len(summary) <= 100, summary


def test_one_format_option():
    for command in ("relations", "predict", "recommend", "explain", "export", "evaluate"):
        assert "--format" in _options(command)
        assert all(not (p.name == "as_json" and not p.hidden) for p in COMMANDS[command].params)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hints")
    res = runner.invoke(app, ["train", "--dataset", "demo", "--out", str(d / "model"), "--quiet", *FAST])
    assert res.exit_code == 0, res.stderr
    (d / "person.csv").write_text("film,rating\n1,5\n")
    (d / "ratings.csv").write_text("usr,item,rating\n1,1,5\n")
    (d / "items.csv").write_text("id,title\n1,x\n")
    (d / "good.csv").write_text("user,item,rating\n1,1,5\n1,2,1\n2,1,4\n")
    return d


MISTAKES = [
    ["recommend", "{model}", "--ratings", "{d}/person.csv"],
    ["recommend", "{model}"],
    ["recommend", "{model}", "1", "--format", "xml"],
    ["predict", "{model}", "1", "2", "--format", "csv"],
    ["predict", "{model}", "1"],
    ["report", "{model}"],
    ["report", "{model}", "1", "--users", "1,2"],
    ["train", "--ratings", "{d}/ratings.csv", "--out", "{d}/x"],
    ["train", "--ratings", "{d}/good.csv", "--items", "{d}/items.csv", "--out", "{d}/x"],
    ["train", "--dataset", "demo", "--max-memory", "0", "--out", "{d}/x"],
    ["train", "--dataset", "nothing", "--out", "{d}/x"],
    ["evaluate", "--dataset", "demo", "--split", "all", *FAST],
    ["evaluate", "--dataset", "demo", "--strong-users", "2", *FAST],
    ["evaluate", "--dataset", "demo", "--methods", "nothing", *FAST],
    ["relations", "--dataset", "demo", "--split", "sometimes"],
    ["relations", "--ratings", "{d}/good.csv", "--duplicates", "twice"],
    ["explain", "{model}", "no-such-user"],
    ["export", "{model}", "--format", "xml", "--out", "{d}/p.json"],
    ["fetch", "nothing"],
]


@pytest.mark.parametrize("argv", MISTAKES, ids=lambda a: " ".join(a[:3]))
def test_every_hint_names_an_option_of_its_command(files, argv):
    args = [a.format(model=files / "model", d=files) for a in argv]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, (res.stdout, res.stderr)
    message = res.stderr
    assert message.startswith("error: ") and "Traceback" not in message
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", message))
    assert named <= _options(argv[0]), f"{message!r} names {named - _options(argv[0])}"


def test_serve_hands_every_option_to_the_service_by_name(monkeypatch, tmp_path):
    """``recsys serve``'s options are :func:`recsys.service.run.run`'s arguments, one for one."""
    import inspect

    import recsys.service.run as service_run

    got, wanted = {}, set(inspect.signature(service_run.run).parameters)
    monkeypatch.setattr(service_run, "run", lambda model_dir, **kw: got.update(model_dir=model_dir, **kw))
    res = runner.invoke(app, ["serve", str(tmp_path), "--port", "0", "--workers", "2", "--no-docs"])
    assert res.exit_code == 0, res.output
    assert set(got) == wanted
    assert got["port"] == 0 and got["workers"] == 2 and got["docs"] is False and got["model_dir"] == tmp_path
