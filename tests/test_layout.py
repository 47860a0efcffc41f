"""The library's shape (ARCHITECTURE.md): data flows one way through its packages, so no module
imports a step later on the data's path, nothing imports in a circle, and the app stays free
of numpy/faiss/torch. Read from the source with `ast`, so it checks every import, lazy ones too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The steps in the order the data flows; a module may import its own step and earlier ones.
ORDER = ["errors", "settings", "files", "collections", "corpus", "model", "index", "ranking",
         "artifacts", "build", "query", "ui", "eval", "cli"]


def imports_of(path: Path) -> set[str]:
    """Every `explorer...` module named by an import anywhere in `path` (top level or lazy)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from explorer.model import catalog` imports a module, not a name
            submodules = {f"{node.module}.{alias.name}" for alias in node.names
                          if _is_module(f"{node.module}.{alias.name}")}
            found |= submodules
            if len(submodules) < len(node.names):
                found.add(node.module)
    return {name for name in found if name.split(".")[0] == "explorer"}


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def step_of(module: str) -> str | None:
    """The step a dotted `explorer.x[.y]` name belongs to (None for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ORDER else None


def library_modules() -> dict[str, Path]:
    """Every module of the library but the package root (whose names load lazily)."""
    modules = {}
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        if path == ROOT / "explorer" / "__init__.py":
            continue
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        modules[dotted.removesuffix(".__init__")] = path
    return modules


def backward_imports(modules: dict[str, Path]) -> list[str]:
    problems = []
    for name, path in modules.items():
        own = step_of(name)
        if own is None:
            continue
        for target in imports_of(path):
            step = step_of(target)
            if step is not None and ORDER.index(step) > ORDER.index(own):
                problems.append(f"{name} imports {target} (later on the data's path)")
            if target == "explorer":
                problems.append(f"{name} imports the package root (it re-exports the query step)")
    return problems


def cycles(modules: dict[str, Path]) -> list[list[str]]:
    graph = {name: sorted(t for t in imports_of(path) if t in modules and t != name)
             for name, path in modules.items()}
    found, state = [], {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                found.append([*trail[trail.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])
    return found


def test_every_subpackage_is_a_known_step():
    packages = {p.name for p in (ROOT / "explorer").iterdir() if (p / "__init__.py").is_file()}
    assert packages <= set(ORDER), packages - set(ORDER)


def test_no_module_imports_a_later_step():
    assert backward_imports(library_modules()) == []


def test_no_modules_import_each_other_in_a_circle():
    assert cycles(library_modules()) == []


def test_the_checks_can_fail(tmp_path):
    """The checks catch what they are for: a backward import and a circle."""
    (tmp_path / "a.py").write_text("from explorer.query.engine import Explorer\n")
    (tmp_path / "b.py").write_text("import explorer.corpus.c\n")
    (tmp_path / "c.py").write_text("def f():\n    from explorer.corpus.b import x\n")
    fake = {"explorer.corpus.a": tmp_path / "a.py", "explorer.corpus.b": tmp_path / "b.py",
            "explorer.corpus.c": tmp_path / "c.py"}
    assert backward_imports(fake) == [
        "explorer.corpus.a imports explorer.query.engine (later on the data's path)"]
    assert cycles(fake) == [["explorer.corpus.b", "explorer.corpus.c", "explorer.corpus.b"]]


def test_the_app_imports_the_library_not_numpy_faiss_or_torch():
    tree = ast.parse((ROOT / "streamlit_app.py").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    assert not names & {"numpy", "faiss", "torch", "sentence_transformers"}, names
    assert "explorer" in names


def test_one_step_imports_without_loading_the_query_step():
    """`explorer`'s public names load on first use: reading a corpus loads no FAISS or model."""
    import subprocess
    import sys

    code = ("import sys, explorer.corpus.papers, explorer.settings\n"
            "print(sorted(m for m in ('faiss', 'torch', 'explorer.query.engine') if m in sys.modules))\n"
            "from explorer import Explorer, QueryOptions\n"
            "print(Explorer.__module__, QueryOptions.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "explorer.query.engine explorer.ranking.options"
