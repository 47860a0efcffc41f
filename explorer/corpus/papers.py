"""Read corpus files (seed text, JSONL, JSON, CSV; BibTeX, RIS, CSL-JSON reference lists;
optionally gzipped) into deduplicated Paper records."""

from __future__ import annotations

import hashlib
import operator
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from explorer.corpus.bibliography import BibRecord, Unparsed
from explorer.corpus.merging import References, strip_private
from explorer.corpus.readers import ABSTRACT_FIELDS, SUPPORTED, expand, read_file
from explorer.corpus.titles import derive_title
from explorer.settings import Settings

__all__ = ["SUPPORTED", "CorpusReport", "Paper", "normalise", "read_corpus", "stable_id",
           "to_paper"]
ID_FIELDS = ("paper_id", "id", "doc_id", "_id")  # _id: BEIR corpora
YEARS = range(1000, 2101)
_WORD = re.compile(r"\w{2,}")
_YEAR = re.compile(r"(?<![0-9])([0-9]{4})(?![0-9])")
_SCALARS = (str, int, float)
RAW_IDS = ("doi", "arxiv_id", "arxiv", "eprint")  # read for matching reference-list entries
UNPARSED_SHOWN = 10
TITLE_ONLY = "entries without an abstract: searched by title"


@dataclass(frozen=True)
class Paper:
    """One unique paper. `sources` lists every file:line it was read from. `original`: the
    (name, value) fields of its BibTeX entry as written, LaTeX kept (entry type as ENTRYTYPE,
    citation key as ID), for an export to give back; empty for other sources."""

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
    original: tuple[tuple[str, str], ...] = ()

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
        """Plain fields for JSON (lists for tuples); much faster than dataclasses.asdict.
        `original` only when there is one, so other papers' records stay as before it."""
        data = {name: list(value) if isinstance(value, tuple) else value
                for name, value in ((n, getattr(self, n)) for n in _FIELDS)}
        if self.original:
            data["original"] = [list(pair) for pair in self.original]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        """A paper from `to_dict` output; turns its lists into tuples in place."""
        for name in _TUPLES:
            if name in data:
                data[name] = tuple(data[name])
        if "original" in data:
            data["original"] = tuple((str(name), str(value)) for name, value in data["original"])
        # What the dataclass's __init__ does (it has no __post_init__), without one frozen
        # __setattr__ per field: an index's 92k records load ~0.15 s sooner (cold start).
        if not data.keys() <= _ALL_FIELDS or not data.keys() >= _REQUIRED:
            return cls(**data)  # raises the TypeError naming the field
        paper = object.__new__(cls)
        paper.__dict__.update(_DEFAULTS)
        paper.__dict__.update(data)
        return paper


def source_file(source: str) -> str:
    """The file of a source ("path:line" or "path#record")."""
    return source.rsplit(":", 1)[0].split("#")[0]


def countable_year(value: Any) -> int | None:
    """A year value as the year charts count it: a whole number in YEARS, else None
    (missing, text, a float, a bool, out of range)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        year = operator.index(value)
    except TypeError:
        return None
    return year if year in YEARS else None


def facet_values(papers: Iterable[Paper]) -> dict[str, list]:
    """What the index keeps of `papers` for filters and year charts: the venues, source files
    and years present, each sorted, and `year_counts` ([year, papers] by year, as
    `countable_year` reads a year; the papers it cannot date: `undated`)."""
    venues: set[str] = set()
    sources: set[str] = set()
    years: set[int] = set()
    counts: Counter[int] = Counter()
    undated = 0
    for paper in papers:
        if paper.venue:
            venues.add(paper.venue)
        sources.update(source_file(source) for source in paper.sources)
        if paper.year and paper.year > 0:
            years.add(int(paper.year))
        year = countable_year(paper.year)
        if year is None:
            undated += 1
        else:
            counts[year] += 1
    return {"venues": sorted(venues), "sources": sorted(sources), "years": sorted(years),
            "year_counts": [[year, n] for year, n in sorted(counts.items())],
            "undated": undated}


_FIELDS = tuple(f.name for f in fields(Paper) if f.name != "original")
_ALL_FIELDS = frozenset(f.name for f in fields(Paper))
_DEFAULTS = {f.name: f.default for f in fields(Paper) if f.default is not MISSING}
_REQUIRED = _ALL_FIELDS - _DEFAULTS.keys()
_TUPLES = ("authors", "keywords", "sources", "aliases")


@dataclass
class CorpusReport:
    """What reading produced: unique papers, merged duplicates, skipped records by reason, and
    notes by reason on values dropped from kept records (a year outside 1000..2100, a
    duplicate's id that already names another paper)."""

    papers: list[Paper]
    records: int = 0
    duplicates_merged: int = 0
    skipped: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)


def normalise(text: str) -> str:
    """NFC, one space between words, no leading/trailing blanks."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def stable_id(abstract: str) -> str:
    """A short id that stays the same across rebuilds for the same normalised abstract."""
    return hashlib.sha256(normalise(abstract).encode("utf-8")).hexdigest()[:12]


def read_corpus(paths: Iterable[str | Path], *, exclude: Iterable[str | Path] = (),
                max_file_bytes: int | None = None) -> CorpusReport:
    """Read every supported file under `paths` into unique papers.

    Folder walks skip dot-folders and dot-files (`.git`, `.venv`, partial builds, editor
    files); a file named in `paths` is read even if hidden. Nothing under `exclude` (files or
    folders, e.g. the build's own output folder) is ever read. A file may hold at most
    `max_file_bytes` (decompressed; default EXPLORER_MAX_FILE_BYTES, else 2 GiB).

    A record that cannot be parsed is a CorpusError naming its file and line or record number;
    a reference-list entry that does not parse is skipped and its line named in `skipped`.
    A record without text is skipped and counted in `skipped`; ids and aliases share one
    namespace: the first record to use a name keeps it (a later different paper with that id
    is skipped, a later duplicate's clashing id is not kept as an alias; both are counted).
    Entries of reference lists (.bib, .ris, CSL-JSON) also merge by DOI, arXiv id, abstract
    or title (corpus/merging.py); papers without an abstract are counted in `notes`.
    """
    limit = Settings.from_env().max_file_bytes if max_file_bytes is None else max_file_bytes
    report = CorpusReport(papers=[])
    by_key: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}  # every paper id and alias -> the key of the paper it names
    references, unparsed = References(), []
    for path in expand(paths, exclude):
        for source, record in read_file(path, limit):
            report.records += 1
            if isinstance(record, Unparsed):
                unparsed.append(source)
            elif (entry := _to_entry(record, source, report.notes)) is None:
                report.skipped["no abstract or title"] += 1
            elif isinstance(record, BibRecord):
                report.duplicates_merged += references.add(entry, len(by_key))
            else:
                _add(entry, by_key, names, report)
    entries = list(by_key.values())
    if references.entries:
        entries = references.join(entries, names, report)
    report.papers = [Paper.from_dict(strip_private(entry)) for entry in entries]
    _count_gaps(report, unparsed)
    return report


def to_paper(record: dict[str, Any], source: str) -> Paper | None:
    """One record as a paper on its own, None if it has no text. An entry of a reference list
    takes the first of its DOI, arXiv id and citation key as its id, the others as aliases."""
    entry = _to_entry(record, source, Counter())
    if entry is None:
        return None
    names = entry.get("_names") or [entry["paper_id"]]
    entry["paper_id"], entry["aliases"] = names[0], names[1:]
    return Paper.from_dict(strip_private(entry))


def _add(entry: dict[str, Any], by_key: dict[str, dict[str, Any]], names: dict[str, str],
         report: CorpusReport) -> None:
    """Keep a corpus record as a new paper, or merge it into its exact duplicate."""
    key, paper_id = entry.pop("_key"), entry["paper_id"]
    if key in by_key:
        _merge(by_key[key], entry, names.setdefault(paper_id, key) == key, report)
    elif paper_id in names:
        report.skipped["id already used by a different paper"] += 1
    else:
        names[paper_id] = key
        by_key[key] = entry


def _count_gaps(report: CorpusReport, unparsed: list[str]) -> None:
    """Name the entries that did not parse (the first UNPARSED_SHOWN) in `skipped`; count the
    papers that have no abstract in `notes`."""
    if unparsed:
        shown = ", ".join(unparsed[:UNPARSED_SHOWN])
        more = len(unparsed) - UNPARSED_SHOWN
        report.skipped[f"entries that did not parse: {shown}"
                       + (f" and {more} more" if more > 0 else "")] += len(unparsed)
    title_only = sum(1 for paper in report.papers if not paper.abstract)
    if title_only:
        report.notes[TITLE_ONLY] += title_only


def _merge(kept: dict[str, Any], entry: dict[str, Any], id_is_free: bool,
           report: CorpusReport) -> None:
    """Fold a duplicate into the paper kept: its source, and its id as an alias when free."""
    kept["sources"].append(entry["sources"][0])
    report.duplicates_merged += 1
    alias = entry["paper_id"]
    if not id_is_free:
        report.notes["duplicate's id already names another paper (not kept as an alias)"] += 1
    elif alias != kept["paper_id"] and alias not in kept["aliases"]:
        kept["aliases"].append(alias)


def _to_entry(record: dict[str, Any], source: str, notes: Counter) -> dict[str, Any] | None:
    """Map one raw record to Paper fields plus a dedupe `_key`; None if it has no usable text."""
    abstract = normalise(_first_text(record, ABSTRACT_FIELDS))
    title = normalise(_first_text(record, ("title",)))
    if not _WORD.search(abstract) and not _WORD.search(title):
        return None
    given_id = normalise(_first_text(record, ID_FIELDS))
    key = hashlib.sha256(f"{title.lower()}\n{abstract}".encode()).hexdigest()
    year = _as_year(record.get("year"))
    if year is None and record.get("year") not in (None, ""):
        notes[f"year not a number in {YEARS.start}..{YEARS.stop - 1} (dropped)"] += 1
    entry = {
        "_key": key,
        "paper_id": given_id or stable_id(abstract or title),
        "title": title or derive_title(abstract),
        "title_is_derived": not title,
        "abstract": abstract,
        "authors": _as_list(record.get("authors") or record.get("author"), r";|\band\b"),
        "year": year,
        "venue": normalise(_text(record.get("venue"))) or None,
        "url": normalise(_text(record.get("url"))) or None,
        "keywords": _as_list(record.get("keywords"), r"[;,]"),
        "sources": [source],
        "aliases": [],
    }
    if isinstance(record, BibRecord):
        entry["_names"], entry["original"] = list(record["names"]), record["original"]
        entry["_place"] = record.get("place", ())
    elif ids := [value for name in RAW_IDS if isinstance(value := record.get(name), str)]:
        entry["_ids"] = ids
    return entry


def _text(value: Any) -> str:
    """A field's text: strings and numbers as written, a list of strings joined; else nothing."""
    if isinstance(value, str):
        return value
    if isinstance(value, _SCALARS) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(value)
    return ""


def _first_text(record: dict[str, Any], names: tuple[str, ...]) -> str:
    for name in names:
        value = _text(record.get(name))
        if value.strip():
            return value
    return ""


def _as_list(value: Any, separators: str) -> list[str]:
    """Names or terms: a list (of strings, numbers or {"name": ...}) or one separated string."""
    if value is None:
        return []
    items = value if isinstance(value, list) else re.split(separators, _text(value))
    kept = []
    for item in items:  # ASCII needs no NFC: skip normalise's call for the common case
        if isinstance(item, dict):
            item = item.get("name")
        raw = item if isinstance(item, str) else _text(item) if not isinstance(item, list) else ""
        text = " ".join(raw.split()) if raw.isascii() else normalise(raw)
        if text:
            kept.append(text)
    return kept


def _as_year(value: Any) -> int | None:
    """A year in 1000..2100: an integer, or the first run of four ASCII digits in a short text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value in YEARS else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and int(value) in YEARS else None
    if not isinstance(value, str):
        return None
    match = _YEAR.search(value[:64])
    year = int(match.group(1)) if match else None
    return year if year in YEARS else None
