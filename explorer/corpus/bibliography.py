"""Reference lists as researchers keep them -> raw records: BibTeX and CSL-JSON (RIS and Web of
Science's export: corpus/tagged.py).

Each entry becomes a `BibRecord`: the corpus fields in plain Unicode (LaTeX accents, braces
and commands decoded by `latex.to_unicode`; authors as "Given Family"), `names` (the
entry's DOI, arXiv id and citation key, in the order they are preferred as its paper id)
and, for BibTeX, `original`: the entry's fields as written (@string macros and # joins
resolved, LaTeX and inner braces kept; no `file` attachment paths), for an export to give
back. An entry that does not parse is an `Unparsed` record at its line: the others are kept
(bibtexparser resumes after a broken entry).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.middlewares.parsestack import default_parse_stack
from bibtexparser.model import Entry, Field, String

from explorer.corpus.identity import arxiv_id, arxiv_in_text, normalise_doi
from explorer.corpus.latex import to_unicode
from explorer.corpus.venues import stated_status

__all__ = ["BibRecord", "Unparsed", "csl_record", "is_csl", "read_bibtex"]
# bibtexparser logs each broken entry as a warning; the build summary names them instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
VENUE_FIELDS = ("journal", "booktitle", "journaltitle", "series")
LOCAL_FIELDS = ("file", "pdf")  # attachment paths on the exporter's disk: never kept
# Fields in which a .bib lists the works an entry cites (ids: DOIs, arXiv ids, citation keys),
# separated by commas, semicolons or blanks; the build resolves them to the corpus's papers.
CITES_FIELDS = ("cites", "references")
_ID_BREAKS = re.compile(r"[,;\s]+")
ARXIV_HINTS = ("note", "journal", "howpublished", "url", "doi", "eprint")
# One piece of a `#` join and the `#` after it. Linear time: a try starts only where a piece
# can (not inside a run of spaces or of a bare word, where it would meet the same end again)
# and nothing is given back once read (possessive, atomic).
_CONCAT = re.compile(r'(?<!\s)\s*+((?>"[^"]*+"|\{[^{}]*+(?:\{[^{}]*+\}[^{}]*+)*+\}'
                     r'|(?<![^#"{}\s])[^#"{}\s]++))\s*+(?:#|$)')


class BibRecord(dict):
    """A record read from a reference list: plain-text fields, `names` and `original`."""


class Unparsed(dict):
    """Where an entry that did not parse starts; `reason` says why."""


def read_bibtex(text: str, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(`name:line`, record) of each entry of a .bib text, in file order."""
    library = bibtexparser.parse_string(text)
    strings = {s.key.lower(): s.value for s in library.strings}
    blocks: list[tuple[int, dict[str, Any]]] = []
    for entry in library.entries:
        blocks.append((entry.start_line, _bibtex_record(entry, strings)))
    for failed in library.failed_blocks:
        entry = failed.ignore_error_block
        if isinstance(entry, Entry) and (entry := _resolved(entry, library)) is not None:
            blocks.append((failed.start_line, _bibtex_record(entry, strings)))
        else:
            reason = getattr(failed.error, "abort_reason", "") or "not a complete entry"
            blocks.append((failed.start_line, Unparsed(reason=reason)))
    for line, record in sorted(blocks, key=lambda block: block[0] or 0):
        yield f"{name}:{(line or 0) + 1}", record


def _resolved(entry: Entry, library: Library) -> Entry | None:
    """An entry bibtexparser set aside (a duplicate key, a field given twice) run through the
    parse stack it skipped (None if that fails); of a field given twice, the first is kept."""
    fields, seen = [], set()
    for field in entry.fields:
        if field.key.lower() not in seen:
            seen.add(field.key.lower())
            fields.append(Field(field.key, field.value, field.start_line))
    alone = Library([String(s.key, s.value) for s in library.strings])
    alone.add(Entry(entry.entry_type, entry.key, fields, entry.start_line))
    for middleware in default_parse_stack():
        alone = middleware.transform(alone)
    return alone.entries[0] if alone.entries and not alone.failed_blocks else None


def _bibtex_record(entry: Entry, strings: dict[str, str]) -> BibRecord:
    raw: dict[str, str] = {}
    original = [("ENTRYTYPE", entry.entry_type), ("ID", entry.key)]
    for field in entry.fields:
        value = str(field.value)
        if field.enclosing == "no-enclosing" and "#" in value:
            value = _concatenate(value, strings)
        raw.setdefault(field.key.lower(), value)
        if field.key.lower() not in LOCAL_FIELDS:
            original.append((field.key, value))
    doi = normalise_doi(raw.get("doi", ""))
    arxiv = next((found for key in ARXIV_HINTS if (found := _arxiv_of(key, raw))), None)
    url = raw.get("url", "")
    return BibRecord(
        title=to_unicode(raw.get("title", "")),
        abstract=to_unicode(raw.get("abstract", "")),
        authors=_bibtex_names(raw.get("author", "")),
        year=raw.get("year") or raw.get("date"),
        venue=to_unicode(next((raw[k] for k in VENUE_FIELDS if raw.get(k)), "")),
        url=to_unicode(url) if "\\" in url else url,
        keywords=to_unicode(raw.get("keywords", "")),
        names=[n for n in (doi, arxiv, entry.key.strip()) if n],
        references=[i for k in CITES_FIELDS for i in _ID_BREAKS.split(raw.get(k, "")) if i],
        original=tuple(original),
        status=stated_status(raw.get("pubstate", ""), raw.get("note", ""),
                             next((raw[k] for k in VENUE_FIELDS if raw.get(k)), "")),
    )


def _arxiv_of(key: str, raw: dict[str, str]) -> str | None:
    value = raw.get(key, "")
    return arxiv_id(value) if key in ("eprint", "doi", "url") else arxiv_in_text(value)


def _concatenate(value: str, strings: dict[str, str]) -> str:
    """`"Proc. of " # acl` -> the pieces joined, each macro replaced by its @string."""
    pieces = []
    for match in _CONCAT.finditer(value):
        piece = match.group(1)
        if piece[0] in "\"{":
            pieces.append(piece[1:-1])
        else:
            pieces.append(strings.get(piece.lower(), piece))
    return "".join(pieces)


def _bibtex_names(field: str) -> list[str]:
    """'M{\\"u}ller, J{\\"o}rg and {Google Research}' -> ['Jörg Müller', 'Google Research']."""
    return [_given_family(name) for name in split_multiple_persons_names(field) if name.strip()]


def _given_family(name: str) -> str:
    parts = parse_single_name_into_parts(name, strict=False)
    return to_unicode(parts.merge_first_name_first)


# CSL 1.0.2's item types: a JSON record of one of them, with none of the corpus format's own
# fields, is a CSL item even with no other CSL field ({"id": "x", "type": "book", "title": "T"}).
CSL_TYPES = frozenset(
    "article article-journal article-magazine article-newspaper bill book broadcast chapter "
    "classic collection dataset document entry entry-dictionary entry-encyclopedia event figure "
    "graphic hearing interview legal_case legislation manuscript map motion_picture "
    "musical_score pamphlet paper-conference patent performance periodical "
    "personal_communication post post-weblog regulation report review review-book software "
    "song speech standard thesis treaty webpage".split())
_CSL_FIELDS = ("container-title", "DOI", "URL", "ISBN", "ISSN", "page", "title-short",
               "citation-key", "collection-title", "publisher-place", "number-of-pages")
_OWN_FIELDS = ("authors", "year", "venue", "summary", "url", "paper_id", "doc_id", "_id")
_CSL_MARKUP = re.compile(r'</?(?:i|b|sc|sup|sub)>|<span class="nocase">|</span>'
                         r'|<span style="font-variant: ?small-caps;?">')


def is_csl(record: dict[str, Any]) -> bool:
    """A JSON record in CSL-JSON (Zotero's JSON export) rather than the corpus's own fields."""
    people = [a for key in ("author", "editor") if isinstance(record.get(key), list)
              for a in record[key]]
    kind = record.get("type")
    return (any(key in record for key in _CSL_FIELDS) or isinstance(record.get("issued"), dict)
            or any(isinstance(a, dict) and ("family" in a or "literal" in a) for a in people)
            or (isinstance(kind, str) and kind in CSL_TYPES
                and not any(key in record for key in _OWN_FIELDS)))


def csl_record(record: dict[str, Any]) -> BibRecord:
    """A CSL-JSON item's fields (CSL's rich-text tags, <i> and the like, taken out of its
    title); the citation key is `citation-key`, or `id` if it is not a URI (Zotero writes item
    URIs there); `references`, when a list of ids, the works it cites (no CSL variable lists
    them; the key is the one this tool's JSON records use)."""
    def text(key: str) -> str:
        value = record.get(key)
        return value if isinstance(value, str) else str(value) if isinstance(value, int) else ""

    doi = normalise_doi(text("DOI"))
    arxiv = next((a for a in (arxiv_id(text("DOI")), arxiv_id(text("URL")),
                              arxiv_in_text(text("number")), arxiv_in_text(text("note"))) if a), None)
    key = text("citation-key") or (text("id") if not re.search(r"[/:\s]", text("id")) else "")
    return BibRecord(
        title=_CSL_MARKUP.sub("", text("title")), abstract=text("abstract"),
        authors=_csl_names(record.get("author")), year=_csl_year(record.get("issued")),
        venue=_CSL_MARKUP.sub("", text("container-title")), url=text("URL"),
        keywords=text("keyword"), names=[n for n in (doi, arxiv, key.strip()) if n], original=(),
        place=(text("volume"), text("issue"), text("page")),
        references=[r for r in refs if isinstance(r, str)]
        if isinstance(refs := record.get("references"), list) else [],
        status=stated_status(text("status"), text("note"), text("container-title")),
    )


def _csl_names(authors: Any) -> list[str]:
    names = []
    for author in authors if isinstance(authors, list) else []:
        if not isinstance(author, dict):
            continue
        parts = [author.get(k) for k in ("given", "dropping-particle", "non-dropping-particle",
                                         "family", "suffix")]
        name = " ".join(p for p in parts if isinstance(p, str) and p.strip())
        literal = author.get("literal")
        names.append(name or (literal if isinstance(literal, str) else ""))
    return [n for n in names if n.strip()]


def _csl_year(issued: Any) -> Any:
    """The year of CSL's {"date-parts": [[2017, 12]]}, or its "raw"/"literal" text."""
    if not isinstance(issued, dict):
        return issued if isinstance(issued, (str, int)) else None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return parts[0][0]
    return issued.get("raw") or issued.get("literal")
