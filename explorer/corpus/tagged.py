"""Tagged reference lists -> raw records: RIS (`TY  - JOUR` ... `ER  - `) and Web of Science's
tagged export (`PT J` ... `ER`, the "Plain text" / "Other file formats" export; rispy's
WokParser reads both kinds of record).

RIS is read as Zotero reads it: one or two spaces between tag and dash, a reference from its
`TY` line to its `ER` line. Nothing is dropped unnamed: a reference without its `ER` line, and
tag lines outside any reference (a block without a `TY` line), are `Unparsed` records at their
line; so is a file of text with no reference at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import rispy

from explorer.corpus.bibliography import BibRecord, Unparsed
from explorer.corpus.bibliography import _given_family as given_family
from explorer.corpus.identity import arxiv_id, arxiv_in_text, normalise_doi

__all__ = ["is_wos", "read_ris", "read_tagged", "read_wos", "wos_header"]
Records = Iterator[tuple[str, dict[str, Any]]]
_WOS_FIRST = re.compile(r"[ \t\r\n]*(?:FN|VR|PT) ")
_TAG = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?: |$)")


class _RisParser(rispy.RisParser):
    """rispy's RIS parser, taking one space before the dash as well as two (as Zotero does)."""

    def parse_line(self, line: str) -> tuple[str | None, str]:
        match = _TAG.match(line)
        return (match.group(1), line[match.end():].strip()) if match else (None, line.strip())


def is_wos(text: str) -> bool:
    """Whether `text` is a Web of Science tagged export (it starts with an FN, VR or PT line)."""
    return _WOS_FIRST.match(text) is not None


def wos_header(line: str) -> bool:
    """Whether a .txt file's first line is Web of Science's header ('FN Clarivate Analytics
    Web of Science'), so the file is its export rather than seed text."""
    return line.lstrip("\ufeff").startswith("FN ") and "web of" in line.casefold()


def read_tagged(text: str, name: str) -> Records:
    """The records of a .ris file: Web of Science's export when it is one, else RIS."""
    return read_wos(text, name) if is_wos(text) else read_ris(text, name)


def read_ris(text: str, name: str) -> Records:
    """(`name:line`, record) of each TY ... ER reference of an RIS text, in file order."""
    parser = _RisParser()
    yield from _blocks(text, name, _RIS, lambda block: _ris_record(
        _parsed(parser, block, lambda tag, content: f"{tag}  - {content}")))


def read_wos(text: str, name: str) -> Records:
    """(`name:line`, record) of each PT ... ER record of a Web of Science tagged export."""
    parser = rispy.WokParser()
    yield from _blocks(text, name, _WOS, lambda block: _wos_record(
        _parsed(parser, block, lambda tag, content: f"{tag} {content}")))


def _parsed(parser: rispy.RisParser, block: str, line: Callable[[str, str], str]
            ) -> dict[str, Any]:
    """One reference's fields as `parser` reads them, its continuation lines first folded
    into their tag's line (a list tag's: each its own line), as rispy would: rispy joins a
    continued value one line at a time, quadratic in the lines (800 KB took 8 s)."""
    lines: list[str] = []
    pieces: list[str] = []  # the continuation of the last tag line, not yet joined to it
    tag = None
    for raw in block.split("\n"):
        found, content = parser.parse_line(raw)
        if found is None and tag is not None:
            if content and tag in parser.list_tags:
                lines.append(line(tag, content))
            elif content:
                pieces.append(content)
            continue
        if pieces:
            lines[-1] = " ".join([lines[-1], *pieces])
            pieces = []
        tag = found
        lines.append(raw if found is None else line(found, content))
    if pieces:
        lines[-1] = " ".join([lines[-1], *pieces])
    references = parser.parse("\n".join(lines))
    return references[0] if references else {}


@dataclass(frozen=True)
class _Format:
    """A tagged format: its name, the lines that start and end a record, and any tag line
    that belongs in a record (not a file header)."""

    name: str
    start: re.Pattern
    end: re.Pattern
    tag: re.Pattern
    first: str
    last: str


_RIS = _Format("RIS", re.compile(r"^TY {1,2}-(?: |$)", re.MULTILINE),
               re.compile(r"^ER {1,2}-[^\n]*", re.MULTILINE),
               re.compile(r"^[A-Z][A-Z0-9] {1,2}-(?: |$)", re.MULTILINE), "TY  - ", "ER  - ")
_WOS = _Format("Web of Science", re.compile(r"^PT ", re.MULTILINE),
               re.compile(r"^ER[ \t\r]*$", re.MULTILINE),
               re.compile(r"^(?!FN |VR )[A-Z][A-Z0-9] ", re.MULTILINE), "PT ", "ER")


def _blocks(text: str, name: str, kind: _Format, record: Any) -> Records:
    """Each reference from a `kind.start` line to its `kind.end` line as `record(block)`;
    tag lines outside every reference, and a reference with no end, as `Unparsed`."""
    lines = _Lines(text)
    stray = Unparsed(reason=f"tag lines with no '{kind.first.strip()}' line before them: not a "
                            f"{kind.name} reference")
    starts = [m.start() for m in kind.start.finditer(text)]
    done = 0  # where the text not yet read starts
    for start, following in zip(starts, [*starts[1:], len(text)]):
        if found := kind.tag.search(text, done, start):
            yield f"{name}:{lines.at(found.start())}", stray
        end = kind.end.search(text, start, following)
        if end is None:
            yield f"{name}:{lines.at(start)}", Unparsed(
                reason=f"no '{kind.last.strip()}' line ends this reference")
            done = following
            continue
        yield f"{name}:{lines.at(start)}", record(text[start:end.end()] + "\n")
        done = end.end()
    if found := kind.tag.search(text, done):
        yield f"{name}:{lines.at(found.start())}", stray
    elif not starts and text.strip():
        yield f"{name}:1", Unparsed(reason=f"no {kind.name} reference in this file")


class _Lines:
    """Line numbers of positions in `text`, asked in increasing order (one pass in all)."""

    def __init__(self, text: str) -> None:
        self._text, self._position, self._line = text, 0, 1

    def at(self, position: int) -> int:
        if position > self._position:
            self._line += self._text.count("\n", self._position, position)
            self._position = position
        return self._line


def _ris_record(ref: dict[str, Any]) -> BibRecord:
    def first(*keys: str) -> str:
        return _first_text(ref, keys)

    doi = normalise_doi(first("doi"))
    urls = [u for u in ref.get("urls", []) if isinstance(u, str)]
    arxiv = next((a for a in (arxiv_id(first("doi")), *map(arxiv_id, urls),
                              *(arxiv_in_text(n) for n in _strings(ref.get("notes")))) if a), None)
    authors = [*_strings(ref.get("authors")), *_strings(ref.get("first_authors"))]
    return BibRecord(
        title=first("title", "primary_title"), abstract=first("abstract", "notes_abstract"),
        authors=[given_family(a) for a in authors], year=first("year", "publication_year", "date"),
        venue=first("secondary_title", "journal_name", "alternate_title3", "alternate_title1"),
        url=urls[0] if urls else "", keywords=_strings(ref.get("keywords")),
        names=[n for n in (doi, arxiv) if n], original=(),
        place=(first("volume"), first("number"), first("start_page")),
    )


def _wos_record(ref: dict[str, Any]) -> BibRecord:
    """A Web of Science record: TI title, AB abstract, AF (else AU) authors, PY year, SO
    source, DI DOI, DE and ID keywords, UT accession number (its key), VL/IS/BP place."""
    def first(*keys: str) -> str:
        return _first_text(ref, keys)

    doi = normalise_doi(first("doi"))
    authors = _strings(ref.get("author_full_name")) or _strings(ref.get("authors"))
    keywords = [word.strip() for field in ("author_keywords", "keywords_plus")
                for text in _strings(ref.get(field)) for word in text.split(";") if word.strip()]
    return BibRecord(
        title=first("document_title"), abstract=first("abstract"),
        authors=[given_family(a) for a in authors], year=first("publication_year", "early_access_year"),
        venue=first("publication_name", "conference_title"), url="", keywords=keywords,
        names=[n for n in (doi, arxiv_id(first("doi")), first("accession_number")) if n],
        original=(), place=(first("volume"), first("issue"), first("beginning_page")),
    )


def _first_text(ref: dict[str, Any], keys: tuple[str, ...]) -> str:
    """The first of `keys` that holds text (the first item of a list)."""
    for key in keys:
        value = ref.get(key)
        value = value[0] if isinstance(value, list) and value else value
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _strings(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, str) and item.strip()]
