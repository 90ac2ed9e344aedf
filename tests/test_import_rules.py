"""Import rules kept true by a test (imports at any level, inside functions too, count): no
import cycle between ``recsys``'s modules or packages, the model never imports the presentation,
the library never imports a face, ``coclust`` and ``ingest`` import nothing of ours."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: str = "recsys") -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports (``from .x import y`` resolved; a name
    imported from a package that is a submodule counts as that submodule)."""
    files = {_module(p): p for p in (ROOT / package).rglob("*.py")}
    graph = {}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        base = name.split(".") if is_pkg else name.split(".")[:-1]
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                src = node.module
                if node.level:
                    src = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                for alias in node.names:
                    target = f"{src}.{alias.name}" if f"{src}.{alias.name}" in files else src
                    if target in files and target != name:
                        out.add(target)
            elif isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name in files and a.name != name}
        graph[name] = out
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_evaluation_has_no_import_cycle():
    graph = import_graph()
    evaluation = {
        k: {m for m in v if m.startswith("recsys.evaluation")}
        for k, v in graph.items()
        if k.startswith("recsys.evaluation")
    }
    assert cycles(evaluation) == []


def _packages() -> dict[str, set[str]]:
    pkg = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    graph: dict[str, set[str]] = {}
    for k, v in import_graph().items():
        graph.setdefault(pkg(k), set()).update(pkg(x) for x in v if pkg(x) != pkg(k))
    return graph


def test_no_cycle_between_modules_or_packages():
    assert cycles(import_graph()) == []
    assert cycles(_packages()) == []


def test_the_model_never_imports_the_presentation():
    for module, imports in import_graph().items():
        if module.startswith("recsys.model"):
            assert not {m for m in imports if m.startswith("recsys.present")}, module


def test_the_library_never_imports_a_face():
    """``recsys.cli`` and ``recsys.service`` call the library; nothing of the library imports them
    (``recsys.demo``, the demo command's own module, is a face too)."""
    faces = ("recsys.cli", "recsys.service", "recsys.demo")
    for module, imports in import_graph().items():
        if not module.startswith(faces) and module != "recsys.__main__":
            assert not {m for m in imports if m.startswith(faces)}, module


def test_coclust_and_ingest_import_nothing_of_ours():
    for package, other in (("coclust", "ingest"), ("ingest", "coclust")):
        for path in (ROOT / package).rglob("*.py"):
            names = {
                n.module or ""
                for n in ast.walk(ast.parse(path.read_text()))
                if isinstance(n, ast.ImportFrom) and not n.level
            } | {a.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Import) for a in n.names}
            assert not {n for n in names if n.split(".")[0] in ("recsys", "experiments", "benchmarks", other)}, path


def test_every_module_is_in_its_packages_table():
    """The module tables of ``recsys.model``, ``recsys.present`` and ``recsys.evaluation`` name every
    module (kernels by their pattern)."""
    import importlib

    for package in ("recsys.model", "recsys.present", "recsys.evaluation"):
        doc = importlib.import_module(package).__doc__
        folder = ROOT / package.replace(".", "/")
        for path in folder.glob("*.py"):
            name = path.stem
            if name == "__init__" or (name.startswith("_") and ("_*_kernels" in doc or "_lookup" in doc)):
                continue
            assert f"``{name}``" in doc, f"{package}'s table lacks {name}"
