"""Rules of the code a test can keep: no function over 60 lines, docstring included (the packages,
the experiments and the benchmarks), but compiled kernels (numba's, whose loops are written out for
speed); the formatter owns the layout (few ``# fmt: skip``); the recommender's class stays a small
front (its work lives in ``recsys.model.training``, ``scoring``, ``listing`` and ``people``)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60


def _compiled(node) -> bool:
    return any("njit" in ast.unparse(d) or "numba" in ast.unparse(d) for d in node.decorator_list)


def test_no_function_over_sixty_lines_outside_compiled_kernels():
    long = []
    for package in ("recsys", "coclust", "ingest", "experiments", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _compiled(node):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > LIMIT:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


def test_the_formatter_owns_the_layout():
    """``ruff format`` lays the code out; ``# fmt: skip`` is kept for the few places where a
    hand-laid table or call reads better (at most 20 in the repository)."""
    skips = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("recsys", "coclust", "ingest", "experiments", "benchmarks", "tests")
        for path in (ROOT / folder).rglob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if line.rstrip().endswith("# fmt: skip")
    ]
    assert len(skips) <= 20, skips


def test_the_recommender_class_is_a_small_front():
    """``ProfileRecommender``: at most 300 lines and 12 public methods (parameters, fit, and the ways
    to ask: predict, recommend, lists, explain, fold-in)."""
    tree = ast.parse((ROOT / "recsys/model/recommender.py").read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ProfileRecommender"]
    public = [
        n.name
        for n in cls.body
        if isinstance(n, ast.FunctionDef)
        and not n.name.startswith("_")
        and not any(ast.unparse(d) == "property" for d in n.decorator_list)
    ]
    assert cls.end_lineno - cls.lineno + 1 <= 300
    assert len(public) <= 12, public
