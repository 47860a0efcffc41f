"""Saved collections (explorer/collections/): the files they are kept in, names of any text,
files that cannot be read, and many threads and processes changing them at once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.errors import CollectionError, ExplorerError, UnknownPaperError
from explorer.features.collections.records import MAX_NAME_CHARS, file_name, split_known
from explorer.features.collections.store import FOLDER, Collections
from explorer.settings import Settings, default_data_dir

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_NAMES = ["../../etc/passwd", "..", ".", "/abs/olute", "con", "<b>x</b>",
                 "[x](javascript:alert(1))", "Thèse chapitre 2", "日本語の論文", "🙂",
                 "👩\u200d💻 notes", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "CAPS",
                 "caps", "a" * MAX_NAME_CHARS]
# Characters that change what a name shows without being seen: refused, the character named.
REFUSED = {"a\x00b": "U+0000", "\u202eevil": "U+202E (RIGHT-TO-LEFT OVERRIDE)",
           "x\u2066y\u2069": "U+2066 (LEFT-TO-RIGHT ISOLATE)", "left\u200fmark": "U+200F",
           "zero\u200bwidth": "U+200B (ZERO WIDTH SPACE)", "tab\there": "U+0009",
           "line\u2028break": "U+2028", "\ud800lone": "U+D800", "private\ue000": "U+E000",
           "soft\u00adhyphen": "U+00AD", "\x1b[31mred": "U+001B"}


@pytest.fixture
def store(tmp_path: Path) -> Collections:
    return Collections.at(tmp_path / "data")


def files_of(store: Collections) -> list[str]:
    return sorted(p.name for p in store.folder.iterdir() if not p.name.startswith("."))


def test_the_data_folder_is_explorer_data_else_the_platform_one(tmp_path):
    assert Settings.from_env({"EXPLORER_DATA": "~/mine"}).data_dir == Path("~/mine").expanduser()
    platform = default_data_dir({})
    assert platform.name == "paper-explorer" and platform.is_absolute()
    assert Settings.from_env({}).data_dir == platform == Settings().data_dir


def test_create_add_remove_rename_delete(store):
    assert store.listing().collections == () and store.names() == []
    made = store.create("Reading list", ["a", "b", " a ", "c"])
    assert (made.paper_ids, made.revision) == (("a", "b", "c"), 1)
    assert store.add("Reading list", ["d", "b"]).paper_ids == ("a", "b", "c", "d")
    assert store.remove("Reading list", ["b", "zzz"]).paper_ids == ("a", "c", "d")
    renamed = store.rename("Reading list", "Chapter 2")
    assert (renamed.name, renamed.paper_ids, renamed.revision) == ("Chapter 2", ("a", "c", "d"), 4)
    assert store.names() == ["Chapter 2"] and files_of(store) == [file_name("Chapter 2")]
    assert store.get("Chapter 2") == renamed
    assert store.delete("Chapter 2") == renamed
    assert store.names() == [] and files_of(store) == []


def test_a_saved_file_is_plain_json_with_the_name_inside(store):
    store.create("Thèse", ["x"])
    data = json.loads((store.folder / file_name("Thèse")).read_text(encoding="utf-8"))
    assert (data["format"], data["version"], data["name"], data["paper_ids"]) == (
        "paper-explorer-collection", 1, "Thèse", ["x"])
    assert not [p for p in store.folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_any_name_is_kept_exactly_in_a_file_inside_the_folder(store, name):
    store.create(name, ["p1"])
    path = store.folder / file_name(name)
    assert path.parent == store.folder and path.is_file()
    assert path.name.isascii() and "/" not in path.name and not path.name.startswith(".")
    assert store.get(name).name == name.strip() and store.names() == [name.strip()]


@pytest.mark.parametrize("name", REFUSED)
def test_names_with_control_direction_or_format_characters_are_refused(store, name):
    store.create("Mine")
    for change in (lambda: store.create(name), lambda: store.rename("Mine", name)):
        with pytest.raises(CollectionError, match=re.escape(REFUSED[name])):
            change()
    assert store.names() == ["Mine"] and files_of(store) == [file_name("Mine")]


@pytest.mark.parametrize("name", ["\u3164", "\u2800 \u115f", "\u200d\u200c"])
def test_a_name_of_invisible_characters_only_is_refused(store, name):
    with pytest.raises(CollectionError, match="visible character"):
        store.create(name)


def test_names_that_look_the_same_are_one_name(store):
    """Case, width, spacing and invisible characters do not make another name (names.py)."""
    store.create("Reading list", ["a"])
    for alike in ("reading list", "READING LIST", "Reading  list", "Reading\u00a0list",
                  "\uff32eading list", "Readi\u200dng list", "Reading list\ufe0f"):
        with pytest.raises(CollectionError, match="already exists"):
            store.create(alike)
        assert store.get(alike).name == "Reading list"  # and finds it
    store.create("Other")
    with pytest.raises(CollectionError, match="already exists .*differ only in case"):
        store.rename("Other", "reading LIST")
    assert store.rename("Reading list", "Reading List").name == "Reading List"  # its own case
    assert store.names() == ["Other", "Reading List"]


def test_an_old_file_with_a_refused_character_stays_usable(store):
    """A name from before the rules (or a hand edit) is read and can be renamed away."""
    from explorer.features.collections.records import Collection, write_file

    store.folder.mkdir(parents=True)
    write_file(store.folder / "old.json", Collection("\u202eold", ("a",), 3))
    assert store.names() == ["\u202eold"] and store.get("\u202eold").paper_ids == ("a",)
    assert store.rename("\u202eold", "old").name == "old"


def test_names_that_differ_get_different_files():
    names = {file_name(n) for n in HOSTILE_NAMES}
    assert len(names) == len(set(HOSTILE_NAMES))


def test_bad_names_and_ids_are_refused_with_the_fix(store):
    with pytest.raises(CollectionError, match="not empty"):
        store.create("  \t")
    with pytest.raises(CollectionError, match="at most 200 characters"):
        store.create("x" * 201)
    with pytest.raises(CollectionError, match="Paper ids have 1 to 300"):
        store.create("ok", ["", "b"])
    store.create("Taken")
    with pytest.raises(CollectionError, match="already exists"):
        store.create("Taken")
    with pytest.raises(CollectionError, match="No collection named 'Nope' .*'Taken'"):
        store.add("Nope", ["a"])
    store.create("Other")
    with pytest.raises(CollectionError, match="already exists"):
        store.rename("Other", "Taken")
    assert store.names() == ["Other", "Taken"]


def test_the_same_name_in_another_unicode_form_is_the_same_collection(store):
    store.create("Cafe\u0301")  # e + combining accent
    assert store.get("Café").name == "Café"


CORRUPT = {"not json": "{oops", "not an object": "[1, 2]", "no format": '{"name": "x"}',
           "bad ids": '{"format": "paper-explorer-collection", "version": 1, "name": "x", '
                      '"paper_ids": [1], "revision": 1}',
           "newer version": '{"format": "paper-explorer-collection", "version": 9, "name": "x", '
                            '"paper_ids": [], "revision": 1}',
           "binary": b"\xff\xfe\x00garbage"}


@pytest.mark.parametrize("kind", CORRUPT)
def test_an_unreadable_file_is_named_and_never_overwritten(store, kind):
    store.create("Good", ["a"])
    store.create("Broken", ["b"])
    path = store.folder / file_name("Broken")
    content = CORRUPT[kind]
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = path.read_bytes()
    listing = store.listing()
    assert [c.name for c in listing.collections] == ["Good"]
    assert len(listing.problems) == 1 and str(path) in listing.problems[0]
    assert "never overwrites" in listing.problems[0]
    for change in (lambda: store.get("Broken"), lambda: store.create("Broken", ["c"]),
                   lambda: store.add("Broken", ["c"]), lambda: store.rename("Broken", "New"),
                   lambda: store.delete("Broken"), lambda: store.replace("Broken", ["c"])):
        with pytest.raises(CollectionError, match=str(path)):
            change()
    assert path.read_bytes() == before
    assert store.add("Good", ["z"]).paper_ids == ("a", "z")  # the others still work


def test_a_hand_edited_file_is_read_as_edited(store):
    store.create("Mine", ["a"])
    path = store.folder / file_name("Mine")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["paper_ids"] += ["added-by-hand"]
    data["name"] = "Renamed by hand"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert store.names() == ["Renamed by hand"]
    assert store.add("Renamed by hand", ["b"]).paper_ids == ("a", "added-by-hand", "b")
    with pytest.raises(CollectionError, match="in the way"):
        store.create("Mine")  # its file holds another collection: refused, not overwritten
    assert store.get("Renamed by hand").paper_ids == ("a", "added-by-hand", "b")


def test_replace_refuses_a_collection_changed_since_it_was_read(store):
    opened = store.create("Shared", ["a"])
    store.add("Shared", ["b"])  # someone else, meanwhile
    with pytest.raises(CollectionError, match="changed elsewhere"):
        store.replace("Shared", ["a", "mine"], revision=opened.revision)
    assert store.get("Shared").paper_ids == ("a", "b")
    current = store.get("Shared")
    assert store.replace("Shared", ["c"], revision=current.revision).paper_ids == ("c",)


class Lookup:
    """An index of a few papers, one id an alias of another (as duplicates merge)."""

    def __init__(self, ids: set[str], aliases: dict[str, str]) -> None:
        self.ids, self.aliases = ids, aliases

    def paper(self, paper_id: str):
        paper_id = self.aliases.get(paper_id, paper_id)
        if paper_id not in self.ids:
            raise UnknownPaperError(f"no {paper_id}")
        return SimpleNamespace(paper_id=paper_id)


def test_split_known_keeps_missing_ids_and_maps_aliases():
    papers = Lookup({"a", "b"}, {"old-a": "a"})
    known, missing = split_known(["old-a", "gone", "b", "a", "gone2"], papers)
    assert known == ["a", "b"] and missing == ["gone", "gone2"]


def test_threads_adding_at_once_lose_nothing(store):
    store.create("Busy")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for number in range(15):
                store.add("Busy", [f"w{worker}-{number}"])
                store.listing()  # readers meanwhile see whole files
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    final = store.get("Busy")
    assert sorted(final.paper_ids) == sorted(f"w{w}-{n}" for w in range(8) for n in range(15))
    assert final.revision == 1 + 8 * 15


def test_processes_adding_at_once_lose_nothing(store):
    store.create("Busy")
    code = ("import sys\nfrom explorer.features.collections.store import Collections\n"
            "store = Collections(sys.argv[1])\n"
            "for n in range(20):\n    store.add('Busy', [f'{sys.argv[2]}-{n}'])\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", code, str(store.folder), f"p{w}"], env=env,
                                cwd=ROOT) for w in range(4)]
    assert [worker.wait(timeout=120) for worker in workers] == [0] * 4
    final = store.get("Busy")
    assert sorted(final.paper_ids) == sorted(f"p{w}-{n}" for w in range(4) for n in range(20))


def test_threads_creating_one_name_make_it_once(store):
    outcomes: list[str] = []

    def work() -> None:
        try:
            store.create("Once", ["x"])
            outcomes.append("made")
        except CollectionError:
            outcomes.append("refused")

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["made"] + ["refused"] * 5


def test_a_held_lock_gives_a_clear_error(tmp_path):
    from explorer.files import FolderLock

    store = Collections(tmp_path / FOLDER, wait=0.2)
    store.create("x")
    busy = f"changing the collections in .* \\(pid {os.getpid()}\\)"
    with FolderLock(store.folder, 0, name=".collections.lock"), \
            pytest.raises(ExplorerError, match=busy):
        store.add("x", ["a"])
    assert store.get("x").paper_ids == ()


def test_a_collection_of_ten_thousand_papers_round_trips_and_the_limit_is_clear(store):
    from explorer.features.collections.records import MAX_PAPERS

    ids = [f"10.1000/paper-{n}" for n in range(10_000)]
    store.create("Big", ids)
    assert store.add("Big", ["one-more"]).paper_ids == (*ids, "one-more")
    with pytest.raises(CollectionError, match="at most 100,000 papers.*Split it"):
        store.create("Too big", [f"p{n}" for n in range(MAX_PAPERS + 1)])
