"""The manifest of an index folder: read, checked field by field, and typed (`Manifest`).

An index folder can come from anywhere (copied, downloaded, edited), so a manifest is checked
field by field before anything reads it; a bad one is refused with the command to rebuild.
Everyone else reads the manifest through the frozen `Manifest`, never as a dict; `to_dict`
gives back the JSON a build writes (the artifact format). File and array names: layout.py.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from explorer.artifacts.layout import EVERY_BUILD, MANIFEST, REQUIRED, WRITTEN
from explorer.errors import IndexInvalidError, IndexMissingError
from explorer.index.dense import INDEX_TYPES
from explorer.index.lexical import LEXICAL_ROLES  # every index of format 2 holds BM25
from explorer.settings import DEFAULT_CORPUS

# Format 2 (issue 30): the query path reads no older index. `explorer build` (and `make run`)
# reads one of OLDEST_FORMAT on only to reuse its vectors, and writes the folder anew.
FORMAT_VERSION = 2
OLDEST_FORMAT = 1
_OLDER = "an older format"
MAX_MANIFEST_BYTES = 64 << 20  # a manifest read to tell ours from a stranger's
# field -> type; the first ones are required (every build has written them)
FIELDS: dict[str, type] = {
    "format_version": int, "count": int, "index_type": str, "model": dict, "files": dict,
    "build_id": str, "inputs": list, "built_at": str, "metric": str, "records": int,
    "duplicates_merged": int, "skipped": dict, "corpus_hash": str, "sentences": bool,
    "versions": dict, "machine": str, "notes": dict, "sentence_splitter": int, "lexical": dict,
}
REQUIRED_FIELDS = ("format_version", "count", "index_type", "model", "files")
MODEL_FIELDS: dict[str, type] = {"dimension": int, "id": str, "fingerprint": str, "path": str,
                                 "max_seq_length": int, "normalized": bool, "backend": str,
                                 "precision": str}
CHECKSUMS = ("crc32", "sha256")
# The order a build writes the fields in (to_dict keeps it; fields unknown here come last).
_ORDER = ("built_at", "inputs", "model", "metric", "records", "duplicates_merged", "skipped",
          "notes", "versions", "machine", "corpus_hash", "index_type", "sentences",
          "sentence_splitter", "lexical", "format_version", "build_id", "count", "files")
_MODEL_ORDER = ("id", "fingerprint", "dimension", "max_seq_length", "normalized", "backend",
                "precision", "path")
_NONE: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class FileEntry:
    """A file of the index: its plain name in the folder, its size and its checksum."""

    name: str
    size: int
    crc32: str | None = None
    sha256: str | None = None  # indexes built before 2026-11-30
    extra: Mapping[str, Any] = field(default_factory=lambda: _NONE)

    @property
    def checksum(self) -> tuple[str, str | None]:
        """(kind, hex digest): the CRC-32 when recorded, else the SHA-256."""
        return ("crc32", self.crc32) if self.crc32 is not None else ("sha256", self.sha256)

    def to_dict(self) -> dict[str, Any]:
        known = {"name": self.name, "bytes": self.size, "crc32": self.crc32, "sha256": self.sha256}
        return _with_extra({k: v for k, v in known.items() if v is not None}, self.extra)


@dataclass(frozen=True)
class ModelInfo:
    """The model that made the vectors and how it ran (None: not recorded)."""

    dimension: int
    model_id: str | None = None
    fingerprint: str | None = None
    path: str | None = None
    max_seq_length: int | None = None
    normalized: bool | None = None
    backend: str | None = None
    precision: str | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _NONE)

    def to_dict(self) -> dict[str, Any]:
        values = {"id": self.model_id, "fingerprint": self.fingerprint,
                  "dimension": self.dimension, "max_seq_length": self.max_seq_length,
                  "normalized": self.normalized, "backend": self.backend,
                  "precision": self.precision, "path": self.path}
        return _with_extra({k: values[k] for k in _MODEL_ORDER if values[k] is not None},
                           self.extra)


@dataclass(frozen=True)
class Manifest:
    """manifest.json, checked and typed (None: a field the build that wrote it did not record).

    `from_dict` parses and validates; `to_dict` gives back the JSON a build writes."""

    format_version: int
    count: int
    index_type: str
    model: ModelInfo
    files: Mapping[str, FileEntry]
    build_id: str | None = None
    built_at: str | None = None
    inputs: tuple[str, ...] | None = None
    metric: str | None = None
    records: int | None = None
    duplicates_merged: int | None = None
    skipped: Mapping[str, Any] | None = None
    notes: Mapping[str, Any] | None = None
    versions: Mapping[str, Any] | None = None
    machine: str | None = None
    corpus_hash: str | None = None
    sentences: bool | None = None
    sentence_splitter: int | None = None
    lexical: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _NONE)

    @classmethod
    def from_dict(cls, data: Any, path: Path, older: bool = False) -> Manifest:
        """The manifest read from `path` (manifest.json); IndexInvalidError with the command to
        rebuild unless `data` is a valid manifest of FORMAT_VERSION (`older`: or of an older
        format, which only a build reads, for the vectors it may reuse)."""
        roles = REQUIRED + (() if older else LEXICAL_ROLES + EVERY_BUILD)
        check_manifest(data, path, FORMAT_VERSION, roles, older)
        data = copy.deepcopy(data)  # a dict: checked above
        values = {name: data[name] for name in _ORDER if name in data}
        values.update({name: MappingProxyType(data[name]) for name in _MAPPINGS if name in data})
        if "inputs" in data:
            values["inputs"] = tuple(data["inputs"])
        values["model"] = ModelInfo(**_fields(data["model"], _MODEL_NAMES),
                                    extra=_rest(data["model"], _MODEL_NAMES))
        values["files"] = MappingProxyType({
            role: FileEntry(**_fields(entry, _FILE_NAMES), extra=_rest(entry, _FILE_NAMES))
            for role, entry in data["files"].items()})
        return cls(**values, extra=_rest(data, _ORDER))

    def to_dict(self) -> dict[str, Any]:
        """The manifest as JSON data, fields in the order a build writes them."""
        values = {name: getattr(self, name) for name in _ORDER}
        values.update({name: _plain(values[name]) for name in (*_MAPPINGS, "inputs")})
        values["model"] = self.model.to_dict()
        values["files"] = {role: entry.to_dict() for role, entry in self.files.items()}
        return _with_extra({k: v for k, v in values.items() if v is not None}, self.extra)

    def rebuild_hint(self, folder: str | Path, show: Callable[[str], str] = str) -> str:
        """The command that rebuilds the index in `folder` from the inputs it was built from,
        each path (and `folder`) written as `show` names it."""
        return _command(folder, self.inputs, show)


_MAPPINGS = ("skipped", "notes", "versions", "lexical")
_MODEL_NAMES = {**{name: name for name in MODEL_FIELDS}, "id": "model_id"}  # key -> attribute
_FILE_NAMES = {"name": "name", "bytes": "size", "crc32": "crc32", "sha256": "sha256"}


def _fields(data: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """{attribute: value} for the keys of `data` named in `names` (key -> attribute)."""
    return {names[key]: value for key, value in data.items() if key in names}


def _rest(data: dict[str, Any], known: Iterable[str]) -> Mapping[str, Any]:
    """The fields of `data` this version does not know, kept so that to_dict gives them back."""
    known = set(known)
    rest = {key: value for key, value in data.items() if key not in known}
    return MappingProxyType(rest) if rest else _NONE


def _with_extra(values: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    return {**values, **copy.deepcopy(dict(extra))} if extra else values


def _plain(value: Any) -> Any:
    """A tuple as a list, a mapping as a dict of its own (for JSON); anything else as it is."""
    if isinstance(value, tuple):
        return list(value)
    return copy.deepcopy(dict(value)) if isinstance(value, Mapping) else value


def rebuild_hint(folder: Path, manifest: Manifest | None = None) -> str:
    """The command that rebuilds the index in `folder` (from its manifest's inputs, if known)."""
    return _command(folder, None if manifest is None else manifest.inputs)


def _command(folder: str | Path, inputs: object, show: Callable[[str], str] = str) -> str:
    """`explorer build INPUTS --out FOLDER`; the default corpus when `inputs` are not paths."""
    paths = list(inputs) if isinstance(inputs, (list, tuple)) else []
    if not (paths and all(isinstance(path, str) for path in paths)):
        paths = [DEFAULT_CORPUS]
    return f"explorer build {' '.join(map(show, paths))} --out {show(str(folder))}"


def read_manifest(folder: Path, older: bool = False) -> Manifest:
    """The manifest alone (cheap), with every field checked: raises IndexMissingError /
    IndexInvalidError (also for an index of an older format, unless `older`)."""
    path = folder / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise IndexMissingError(
            f"No index in {folder}/ (no {MANIFEST}). Build one first: "
            f"`{rebuild_hint(folder)}`."
        ) from None
    except (UnicodeDecodeError, OSError) as exc:
        raise IndexInvalidError(
            f"{path} is corrupted or unreadable ({exc}). Rebuild the index: "
            f"`{rebuild_hint(folder)}`."
        ) from exc
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise IndexInvalidError(
            f"{path} is corrupted ({exc}). Rebuild the index: `{rebuild_hint(folder)}`."
        ) from exc
    return Manifest.from_dict(data, path, older)


def foreign_manifest(folder: Path) -> str:
    """Why `folder`'s manifest.json is a file of someone else's that a build must not replace
    (a web app's manifest, say), or "" when there is none or it is ours. Ours: a JSON object
    with "format_version" and "files", or, in a folder where a build of ours has written
    (WRITTEN), a manifest too damaged to read (a rebuild replaces it)."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return ""
    if path.is_symlink() or not path.is_file():
        return "it is not a plain file"
    try:
        with path.open("rb") as handle:
            data = json.loads(handle.read(MAX_MANIFEST_BYTES))
    except (OSError, ValueError, RecursionError):
        return "" if (folder / WRITTEN).is_file() else "it is not JSON that a build wrote"
    if isinstance(data, dict) and "format_version" in data and "files" in data:
        return ""
    return 'it has no "format_version" and "files", which every index manifest has'


def is_plain_name(name: object) -> bool:
    """True for a file name inside a folder: no separators, not '.' or '..', no NUL."""
    return (isinstance(name, str) and name not in ("", ".", "..")
            and not any(c in name for c in "/\\\x00"))


def check_manifest(manifest: object, path: Path, version: int, roles: tuple[str, ...],
                   older: bool = False) -> None:
    """Refuse (IndexInvalidError) anything but a manifest of format `version` (`older`: or of
    one from OLDEST_FORMAT on) whose fields have their types and whose files include `roles`."""
    problem = _problem(manifest, version, roles, older)
    if problem:
        valid = isinstance(manifest, dict) and _problem_in(manifest, "inputs") is None
        hint = _command(path.parent, manifest.get("inputs") if valid else None)
        if problem == _OLDER:
            raise IndexInvalidError(
                f"The index in {path.parent} was built by an older version of Paper Explorer "
                f"(index format {manifest['format_version']}; this version reads format "
                f"{version}). Rebuild it; its vectors are reused, nothing is embedded again: "
                f"`{hint}`.")
        raise IndexInvalidError(f"{path} is not a valid Paper Explorer manifest of format "
                                f"{version} ({problem}). Rebuild the index: `{hint}`.")


def _problem(manifest: object, version: int, roles: tuple[str, ...], older: bool) -> str | None:
    if not isinstance(manifest, dict):
        return "not a JSON object"
    for field_name in REQUIRED_FIELDS:
        if field_name not in manifest:
            return f"no {field_name!r}"
    for field_name in FIELDS:
        problem = _problem_in(manifest, field_name)
        if problem:
            return problem
    found = manifest["format_version"]
    if found != version and not (older and OLDEST_FORMAT <= found < version):
        return _OLDER if OLDEST_FORMAT <= found < version else f"format {found}"
    if manifest["index_type"] not in INDEX_TYPES:
        return f"unknown index type {manifest['index_type']!r}"
    if manifest["count"] < 0:
        return "a negative count"
    return _model_problem(manifest["model"]) or _files_problem(manifest["files"], roles)


def _problem_in(manifest: dict, field_name: str) -> str | None:
    if field_name in manifest and not _is(manifest[field_name], FIELDS[field_name]):
        return f"{field_name!r} is not of type {FIELDS[field_name].__name__}"
    if field_name == "inputs" and not all(isinstance(i, str) for i in manifest.get("inputs", [])):
        return "'inputs' holds something other than paths"
    return None


def _model_problem(model: dict) -> str | None:
    for name, kind in MODEL_FIELDS.items():
        if (name in model or name == "dimension") and not _is(model.get(name), kind):
            return f"model {name!r} is not of type {kind.__name__}"
    return None if model["dimension"] > 0 else "a model dimension below 1"


def _files_problem(entries: dict, roles: tuple[str, ...]) -> str | None:
    for role in roles:
        if role not in entries:
            return f"no {role} file"
    for role, entry in entries.items():
        if not isinstance(entry, dict):
            return f"file entry {role!r} is not an object"
        if not is_plain_name(entry.get("name")):
            return f"{role} file name {entry.get('name')!r} is not a plain name in the folder"
        if not _is(entry.get("bytes"), int) or entry["bytes"] < 0:
            return f"{role} file size {entry.get('bytes')!r} is not a byte count"
        sums = [kind for kind in CHECKSUMS if kind in entry]
        if not sums or not all(isinstance(entry[kind], str) for kind in sums):
            return f"{role} file has no checksum"
    return None


def _is(value: object, kind: type) -> bool:
    """isinstance, except that a bool is not an int."""
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))
