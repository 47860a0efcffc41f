"""The artifacts folder: a manifest plus per-build files, written atomically, checked on load.

Every build writes its files under new names (``papers-<build>.jsonl``, ``index-<build>.faiss``,
``extras-<build>.json``) and then replaces ``manifest.json`` in one rename. Until that rename
the old manifest still names the old, untouched files, so a crash never breaks a good index.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from explorer.corpus import Paper, json_line
from explorer.errors import IndexInvalidError, IndexMissingError
from explorer.index import INDEX_TYPES, VectorIndex

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
_PREFIXES = ("papers-", "index-", "extras-", "array-")
REQUIRED = ("papers", "index", "extras")
# Read (and checksummed) on first use, not at open: only explanations need the sentence vectors,
# and at 106k papers they are 475 MB, +0.7 s on every cold start.
ON_DEMAND = ("sentence_table", "sentence_vectors")


@dataclass
class Artifacts:
    """A loaded, checked index folder."""

    folder: Path
    manifest: dict[str, Any]
    papers: list[Paper]
    index: VectorIndex
    extras: dict[str, Any]
    arrays: Mapping[str, np.ndarray]


def rebuild_hint(folder: Path, manifest: dict[str, Any] | None = None) -> str:
    inputs = " ".join((manifest or {}).get("inputs") or ["seeds"])
    return f"explorer build {inputs} --out {folder}"


def write_artifacts(
    folder: Path,
    papers: list[Paper],
    index: VectorIndex,
    extras: dict[str, Any],
    manifest: dict[str, Any],
    arrays: dict[str, np.ndarray] | None = None,
    lines: list[str] | None = None,
) -> dict[str, Any]:
    """Write papers, index, extras and named arrays under fresh names, then the manifest last.

    `lines`: the papers already serialised by `paper_lines` (saves doing it twice)."""
    folder.mkdir(parents=True, exist_ok=True)
    build_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    names = {
        "papers": f"papers-{build_id}.jsonl",
        "index": f"index-{build_id}.faiss",
        "extras": f"extras-{build_id}.json",
    }
    text = "".join(paper_lines(papers) if lines is None else lines)
    atomic_write(folder / names["papers"], lambda tmp: tmp.write_text(text, encoding="utf-8"))
    atomic_write(folder / names["index"], index.save)
    extras_text = json.dumps(extras, ensure_ascii=False)
    atomic_write(folder / names["extras"],
                  lambda tmp: tmp.write_text(extras_text, encoding="utf-8"))
    for role, array in (arrays or {}).items():
        names[role] = f"array-{role}-{build_id}.npy"
        atomic_write(folder / names[role], lambda tmp, a=array: _save_array(tmp, a))
    manifest = {
        **manifest,
        "format_version": FORMAT_VERSION,
        "build_id": build_id,
        "count": len(papers),
        "files": {role: _describe(folder / name) for role, name in names.items()},
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False)
    atomic_write(folder / MANIFEST, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    _remove_stale(folder, keep=set(names.values()))
    return manifest


def paper_lines(papers: Iterable[Paper]) -> list[str]:
    """One JSON line per paper, as the papers file holds them."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    return [encode(p.to_dict()) + "\n" for p in papers]


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest alone (cheap): raises IndexMissingError / IndexInvalidError."""
    path = folder / MANIFEST
    if not path.is_file():
        raise IndexMissingError(
            f"No index in {folder}/ (no {MANIFEST}). Build one first: "
            f"`{rebuild_hint(folder)}`."
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IndexInvalidError(
            f"{path} is corrupted ({exc}). Rebuild the index: `{rebuild_hint(folder)}`."
        ) from exc
    if not isinstance(manifest, dict) or manifest.get("format_version") != FORMAT_VERSION:
        raise IndexInvalidError(
            f"{path} is not a Paper Explorer manifest of format {FORMAT_VERSION}. "
            f"Rebuild the index: `{rebuild_hint(folder)}`."
        )
    return manifest


def load_artifacts(folder: Path, papers: bool = True) -> Artifacts:
    """Load and check everything the manifest names; refuse anything that does not match.

    `papers=False` checks the papers file but does not parse it (`Artifacts.papers` is then
    empty): an incremental build needs only the vectors, arrays and extras."""
    manifest = read_manifest(folder)
    hint = rebuild_hint(folder, manifest)
    kind = manifest.get("index_type")
    if kind not in INDEX_TYPES:
        raise IndexInvalidError(f"Unknown index type {kind!r} in {folder}. Rebuild: `{hint}`.")
    files = verify_files(folder, manifest, later=ON_DEMAND)
    # Sequential on purpose: parsing papers in a thread while checksums run made each
    # GIL-releasing read wait for the parser (1.5 s instead of 0.1 s for a 100k index).
    records = _load_papers(folder / files["papers"]["name"], hint) if papers else []
    index, extras, arrays = _load_rest(folder, files, kind, hint)
    expected = (manifest.get("count"), manifest.get("model", {}).get("dimension"))
    count = len(records) if papers else expected[0]
    if (count, index.count, index.dimension) != (expected[0], expected[0], expected[1]):
        raise IndexInvalidError(
            f"Index in {folder} does not match its manifest: {count} papers and "
            f"{index.count} vectors of dimension {index.dimension}, but the manifest says "
            f"{expected[0]} of dimension {expected[1]}. Rebuild: `{hint}`."
        )
    return Artifacts(folder, manifest, records, index, extras, arrays)


def _load_rest(folder: Path, files: dict[str, Any], kind: str, hint: str
               ) -> tuple[VectorIndex, dict[str, Any], Arrays]:
    """The checked index, extras and named arrays of a folder."""
    try:
        index = VectorIndex.load(folder / files["index"]["name"], kind)
    except RuntimeError as exc:
        raise IndexInvalidError(f"FAISS cannot read the index in {folder} ({exc}). "
                                f"Rebuild: `{hint}`.") from exc
    extras = json.loads((folder / files["extras"]["name"]).read_text(encoding="utf-8"))
    arrays = {role: np.load(folder / entry["name"], allow_pickle=False)
              for role, entry in files.items() if role not in REQUIRED + ON_DEMAND}
    later = {role: (folder / entry["name"], entry) for role, entry in files.items()
             if role in ON_DEMAND}
    return index, extras, Arrays(arrays, later, hint)


class Arrays(Mapping[str, np.ndarray]):
    """The named arrays of an index; those in ON_DEMAND are read and checksummed on first use.

    Their files are opened at once, so a later build that replaces them (and deletes the old
    files) cannot take them away from an index that is already open."""

    def __init__(self, loaded: dict[str, np.ndarray],
                 later: dict[str, tuple[Path, dict[str, Any]]], hint: str) -> None:
        self._loaded = loaded
        self._later = {role: (path, entry, path.open("rb")) for role, (path, entry) in later.items()}
        self._hint = hint
        self._lock = threading.Lock()  # the app's sessions share one index

    def __getitem__(self, role: str) -> np.ndarray:
        with self._lock:
            if role not in self._loaded:
                self._loaded[role] = self._read(role)
        return self._loaded[role]

    def _read(self, role: str) -> np.ndarray:
        path, entry, handle = self._later[role]
        handle.seek(0)
        _check_sum(handle, path, entry, self._hint)
        handle.seek(0)
        return np.load(handle, allow_pickle=False)

    def __contains__(self, role: object) -> bool:  # without reading the file
        return role in self._loaded or role in self._later

    def __iter__(self) -> Iterator[str]:
        yield from self._loaded
        yield from (role for role in self._later if role not in self._loaded)

    def __len__(self) -> int:
        return len(self._loaded.keys() | self._later.keys())


def _save_array(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as handle:
        np.save(handle, array, allow_pickle=False)


def verify_files(folder: Path, manifest: dict[str, Any], later: Iterable[str] = ()
                 ) -> dict[str, Any]:
    """Check every file the manifest names (presence, size, checksum); returns the entries.

    Files of the roles in `later` get presence and size only: their reader checks the rest."""
    hint = rebuild_hint(folder, manifest)
    files = manifest.get("files") or {}
    for role in REQUIRED:
        if role not in files:
            raise IndexInvalidError(f"{folder}/{MANIFEST} names no {role} file. Rebuild: `{hint}`.")
    for role, entry in files.items():
        _verify(folder, entry, hint, checksum=role not in later)
    return files


def _load_papers(path: Path, hint: str) -> list[Paper]:
    papers = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                papers.append(Paper.from_dict(json_line(line.strip())))
            except (json.JSONDecodeError, TypeError) as exc:
                raise IndexInvalidError(
                    f"{path}:{number} is not a valid paper record ({exc}). Rebuild: `{hint}`."
                ) from exc
    return papers


def _verify(folder: Path, entry: dict[str, Any], hint: str, checksum: bool = True) -> None:
    path = folder / str(entry.get("name"))
    if not path.is_file():
        raise IndexInvalidError(f"{path} is missing. Rebuild the index: `{hint}`.")
    size = path.stat().st_size
    if size != entry.get("bytes"):
        raise IndexInvalidError(
            f"{path} is truncated or changed ({size} bytes, expected {entry.get('bytes')}). "
            f"Rebuild the index: `{hint}`."
        )
    if checksum:
        with path.open("rb") as handle:
            _check_sum(handle, path, entry, hint)


def _check_sum(handle: BinaryIO, path: Path, entry: dict[str, Any], hint: str) -> None:
    """Refuse the file read from `handle` unless it has the checksum `entry` records."""
    kind = "crc32" if "crc32" in entry else "sha256"  # indexes built before 2026-11-30: sha256
    if _checksum_stream(handle, kind) != entry.get(kind):
        raise IndexInvalidError(
            f"{path} fails its checksum: the file is corrupted. Rebuild the index: `{hint}`."
        )


def _describe(path: Path) -> dict[str, Any]:
    return {"name": path.name, "bytes": path.stat().st_size, "crc32": file_checksum(path, "crc32")}


def file_checksum(path: Path, kind: str) -> str:
    """CRC-32 (catches corruption and truncation; 2x faster than SHA-256 here, which matters
    for every cold start of a 100k-paper index) or SHA-256, as hex."""
    with path.open("rb") as handle:
        return _checksum_stream(handle, kind)


def _checksum_stream(handle: BinaryIO, kind: str) -> str:
    digest = hashlib.sha256() if kind == "sha256" else None
    crc = 0
    for block in iter(lambda: handle.read(1 << 22), b""):
        if digest is None:
            crc = zlib.crc32(block, crc)
        else:
            digest.update(block)
    return f"{crc:08x}" if digest is None else digest.hexdigest()


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """Write through `write(tmp)` to a temp name in the same folder, fsync, rename."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        write(tmp)
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale(folder: Path, keep: Iterable[str]) -> None:
    """Delete files of earlier builds (and temp files of crashed ones) once the manifest moved."""
    keep = set(keep)
    for path in folder.iterdir():
        stale_build = path.name.startswith(_PREFIXES) and path.name not in keep
        crashed_tmp = path.name.startswith(".") and path.name.endswith(".tmp")
        if (stale_build or crashed_tmp) and path.is_file():
            path.unlink(missing_ok=True)
