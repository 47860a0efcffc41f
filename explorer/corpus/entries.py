"""One raw record -> the fields of a Paper (an "entry"), normalised.

A record is a reader's dict: a corpus line (JSONL, JSON, CSV; paperlists-ml's own), a
reference-list entry (`bibliography.BibRecord`) or a service's record already read into the
same names (`services.Converted`). The attributes a Paper names are read from their usual
field names; the venue goes through `venues.venue_of` ("nips" -> NeurIPS; "ICLR 2024 Poster"
-> ICLR, and the year and status when the record gives none), the status through
`venues.status_of`; DOIs and arXiv ids become `external_ids`; every other scalar or list field
is kept in `fields` (corpus/fields.py). A title that only says the paper is gone ("Withdrawn":
`PLACEHOLDER_TITLES`) is no title: one is derived from the abstract, as for a record without.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from typing import Any

from explorer.corpus.authors import strip_marks
from explorer.corpus.bibliography import BibRecord
from explorer.corpus.converted import Converted
from explorer.corpus.fields import FieldBag, given
from explorer.corpus.identity import arxiv_id, normalise_doi
from explorer.corpus.readers import ABSTRACT_FIELDS
from explorer.corpus.titles import derive_title
from explorer.corpus.venues import status_of, venue_named, venue_of

ID_FIELDS = ("paper_id", "id", "doc_id", "_id")  # _id: BEIR corpora
YEARS = range(1000, 2101)
RAW_IDS = ("doi", "arxiv_id", "arxiv", "eprint")  # read for matching reference-list entries
# Read into a Paper's attributes (never kept again in its fields).
KNOWN = frozenset({*RAW_IDS, "title", "authors", "author", "year",
                   "venue", "url", "keywords", "status", "references", "external_ids", "fields",
                   "sources", "aliases", "title_is_derived"})
PLACEHOLDER_TITLES = frozenset({"withdrawn", "withdrawn paper", "withdrawn submission",
                                "paper withdrawn", "submission withdrawn", "[withdrawn]",
                                "untitled", "no title", "removed", "deleted"})
PLACEHOLDER = "titles that only say the paper was withdrawn or removed (a title derived instead)"
MAX_REFERENCES = 5_000  # ids a paper keeps of the works it cites
MAX_ID = 300  # characters of one reference or external id
_WORD = re.compile(r"\w{2,}")
_YEAR = re.compile(r"(?<![0-9])([0-9]{4})(?![0-9])")
_SCALARS = (str, int, float)


def normalise(text: str) -> str:
    """NFC, one space between words, no leading/trailing blanks."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def stable_id(abstract: str) -> str:
    """A short id that stays the same across rebuilds for the same normalised abstract."""
    return hashlib.sha256(normalise(abstract).encode("utf-8")).hexdigest()[:12]


def to_entry(record: dict[str, Any], source: str, notes: Counter) -> dict[str, Any] | None:
    """Map one raw record to Paper fields plus a dedupe `_key`; None if it has no usable text."""
    abstract_field, abstract = _first_named(record, ABSTRACT_FIELDS)
    abstract = normalise(abstract)
    title = normalise(_first_text(record, ("title",)))
    if title.lower() in PLACEHOLDER_TITLES:
        notes[PLACEHOLDER] += 1
        title = ""
    if not _WORD.search(abstract) and not _WORD.search(title):
        return None
    id_field, given_id = _first_named(record, ID_FIELDS)
    given_id = normalise(given_id)
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
        "authors": [name for name in map(strip_marks, _as_list(
            record.get("authors") or record.get("author"), r";|\band\b")) if name],
        "year": year,
        "venue": None,
        "url": normalise(_text(record.get("url"))) or None,
        "keywords": _as_list(record.get("keywords"), r"[;,]"),
        "sources": [source],
        "aliases": [],
    }
    if isinstance(record, BibRecord):
        entry["_names"], entry["original"] = list(record["names"]), record["original"]
        entry["_place"] = record.get("place", ())
        _describe(entry, record, None)
        _cites(entry, record, notes)
    else:
        _describe_record(entry, record, notes, (id_field, abstract_field))
    return entry


def _describe_record(entry: dict[str, Any], record: dict[str, Any], notes: Counter,
                     read: tuple[str | None, str | None]) -> None:
    """A data record's venue, status, ids and references, and every other field it carries
    (`read`: the id and abstract fields already taken)."""
    bag = FieldBag(notes)
    _describe(entry, record, bag)
    _identify(entry, record, notes)
    if isinstance(record, Converted):
        notes.update(record.notes)
        for name, value in record["fields"]:
            bag.add(name, value)
    else:
        bag.add_all(record, KNOWN, read)
        if isinstance(record.get("fields"), Mapping):  # a paper as this tool writes one
            bag.add_all(record["fields"])
    if fields := bag.freeze():
        entry["fields"] = fields


def _describe(entry: dict[str, Any], record: dict[str, Any], bag: FieldBag | None) -> None:
    """The venue, and the year and status the record or its venue string state; the texts
    they were read from kept in `bag` where they said more ("Findings", "ICLR 2024 Poster")."""
    raw_venue = normalise(_text(record.get("venue")))
    venue = venue_of(raw_venue)
    entry["venue"] = (venue.short if bag is not None else raw_venue) or None
    if entry["year"] is None and venue.year is not None and bag is not None:
        entry["year"] = venue.year
    raw_status = normalise(_text(record.get("status")))
    status = status_of(raw_status) if raw_status else None
    entry_status = status.status if status else venue.status if bag is not None else None
    if entry_status:
        entry["status"] = entry_status
    if bag is None:
        return
    if raw_status and (status is None or not status.exact):
        bag.add(given("status"), raw_status)
    if venue.short and venue.short != raw_venue and venue_named(raw_venue) is None:
        bag.add(given("venue"), raw_venue)
    if venue.track:
        bag.add("track", venue.track)


def _identify(entry: dict[str, Any], record: dict[str, Any], notes: Counter) -> None:
    """The record's external ids (its DOI and arXiv id fields, and an `external_ids` object),
    the raw ids kept for matching reference lists, and the ids of the works it cites."""
    raw = [value for name in RAW_IDS if isinstance(value := record.get(name), str)]
    ids = _external_ids(record.get("external_ids"), raw)
    if raw or ids:
        entry["_ids"] = raw + [v for k, v in ids.items() if k in ("doi", "arxiv")]
    if ids:
        entry["external_ids"] = tuple(ids.items())
    _cites(entry, record, notes)


def _cites(entry: dict[str, Any], record: dict[str, Any], notes: Counter) -> None:
    """The ids of the works the record cites (its `references` list), bounded and once each."""
    references = record.get("references")
    if isinstance(references, list) and references:
        kept = [item.strip()[:MAX_ID] for item in references[:MAX_REFERENCES]
                if isinstance(item, str) and item.strip()]
        if len(references) > MAX_REFERENCES:
            notes[f"references past {MAX_REFERENCES} a paper (dropped)"] += 1
        if kept:
            entry["references"] = tuple(dict.fromkeys(kept))


def _external_ids(given_ids: Any, raw: list[str]) -> dict[str, str]:
    """{scheme: id} of an `external_ids` object (scheme names lower case; texts or whole
    numbers) and of the raw DOI and arXiv fields; DOIs and arXiv ids normalised."""
    ids: dict[str, str] = {}
    pairs = list(given_ids.items())[:32] if isinstance(given_ids, Mapping) else []
    for scheme, value in pairs:
        if isinstance(scheme, str) and isinstance(value, (str, int)) \
                and not isinstance(value, bool) and str(value).strip():
            ids[scheme.lower()[:40]] = str(value).strip()[:MAX_ID]
    for value in raw:
        if (doi := normalise_doi(value)) and not arxiv_id(value):
            ids.setdefault("doi", doi)
        elif found := arxiv_id(value):
            ids.setdefault("arxiv", found)
    if "doi" in ids:
        ids["doi"] = normalise_doi(ids["doi"]) or ids["doi"]
    if "arxiv" in ids:
        ids["arxiv"] = arxiv_id(ids["arxiv"]) or ids["arxiv"]
    return ids


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
    return _first_named(record, names)[1]


def _first_named(record: dict[str, Any], names: tuple[str, ...]) -> tuple[str, str]:
    """(name, text) of the first of `names` whose text is not blank; ("", "") for none."""
    for name in names:
        value = _text(record.get(name))
        if value.strip():
            return name, value
    return "", ""


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
