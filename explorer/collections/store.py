"""The saved collections in a folder (`Settings.data_dir`/collections/): create, read, change,
rename and delete them, safely from many threads and processes at once.

Every change runs under a lock (a thread lock, then `files.FolderLock` on `.collections.lock`,
so threads and processes take turns) for one read-change-write, and each file is written
atomically (`files.atomic_write`), so a reader without the lock sees the old file or the new
one. A file that cannot be read is an error naming it, and is never overwritten.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from explorer.collections.records import (
    Collection,
    check_size,
    clean_ids,
    clean_name,
    file_name,
    now,
    read_file,
    write_file,
)
from explorer.errors import CollectionError
from explorer.files import FolderLock

FOLDER = "collections"  # under Settings.data_dir
LOCK = ".collections.lock"
LOCK_WAIT = 30.0  # seconds
_THREAD_LOCKS: dict[Path, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()
_BUSY = ("another program is changing the collections in {folder} (pid {pid}); try again when "
         "it has finished.")


@dataclass(frozen=True)
class Listing:
    """The collections that could be read, by name, and one message per file that could not."""

    collections: tuple[Collection, ...]
    problems: tuple[str, ...]


class Collections:
    """The collections in `folder` (e.g. `Collections.at(settings.data_dir)`).

    Reads need no lock; every change holds the folder's lock for one read-change-write."""

    def __init__(self, folder: Path, wait: float = LOCK_WAIT) -> None:
        self.folder, self.wait = Path(folder), wait

    @classmethod
    def at(cls, data_dir: Path, wait: float = LOCK_WAIT) -> Collections:
        return cls(Path(data_dir) / FOLDER, wait)

    # -- reading ------------------------------------------------------------------------------
    def listing(self) -> Listing:
        """Every collection, sorted by name (case-blind); unreadable files as problems."""
        found, problems = [], []
        for path in self._files():
            try:
                found.append(read_file(path))
            except CollectionError as exc:
                problems.append(str(exc))
        found.sort(key=lambda c: (c.name.casefold(), c.name))
        return Listing(tuple(found), tuple(problems))

    def names(self) -> list[str]:
        return [collection.name for collection in self.listing().collections]

    def get(self, name: str) -> Collection:
        """The collection `name`; CollectionError naming the choices when there is none."""
        return self._find(clean_name(name))[1]

    # -- changing -----------------------------------------------------------------------------
    def create(self, name: str, paper_ids: Iterable[str] = ()) -> Collection:
        """A new collection; CollectionError when `name` is taken (or its file is unreadable)."""
        name, ids = clean_name(name), clean_ids(paper_ids)
        check_size(name, ids)
        with self._locked():
            path = self._free_path(name)
            created = now()
            collection = Collection(name, ids, 1, created, created)
            write_file(path, collection)
        return collection

    def add(self, name: str, paper_ids: Iterable[str]) -> Collection:
        """`paper_ids` appended (those already in it stay where they are)."""
        new = clean_ids(paper_ids)
        return self._change(name, lambda ids: clean_ids((*ids, *new)))

    def remove(self, name: str, paper_ids: Iterable[str]) -> Collection:
        gone = set(clean_ids(paper_ids))
        return self._change(name, lambda ids: tuple(i for i in ids if i not in gone))

    def replace(self, name: str, paper_ids: Iterable[str], revision: int | None = None) -> Collection:
        """The collection's ids set to `paper_ids`; with `revision`, only if it is still that
        revision (compare and replace: CollectionError when someone changed it meanwhile)."""
        ids = clean_ids(paper_ids)
        return self._change(name, lambda _: ids, revision)

    def rename(self, name: str, new_name: str) -> Collection:
        """`name` renamed to `new_name` (its file too: the new one is written before the old one
        goes, so a crash between leaves both names, never neither)."""
        name, new_name = clean_name(name), clean_name(new_name)
        with self._locked():
            old_path, current = self._find(name)
            if new_name == name:
                return current
            new_path = self._free_path(new_name, old_path)
            renamed = Collection(new_name, current.paper_ids, current.revision + 1,
                                 current.created, now())
            write_file(new_path, renamed)
            if old_path != new_path:
                old_path.unlink(missing_ok=True)
        return renamed

    def delete(self, name: str) -> Collection:
        """Delete the collection `name` -> what it held."""
        name = clean_name(name)
        with self._locked():
            path, current = self._find(name)
            path.unlink()
        return current

    # -- helpers --------------------------------------------------------------------------------
    def _change(self, name: str, change: Callable[[tuple[str, ...]], tuple[str, ...]],
                revision: int | None = None) -> Collection:
        name = clean_name(name)
        with self._locked():
            path, current = self._find(name)
            if revision is not None and current.revision != revision:
                raise CollectionError(
                    f"The collection {name!r} was changed elsewhere since it was opened (revision "
                    f"{current.revision}, not {revision}). Open it again, then repeat the change.")
            ids = change(current.paper_ids)
            check_size(name, ids)
            changed = Collection(current.name, ids, current.revision + 1, current.created, now())
            write_file(path, changed)
        return changed

    def _files(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.glob("*.json") if not p.name.startswith("."))

    def _lookup(self, name: str) -> tuple[Path, Collection] | None:
        """The file holding collection `name` and what it holds: its own file (`file_name`),
        else (a file renamed, or its name edited by hand) the readable file storing that name;
        None when there is none. An unreadable own file is an error naming it."""
        own = self.folder / file_name(name)
        if own.exists():
            collection = read_file(own)
            if collection.name == name:
                return own, collection
        for path in self._files():
            if path == own:
                continue
            try:
                collection = read_file(path)
            except CollectionError:
                continue  # listing() reports it
            if collection.name == name:
                return path, collection
        return None

    def _find(self, name: str) -> tuple[Path, Collection]:
        found = self._lookup(name)
        if found is None:
            names = ", ".join(repr(n) for n in self.names()[:10]) or "none yet"
            raise CollectionError(f"No collection named {name!r} (collections: {names}). Create "
                                  "it with `explorer collection new NAME`, or check the name.")
        return found

    def _free_path(self, name: str, moving: Path | None = None) -> Path:
        """Where a collection newly named `name` is written; CollectionError when the name is
        taken or another file sits there (a file is never overwritten by another collection)."""
        if self._lookup(name) is not None:
            raise CollectionError(f"A collection named {name!r} already exists. Pick another "
                                  "name, or add papers to it with `explorer collection add`.")
        path = self.folder / file_name(name)
        if path.exists() and path != moving:
            raise CollectionError(
                f"{path} is in the way: it holds another collection (its name was edited by "
                "hand). Rename that collection, or move the file away.")
        return path

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """This process's lock of the folder (threads take turns), then the folder's file lock
        (processes take turns)."""
        with _THREAD_LOCKS_GUARD:
            lock = _THREAD_LOCKS.setdefault(self.folder.resolve(), threading.Lock())
        if not lock.acquire(timeout=max(self.wait, 0.001)):
            raise CollectionError(_BUSY.format(folder=self.folder, pid="this one"))
        try:
            with FolderLock(self.folder, self.wait, name=LOCK, busy=_BUSY):
                yield
        finally:
            lock.release()
