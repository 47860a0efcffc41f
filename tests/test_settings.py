"""Settings: the only reader of the environment, and what it reads reaches the code that uses it."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import pytest

import explorer.cli.evaluation
import explorer.model.distributed
from explorer.cli.main import main
from explorer.errors import ExplorerError
from explorer.model.embedder import resolve_model
from explorer.model.export import META_FILE, export_folder
from explorer.settings import DEFAULT_BATCH_SIZE, DEFAULT_MODEL, Settings, thread_limit

ROOT = Path(__file__).resolve().parent.parent
READER = ROOT / "explorer" / "settings.py"
# Writes are not reads: the model code switches the Hugging Face hub off for this process.
ALLOWED_WRITES = {("explorer/model/embedder.py", "HF_HUB_OFFLINE"),
                  ("explorer/model/embedder.py", "TRANSFORMERS_OFFLINE"),
                  ("explorer/model/export.py", "HF_HUB_OFFLINE"),
                  ("explorer/model/export.py", "TRANSFORMERS_OFFLINE"),
                  ("explorer/model/quantise.py", "NNCF_CI")}  # NNCF's telemetry switch
IMPORT_TIME_READS = {"environ", "environb", "getenv", "getenvb", "getcwd", "cwd", "home",
                     "expanduser", "from_env", "default_cache_dir", "default_data_dir",
                     "thread_limit"}


def _sources(*, app: bool) -> dict[str, ast.Module]:
    files = sorted((ROOT / "explorer").rglob("*.py")) + ([ROOT / "streamlit_app.py"] if app else [])
    return {str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
            for path in files}


def environment_uses(tree: ast.Module) -> tuple[list[int], set[str]]:
    """(lines that read the environment or Path.home(), keys written as os.environ[KEY] = ...)."""
    reads, writes = [], set()
    written = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Subscript)
               and isinstance(node.ctx, ast.Store)}
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            reads += [node.lineno] * sum(a.name in ("environ", "getenv", "environb", "getenvb")
                                         for a in node.names)
        elif name in ("environ", "environb", "getenv", "getenvb") and id(node) not in written:
            reads.append(node.lineno)
        elif name == "home" and getattr(node.value, "id", None) == "Path":  # $HOME
            reads.append(node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and getattr(
                node.value, "attr", None) == "environ":
            key = node.slice.value if isinstance(node.slice, ast.Constant) else "?"
            writes.add(key)
    return sorted(reads), writes


def import_time_reads(tree: ast.Module) -> list[int]:
    """Lines that read the environment, the working or the home folder when the module is
    imported: anywhere but inside a function's or lambda's body (defaults count)."""
    found: list[int] = []

    def visit(node: ast.AST, in_body: bool) -> None:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if not in_body and name in IMPORT_TIME_READS:
            found.append(node.lineno)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in ast.iter_child_nodes(node):
                visit(child, in_body or child in body)
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, in_body)

    visit(tree, False)
    return sorted(found)


def test_the_scanners_find_what_they_look_for():
    tree = ast.parse("import os\nfrom os import getenv\nA = os.environ.get('X')\n"
                     "def f(home=Path.home()):\n    os.environ['HF'] = '1'\n"
                     "    return os.getenv('Y'), Path.cwd()\n")
    assert environment_uses(tree) == ([2, 3, 4, 6], {"HF"})
    assert import_time_reads(tree) == [3, 4]


def test_settings_is_the_only_reader_of_the_environment():
    reads, writes = {}, set()
    for name, tree in _sources(app=True).items():
        if name != str(READER.relative_to(ROOT)):
            lines, keys = environment_uses(tree)
            reads.update({f"{name}:{line}": "read" for line in lines})
            writes |= {(name, key) for key in keys}
    assert reads == {}
    assert writes <= ALLOWED_WRITES


def test_nothing_reads_the_environment_or_folders_at_import_time():
    found = {name: lines for name, tree in _sources(app=False).items()
             if (lines := import_time_reads(tree))}
    assert found == {}


def test_flags_win_over_the_environment_which_wins_over_the_defaults():
    assert Settings.from_env({}) == Settings()
    defaults = Settings.from_env({})
    assert defaults.model == DEFAULT_MODEL and defaults.query_model is None
    assert defaults.batch_size == DEFAULT_BATCH_SIZE == 32 and not defaults.debug
    env = {"EXPLORER_INDEX": "/data/idx", "EXPLORER_MODEL": "/models/m", "EXPLORER_DEBUG": " 1",
           "EXPLORER_CACHE": "~/cache", "XDG_CACHE_HOME": "/xdg"}
    chosen = Settings.from_env(env)
    assert (chosen.index_dir, chosen.model, chosen.query_model) == (
        Path("/data/idx"), "/models/m", "/models/m")
    assert chosen.cache_dir == Path("~/cache").expanduser() and chosen.debug
    flags = Settings.from_env(env, index_dir="other", model="m2", batch_size=4)
    assert (flags.index_dir, flags.query_model, flags.batch_size) == (Path("other"), "m2", 4)
    assert Settings.from_env({"XDG_CACHE_HOME": "/xdg"}).cache_dir == Path("/xdg/paper-explorer")
    assert Settings.from_env({"EXPLORER_DEBUG": "0"}).debug is False
    assert (thread_limit({"OMP_NUM_THREADS": "3"}), thread_limit({"OMP_NUM_THREADS": "0"}),
            thread_limit({})) == (3, None, None)


def test_eval_keeps_its_index_in_explorer_cache(monkeypatch, tmp_path: Path, capsys):
    used: list[Path] = []

    def prepare(dataset, cache, model, progress=None):
        used.append(cache)
        raise ExplorerError("stop here")

    monkeypatch.setattr(explorer.cli.evaluation, "prepare_index", prepare)
    monkeypatch.setenv("EXPLORER_CACHE", str(tmp_path / "cache"))
    (tmp_path / "acm-cr").mkdir()  # a folder: `eval` refuses anything else before building
    assert main(["eval", str(tmp_path / "acm-cr")]) == 1
    assert "stop here" in capsys.readouterr().err
    assert [path.parent for path in used] == [tmp_path / "cache" / "eval"]
    assert used[0].name.startswith("acm-cr-")


@pytest.fixture(scope="module")
def moved_model_index(tmp_path_factory) -> dict:
    """An index built by the CLI with a local model folder A (EXPLORER_CACHE set, default and
    --batch-size 4 builds), after which A moved to B. -> the paths and what the model saw."""
    root = tmp_path_factory.mktemp("settings")
    model_a, cache, corpus = root / "model-a", root / "cache", root / "tiny.txt"
    shutil.copytree(resolve_model("default").path, model_a, copy_function=os.symlink)
    corpus.write_text("Header line\n\nWe fold proteins with diffusion models.\n\n"
                      "Robots learn to walk on sand.\n\nCompilers schedule loops for GPUs.\n")
    real = explorer.model.distributed.create_embedder
    batches: list[int] = []

    def create(spec, **kwargs):
        embedder = real(spec, **kwargs)
        batches.append(embedder.batch_size)
        return embedder

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explorer.model.distributed, "create_embedder", create)
        patch.setenv("EXPLORER_CACHE", str(cache))
        for out, extra in (("idx", []), ("idx-4", ["--batch-size", "4"])):
            argv = ["build", str(corpus), "--out", str(root / out), "--no-sentences"]
            assert main([*argv, "--model", str(model_a), *extra]) == 0
    model_b = model_a.rename(root / "model-b")
    manifest = json.loads((root / "idx" / "manifest.json").read_text(encoding="utf-8"))
    return {"index": root / "idx", "cache": cache, "batches": batches, "model_b": model_b,
            "fingerprint": manifest["model"]["fingerprint"], "backend": manifest["model"]["backend"]}


def test_build_batch_size_and_cache_reach_the_model(moved_model_index: dict):
    assert moved_model_index["batches"] == [DEFAULT_BATCH_SIZE, 4]
    assert moved_model_index["backend"] != "torch"  # onnxruntime is a dependency: exported
    export = export_folder(moved_model_index["fingerprint"], moved_model_index["cache"])
    assert (export / META_FILE).is_file()


def test_explorer_model_opens_an_index_whose_model_folder_moved(moved_model_index: dict,
                                                                monkeypatch, capsys):
    argv = ["search", "protein folding", "--index", str(moved_model_index["index"]), "--json"]
    monkeypatch.setenv("EXPLORER_CACHE", str(moved_model_index["cache"]))
    monkeypatch.delenv("EXPLORER_MODEL", raising=False)
    assert main(argv) == 1
    assert "neither an installed model nor a local folder" in capsys.readouterr().err
    monkeypatch.setenv("EXPLORER_MODEL", str(moved_model_index["model_b"]))
    assert main(argv) == 0
    hits = json.loads(capsys.readouterr().out)
    assert "proteins" in hits[0]["abstract"]
    monkeypatch.setenv("EXPLORER_MODEL", "default")  # another model: refused by fingerprint
    assert main(argv) == 1
    assert "vectors are not comparable" in capsys.readouterr().err
