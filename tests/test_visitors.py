"""Whose collections a web session sees and may change (features/collections/visitors.py): the owner's
own computer, a shared server where each browser keeps its own and the owner's are read-only,
and a lab that shares writing on purpose (EXPLORER_VISITORS)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from explorer.errors import CollectionError, ExplorerError
from explorer.features.collections import ui as saved
from explorer.features.collections import visitors
from explorer.features.collections.store import Collections
from explorer.features.collections.visitors import (
    OWNER_MODE,
    PRIVATE,
    SHARED,
    Shelf,
    is_loopback,
    sharing,
    valid_key,
    visitor_folder,
)
from explorer.settings import Settings
from explorer.ui.links import MARKED, Location
from tests.collection_fixtures import at_once


def key() -> str:
    return secrets.token_hex(32)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    owners = Collections.at(tmp_path)
    owners.create("Owner's reading", ["o1", "o2"])
    return tmp_path


@pytest.mark.parametrize(("address", "setting", "mode"), [
    ("127.0.0.1", "auto", OWNER_MODE), ("::1", "auto", OWNER_MODE),
    ("localhost", "auto", OWNER_MODE), ("[::1]", "auto", OWNER_MODE),
    ("127.0.0.5", "auto", OWNER_MODE), ("0.0.0.0", "auto", PRIVATE), ("::", "auto", PRIVATE),
    ("192.168.1.20", "auto", PRIVATE), ("lab.example.org", "auto", PRIVATE),
    (None, "auto", PRIVATE), ("", "auto", PRIVATE),  # unset: Streamlit listens everywhere
    ("127.0.0.1", "private", PRIVATE),  # behind a proxy on this computer
    ("0.0.0.0", "shared", SHARED), ("127.0.0.1", "shared", SHARED)])
def test_the_mode_follows_the_address_and_the_setting(address, setting, mode):
    assert sharing(address, setting) == mode
    assert is_loopback(address) == (address in ("127.0.0.1", "::1", "localhost", "[::1]",
                                                "127.0.0.5"))


def test_the_setting_is_read_strictly():
    assert Settings.from_env({}).visitors == "auto"
    assert Settings.from_env({"EXPLORER_VISITORS": " Shared "}).visitors == "shared"
    with pytest.raises(ExplorerError, match="EXPLORER_VISITORS='yes please' is not one of"):
        Settings.from_env({"EXPLORER_VISITORS": "yes please"})


@pytest.mark.parametrize("bad", ["", "../../etc", "A" * 64, "g" * 64, "0" * 63, "0" * 65, None,
                                 64, "0" * 63 + "\n", "../" * 21 + "a"])
def test_a_key_is_64_hex_digits_else_no_space(data, bad):
    assert not valid_key(bad)
    shelf = Shelf.of(data, PRIVATE, bad)
    assert shelf.waiting and shelf.catalog().names() == ["Owner's reading"]
    with pytest.raises(CollectionError, match="has not given its key"):
        shelf.create("Mine", ["a"])
    with pytest.raises(ValueError, match="64 hex digits"):
        visitor_folder(data, bad)


def test_a_visitor_folder_is_inside_the_data_folder_and_hides_the_key(data):
    mine = key()
    folder = visitor_folder(data, mine)
    assert folder.parent == data / "collections" / "visitors" and mine not in str(folder)
    Shelf.of(data, PRIVATE, mine).create("Mine", ["a"])
    for path in data.rglob("*"):
        assert mine not in path.name
        if path.is_file():
            assert mine.encode() not in path.read_bytes()


def test_visitors_keep_their_own_and_only_read_the_owners(data):
    alice, bob = Shelf.of(data, PRIVATE, key()), Shelf.of(data, PRIVATE, key())
    alice.create("Reading", ["a1"])
    bob.create("Reading", ["b1"])  # the same name: another browser's, another collection
    for shelf, own in ((alice, ("a1",)), (bob, ("b1",))):
        listed = shelf.catalog()
        assert listed.names() == ["Reading", "Owner's reading"]
        assert listed.read_only == {"Owner's reading"}
        assert shelf.get("Reading").paper_ids == own
    assert Collections.at(data).names() == ["Owner's reading"]  # the owner's folder untouched
    here = Location(page=MARKED, like=("x",))
    opened = saved.open_collection(alice, "Owner's reading", here, Lookup()).opened
    assert opened.read_only
    for action in (lambda: saved.save_changes(alice, opened, here),
                   lambda: saved.rename_open(alice, opened, "Taken over", here),
                   lambda: saved.delete_open(alice, opened, here)):
        with pytest.raises(CollectionError, match="collection of the server's owner"):
            action()
    for taking in (lambda: alice.create("owner's READING", ["x"]),
                   lambda: alice.rename("Reading", "Owner's reading")):
        with pytest.raises(CollectionError, match="owner has a collection named"):
            taking()
    assert Collections.at(data).get("Owner's reading").paper_ids == ("o1", "o2")


def test_a_visitor_can_save_open_rename_and_delete_their_own(data):
    shelf, here = Shelf.of(data, PRIVATE, key()), Location(page=MARKED, like=("a", "b"))
    outcome = saved.save_new(shelf, "Chapter 2", here)
    outcome = saved.save_changes(shelf, outcome.opened, here.mark("c", True))
    outcome = saved.rename_open(shelf, outcome.opened, "Chapter two", outcome.location)
    assert shelf.get("Chapter two").paper_ids == ("a", "b", "c")
    saved.delete_open(shelf, outcome.opened, outcome.location)
    assert shelf.catalog().names() == ["Owner's reading"]


def test_the_owner_and_a_shared_lab_write_the_owners_folder(data):
    for mode in (OWNER_MODE, SHARED):
        shelf = Shelf.of(data, mode, None)
        assert not shelf.waiting and not shelf.read_only("Owner's reading")
        shelf.writable("Owner's reading").add("Owner's reading", [mode])
    assert Collections.at(data).get("Owner's reading").paper_ids == ("o1", "o2", "owner",
                                                                     "shared")
    assert Shelf.of(data, SHARED).own.limits == visitors.SHARED_LIMITS


def test_one_visitor_is_capped(data):
    shelf = Shelf.of(data, PRIVATE, key())
    with pytest.raises(CollectionError, match="at most 1,000 papers here"):
        shelf.create("Too big", [f"p{n}" for n in range(1_001)])
    for number in range(visitors.VISITOR_LIMITS.collections):
        shelf.create(f"c{number}", ["a"])
    with pytest.raises(CollectionError, match="at most 100 collections"):
        shelf.create("one too many", ["a"])


def test_the_server_keeps_at_most_max_visitors_even_when_they_come_at_once(data, monkeypatch):
    monkeypatch.setattr(visitors, "MAX_VISITORS", 3)
    early = Shelf.of(data, PRIVATE, key())
    early.create("First", ["a"])
    shelves = [Shelf.of(data, PRIVATE, key()) for _ in range(8)]
    results = at_once(lambda n: shelves[n].create("Mine", ["a"]), 8)
    refused = [why for kind, why in results if kind == "refused"]
    assert len(refused) == 6
    assert all("collections for 3 browsers" in why for why in refused)
    early.create("Second", ["b"])  # a visitor already kept goes on saving
    assert len(list((data / "collections" / "visitors").iterdir())) == 3 + 1  # + the lock file


class Lookup:
    def paper(self, paper_id: str):
        from types import SimpleNamespace

        return SimpleNamespace(paper_id=paper_id)
