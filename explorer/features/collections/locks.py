"""The lock every writer of a collections folder holds: a thread lock (threads of this process
take turns), then `files.FolderLock` on `.collections.lock` (processes take turns). Holding
it, a writer first removes the temp files that writers killed mid-write left: every writer of
the folder holds this lock, so none of those files is being written."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from explorer.errors import CollectionError
from explorer.files import FolderLock, remove_temps

LOCK = ".collections.lock"
BUSY = ("another program is changing the collections in {folder} (pid {pid}); try again when "
        "it has finished.")
_THREAD_LOCKS: dict[Path, threading.Lock] = {}
_GUARD = threading.Lock()
_HELD = threading.local()  # .folders: the folders whose lock this thread holds


@contextmanager
def locked(folder: Path, wait: float) -> Iterator[None]:
    """Hold `folder`'s lock (waiting up to `wait` seconds: CollectionError or ExplorerError
    naming the holder after that), its stale temp files removed."""
    resolved = folder.resolve()
    with _GUARD:
        lock = _THREAD_LOCKS.setdefault(resolved, threading.Lock())
    if not lock.acquire(timeout=max(wait, 0.001)):
        raise CollectionError(BUSY.format(folder=folder, pid="this one"))
    held = _HELD.__dict__.setdefault("folders", set())
    try:
        with FolderLock(folder, wait, name=LOCK, busy=BUSY):
            held.add(resolved)
            remove_temps(folder, lambda target: target.endswith(".json"))
            yield
    finally:
        held.discard(resolved)
        lock.release()


def holds(folder: Path) -> bool:
    """True when this thread holds `folder`'s lock."""
    return folder.resolve() in getattr(_HELD, "folders", set())
