"""Lost updates: every change a session makes names the revision (and uid) it opened, and is
refused when the collection changed, or was deleted and made again, since then. Checked through
the app's actions (explorer/features/collections/ui.py) with real stores, from many threads and
processes at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.errors import CollectionError
from explorer.features.collections import ui as saved
from explorer.features.collections.store import Collections
from explorer.features.collections.visitors import Shelf
from explorer.ui.links import MARKED, Location
from tests.collection_fixtures import at_once

ROOT = Path(__file__).resolve().parent.parent


class Index:
    """Every id is a paper (the plumbing of open_collection; no index needed)."""

    def paper(self, paper_id: str):
        from types import SimpleNamespace

        return SimpleNamespace(paper_id=paper_id)


@pytest.fixture
def store(tmp_path: Path) -> Collections:
    return Collections.at(tmp_path / "data")


def session(shelf: Shelf, name: str) -> tuple[saved.Opened, Location]:
    """A session that opened `name`: what it holds open, and its marked set."""
    outcome = saved.open_collection(shelf, name, Location(page=MARKED), Index())
    return outcome.opened, outcome.location


def test_a_rename_in_one_session_never_drops_what_another_added(store):
    shelf = Shelf(store)
    store.create("Thesis", ["a"])
    opened_a, here_a = session(shelf, "Thesis")
    opened_b, here_b = session(shelf, "Thesis")
    saved.save_changes(shelf, opened_b, here_b.mark("b", True))  # B adds a paper
    with pytest.raises(CollectionError, match="changed elsewhere"):
        saved.rename_open(shelf, opened_a, "Chapter 2", here_a)  # A's view is stale
    with pytest.raises(CollectionError, match="changed elsewhere"):
        saved.save_changes(shelf, opened_a, here_a.mark("c", True))
    assert store.names() == ["Thesis"] and store.get("Thesis").paper_ids == ("a", "b")
    opened_a, here_a = session(shelf, "Thesis")  # opened again: A may rename
    outcome = saved.rename_open(shelf, opened_a, "Chapter 2", here_a)
    assert outcome.opened.revision == store.get("Chapter 2").revision == 3
    assert store.get("Chapter 2").paper_ids == ("a", "b")


def test_a_stale_delete_is_refused(store):
    shelf = Shelf(store)
    store.create("Thesis", ["a"])
    opened, here = session(shelf, "Thesis")
    store.add("Thesis", ["b"])  # changed elsewhere (the command line, another tab)
    with pytest.raises(CollectionError, match="changed elsewhere"):
        saved.delete_open(shelf, opened, here)
    assert store.get("Thesis").paper_ids == ("a", "b")


def test_a_collection_deleted_and_made_again_is_not_the_one_opened(store):
    shelf = Shelf(store)
    store.create("Thesis", ["a"])
    opened, here = session(shelf, "Thesis")
    store.delete("Thesis")
    store.create("Thesis", ["someone else's"])  # revision 1 again, as when it was opened
    assert store.get("Thesis").revision == opened.revision
    for action in (lambda: saved.delete_open(shelf, opened, here),
                   lambda: saved.save_changes(shelf, opened, here),
                   lambda: saved.rename_open(shelf, opened, "Mine", here)):
        with pytest.raises(CollectionError, match="deleted and made again"):
            action()
    assert store.get("Thesis").paper_ids == ("someone else's",)


def test_the_command_line_changes_without_a_revision(store):
    store.create("Thesis", ["a"])
    store.add("Thesis", ["b"])
    assert store.rename("Thesis", "Ch. 2").revision == 3
    assert store.delete("Ch. 2").paper_ids == ("a", "b")


def act_at_once(shelf: Shelf, opened: list) -> list[tuple[str, object]]:
    """Sessions (opened, location) each save, rename or delete at the same moment, from a
    thread each: ("done", number) or ("refused", why) per session."""
    def act(number: int) -> int:
        mine, here = opened[number]
        [lambda: saved.save_changes(shelf, mine, here.mark(f"p{number}", True)),
         lambda: saved.rename_open(shelf, mine, f"Renamed {number}", here),
         lambda: saved.delete_open(shelf, mine, here)][number % 3]()
        return number

    return at_once(act, len(opened))


def test_sessions_acting_at_once_on_what_they_opened_one_wins_stale_ones_none(store):
    """Nine sessions open a collection; another saves first: all nine are stale, and every
    save, rename and delete of theirs, made at the same moment, is refused. Opened again,
    exactly one of them goes through, whatever the mix."""
    shelf = Shelf(store)
    store.create("Shared", ["a"])
    stale = [session(shelf, "Shared") for _ in range(9)]
    first, _ = session(shelf, "Shared")
    saved.save_changes(shelf, first, Location(page=MARKED, like=("a", "z")))  # another session
    results = act_at_once(shelf, stale)
    assert [kind for kind, _ in results] == ["refused"] * 9, results
    assert store.names() == ["Shared"] and store.get("Shared").paper_ids == ("a", "z")
    results = act_at_once(shelf, [session(shelf, "Shared") for _ in range(9)])
    done = [n for kind, n in results if kind == "done"]
    assert len(done) == 1, results
    refused = [why for kind, why in results if kind == "refused"]
    assert all("changed elsewhere" in why or "No collection named" in why for why in refused)
    winner = done[0]
    assert store.names() == {0: ["Shared"], 1: [f"Renamed {winner}"], 2: []}[winner % 3]
    if winner % 3 == 0:
        assert store.get("Shared").paper_ids == ("a", "z", f"p{winner}")


SESSION_SCRIPT = """
import sys
from explorer.features.collections.store import Collections
from explorer.errors import CollectionError
store = Collections(sys.argv[1])
worker = sys.argv[2]
added = 0
while added < 15:
    current = store.get("Busy")  # open, then save with the revision opened
    try:
        store.replace("Busy", [*current.paper_ids, f"{worker}-{added}"], current.revision,
                      current.uid)
        added += 1
    except CollectionError as exc:
        assert "changed elsewhere" in str(exc), exc
print("ok")
"""


def test_processes_saving_what_they_opened_lose_nothing(store):
    """Four processes each open, change and save with the revision they opened, again when
    refused: every paper any of them added is there, and one revision per save."""
    store.create("Busy")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", SESSION_SCRIPT, str(store.folder), f"p{w}"],
                                env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
               for w in range(4)]
    assert [worker.communicate(timeout=180)[0].strip() for worker in workers] == ["ok"] * 4
    final = store.get("Busy")
    assert sorted(final.paper_ids) == sorted(f"p{w}-{n}" for w in range(4) for n in range(15))
    assert final.revision == 1 + 4 * 15
