"""Build safety: user files survive, one build per folder at a time, kill -9 and concurrent
loads always see the old index or the new one, and manifests from elsewhere are refused."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import files
from explorer.artifacts import store
from explorer.artifacts.layout import EVERY_BUILD
from explorer.errors import IndexInvalidError
from explorer.index.lexical import LEXICAL_ROLES
from explorer.ingest.checkpoint import Checkpoint
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.conftest import ROOT, SEEDS
from tests.test_build import NEW_PAPERS

PAPER = "66489d54e9ae"  # a seeds paper
BUILD_SCRIPT = """
import sys
from pathlib import Path
from explorer.ingest.run import build
from explorer.errors import ExplorerError
out, wait, *inputs = sys.argv[1:]
try:
    report = build(inputs, Path(out), "default", wait=float(wait))
except ExplorerError as exc:
    print(f"error: {exc}")
    sys.exit(3)
print(report.summary())
"""


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _write_manifest(folder: Path, manifest: object) -> None:
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _start_build(out: Path, inputs: list[Path], wait: float = 60.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", BUILD_SCRIPT, str(out), str(wait),
                             *map(str, inputs)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _answers(folder: Path) -> int:
    """Open the index and ask it something; the paper count it answers with."""
    explorer = Explorer.open(folder)
    assert explorer.similar(PAPER, 3)[0].paper_id != PAPER
    assert explorer.search("proof assistant lemma retrieval", 1, mode="lexical")
    return len(explorer.papers)


def _only_index_files_left(folder: Path, user_files: set[str] = frozenset()) -> None:
    named = {entry["name"] for entry in _manifest(folder)["files"].values()}
    visible = {p.name for p in folder.iterdir() if not p.name.startswith(".")}
    assert visible == named | {"manifest.json"} | {n for n in user_files if n[0] != "."}
    assert {p.name for p in folder.iterdir() if p.name.endswith(".tmp")} <= set(user_files)


@pytest.fixture(scope="module")
def extra_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("extra") / "extra.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in NEW_PAPERS))
    return path


@pytest.fixture(scope="module")
def grown_index(seeds_index: Path, extra_file: Path, tmp_path_factory) -> Path:
    """An index of the seeds plus two papers (73); a build of the seeds alone (71) needs no
    model, so killed builds of it are quick. Read-only."""
    out = tmp_path_factory.mktemp("grown") / "index"
    shutil.copytree(seeds_index, out)
    build([SEEDS, extra_file], out, "default")
    return out


# -- 1. cleanup deletes only what this index wrote ---------------------------------------------
def test_user_files_named_like_artifacts_survive_builds(tmp_path: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    corpus = folder / "papers-2024.jsonl"
    corpus.write_text(json.dumps(NEW_PAPERS[0]) + "\n")
    user = {"index-notes.txt": "mine", "array-x.npy": "mine too", "extras-2023.json": "{}",
            ".notes.tmp": "draft", ".papers-2024.jsonl.abcd1234.tmp": "an editor's save"}
    for name, text in user.items():
        (folder / name).write_text(text)
    build([corpus], folder, "default", sentences=False)
    first = {entry["name"] for entry in _manifest(folder)["files"].values()}
    corpus.write_text("\n".join(json.dumps(p) for p in NEW_PAPERS) + "\n")
    assert not build([corpus], folder, "default", sentences=False).up_to_date  # a rebuild
    for name, text in user.items():
        assert (folder / name).read_text() == text, name
    assert corpus.exists() and not any((folder / name).exists() for name in first)
    _only_index_files_left(folder, {corpus.name, *user})


def test_files_of_a_crashed_build_are_removed_by_the_next(index_copy: Path, extra_file: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    real_write = store.atomic_write

    def crash_on_extras(path: Path, write):
        if path.name.startswith("extras-"):
            raise OSError("disk full (simulated)")
        return real_write(path, write)

    with monkeypatch.context() as patch:
        patch.setattr(store, "atomic_write", crash_on_extras)
        with pytest.raises(OSError, match="simulated"):
            build([SEEDS, extra_file], index_copy, "default", sentences=False)
    assert len(list(index_copy.glob("papers-*"))) == 2  # the crashed build's papers file
    build([SEEDS, extra_file], index_copy, "default", sentences=False)
    _only_index_files_left(index_copy)


def test_a_manifest_naming_files_outside_the_folder_deletes_nothing_there(tmp_path: Path,
                                                                          extra_file: Path):
    index = tmp_path / "index"
    build([extra_file], index, "default", sentences=False)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    manifest = _manifest(index)
    manifest["files"]["stolen"] = {"name": "../victim.txt", "bytes": 7, "crc32": "0"}
    _write_manifest(index, manifest)
    (index / ".written.json").write_text(json.dumps(["../victim.txt", str(victim)]))
    with pytest.raises(IndexInvalidError, match="not a plain name.*explorer build"):
        Explorer.open(index)
    assert build([extra_file], index, "default", sentences=False).papers == 2
    assert victim.read_text() == "keep me" and len(Explorer.open(index).papers) == 2


FOREIGN = {"a web app's manifest": '{"name": "My PWA", "icons": []}',
           "plain text": "not JSON at all", "a list": "[1, 2]"}


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}


@pytest.mark.parametrize("kind", [*FOREIGN, "a folder", "a link"])
def test_a_manifest_json_of_someone_elses_is_never_replaced(tmp_path: Path, extra_file: Path,
                                                            kind: str):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "index.html").write_text("<html></html>")
    if kind == "a folder":
        (folder / "manifest.json").mkdir()
    elif kind == "a link":
        (tmp_path / "elsewhere.json").write_text('{"format_version": 1, "files": {}}')
        (folder / "manifest.json").symlink_to(tmp_path / "elsewhere.json")
    else:
        (folder / "manifest.json").write_text(FOREIGN[kind])
    before = _snapshot(folder)
    with pytest.raises(IndexInvalidError, match="not a Paper Explorer index manifest.*never "
                                                "replaces a file it did not write.*--out"):
        build([extra_file], folder, "default", sentences=False)
    assert _snapshot(folder) == before  # nothing written, not even the lock file


def test_the_cli_refuses_a_foreign_manifest_in_one_line(tmp_path: Path, extra_file: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name":"My PWA"}')
    cli = "import sys; from explorer.cli.main import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run([sys.executable, "-c", cli, "build", str(extra_file), "--out",
                          str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stderr.count("\n") == 1, run.stderr
    assert "manifest.json is not a Paper Explorer index manifest" in run.stderr
    assert (folder / "manifest.json").read_text() == '{"name":"My PWA"}'
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json"]


def test_our_own_damaged_manifest_is_still_rebuilt(index_copy: Path):
    (index_copy / "manifest.json").write_text('{"format_version": 1, "files": ')  # cut short
    assert (index_copy / ".written.json").is_file()
    assert build([SEEDS], index_copy, "default").papers == 71
    assert _answers(index_copy) == 71
    found = store.load_artifacts(index_copy)
    (index_copy / "manifest.json").write_text('{"name": "My PWA"}')
    with pytest.raises(IndexInvalidError, match="not a Paper Explorer index manifest"):
        store.write_artifacts(index_copy, found.papers, found.index, found.extras,
                              found.manifest.to_dict())


STUCK_BUILD = """
import sys, time
from pathlib import Path
from explorer.artifacts import store
from explorer.ingest.run import build
real = store.atomic_write

def stuck(path, write):
    if not path.name.startswith("papers-"):
        return real(path, write)
    def half(tmp):
        tmp.write_bytes(b"{" * (3 << 19))  # 1.5 MB of the papers file, then stuck
        print(tmp.name, flush=True)
        time.sleep(600)
    return real(path, half)

store.atomic_write = stuck
build(sys.argv[2:], Path(sys.argv[1]), "default", sentences=False)
"""


def test_temp_files_of_a_build_killed_mid_write_are_removed_by_the_next(
        grown_index: Path, extra_file: Path, tmp_path: Path):
    """kill -9 of a real build while it writes: the next build, even one that finds the index
    up to date, removes what it left; files of the user's stay."""
    out = tmp_path / "index"
    shutil.copytree(grown_index, out)
    mine = {".notes.tmp": "draft", ".papers-2024.jsonl.abcd1234.tmp": "an editor's save"}
    for name, text in mine.items():
        (out / name).write_text(text)
    writer = subprocess.Popen([sys.executable, "-c", STUCK_BUILD, str(out), str(SEEDS)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    left = writer.stdout.readline().strip()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    assert left.startswith(".papers-") and (out / left).stat().st_size == 3 << 19
    assert _answers(out) == 73  # the old index, whole
    assert build([SEEDS, extra_file], out, "default").up_to_date  # as the folder was built
    assert not (out / left).exists()
    assert {name: (out / name).read_text() for name in mine} == mine
    _only_index_files_left(out, set(mine))


# -- 2. one build per folder at a time ---------------------------------------------------------
def test_a_second_build_stops_with_a_clear_message_while_the_folder_is_locked(
        grown_index: Path, tmp_path: Path):
    out = tmp_path / "index"
    shutil.copytree(grown_index, out)
    with files.FolderLock(out, wait=0):
        result = _start_build(out, [SEEDS], wait=0.5).communicate(timeout=120)[0]
    assert f"another build is writing {out} (pid {os.getpid()})" in result, result
    assert _answers(out) == 73  # untouched


def test_two_builds_at_once_leave_one_good_index(grown_index: Path, tmp_path: Path):
    out = tmp_path / "index"
    shutil.copytree(grown_index, out)
    processes = [_start_build(out, [SEEDS]) for _ in range(2)]
    outputs = [p.communicate(timeout=180)[0] for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    assert sorted("up to date" in text for text in outputs) == [False, True], outputs
    assert _answers(out) == 71
    _only_index_files_left(out)


def test_checkpoint_blocks_never_share_a_name(tmp_path: Path):
    vectors = np.ones((2, 4), dtype=np.float32)
    first, second = Checkpoint(tmp_path, "key"), Checkpoint(tmp_path, "key")
    first.save(["a", "b"], vectors, {"id": "m"})
    hashes = next(first.folder.glob("block-*.json"))
    parked = hashes.with_suffix(".parked")
    hashes.rename(parked)  # as if its writer were still between the vectors and the hashes
    second.save(["c", "d"], vectors * 2, {"id": "m"})
    parked.rename(hashes)
    loaded = first.load(lambda: {"id": "m"})
    assert sorted(loaded) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(loaded["a"], vectors[0])
    np.testing.assert_array_equal(loaded["c"], vectors[0] * 2)


# -- 3. a build never reads its own output -----------------------------------------------------
def test_an_index_folder_inside_the_corpus_is_not_read(tmp_path: Path):
    corpus = tmp_path / "c"
    corpus.mkdir()
    shutil.copy(sorted(SEEDS.iterdir())[0], corpus)  # one seeds file: a quick build
    first = build([corpus], corpus / "index", "default", sentences=False)
    second = build([corpus], corpus / "index", "default", sentences=False)
    assert first.papers == second.papers > 0 and second.up_to_date


# -- 4. loads during rebuilds ------------------------------------------------------------------
def test_loads_during_100_rebuilds_never_fail(index_copy: Path):
    found = store.load_artifacts(index_copy)
    arrays = {role: np.asarray(found.arrays[role]) for role in found.arrays}
    kept = {k: v for k, v in found.manifest.to_dict().items()
            if k not in ("files", "build_id", "count")}
    failures: list[str] = []
    loads = 0
    stop = threading.Event()

    def load_in_a_loop() -> None:
        nonlocal loads
        while not stop.is_set():
            try:
                if loads % 4:
                    loaded = store.load_artifacts(index_copy)
                    assert len(loaded.papers) == 71
                    assert loaded.arrays["sentence_vectors"].shape == arrays[
                        "sentence_vectors"].shape
                else:
                    assert len(Explorer.open(index_copy).similar(PAPER, 3)) == 3
            except Exception as exc:  # noqa: BLE001 - every failure counts, whatever its type
                failures.append(repr(exc))
            loads += 1

    reader = threading.Thread(target=load_in_a_loop)
    reader.start()
    try:
        for _ in range(100):
            store.write_artifacts(index_copy, found.papers, found.index, found.extras, kept,
                                  arrays)
    finally:
        stop.set()
        reader.join()
    assert failures == [] and loads >= 50, (failures[:3], loads)
    _only_index_files_left(index_copy)


# -- 5. new folders are fsynced in their parent ------------------------------------------------
def test_new_folders_are_fsynced_in_their_parent(index_copy: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    synced: list[Path] = []
    real = files.fsync_dir
    monkeypatch.setattr(files, "fsync_dir", lambda folder: (synced.append(Path(folder)),
                                                            real(folder)))
    found = store.load_artifacts(index_copy)
    out = tmp_path / "new" / "out"
    required = {role: found.arrays[role] for role in LEXICAL_ROLES + EVERY_BUILD}  # every index's
    store.write_artifacts(out, found.papers, found.index, found.extras, found.manifest.to_dict(),
                          required)
    assert {tmp_path, tmp_path / "new"} <= set(synced)
    checkpoint = Checkpoint(tmp_path / "other", "key")
    checkpoint.save(["a"], np.ones((1, 4), dtype=np.float32), {"id": "m"})
    assert {tmp_path, tmp_path / "other"} <= set(synced)


# -- 6. kill -9 --------------------------------------------------------------------------------
def test_kill_9_at_random_moments_leaves_the_old_or_the_new_index(grown_index: Path,
                                                                  tmp_path: Path):
    out = tmp_path / "index"
    shutil.copytree(grown_index, out)
    started = time.perf_counter()
    assert _start_build(out, [SEEDS]).wait(timeout=120) == 0
    duration = time.perf_counter() - started
    assert _answers(out) == 71
    rng = random.Random(6)
    for trial in range(7):
        if _answers(out) == 71:  # back to the grown index, so the build has work to do
            shutil.rmtree(out)
            shutil.copytree(grown_index, out)
        concurrent = trial >= 5
        processes = [_start_build(out, [SEEDS]) for _ in range(2 if concurrent else 1)]
        for process in processes:
            time.sleep(rng.uniform(0.0, duration / len(processes)))
            process.kill()
        for process in processes:
            process.wait()
        assert _answers(out) in (71, 73), trial
    assert _start_build(out, [SEEDS]).wait(timeout=120) == 0
    assert _answers(out) == 71
    _only_index_files_left(out)


# -- 7. manifests from elsewhere ---------------------------------------------------------------
def _set(path: tuple, value: object):
    def damage(manifest: dict) -> object:
        if not path:
            return value
        target = manifest
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return manifest
    return damage


BAD_MANIFESTS = [
    _set((), []), _set((), "manifest"), _set((), None), _set((), 1),
    _set(("format_version",), "1"), _set(("format_version",), True),
    _set(("count",), "71"), _set(("count",), -1), _set(("count",), 71.0), _set(("count",), None),
    _set(("model",), "all-MiniLM"), _set(("model",), []), _set(("model", "dimension"), "384"),
    _set(("model", "fingerprint"), 7), _set(("inputs",), [1, 2]), _set(("inputs",), "seeds"),
    _set(("index_type",), ["flat"]), _set(("index_type",), 5), _set(("build_id",), 5),
    _set(("files",), []), _set(("files",), "papers"), _set(("files",), None),
    _set(("files", "papers"), "papers.jsonl"), _set(("files", "papers"), None),
    _set(("files", "papers", "name"), "../papers.jsonl"),
    _set(("files", "papers", "name"), "/etc/hostname"),
    _set(("files", "papers", "name"), "sub/papers.jsonl"),
    _set(("files", "papers", "name"), "papers\x00.jsonl"),
    _set(("files", "papers", "name"), ".."), _set(("files", "papers", "name"), ""),
    _set(("files", "papers", "name"), 5), _set(("files", "papers", "bytes"), "118856"),
    _set(("files", "papers", "bytes"), None), _set(("files", "papers", "crc32"), 5),
    _set(("files", "index", "crc32"), None), _set(("files", "sentence_vectors", "bytes"), 1.5),
]


@pytest.mark.parametrize("damage", BAD_MANIFESTS)
def test_bad_manifests_are_refused_with_the_command_to_run(index_copy: Path, damage):
    _write_manifest(index_copy, damage(_manifest(index_copy)))
    with pytest.raises(IndexInvalidError, match="explorer build"):
        Explorer.open(index_copy)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["format_version", "count", "model", "inputs", "index_type",
                              "build_id", "files", "model.dimension", "model.id",
                              "files.papers", "files.papers.name", "files.papers.bytes",
                              "files.index.crc32", "files.text_hashes", "files.new"]),
       value=JSON)
def test_any_manifest_value_opens_or_is_refused_clearly(seeds_index: Path, where: str, value):
    folder = seeds_index.parent / "fuzzed-manifest"
    if not folder.exists():
        shutil.copytree(seeds_index, folder)
    manifest = _manifest(seeds_index)
    _write_manifest(folder, _set(tuple(where.split(".")), value)(manifest))
    try:
        assert len(Explorer.open(folder).papers) == 71
    except IndexInvalidError as exc:
        assert "explorer build" in str(exc)


# -- 8. sentence arrays read on demand ---------------------------------------------------------
def test_a_corrupt_on_demand_file_is_checksummed_once(index_copy: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    path = index_copy / _manifest(index_copy)["files"]["sentence_vectors"]["name"]
    data = bytearray(path.read_bytes())
    data[-3] ^= 1
    path.write_bytes(bytes(data))
    arrays = Explorer.open(index_copy).artifacts.arrays
    calls: list[int] = []
    real = files.checksum_stream
    monkeypatch.setattr(files, "checksum_stream", lambda *a: (calls.append(1), real(*a))[1])
    errors: list[str] = []

    def read() -> None:
        try:
            arrays["sentence_vectors"]
        except IndexInvalidError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    read()
    assert len(errors) == 9 and len(set(errors)) == 1 and "fails its checksum" in errors[0]
    assert len(calls) == 1
    assert arrays["sentence_table"].shape[1] == 3  # another role still reads fine
