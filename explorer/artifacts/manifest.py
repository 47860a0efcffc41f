"""What a manifest may hold: every field of the right type, file names plain names in the folder.

An index folder can come from anywhere (copied, downloaded, edited), so a manifest is checked
field by field before anything reads it; a bad one is refused with the command to rebuild.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer.errors import IndexInvalidError
from explorer.index.dense import INDEX_TYPES

# field -> type; the first ones are required (every build has written them)
FIELDS: dict[str, type] = {
    "format_version": int, "count": int, "index_type": str, "model": dict, "files": dict,
    "build_id": str, "inputs": list, "built_at": str, "metric": str, "records": int,
    "duplicates_merged": int, "skipped": dict, "corpus_hash": str, "sentences": bool,
    "versions": dict, "machine": str,
}
REQUIRED_FIELDS = ("format_version", "count", "index_type", "model", "files")
MODEL_FIELDS: dict[str, type] = {"dimension": int, "id": str, "fingerprint": str, "path": str}
CHECKSUMS = ("crc32", "sha256")


def rebuild_hint(folder: Path, manifest: dict[str, Any] | None = None) -> str:
    """The command that rebuilds the index in `folder` (from the manifest's inputs if valid)."""
    inputs = (manifest or {}).get("inputs") if isinstance(manifest, dict) else None
    if not (isinstance(inputs, list) and inputs and all(isinstance(i, str) for i in inputs)):
        inputs = ["seeds"]
    return f"explorer build {' '.join(inputs)} --out {folder}"


def is_plain_name(name: object) -> bool:
    """True for a file name inside a folder: no separators, not '.' or '..', no NUL."""
    return (isinstance(name, str) and name not in ("", ".", "..")
            and not any(c in name for c in "/\\\x00"))


def check_manifest(manifest: object, path: Path, version: int, roles: tuple[str, ...]) -> None:
    """Refuse (IndexInvalidError) anything but a manifest of format `version` whose fields
    have their types and whose files include `roles`."""
    problem = _problem(manifest, version, roles)
    if problem:
        valid = isinstance(manifest, dict) and _problem_in(manifest, "inputs") is None
        hint = rebuild_hint(path.parent, manifest if valid else None)
        raise IndexInvalidError(f"{path} is not a valid Paper Explorer manifest of format "
                                f"{version} ({problem}). Rebuild the index: `{hint}`.")


def _problem(manifest: object, version: int, roles: tuple[str, ...]) -> str | None:
    if not isinstance(manifest, dict):
        return "not a JSON object"
    for field in REQUIRED_FIELDS:
        if field not in manifest:
            return f"no {field!r}"
    for field in FIELDS:
        problem = _problem_in(manifest, field)
        if problem:
            return problem
    if manifest["format_version"] != version:
        return f"format {manifest['format_version']}"
    if manifest["index_type"] not in INDEX_TYPES:
        return f"unknown index type {manifest['index_type']!r}"
    if manifest["count"] < 0:
        return "a negative count"
    return _model_problem(manifest["model"]) or _files_problem(manifest["files"], roles)


def _problem_in(manifest: dict, field: str) -> str | None:
    if field in manifest and not _is(manifest[field], FIELDS[field]):
        return f"{field!r} is not of type {FIELDS[field].__name__}"
    if field == "inputs" and not all(isinstance(i, str) for i in manifest.get("inputs", [])):
        return "'inputs' holds something other than paths"
    return None


def _model_problem(model: dict) -> str | None:
    for field, kind in MODEL_FIELDS.items():
        if (field in model or field == "dimension") and not _is(model.get(field), kind):
            return f"model {field!r} is not of type {kind.__name__}"
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
