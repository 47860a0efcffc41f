"""The artifacts folder: a manifest plus per-build files, written atomically, checked on load.

Every build writes its files under new names (``papers-<build>.jsonl``, ``index-<build>.faiss``,
``extras-<build>.json``; layout.py names them) and then replaces ``manifest.json`` in one
rename. Until that rename the old manifest still names the old, untouched files, so a crash
never breaks a good index.
Before writing, a build records the names it is about to write in ``.written.json``: only
files recorded there or named by a manifest of this index are ever deleted.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from explorer import files
from explorer.artifacts.arrays import Arrays, Opened, check_sum, read_array
from explorer.artifacts.layout import (
    EXTRAS,
    INDEX,
    MANIFEST,
    ON_DEMAND,
    PAPER_OFFSETS,
    PAPERS,
    REQUIRED,
    WRITTEN,
    file_names,
)
from explorer.artifacts.manifest import (
    FORMAT_VERSION,
    FileEntry,
    Manifest,
    foreign_manifest,
    is_plain_name,
    read_manifest,
    rebuild_hint,
)
from explorer.artifacts.paper_list import PaperList, line_offsets
from explorer.corpus.papers import Paper
from explorer.errors import IndexInvalidError, IndexMissingError
from explorer.files import atomic_write, file_checksum
from explorer.index.dense import VectorIndex

__all__ = [
    "Arrays",
    "Artifacts",
    "Manifest",
    "index_files",
    "load_artifacts",
    "paper_lines",
    "read_manifest",
    "rebuild_hint",
    "verify_files",
    "write_artifacts",
    "writing",
]

LOAD_ATTEMPTS = 5  # a load that loses a race with finishing builds reads the manifest again


@dataclass
class Artifacts:
    """A loaded, checked index folder."""

    folder: Path
    manifest: Manifest
    papers: Sequence[Paper]  # a PaperList when loaded: each parsed when first read
    index: VectorIndex
    extras: dict[str, Any]
    arrays: Mapping[str, np.ndarray]


@contextmanager
def writing(folder: Path, wait: float) -> Iterator[None]:
    """Hold `folder`'s build lock (`files.FolderLock`) to write an index there: refused first
    (IndexInvalidError, nothing written) when its manifest.json is a file of someone else's;
    then temp files that builds killed mid-write left for this index's files are removed."""
    _refuse_foreign(folder)
    with files.FolderLock(folder, wait):
        _refuse_foreign(folder)  # one put there while this build waited for the lock
        ours = _owned(folder) | {MANIFEST, WRITTEN}
        files.remove_temps(folder, lambda target: target in ours)
        yield


def _refuse_foreign(folder: Path) -> None:
    why = foreign_manifest(folder)
    if why:
        raise IndexInvalidError(
            f"{folder / MANIFEST} is not a Paper Explorer index manifest ({why}), and a build "
            "never replaces a file it did not write. Build into another folder (--out), or move "
            "that file away.")


def write_artifacts(
    folder: Path,
    papers: list[Paper],
    index: VectorIndex,
    extras: dict[str, Any],
    fields: Mapping[str, Any],
    arrays: dict[str, np.ndarray] | None = None,
    lines: list[str] | None = None,
) -> Manifest:
    """Write papers, index, extras and named arrays under fresh names, then the manifest last:
    `fields` (what the build records: Manifest.to_dict() keys) plus the format, build id,
    count and files. Returns the manifest written.

    The caller holds the folder's lock (`writing`; `build` does).
    `lines`: the papers already serialised by `paper_lines` (saves doing it twice)."""
    _refuse_foreign(folder)
    files.make_dirs(folder)
    build_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    data = "".join(paper_lines(papers) if lines is None else lines).encode("utf-8")
    arrays = {**(arrays or {}), PAPER_OFFSETS: line_offsets(data)}  # paper_list.py reads them
    names = file_names(build_id, arrays)
    owned = _owned(folder)
    _record_written(folder, owned | set(names.values()))  # before any of them exists
    atomic_write(folder / names[PAPERS], lambda tmp: tmp.write_bytes(data))
    atomic_write(folder / names[INDEX], index.save)
    extras_text = json.dumps(extras, ensure_ascii=False)
    atomic_write(folder / names[EXTRAS],
                 lambda tmp: tmp.write_text(extras_text, encoding="utf-8"))
    for role, array in arrays.items():
        atomic_write(folder / names[role], lambda tmp, a=array: _save_array(tmp, a))
    manifest = Manifest.from_dict({
        **fields, "format_version": FORMAT_VERSION, "build_id": build_id, "count": len(papers),
        "files": {role: _describe(folder / name) for role, name in names.items()},
    }, folder / MANIFEST)
    text = json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False)
    atomic_write(folder / MANIFEST, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    _remove_stale(folder, owned, keep=set(names.values()))
    _record_written(folder, set(names.values()))
    return manifest


def paper_lines(papers: Iterable[Paper]) -> list[str]:
    """One JSON line per paper, as the papers file holds them."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    return [encode(p.to_dict()) + "\n" for p in papers]


def load_artifacts(folder: Path, papers: bool = True, older: bool = False) -> Artifacts:
    """Load and check everything the manifest names; refuse anything that does not match.

    A build that finishes meanwhile deletes the files of the manifest read here: the load then
    starts again from the new manifest, so it sees the old index or the new one, whole.
    `papers=False`: the papers file checked, not parsed (no `Artifacts.papers`), and `older`:
    an older format read too (manifest.OLDEST_FORMAT): what an incremental build needs."""
    for attempt in range(LOAD_ATTEMPTS):
        manifest = read_manifest(folder, older)
        try:
            return _load(folder, manifest, papers)
        except IndexInvalidError:
            if attempt + 1 == LOAD_ATTEMPTS or not _moved_on(folder, manifest, older):
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _moved_on(folder: Path, manifest: Manifest, older: bool) -> bool:
    """True when the folder's manifest is no longer `manifest` (a build replaced it)."""
    try:
        return read_manifest(folder, older).build_id != manifest.build_id
    except (IndexInvalidError, IndexMissingError):
        return False


def _load(folder: Path, manifest: Manifest, papers: bool) -> Artifacts:
    hint = manifest.rebuild_hint(folder)
    opened = _open_files(folder, manifest)  # every file at once, right after the manifest
    rest = {role: item for role, item in opened.items() if role not in (PAPERS, PAPER_OFFSETS)}
    try:
        # The other files are checked and read on a thread of their own while this one checks
        # and reads the papers file (its records are parsed when read: PaperList): checksums,
        # file reads and FAISS's reader release the GIL, so a cold start pays for the longer
        # of the two, not their sum. A file failing its checksum is the
        # error reported, even when the papers cannot be parsed either.
        with ThreadPoolExecutor(1, thread_name_prefix="explorer-load") as pool:
            loaded = pool.submit(_check_and_load_rest, folder, rest, manifest.index_type, hint)
            try:
                records = _paper_list(opened, hint) if papers else []
                if not papers:
                    _check_files({PAPERS: opened[PAPERS]}, hint, later=())
            except IndexInvalidError:
                loaded.result()
                raise
            index, extras, arrays = loaded.result()
    finally:
        for role, (_, _, handle) in opened.items():
            if role not in ON_DEMAND:
                handle.close()
    expected = (manifest.count, manifest.model.dimension)
    count = len(records) if papers else expected[0]
    if (count, index.count, index.dimension) != (expected[0], expected[0], expected[1]):
        raise IndexInvalidError(
            f"Index in {folder} does not match its manifest: {count} papers and "
            f"{index.count} vectors of dimension {index.dimension}, but the manifest says "
            f"{expected[0]} of dimension {expected[1]}. Rebuild: `{hint}`."
        )
    return Artifacts(folder, manifest, records, index, extras, arrays)


def _paper_list(opened: Opened, hint: str) -> PaperList:
    """The checked papers file, memory-mapped, its lines where the checked offset table says
    (an index from before the table: found by a scan)."""
    mine = {role: opened[role] for role in (PAPERS, PAPER_OFFSETS) if role in opened}
    _check_files(mine, hint, later=())
    offsets = None
    if PAPER_OFFSETS in mine:
        path, _, handle = mine[PAPER_OFFSETS]
        try:
            offsets = read_array(handle)
        except (ValueError, OSError) as exc:
            raise IndexInvalidError(f"{path} cannot be read ({exc}). Rebuild: `{hint}`.") from exc
    return PaperList.read(opened[PAPERS][0], opened[PAPERS][2], hint, offsets)


def _check_and_load_rest(folder: Path, opened: Opened, kind: str, hint: str
                         ) -> tuple[VectorIndex, dict[str, Any], Arrays]:
    _check_files(opened, hint, later=ON_DEMAND)
    return _load_rest(folder, opened, kind, hint)


def _load_rest(folder: Path, opened: Opened, kind: str, hint: str
               ) -> tuple[VectorIndex, dict[str, Any], Arrays]:
    """The checked index, extras and named arrays of a folder, read from open handles."""
    path, _, handle = opened[INDEX]
    try:
        index = VectorIndex.load(_reopenable(path, handle), kind)
    except RuntimeError as exc:
        raise IndexInvalidError(f"FAISS cannot read the index in {folder} ({exc}). "
                                f"Rebuild: `{hint}`.") from exc
    path, _, handle = opened[EXTRAS]
    handle.seek(0)
    try:
        extras = json.loads(handle.read().decode("utf-8"))
        arrays = {role: read_array(item[2]) for role, item in opened.items()
                  if role not in REQUIRED + ON_DEMAND}
    except (ValueError, RecursionError, OSError) as exc:
        raise IndexInvalidError(f"{folder} holds an unreadable file ({exc}). "
                                f"Rebuild: `{hint}`.") from exc
    if not isinstance(extras, dict):
        raise IndexInvalidError(f"{path} is not an extras file. Rebuild: `{hint}`.")
    later = {role: item for role, item in opened.items() if role in ON_DEMAND}
    return index, extras, Arrays(arrays, later, hint)


def _reopenable(path: Path, handle: BinaryIO) -> Path:
    """A path that opens the file behind `handle` even once a rebuild has deleted `path`."""
    by_handle = Path(f"/proc/self/fd/{handle.fileno()}")
    return by_handle if by_handle.exists() else path


def _save_array(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as handle:
        np.save(handle, array, allow_pickle=False)


def verify_files(folder: Path, manifest: Manifest, later: Iterable[str] = ()
                 ) -> Mapping[str, FileEntry]:
    """Check every file the manifest names (presence, size, checksum); returns the entries.

    Files of the roles in `later` get presence and size only: their reader checks the rest."""
    opened = _open_files(folder, manifest)
    try:
        _check_files(opened, manifest.rebuild_hint(folder), later=tuple(later))
    finally:
        for _, _, handle in opened.values():
            handle.close()
    return manifest.files


def _open_files(folder: Path, manifest: Manifest) -> Opened:
    """A read handle on every file the manifest names (all or none)."""
    opened: Opened = {}
    try:
        for role, entry in manifest.files.items():
            path = folder / entry.name
            opened[role] = (path, entry, path.open("rb"))
    except OSError as exc:
        for _, _, handle in opened.values():
            handle.close()
        raise IndexInvalidError(f"{path} is missing or unreadable ({exc.strerror}). Rebuild "
                                f"the index: `{manifest.rebuild_hint(folder)}`.") from None
    return opened


def _check_files(opened: Opened, hint: str, later: tuple[str, ...]) -> None:
    for role, (path, entry, handle) in opened.items():
        size = os.fstat(handle.fileno()).st_size
        if size != entry.size:
            raise IndexInvalidError(
                f"{path} is truncated or changed ({size} bytes, expected {entry.size}). "
                f"Rebuild the index: `{hint}`."
            )
        if role not in later:
            check_sum(handle, path, entry, hint)


def _describe(path: Path) -> dict[str, Any]:
    return {"name": path.name, "bytes": path.stat().st_size, "crc32": file_checksum(path, "crc32")}


def index_files(folder: Path) -> list[Path]:
    """Every file of the index in `folder` that a build wrote (for a build not to read them)."""
    return [folder / name for name in sorted(_owned(folder) | {MANIFEST, WRITTEN})]


def _owned(folder: Path) -> set[str]:
    """Names of files this index's builds wrote: recorded in WRITTEN, or named by the manifest
    (indexes built before WRITTEN existed)."""
    names: set[str] = set()
    try:
        recorded = json.loads((folder / WRITTEN).read_text(encoding="utf-8"))
        names.update(n for n in recorded if isinstance(n, str) and is_plain_name(n))
    except (OSError, ValueError, TypeError):
        pass
    try:
        names.update(entry.name for entry in read_manifest(folder).files.values())
    except (IndexMissingError, IndexInvalidError):
        pass
    return names


def _record_written(folder: Path, names: set[str]) -> None:
    text = json.dumps(sorted(names))
    atomic_write(folder / WRITTEN, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _remove_stale(folder: Path, owned: set[str], keep: set[str]) -> None:
    """Delete files of earlier builds (and temp files of crashed ones) once the manifest moved:
    only names in `owned`, never anything else in the folder."""
    for name in owned - keep:
        (folder / name).unlink(missing_ok=True)
    ours = owned | keep | {MANIFEST, WRITTEN}
    files.remove_temps(folder, lambda target: target in ours)
