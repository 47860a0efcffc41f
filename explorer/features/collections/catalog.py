"""The index of a collections folder (`.index.json`): what each collection file holds (its name,
how many papers, its revision), so that listing the folder or checking a new name reads no
collection file that has not changed.

The files stay the truth. Each entry records the file's inode, size and modification time
when it was read; a listing stats every file (no reading) and reads again only a file whose
stat differs, or a file the index does not know. A missing, unreadable or foreign index is
rebuilt from the files. The index is written atomically under the folder's lock, by a change,
or by a listing that found it stale and could take the lock at once; a listing that cannot
simply does not write it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.errors import CollectionError, ExplorerError
from explorer.features.collections.locks import holds, locked
from explorer.features.collections.names import name_key
from explorer.features.collections.records import Collection, read_file
from explorer.files import ReadErrors, atomic_write, parse_json, read_chunks

INDEX = ".index.json"
INDEX_FORMAT = "paper-explorer-collections-index"
INDEX_VERSION = 1
MAX_INDEX_BYTES = 64 << 20
Stamp = tuple[int, int, int]  # inode, size, modification time (ns)
_MEMO: dict[Path, tuple[Stamp, dict[str, Entry]]] = {}  # the last index read, per folder
_MEMO_GUARD = threading.Lock()


@dataclass(frozen=True)
class Entry:
    """One collection file as the index knows it: `file` (its name in the folder), `stamp` (its
    stat when read), what it holds, or `problem` (why it cannot be read; "" when it can)."""

    file: str
    stamp: Stamp
    name: str = ""
    key: str = ""  # names.name_key(name), kept so that checking a name computes no other's
    count: int = 0
    revision: int = 0
    uid: str = ""
    updated: str = ""
    problem: str = ""

    @classmethod
    def of(cls, path: Path, stamp: Stamp, collection: Collection) -> Entry:
        return cls(path.name, stamp, collection.name, name_key(collection.name),
                   len(collection.paper_ids), collection.revision, collection.uid,
                   collection.updated)


def stamp_of(stat: os.stat_result) -> Stamp:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def collection_files(folder: Path) -> dict[str, Stamp]:
    """Every collection file in `folder` (`*.json`, not hidden) and its stamp; {} when the
    folder does not exist."""
    found: dict[str, Stamp] = {}
    try:
        with os.scandir(folder) as entries:
            for item in entries:
                if item.name.endswith(".json") and not item.name.startswith("."):
                    try:
                        if item.is_file():
                            found[item.name] = stamp_of(item.stat())
                    except OSError:
                        continue  # gone meanwhile
    except FileNotFoundError:
        return {}
    return found


def scan(folder: Path) -> tuple[dict[str, Entry], bool]:
    """(an entry for every collection file in `folder`, True when the stored index was not
    exactly that). Reads only the files whose stamp the index does not hold."""
    known = read_index(folder)
    entries: dict[str, Entry] = {}
    for file, stamp in collection_files(folder).items():
        entry = known.get(file)
        fresh = entry is not None and entry.stamp == stamp
        entries[file] = entry if fresh else _read(folder / file, stamp)
    return entries, entries != known


def refreshed(folder: Path) -> dict[str, Entry]:
    """`scan(folder)`, the index stored again when it was stale and the folder's lock is this
    thread's or free (else a change is under way: it, or the next listing, stores it)."""
    entries, stale = scan(folder)
    if stale and holds(folder):
        write_index(folder, entries.values())
    elif stale:
        try:
            with locked(folder, 0.0):
                write_index(folder, entries.values())
        except ExplorerError:
            pass
    return entries


def record(folder: Path, written: Path | None, collection: Collection | None,
           removed: Path | None = None) -> None:
    """Store the index with one file changed: `written` now holds `collection`, `removed` is
    gone (the caller holds the folder's lock)."""
    entries = dict(read_index(folder))
    if removed is not None:
        entries.pop(removed.name, None)
    if written is not None and collection is not None:
        entries[written.name] = Entry.of(written, stamp_of(written.stat()), collection)
    write_index(folder, entries.values())


def _read(path: Path, stamp: Stamp) -> Entry:
    """The entry of `path` as read now (`stamp`: its stat taken before reading, so a file
    replaced meanwhile is read again next time)."""
    try:
        return Entry.of(path, stamp, read_file(path))
    except CollectionError as exc:
        return Entry(path.name, stamp, problem=str(exc))


def read_index(folder: Path) -> dict[str, Entry]:
    """The stored index of `folder` ({} when it is missing, unreadable or not one)."""
    path = folder / INDEX
    try:
        stamp = stamp_of(path.stat())
    except OSError:
        return {}
    with _MEMO_GUARD:
        memo = _MEMO.get(path)
    if memo is not None and memo[0] == stamp:
        return memo[1]
    try:
        raw = b"".join(read_chunks(path, MAX_INDEX_BYTES, ReadErrors(CollectionError)))
        entries = _entries(parse_json(raw.decode("utf-8"), str(path), ReadErrors(CollectionError)))
    except (ExplorerError, UnicodeDecodeError, ValueError):
        return {}
    with _MEMO_GUARD:
        _MEMO[path] = (stamp, entries)
    return entries


def _entries(data: Any) -> dict[str, Entry]:
    """The entries of an index file's JSON; ValueError when it is not one."""
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT \
            or data.get("version") != INDEX_VERSION or not isinstance(data.get("entries"), list):
        raise ValueError("not an index")
    entries = {}
    for item in data["entries"]:
        if not isinstance(item, dict) or set(item) != {*_TYPES, "stamp"}:
            raise ValueError("not an entry")
        stamp = item["stamp"]
        if not (isinstance(stamp, list) and len(stamp) == 3 and all(type(n) is int for n in stamp)):
            raise ValueError("not a stamp")
        if not all(type(item[name]) is kind for name, kind in _TYPES.items()):
            raise ValueError("not an entry")
        entry = Entry(stamp=tuple(stamp), **{name: item[name] for name in _TYPES})
        entries[entry.file] = entry
    return entries


_TYPES = {"file": str, "name": str, "key": str, "count": int, "revision": int, "uid": str,
          "updated": str, "problem": str}


def write_index(folder: Path, entries: Iterable[Entry]) -> None:
    """Store `entries` as the index of `folder`, atomically. The caller holds the folder's
    lock. A failure to write it (a full disk) is not an error: the files stay the truth."""
    entries = {entry.file: entry for entry in entries}
    rows = [{"stamp": list(e.stamp), **{name: getattr(e, name) for name in _TYPES}}
            for e in sorted(entries.values(), key=lambda e: e.file)]
    text = json.dumps({"format": INDEX_FORMAT, "version": INDEX_VERSION, "entries": rows},
                      ensure_ascii=False, separators=(",", ":"))
    path = folder / INDEX
    try:
        atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        stamp = stamp_of(path.stat())
    except OSError:
        return
    with _MEMO_GUARD:
        _MEMO[path] = (stamp, entries)  # the next listing here parses nothing
