"""Read corpus files (seed text, JSONL, JSON, CSV, Parquet; BibTeX, RIS, CSL-JSON reference
lists; OpenReview, OpenAlex, arXiv and Semantic Scholar records; optionally gzipped) into
deduplicated Paper records (each record's fields: corpus/entries.py)."""

from __future__ import annotations

import hashlib
import operator
from collections import Counter
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from explorer.corpus.bibliography import BibRecord, Unparsed
from explorer.corpus.converted import Malformed
from explorer.corpus.entries import YEARS, normalise, stable_id, to_entry
from explorer.corpus.fields import Fields, FieldValue, as_json, thaw
from explorer.corpus.merging import References, strip_private
from explorer.corpus.readers import SUPPORTED, expand, read_file
from explorer.corpus.scholar import AbstractJoin
from explorer.settings import Settings

__all__ = ["SUPPORTED", "YEARS", "CorpusReport", "Paper", "normalise", "read_corpus",
           "stable_id", "to_paper"]
UNPARSED_SHOWN = 10
TITLE_ONLY = "entries without an abstract: searched by title"
JOINED = "Semantic Scholar abstracts joined to their papers records"


@dataclass(frozen=True)
class Paper:
    """One unique paper. `sources` lists every file:line it was read from. `original`: the
    (name, value) fields of its BibTeX entry as written, LaTeX kept (entry type as ENTRYTYPE,
    citation key as ID), for an export to give back; empty for other sources.

    What the sources say beyond the text: `status` (one of venues.STATUSES, or None when no
    source says), `external_ids` ((scheme, id) pairs: doi, arxiv, openalex, openreview, s2,
    corpus_id, mag, pmid, pmcid, dblp, acl), `references` (the ids of the works it cites, as its
    source names them: OpenAlex W ids, Semantic Scholar paperIds, ...) and `fields` (every
    other field of its record, bounded: corpus/fields.py). The papers file holds each of the
    four only when set, so papers without them are stored as before they existed."""

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
    status: str | None = None
    external_ids: tuple[tuple[str, str], ...] = ()
    references: tuple[str, ...] = ()
    fields: Fields = ()

    @cached_property
    def text(self) -> str:
        """What gets embedded: a real title plus the abstract; a derived title adds nothing."""
        if self.title_is_derived or not self.title:
            return self.abstract
        return f"{self.title}. {self.abstract}" if self.abstract else self.title

    @cached_property
    def text_hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def external_id(self, scheme: str) -> str | None:
        """The paper's id in a scheme ("doi", "arxiv", "openalex", "s2", ...), if known."""
        return next((value for name, value in self.external_ids if name == scheme), None)

    @property
    def doi(self) -> str | None:
        return self.external_id("doi")

    @property
    def arxiv_id(self) -> str | None:
        return self.external_id("arxiv")

    def field(self, name: str, default: FieldValue | None = None) -> FieldValue | None:
        """One of `fields` by name ("tldr", "track", "primary_area", "categories", ...)."""
        return next((value for key, value in self.fields if key == name), default)

    def to_dict(self) -> dict[str, Any]:
        """Plain fields for JSON (lists for tuples, objects for `external_ids` and `fields`);
        much faster than dataclasses.asdict. `original`, `status`, `external_ids`,
        `references` and `fields` only when set, so other papers' records stay as before."""
        data = {name: list(value) if isinstance(value, tuple) else value
                for name, value in ((n, getattr(self, n)) for n in _FIELDS)}
        if self.original:
            data["original"] = [list(pair) for pair in self.original]
        if self.status is not None:
            data["status"] = self.status
        if self.external_ids:
            data["external_ids"] = dict(self.external_ids)
        if self.references:
            data["references"] = list(self.references)
        if self.fields:
            data["fields"] = as_json(self.fields)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        """A paper from `to_dict` output; turns its lists into tuples in place (a ValueError
        or TypeError when a value is not of its kind)."""
        for name in _TUPLES:
            if name in data:
                data[name] = tuple(data[name])
        if "original" in data:
            data["original"] = tuple((str(name), str(value)) for name, value in data["original"])
        if isinstance(data.get("external_ids"), dict):  # as stored; entries give pairs
            data["external_ids"] = tuple((str(k), str(v)) for k, v in data["external_ids"].items())
        if "fields" in data and not isinstance(data["fields"], tuple):
            data["fields"] = thaw(data["fields"])
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


_OPTIONAL = ("original", "status", "external_ids", "references", "fields")  # stored when set
_FIELDS = tuple(f.name for f in fields(Paper) if f.name not in _OPTIONAL)
_ALL_FIELDS = frozenset(f.name for f in fields(Paper))
_DEFAULTS = {f.name: f.default for f in fields(Paper) if f.default is not MISSING}
_REQUIRED = _ALL_FIELDS - _DEFAULTS.keys()
_TUPLES = ("authors", "keywords", "sources", "aliases", "references")


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
    reading = _Reading(CorpusReport(papers=[]))
    join = AbstractJoin()
    for path in expand(paths, exclude):
        for source, record in read_file(path, limit):
            reading.report.records += 1
            for ready in join.offer(source, record):
                reading.take(*ready)
    for ready in join.rest(reading.report.skipped):
        reading.take(*ready)
    return reading.finish()


class _Reading:
    """The papers read so far: by dedupe key, the names they use, the reference-list entries
    waiting to join them, and the records that did not parse."""

    def __init__(self, report: CorpusReport) -> None:
        self.report = report
        self.by_key: dict[str, dict[str, Any]] = {}
        self.names: dict[str, str] = {}  # every paper id and alias -> the key of its paper
        self.references = References()
        self.unparsed: list[tuple[str, str | None]] = []  # (source, reason of a Malformed)

    def take(self, source: str, record: dict[str, Any], joined: list[str]) -> None:
        """One record read (`joined`: the sources of records joined into it)."""
        report = self.report
        if isinstance(record, Unparsed):
            self.unparsed.append((source, record["reason"] if isinstance(record, Malformed)
                                  else None))
        elif (entry := to_entry(record, source, report.notes)) is None:
            report.skipped["no abstract or title"] += 1
        elif isinstance(record, BibRecord):
            report.duplicates_merged += self.references.add(entry, len(self.by_key))
        else:
            if joined:
                entry["sources"] += joined
                report.notes[JOINED] += len(joined)
            _add(entry, self.by_key, self.names, report)

    def finish(self) -> CorpusReport:
        entries = list(self.by_key.values())
        if self.references.entries:
            entries = self.references.join(entries, self.names, self.report)
        self.report.papers = [Paper.from_dict(strip_private(entry)) for entry in entries]
        _count_gaps(self.report, self.unparsed)
        return self.report


def to_paper(record: dict[str, Any], source: str) -> Paper | None:
    """One record as a paper on its own, None if it has no text. An entry of a reference list
    takes the first of its DOI, arXiv id and citation key as its id, the others as aliases."""
    entry = to_entry(record, source, Counter())
    if entry is None:
        return None
    names = entry.get("_names") or [entry["paper_id"]]
    entry["paper_id"], entry["aliases"] = names[0], names[1:]
    return Paper.from_dict(strip_private(entry))


def _add(entry: dict[str, Any], by_key: dict[str, dict[str, Any]], names: dict[str, str],
         report: CorpusReport) -> None:
    """Keep a corpus record as a new paper, or merge it into its exact duplicate."""
    key, paper_id = entry.pop("_key"), entry["paper_id"]
    if key in by_key and paper_id not in names and _other_version(by_key[key], entry):
        key = f"{key}\n{entry['venue']}\n{entry['year']}"  # kept: corpus/versions.py links it
    if key in by_key:
        _merge(by_key[key], entry, names.setdefault(paper_id, key) == key, report)
    elif paper_id in names:
        report.skipped["id already used by a different paper"] += 1
    else:
        names[paper_id] = key
        by_key[key] = entry


def _other_version(kept: dict[str, Any], entry: dict[str, Any]) -> bool:
    """Whether a record with the same text as a paper kept is another version of it (another
    venue or year, under an id of its own: an ICLR reject at NeurIPS), not a copy."""
    return bool(entry["venue"] or entry["year"]) and (
        (kept["venue"], kept["year"]) != (entry["venue"], entry["year"]))


def _count_gaps(report: CorpusReport, unparsed: list[tuple[str, str | None]]) -> None:
    """Name the entries that did not parse (the first UNPARSED_SHOWN) in `skipped`, a service's
    malformed records under their reason; count the papers that have no abstract in `notes`."""
    by_reason: dict[str | None, list[str]] = {}
    for source, reason in unparsed:
        by_reason.setdefault(reason, []).append(source)
    for reason, sources in by_reason.items():
        shown = ", ".join(sources[:UNPARSED_SHOWN])
        more = len(sources) - UNPARSED_SHOWN
        what = "entries that did not parse" if reason is None else f"records not read ({reason})"
        report.skipped[f"{what}: {shown}" + (f" and {more} more" if more > 0 else "")] += \
            len(sources)
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
