"""A saved collection as a record and as a file: the `Collection`, what a name and a paper id
may be, the file a name is stored in, the JSON format (read strictly: a file that is not one
is an error naming it and the fix), and which of its ids an index has (`split_known`).

File names come from names (any Unicode text) as an ASCII slug plus a hash of the name, so no
name can reach outside the folder; the name itself is stored inside the file.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from explorer.errors import CollectionError, UnknownPaperError
from explorer.features.collections.names import describe, name_key, refused_character
from explorer.files import ReadErrors, atomic_write, parse_json, read_chunks

FORMAT = "paper-explorer-collection"
VERSION = 1
MAX_NAME_CHARS = 200
MAX_ID_CHARS = 300
MAX_PAPERS = 100_000  # a 10,000-entry .bib fits ten times over
MAX_FILE_BYTES = 64 << 20
MAX_UID_CHARS = 64
_SLUG_CHARS = 40


@dataclass(frozen=True)
class Collection:
    """A named list of paper ids (in the order added; no repeats), its revision (one more at
    every change), when it was created and last changed (ISO 8601, UTC), and `uid`: random,
    given at creation and kept by renames, so a collection deleted and made again under its
    name (revision 1 again) is told from the one that was opened ("" in files from before)."""

    name: str
    paper_ids: tuple[str, ...]
    revision: int = 0
    created: str = ""
    updated: str = ""
    uid: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "name": self.name,
                "paper_ids": list(self.paper_ids), "revision": self.revision,
                "created": self.created, "updated": self.updated,
                **({"uid": self.uid} if self.uid else {})}

    @property
    def key(self) -> str:
        """Its name as names are compared (`names.name_key`)."""
        return name_key(self.name)


class PaperLookup(Protocol):
    """Finds a paper by id (an Explorer is one): returns it (with its `paper_id`) or raises
    UnknownPaperError."""

    def paper(self, paper_id: str) -> Any: ...


def split_known(paper_ids: Iterable[str], papers: PaperLookup) -> tuple[list[str], list[str]]:
    """(the ids this index has, as its own ids (an alias becomes the paper's id), the ids it
    lacks), each in order and without repeats."""
    known: dict[str, None] = {}
    missing: dict[str, None] = {}
    for paper_id in paper_ids:
        try:
            known[papers.paper(paper_id).paper_id] = None
        except UnknownPaperError:
            missing[paper_id] = None
    return list(known), list(missing)


def clean_name(name: str, strict: bool = True) -> str:
    """`name` NFC-normalised and stripped; CollectionError when empty or too long, and (when
    `strict`: a name being given, not one read from a file) when it holds a character names
    may not hold (names.py) or nothing visible."""
    if not isinstance(name, str):
        raise ValueError(f"a collection name is text, not {type(name).__name__}")
    cleaned = unicodedata.normalize("NFC", name).strip()
    if not cleaned:
        raise CollectionError("A collection needs a name: give one that is not empty.")
    if len(cleaned) > MAX_NAME_CHARS:
        raise CollectionError(f"A collection name has at most {MAX_NAME_CHARS} characters; this "
                              f"one has {len(cleaned)}. Give a shorter name.")
    refused = refused_character(cleaned) if strict else None
    if refused:
        raise CollectionError(
            f"A collection name cannot hold control, text-direction or invisible formatting "
            f"characters, and this one holds {describe(refused[1])} at character {refused[0]}. "
            "Type the name again without it.")
    if strict and not name_key(cleaned):
        raise CollectionError("A collection name needs a visible character: give one.")
    return cleaned


def clean_ids(paper_ids: Iterable[str]) -> tuple[str, ...]:
    """`paper_ids` stripped, in order, without repeats; CollectionError for an empty or
    over-long id."""
    cleaned: dict[str, None] = {}
    for paper_id in paper_ids:
        if not isinstance(paper_id, str):
            raise CollectionError(f"Paper ids are text, not {type(paper_id).__name__}. Remove it.")
        paper_id = paper_id.strip()
        if not paper_id or len(paper_id) > MAX_ID_CHARS:
            raise CollectionError(f"Paper ids have 1 to {MAX_ID_CHARS} characters: "
                                  f"{paper_id[:40]!r} has {len(paper_id)}. Remove it.")
        cleaned[paper_id] = None
    return tuple(cleaned)


def file_name(name: str) -> str:
    """The file of the collection `name`: an ASCII slug of it and 12 hex digits of its SHA-256
    (names that differ only in case or accents get different files on any file system)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_name))[:_SLUG_CHARS].strip("-") or "collection"
    return f"{slug}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}.json"


def _errors(path: Path) -> ReadErrors:
    return ReadErrors(CollectionError, fix=(
        f"Fix the file by hand, or move it out of {path.parent}: Paper Explorer never overwrites "
        "a collection file it cannot read."), too_big="Split the collection.")


def read_file(path: Path) -> Collection:
    """The collection stored in `path`; CollectionError naming the file and what is wrong."""
    errors = _errors(path)
    raw = b"".join(read_chunks(path, MAX_FILE_BYTES, errors))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors(path, f"not valid UTF-8 ({exc.reason})", "") from exc
    data = parse_json(text, str(path), errors)
    problem = _problem(data)
    if problem:
        raise errors(path, f"not a collection file ({problem})", "")
    try:
        ids = clean_ids(data["paper_ids"])
        name = clean_name(data["name"], strict=False)  # a name from before the rules stays usable
    except CollectionError as exc:
        raise errors(path, f"not a collection file ({exc})", "") from exc
    return Collection(name, ids, data["revision"], data.get("created", ""), data.get("updated", ""),
                      data.get("uid", ""))


def _problem(data: Any) -> str:
    """What makes `data` no collection ("" when it is one)."""
    if not isinstance(data, dict):
        return "expected a JSON object"
    if data.get("format") != FORMAT:
        return f'"format" is not "{FORMAT}"'
    if data.get("version") != VERSION:
        return f'version {data.get("version")!r}, this program reads version {VERSION}'
    if not isinstance(data.get("name"), str):
        return '"name" must be text'
    ids = data.get("paper_ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return '"paper_ids" must be a list of texts'
    revision = data.get("revision")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        return '"revision" must be a whole number'
    if not all(isinstance(data.get(key, ""), str) for key in ("created", "updated", "uid")):
        return '"created", "updated" and "uid" must be text'
    if len(data.get("uid", "")) > MAX_UID_CHARS:
        return f'"uid" has at most {MAX_UID_CHARS} characters'
    return ""


def write_file(path: Path, collection: Collection) -> None:
    """`collection` as JSON in `path`, atomically (a temp file in the folder, fsync, rename)."""
    text = json.dumps(collection.to_dict(), ensure_ascii=False, indent=1) + "\n"
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def check_size(name: str, paper_ids: Sequence[str], limit: int = MAX_PAPERS) -> None:
    if len(paper_ids) > limit:
        raise CollectionError(f"A collection holds at most {limit:,} papers here; {name!r} would "
                              f"hold {len(paper_ids):,}. Split it into several collections.")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
