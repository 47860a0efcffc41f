"""Read seed / JSONL / JSON / CSV files (optionally gzipped) into deduplicated Paper records."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from explorer.errors import CorpusError
from explorer.titles import derive_title

SEED_SUFFIXES = {".txt", ".text"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
JSON_SUFFIXES = {".json"}
CSV_SUFFIXES = {".csv", ".tsv"}
SUPPORTED = SEED_SUFFIXES | JSONL_SUFFIXES | JSON_SUFFIXES | CSV_SUFFIXES

ID_FIELDS = ("paper_id", "id", "doc_id", "_id")  # _id: BEIR corpora
ABSTRACT_FIELDS = ("abstract", "summary", "text")  # text: BEIR corpora
_DECODE = json.JSONDecoder().raw_decode
_WORD = re.compile(r"\w{2,}")
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


@dataclass(frozen=True)
class Paper:
    """One unique paper. `sources` lists every file:line it was read from."""

    paper_id: str
    title: str
    title_is_derived: bool
    abstract: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    keywords: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @cached_property
    def text(self) -> str:
        """What gets embedded: a real title plus the abstract; a derived title adds nothing."""
        if self.title_is_derived or not self.title:
            return self.abstract
        return f"{self.title}. {self.abstract}" if self.abstract else self.title

    @cached_property
    def text_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """Plain fields for JSON (lists for tuples); much faster than dataclasses.asdict."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in ((n, getattr(self, n)) for n in _FIELDS)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        """A paper from `to_dict` output; turns its lists into tuples in place."""
        for name in _TUPLES:
            if name in data:
                data[name] = tuple(data[name])
        return cls(**data)


_FIELDS = tuple(f.name for f in fields(Paper))
_TUPLES = ("authors", "keywords", "sources", "aliases")


@dataclass
class CorpusReport:
    """What reading produced: unique papers, merged duplicates and skipped records by reason."""

    papers: list[Paper]
    records: int = 0
    duplicates_merged: int = 0
    skipped: Counter = field(default_factory=Counter)


def normalise(text: str) -> str:
    """NFC, one space between words, no leading/trailing blanks."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def stable_id(abstract: str) -> str:
    """A short id that stays the same across rebuilds for the same normalised abstract."""
    return hashlib.sha256(normalise(abstract).encode("utf-8")).hexdigest()[:12]


def read_corpus(paths: Iterable[str | Path], *,
                exclude: Iterable[str | Path] = ()) -> CorpusReport:
    """Read every supported file under `paths` into unique papers.

    Folder walks skip dot-folders and dot-files (`.git`, `.venv`, partial builds, editor
    files); a file named in `paths` is read even if hidden. Nothing under `exclude` (files or
    folders, e.g. the build's own output folder) is ever read.
    Raises CorpusError naming the file and line or record when an input is malformed.
    """
    report = CorpusReport(papers=[])
    by_key: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}
    for path in _expand(paths, exclude):
        for source, record in _read_file(path):
            report.records += 1
            entry = _to_entry(record, source)
            if entry is None:
                report.skipped["no abstract or title"] += 1
                continue
            key = entry.pop("_key")
            if key in by_key:
                kept = by_key[key]
                kept["sources"].append(source)
                if entry["paper_id"] != kept["paper_id"]:
                    kept["aliases"].append(entry["paper_id"])
                report.duplicates_merged += 1
                continue
            if entry["paper_id"] in ids:
                report.skipped["id already used by a different paper"] += 1
                continue
            ids[entry["paper_id"]] = key
            by_key[key] = entry
    report.papers = [Paper.from_dict(entry) for entry in by_key.values()]
    return report


def _expand(paths: Iterable[str | Path], exclude: Iterable[str | Path] = ()) -> list[Path]:
    """The files to read, in order: explicit files as given, folders walked in sorted order."""
    excluded = [Path(p).resolve() for p in exclude]
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [p for p in _walk(path) if not _is_excluded(p, excluded)]
            if not found:
                raise CorpusError(
                    f"{path}: no corpus files found (looked for {', '.join(sorted(SUPPORTED))},"
                    " optionally .gz; hidden files and folders are skipped). Point to a folder"
                    " that holds abstracts."
                )
            files.extend(found)
        elif path.is_file():
            if _kind(path) is None:
                raise CorpusError(
                    f"{path}: unsupported file type. Use a seed text file (.txt), "
                    ".jsonl, .json, .csv or .tsv, optionally gzipped (.gz)."
                )
            if not _is_excluded(path, excluded):
                files.append(path)
        else:
            raise CorpusError(f"{path}: no such file or folder. Check the path and try again.")
    return files


def _walk(folder: Path) -> list[Path]:
    """Supported files under `folder`, sorted; dot-folders are not entered, dot-files not kept."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            candidate = Path(root, name)
            if not name.startswith(".") and _kind(candidate) is not None and candidate.is_file():
                found.append(candidate)
    return sorted(found)


def _is_excluded(path: Path, excluded: list[Path]) -> bool:
    if not excluded:
        return False
    resolved = path.resolve()
    return any(resolved == item or item in resolved.parents for item in excluded)


def _kind(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    suffix = suffixes[-1] if suffixes else ""
    for kind, group in (("seed", SEED_SUFFIXES), ("jsonl", JSONL_SUFFIXES),
                        ("json", JSON_SUFFIXES), ("csv", CSV_SUFFIXES)):
        if suffix in group:
            return kind
    return None


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix.lower() == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise CorpusError(f"{path}: not a valid gzip file ({exc}). Re-create the file.") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CorpusError(
            f"{path}:{line}: not valid UTF-8 ({exc.reason}). Save the file as UTF-8."
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_file(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = _kind(path)
    text = _read_text(path)
    if kind == "seed":
        yield from _read_seed(path, text)
    elif kind == "jsonl":
        yield from _read_jsonl(path, text)
    elif kind == "json":
        yield from _read_json(path, text)
    else:
        yield from _read_csv(path, text)


def _read_seed(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """First line a header; then abstracts separated by blank lines."""
    lines = text.split("\n")
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines[1:] + [""], start=2):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield f"{path}:{start}", {"abstract": " ".join(block)}
            block = []


def json_line(line: str) -> Any:
    """json.loads of one line without surrounding blanks (strip it first), minus the two
    whitespace scans json.loads makes: a tenth of the time of reading a big JSONL file."""
    value, end = _DECODE(line)
    if end != len(line):
        raise json.JSONDecodeError("Extra data", line, end)
    return value


def _read_jsonl(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            record = json_line(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(
                f"{path}:{number}: not valid JSON ({exc.msg}). Fix or remove that line."
            ) from exc
        yield f"{path}:{number}", _require_object(record, f"{path}:{number}")


def _read_json(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorpusError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}). Fix the file."
        ) from exc
    if not isinstance(data, list):
        raise CorpusError(f"{path}: expected a JSON array of paper objects. Wrap records in [...].")
    for number, record in enumerate(data, start=1):
        yield f"{path}#{number}", _require_object(record, f"{path} record {number}")


def _read_csv(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    delimiter = "\t" if ".tsv" in [s.lower() for s in path.suffixes] else ","
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    if not any(c in columns for c in ABSTRACT_FIELDS + ("title",)):
        raise CorpusError(
            f"{path}:1: no 'abstract' or 'title' column (found: {', '.join(columns) or 'none'})."
            " Add a header row that names the abstract column."
        )
    try:
        for row in reader:
            if None in row:
                raise CorpusError(
                    f"{path}:{reader.line_num}: more fields than the header has columns."
                    " Quote fields that contain the delimiter."
                )
            record = {k.strip().lower(): v for k, v in row.items() if k}
            yield f"{path}:{reader.line_num}", record
    except csv.Error as exc:
        raise CorpusError(f"{path}:{reader.line_num}: malformed CSV ({exc}).") from exc


def _require_object(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: expected a JSON object with an 'abstract' field.")
    return record


def _to_entry(record: dict[str, Any], source: str) -> dict[str, Any] | None:
    """Map one raw record to Paper fields plus a dedupe `_key`; None if it has no usable text."""
    abstract = normalise(_first_str(record, ABSTRACT_FIELDS))
    title = normalise(_first_str(record, ("title",)))
    if not _WORD.search(abstract) and not _WORD.search(title):
        return None
    given_id = normalise(_first_str(record, ID_FIELDS))
    key = hashlib.sha256(f"{title.lower()}\n{abstract}".encode()).hexdigest()
    return {
        "_key": key,
        "paper_id": given_id or stable_id(abstract or title),
        "title": title or derive_title(abstract),
        "title_is_derived": not title,
        "abstract": abstract,
        "authors": _as_list(record.get("authors") or record.get("author"), r";|\band\b"),
        "year": _as_year(record.get("year")),
        "venue": normalise(str(record.get("venue") or "")) or None,
        "url": normalise(str(record.get("url") or "")) or None,
        "keywords": _as_list(record.get("keywords"), r"[;,]"),
        "sources": [source],
        "aliases": [],
    }


def _first_str(record: dict[str, Any], names: tuple[str, ...]) -> str:
    for name in names:
        value = record.get(name)
        if value is not None and str(value).strip():
            return str(value)
    return ""


def _as_list(value: Any, separators: str) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else re.split(separators, str(value))
    kept = []
    for item in items:  # ASCII needs no NFC: skip normalise's call for the common case
        text = (" ".join(item.split()) if isinstance(item, str) and item.isascii()
                else normalise(str(item)))
        if text:
            kept.append(text)
    return kept


def _as_year(value: Any) -> int | None:
    if isinstance(value, int) and 1800 <= value <= 2099:
        return value
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None
