"""The collections folder's index (catalog.py), the limits of a folder, and temp files left by
writers killed mid-write (kill -9 of real processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from explorer.errors import CollectionError
from explorer.features.collections import catalog, records
from explorer.features.collections.records import file_name
from explorer.features.collections.store import Collections, Limits
from tests.collection_fixtures import at_once

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(tmp_path: Path) -> Collections:
    return Collections.at(tmp_path / "data")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The collection files read (parsed) from now on, by name."""
    seen: list[str] = []
    real = records.read_chunks

    def counted(path, *args, **kwargs):
        seen.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(records, "read_chunks", counted)
    return seen


def test_a_new_name_and_a_listing_read_no_unchanged_file(store, reads):
    for number in range(60):
        store.create(f"List {number}", [f"p{number}"])
    store.names()
    reads.clear()
    store.create("One more", ["x"])
    assert reads == []  # the old store read all 60 files to check the name
    catalog_now = store.catalog()
    assert reads == [] and len(catalog_now.entries) == 61
    assert [(e.name, e.count, e.revision) for e in catalog_now.entries[:2]] == [
        ("List 0", 1, 1), ("List 1", 1, 1)]


def test_the_files_stay_the_truth(store, reads):
    store.create("Mine", ["a"])
    store.create("Theirs", ["b"])
    path = store.folder / file_name("Mine")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["name"], data["paper_ids"] = "Edited by hand", ["a", "b", "c"]
    path.write_text(json.dumps(data), encoding="utf-8")  # in place: same inode
    (store.folder / "dropped-in.json").write_text(json.dumps({**data, "name": "Copied in"}))
    reads.clear()
    listed = store.catalog()
    assert sorted(reads) == ["dropped-in.json", path.name]  # only what changed is read
    assert [(e.name, e.count) for e in listed.entries] == [
        ("Copied in", 3), ("Edited by hand", 3), ("Theirs", 1)]
    (store.folder / file_name("Theirs")).unlink()
    assert store.names() == ["Copied in", "Edited by hand"]
    with pytest.raises(CollectionError, match="already exists"):
        store.create("edited BY hand")


@pytest.mark.parametrize("index", ["", "{oops", "[1]", '{"format": "other"}',
                                   '{"format": "paper-explorer-collections-index", "version": 1, '
                                   '"entries": [{"file": 1}]}'])
def test_a_missing_or_broken_index_is_rebuilt_from_the_files(store, index):
    store.create("A", ["1"])
    store.create("B", ["2"])
    target = store.folder / catalog.INDEX
    if index:
        target.write_text(index, encoding="utf-8")
    else:
        target.unlink()
    assert store.names() == ["A", "B"]
    assert catalog.read_index(store.folder).keys() == {file_name("A"), file_name("B")}
    assert not [p for p in store.folder.iterdir() if p.name.endswith(".tmp")]


def test_a_folder_holds_at_most_its_limit(tmp_path):
    store = Collections(tmp_path / "c", limits=Limits(collections=3, papers=5))
    for name in "abc":
        store.create(name, ["1"])
    with pytest.raises(CollectionError, match="at most 3 collections.*Delete one"):
        store.create("d")
    with pytest.raises(CollectionError, match="at most 5 papers here"):
        store.add("a", ["2", "3", "4", "5", "6"])
    store.delete("c")
    with pytest.raises(CollectionError, match="at most 5 papers here"):
        store.create("d", [str(n) for n in range(6)])
    store.create("d", [str(n) for n in range(5)])
    assert store.names() == ["a", "b", "d"]


def test_threads_creating_at_once_never_pass_the_limit(tmp_path):
    folder, limits = tmp_path / "c", Limits(collections=5)
    results = at_once(lambda n: Collections(folder, limits=limits).create(f"n{n}"), 12)
    refused = [why for kind, why in results if kind == "refused"]
    assert len(refused) == 7 and len(Collections(folder).names()) == 5
    assert all("at most 5 collections" in why for why in refused)


# -- writers killed mid-write -----------------------------------------------------------------
STUCK_WRITER = """
import sys, time
from pathlib import Path
from explorer.features.collections import records
from explorer.features.collections.store import Collections
real = records.atomic_write

def stuck(path, write):
    def half(tmp):
        tmp.write_bytes(b"[" * (3 << 19))  # 1.5 MB of a collection file, then stuck
        print(tmp.name, flush=True)
        time.sleep(600)
    real(path, half)

records.atomic_write = stuck
Collections(Path(sys.argv[1])).create("Big", [f"paper-{n}" for n in range(50_000)])
"""


def kill_mid_write(folder: Path) -> str:
    """Start a process writing a collection into `folder`, kill -9 it mid-write; the name of
    the temp file it left."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen([sys.executable, "-c", STUCK_WRITER, str(folder)], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, text=True)
    left = writer.stdout.readline().strip()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    assert left and (folder / left).stat().st_size == 3 << 19
    return left


def test_a_write_killed_by_kill_9_leaves_nothing_once_the_folder_changes(store):
    store.create("Before", ["a"])
    mine = {".notes.tmp": "a user's", ".draft.txt.0123abcd.tmp": "another program's"}
    for name, text in mine.items():
        (store.folder / name).write_text(text)
    left = kill_mid_write(store.folder)
    assert store.names() == ["Before"]  # a reader neither sees nor removes it
    assert (store.folder / left).exists()
    store.add("Before", ["b"])  # the next change, by anyone
    assert not (store.folder / left).exists()
    assert {n: (store.folder / n).read_text() for n in mine} == mine
    assert store.get("Before").paper_ids == ("a", "b")


def test_a_live_writer_keeps_its_temp_file(store, monkeypatch):
    """The clean-up runs under the folder's lock, so it never takes a file being written."""
    real, started, go_on = records.atomic_write, threading.Event(), threading.Event()

    def slow(path, write):
        def held(tmp):
            write(tmp)
            started.set()
            go_on.wait(30)
        real(path, held)

    monkeypatch.setattr(records, "atomic_write", slow)
    writer = threading.Thread(target=lambda: store.create("Slow", ["a"]))
    writer.start()
    assert started.wait(30)
    temps = [p for p in store.folder.iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == 1
    with pytest.raises(CollectionError, match="changing the collections"):
        Collections(store.folder, wait=0.3).create("Other")
    assert store.names() == [] and temps[0].exists()
    go_on.set()
    writer.join()
    assert store.get("Slow").paper_ids == ("a",) and not temps[0].exists()
