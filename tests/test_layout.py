"""The library's shape (ARCHITECTURE.md): data flows one way through its packages, so no module
imports a step later on the data's path, nothing imports in a circle, only the app's modules
import Streamlit and they stay free of numpy/faiss/torch, and the registries (the app's pages,
the CLI's verbs) name every page and verb there is. Read from the source with `ast`, so it
checks every import, lazy ones too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The steps in the order the data flows; a module may import its own step and earlier ones.
ORDER = ["errors", "settings", "files", "wording", "batching", "collections", "corpus", "model",
         "index", "ranking", "artifacts", "ingest", "query", "ui", "eval", "cli", "app"]
# A feature's module (explorer/features/F/M.py) is on the step its file name says: stage*.py
# ingest, ui*.py ui (no Streamlit), page*.py app (Streamlit), cli*.py cli; any other name query
# (in features/collections/: the user-data step, collections).
ROLE = {"stage": "ingest", "ui": "ui", "page": "app", "cli": "cli"}
APP_STEP = "app"
NO_APP = {"numpy", "faiss", "torch", "sentence_transformers", "scipy", "sklearn"}


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
    """The step a dotted `explorer.x[.y]` name belongs to (None for the package root and the
    packages `explorer.features`, `explorer.features.F`)."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] == "features":
        if len(parts) < 4:
            return None
        role = ROLE.get(parts[3].split("_")[0])
        return role or ("collections" if parts[2] == "collections" else "query")
    return parts[1] if len(parts) > 1 and parts[1] in ORDER else None


def third_party_of(path: Path) -> set[str]:
    """The top-level names of every import in `path` that is not `explorer` (top level or lazy)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found - {"explorer"}


def app_files() -> list[Path]:
    """The app's modules: the entry file, explorer/app/ and the features' page*.py."""
    return [ROOT / "streamlit_app.py", *sorted((ROOT / "explorer" / "app").glob("*.py")),
            *sorted((ROOT / "explorer" / "features").glob("*/page*.py"))]


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
    assert packages <= set(ORDER) | {"features"}, packages - set(ORDER)
    features = [p for p in (ROOT / "explorer" / "features").iterdir()
                if p.is_dir() and p.name != "__pycache__"]
    assert features and all((p / "__init__.py").is_file() for p in features), features


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
    # a feature's page may import its stage (ingest comes first); its stage not its page
    (tmp_path / "page.py").write_text("from explorer.features.x.stage import y\n")
    (tmp_path / "stage.py").write_text("def f():\n    from explorer.features.x.page import z\n")
    feature = {"explorer.features.x.page": tmp_path / "page.py",
               "explorer.features.x.stage": tmp_path / "stage.py"}
    assert backward_imports(feature) == [
        "explorer.features.x.stage imports explorer.features.x.page (later on the data's path)"]


def test_ranking_imports_no_wording_and_names_no_strengths():
    """What the ranking does never depends on a display label: ranking/ imports no
    explorer.wording and names none of its words or thresholds."""
    ranking = {name: path for name, path in library_modules().items()
               if name.startswith("explorer.ranking")}
    assert ranking
    importers = [name for name, path in ranking.items() if "explorer.wording" in imports_of(path)]
    assert importers == []
    named = [name for name, path in ranking.items()
             if {"STRENGTHS", "WEAK"} & {node.id for node in ast.walk(ast.parse(path.read_text()))
                                        if isinstance(node, ast.Name)}]
    assert named == []


def test_only_the_app_imports_streamlit():
    outside = [name for name, path in library_modules().items()
               if "streamlit" in third_party_of(path) and step_of(name) != APP_STEP]
    assert outside == []
    assert "streamlit" in third_party_of(ROOT / "explorer" / "app" / "shell.py")


def test_the_app_modules_import_no_numpy_faiss_or_torch():
    heavy = {str(path.relative_to(ROOT)): sorted(third_party_of(path) & NO_APP)
             for path in app_files() if third_party_of(path) & NO_APP}
    assert len(app_files()) > 3 and heavy == {}


def registered(path: Path, registry: str) -> set[str]:
    """The dotted names (`explorer.app.ask.PAGE`) of the items of the module-level tuple or
    list `registry` in `path`: names imported or defined there, and attributes of modules
    imported there."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == registry
                                                for t in node.targets):
            for item in node.value.elts:
                if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
                    found.add(f"{aliases.get(item.value.id, item.value.id)}.{item.attr}")
                elif isinstance(item, ast.Name):
                    found.add(aliases.get(item.id, f"{own}.{item.id}"))
    return found


def module_level(paths: list[Path], wanted) -> set[str]:
    """Dotted names of the module-level definitions of `paths` that `wanted(node)` picks."""
    found = set()
    for path in paths:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            name = wanted(node)
            if name:
                found.add(f"{module}.{name}")
    return found


def _page_record(node: ast.AST) -> str | None:
    """`NAME = Page(...)` (or `kit.Page(...)`) -> NAME."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        func = node.value.func
        if getattr(func, "id", getattr(func, "attr", None)) == "Page":
            return node.targets[0].id
    return None


def _verb(node: ast.AST) -> str | None:
    """`def add_x(commands)`: a function that adds a verb to the CLI's subparsers -> its name."""
    if isinstance(node, ast.FunctionDef) and node.name.startswith("add_") and node.args.args \
            and node.args.args[0].arg == "commands":
        return node.name
    return None


def test_every_page_is_in_the_shells_registry():
    pages = module_level([p for p in app_files() if p.parent.name != ROOT.name], _page_record)
    listed = registered(ROOT / "explorer" / "app" / "shell.py", "PAGES")
    assert len(pages) >= 7 and pages == listed, (pages ^ listed)


def test_every_verb_of_a_feature_is_in_the_clis_registry():
    verbs = module_level(sorted((ROOT / "explorer" / "features").glob("*/cli*.py")), _verb)
    listed = registered(ROOT / "explorer" / "cli" / "main.py", "VERBS")
    assert len(verbs) >= 4 and verbs <= listed, verbs - listed


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


def test_the_command_line_loads_no_streamlit():
    import subprocess
    import sys

    code = "import sys, explorer.cli.main\nprint('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.strip()
    assert out == "False"


MAX_MODULE_LINES, MAX_FUNCTION_LINES = 320, 45
# Modules and functions over the limits today, each at its size now: one may shrink (then lower
# or strike its entry), never grow, and a new one may not join. Empty is the goal (issue 30).
OVERSIZE = {"explorer/artifacts/store.py": 345}


def oversize(paths: list[Path]) -> dict[str, int]:
    """Modules over MAX_MODULE_LINES lines and functions (path:name) over MAX_FUNCTION_LINES,
    with their lengths (a function's from its `def` to its last line, decorators not counted)."""
    found = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        if len(text.splitlines()) > MAX_MODULE_LINES:
            found[name] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found[f"{name}:{node.name}"] = max(length, found.get(f"{name}:{node.name}", 0))
    return found


def test_no_module_or_function_outgrows_the_limits():
    """No module over 320 lines, no function over 45 (ARCHITECTURE.md), but those in OVERSIZE,
    each no longer than it was; an entry that is no longer needed must go."""
    found = oversize([*library_modules().values(), ROOT / "explorer" / "__init__.py",
                      ROOT / "streamlit_app.py"])
    grown = {name: size for name, size in found.items() if size > OVERSIZE.get(name, 0)}
    assert not grown, f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function"
    assert not set(OVERSIZE) - set(found), "no longer oversize: strike from OVERSIZE"


def test_the_size_check_can_fail(tmp_path):
    long_function = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    (tmp_path / "m.py").write_text(long_function + "\n" * MAX_MODULE_LINES)
    assert oversize([tmp_path / "m.py"]) == {"m.py": MAX_FUNCTION_LINES + 1 + MAX_MODULE_LINES,
                                             "m.py:f": MAX_FUNCTION_LINES + 1}


MAX_EXPLORER_LINES = 200  # issue 30: the engine only opens an index and delegates


def class_lines(path: Path, name: str) -> int:
    """Lines of the class `name` in `path`, from its `class` line to its last."""
    found = [node for node in ast.parse(path.read_text(encoding="utf-8")).body
             if isinstance(node, ast.ClassDef) and node.name == name]
    assert found, f"no class {name} in {path}"
    return found[0].end_lineno - found[0].lineno + 1


def test_the_explorer_stays_a_thin_opener(tmp_path):
    assert class_lines(ROOT / "explorer" / "query" / "engine.py", "Explorer") <= MAX_EXPLORER_LINES
    (tmp_path / "m.py").write_text("class Explorer:\n" + "    x = 1\n" * MAX_EXPLORER_LINES)
    assert class_lines(tmp_path / "m.py", "Explorer") == MAX_EXPLORER_LINES + 1
