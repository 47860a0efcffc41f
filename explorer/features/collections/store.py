"""The saved collections in a folder (`Settings.data_dir`/collections/): create, read, change,
rename and delete them, safely from many threads and processes at once.

Every change runs under a lock (a thread lock, then `files.FolderLock` on `.collections.lock`,
so threads and processes take turns) for one read-change-write, and each file is written
atomically (`files.atomic_write`), so a reader without the lock sees the old file or the new
one. A file that cannot be read is an error naming it, and is never overwritten. A change made
for a session names the revision (and `uid`) the session opened, and is refused when the
collection changed, or was deleted and made again, since then.

What the folder holds is indexed (catalog.py): listing it and checking a new name read only
the files that changed. `Limits` caps how many collections a folder holds and how many papers
one holds (a visitor's folder on a shared server is capped tighter than the owner's).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import CollectionError
from explorer.features.collections.catalog import Entry, collection_files, record, refreshed
from explorer.features.collections.locks import LOCK, locked
from explorer.features.collections.names import name_key
from explorer.features.collections.records import (
    MAX_PAPERS,
    Collection,
    check_size,
    clean_ids,
    clean_name,
    file_name,
    now,
    read_file,
    write_file,
)

FOLDER = "collections"  # under Settings.data_dir
LOCK_WAIT = 30.0  # seconds
__all__ = ["FOLDER", "LOCK", "LOCK_WAIT", "Catalog", "Collections", "Limits", "Listing"]


@dataclass(frozen=True)
class Limits:
    """How many collections a folder may hold (None: any number) and papers one may hold."""

    collections: int | None = None
    papers: int = MAX_PAPERS


OWNER = Limits()


@dataclass(frozen=True)
class Listing:
    """The collections that could be read, by name, and one message per file that could not."""

    collections: tuple[Collection, ...]
    problems: tuple[str, ...]


@dataclass(frozen=True)
class Catalog:
    """What a folder holds, from its index: an entry per readable collection (by name, case
    blind) and one message per file that could not be read; `read_only`: the names among them
    that a session may only read (visitors.Shelf: the owner's, seen by a visitor)."""

    entries: tuple[Entry, ...]
    problems: tuple[str, ...]
    read_only: frozenset[str] = frozenset()

    def names(self) -> list[str]:
        return [entry.name for entry in self.entries]


class Collections:
    """The collections in `folder` (e.g. `Collections.at(settings.data_dir)`).

    Reads need no lock; every change holds the folder's lock for one read-change-write."""

    def __init__(self, folder: Path, wait: float = LOCK_WAIT, limits: Limits = OWNER) -> None:
        self.folder, self.wait, self.limits = Path(folder), wait, limits

    @classmethod
    def at(cls, data_dir: Path, wait: float = LOCK_WAIT) -> Collections:
        return cls(Path(data_dir) / FOLDER, wait)

    # -- reading ------------------------------------------------------------------------------
    def listing(self) -> Listing:
        """Every collection, whole (every file read), sorted by name (case-blind); unreadable
        files as problems. `catalog` is the cheap listing."""
        found, problems = [], []
        for path in sorted(self.folder / file for file in collection_files(self.folder)):
            try:
                found.append(read_file(path))
            except CollectionError as exc:
                problems.append(str(exc))
        found.sort(key=lambda c: (c.name.casefold(), c.name))
        return Listing(tuple(found), tuple(problems))

    def catalog(self) -> Catalog:
        """Every collection's name, size and revision, from the index (files read only when
        they changed), sorted by name (case-blind); unreadable files as problems."""
        entries = sorted(refreshed(self.folder).values(), key=lambda e: e.file)
        readable = sorted((e for e in entries if not e.problem),
                          key=lambda e: (e.name.casefold(), e.name))
        return Catalog(tuple(readable), tuple(e.problem for e in entries if e.problem))

    def names(self) -> list[str]:
        return self.catalog().names()

    def get(self, name: str) -> Collection:
        """The collection `name` (or the one whose name is the same as names are compared:
        names.name_key); CollectionError naming the choices when there is none."""
        return self._find(clean_name(name, strict=False))[1]

    # -- changing -----------------------------------------------------------------------------
    def create(self, name: str, paper_ids: Iterable[str] = ()) -> Collection:
        """A new collection; CollectionError when `name` is taken (or its file is unreadable),
        or the folder holds as many as its limits allow."""
        name, ids = clean_name(name), clean_ids(paper_ids)
        check_size(name, ids, self.limits.papers)
        with locked(self.folder, self.wait):
            path = self._free_path(name, counted=True)
            created = now()
            collection = Collection(name, ids, 1, created, created, secrets.token_hex(8))
            write_file(path, collection)
            record(self.folder, path, collection)
        return collection

    def add(self, name: str, paper_ids: Iterable[str]) -> Collection:
        """`paper_ids` appended (those already in it stay where they are)."""
        new = clean_ids(paper_ids)
        return self._change(name, lambda ids: clean_ids((*ids, *new)))

    def remove(self, name: str, paper_ids: Iterable[str]) -> Collection:
        gone = set(clean_ids(paper_ids))
        return self._change(name, lambda ids: tuple(i for i in ids if i not in gone))

    def replace(self, name: str, paper_ids: Iterable[str], revision: int | None = None,
                uid: str | None = None) -> Collection:
        """The collection's ids set to `paper_ids`; with `revision` (and `uid`), only if it is
        still that one (compare and replace: CollectionError when it changed meanwhile)."""
        ids = clean_ids(paper_ids)
        return self._change(name, lambda _: ids, revision, uid)

    def rename(self, name: str, new_name: str, revision: int | None = None,
               uid: str | None = None) -> Collection:
        """`name` renamed to `new_name` (its file too: the new one is written before the old one
        goes, so a crash between leaves both names, never neither); with `revision` (and
        `uid`), only if it is still that one."""
        name, new_name = clean_name(name, strict=False), clean_name(new_name)
        with locked(self.folder, self.wait):
            old_path, current = self._find(name)
            _check_version(current, revision, uid)
            if new_name == current.name:
                return current
            new_path = self._free_path(new_name, old_path)
            renamed = Collection(new_name, current.paper_ids, current.revision + 1,
                                 current.created, now(), current.uid)
            write_file(new_path, renamed)
            if old_path != new_path:
                old_path.unlink(missing_ok=True)
            record(self.folder, new_path, renamed, removed=old_path)
        return renamed

    def delete(self, name: str, revision: int | None = None, uid: str | None = None
               ) -> Collection:
        """Delete the collection `name` -> what it held; with `revision` (and `uid`), only if
        it is still that one."""
        name = clean_name(name, strict=False)
        with locked(self.folder, self.wait):
            path, current = self._find(name)
            _check_version(current, revision, uid)
            path.unlink()
            record(self.folder, None, None, removed=path)
        return current

    # -- helpers --------------------------------------------------------------------------------
    def _change(self, name: str, change: Callable[[tuple[str, ...]], tuple[str, ...]],
                revision: int | None = None, uid: str | None = None) -> Collection:
        name = clean_name(name, strict=False)
        with locked(self.folder, self.wait):
            path, current = self._find(name)
            _check_version(current, revision, uid)
            ids = change(current.paper_ids)
            check_size(current.name, ids, self.limits.papers)
            changed = Collection(current.name, ids, current.revision + 1, current.created, now(),
                                 current.uid)
            write_file(path, changed)
            record(self.folder, path, changed)
        return changed

    def _lookup(self, name: str) -> tuple[Path, Collection] | None:
        """The file holding collection `name` and what it holds: its own file (`file_name`),
        else (a file renamed, its name edited by hand, or the name given in another case or
        form) the readable file storing that name, else the one storing a name that compares
        equal; None when there is none. An unreadable own file is an error naming it."""
        own = self.folder / file_name(name)
        if own.exists():
            collection = read_file(own)
            if collection.name == name:
                return own, collection
        others = [e for e in refreshed(self.folder).values() if not e.problem and e.file != own.name]
        key = name_key(name)
        for entry in [e for e in others if e.name == name] or [e for e in others if e.key == key]:
            try:
                collection = read_file(self.folder / entry.file)
            except CollectionError:
                continue  # changed since it was indexed, and now unreadable: listing reports it
            if name_key(collection.name) == key:
                return self.folder / entry.file, collection
        return None

    def _find(self, name: str) -> tuple[Path, Collection]:
        found = self._lookup(name)
        if found is None:
            names = ", ".join(repr(n) for n in self.names()[:10]) or "none yet"
            raise CollectionError(f"No collection named {name!r} (collections: {names}). Create "
                                  "it with `explorer collection new NAME`, or check the name.")
        return found

    def _free_path(self, name: str, moving: Path | None = None, counted: bool = False) -> Path:
        """Where a collection newly named `name` is written; CollectionError when the name is
        taken (as names are compared), another file sits there (a file is never overwritten by
        another collection), or (`counted`: a new collection) the folder is full."""
        entries = refreshed(self.folder)
        key = name_key(name)
        taken = [e for e in entries.values()
                 if not e.problem and e.key == key and (moving is None or e.file != moving.name)]
        if taken:
            alike = "" if taken[0].name == name else f" ({taken[0].name!r}: {_ALIKE})"
            raise CollectionError(f"A collection named {name!r} already exists{alike}. Pick "
                                  "another name, or add papers to it with `explorer collection add`.")
        path = self.folder / file_name(name)
        if path.exists() and path != moving:
            read_file(path)  # an unreadable file there: the error names it
            raise CollectionError(
                f"{path} is in the way: it holds another collection (its name was edited by "
                "hand). Rename that collection, or move the file away.")
        most = self.limits.collections
        if counted and most is not None and len(entries) >= most:
            raise CollectionError(f"This space holds at most {most:,} collections, and it is "
                                  "full. Delete one you no longer need, then save again.")
        return path


_ALIKE = "names that differ only in case, width, spacing or invisible characters are one name"


def _check_version(current: Collection, revision: int | None, uid: str | None) -> None:
    """CollectionError when `current` is not the revision (and uid) a session opened."""
    if uid is not None and current.uid != uid:
        raise CollectionError(
            f"The collection {current.name!r} was deleted and made again elsewhere since it was "
            "opened. Open it again, then repeat the change.")
    if revision is not None and current.revision != revision:
        raise CollectionError(
            f"The collection {current.name!r} was changed elsewhere since it was opened "
            f"(revision {current.revision}, not {revision}). Open it again, then repeat the change.")
