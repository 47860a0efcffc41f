"""A reference list read in memory (an upload, a pasted .bib) and matched against the papers of
an index by the identity rules of corpus/identity.py: which entries the corpus has, which not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from explorer.corpus.bibliography import Unparsed, csl_record, read_bibtex
from explorer.corpus.encodings import decode
from explorer.corpus.identity import Identity, Registry, arxiv_in_text, identify, place_of
from explorer.corpus.papers import Paper, to_paper
from explorer.corpus.readers import json_document
from explorer.corpus.tagged import read_tagged, read_wos, wos_header
from explorer.errors import CorpusError

__all__ = ["KINDS", "Matcher", "ReferenceList", "identity_of", "match_entries",
           "read_references"]
KINDS = {".bib": "bibtex", ".ris": "ris", ".json": "csl-json"}


@dataclass(frozen=True)
class ReferenceList:
    """The entries of a reference list as papers (in file order; `paper_id` is the entry's DOI,
    else arXiv id, else citation key, else text hash), where the entries that did not parse
    start (`unparsed`: `name:line`, or `name#item` in CSL-JSON), and where the entries with
    neither title nor abstract start (`untitled`: read, but nothing to match or search by)."""

    entries: tuple[Paper, ...]
    unparsed: tuple[str, ...] = ()
    untitled: tuple[str, ...] = ()

    @property
    def empty(self) -> int:
        """How many entries had neither title nor abstract."""
        return len(self.untitled)


def read_references(data: str | bytes, name: str, max_bytes: int | None = None) -> ReferenceList:
    """Parse a .bib, .ris (or Web of Science export) or CSL-JSON text (the format by `name`'s
    suffix; a Web of Science export also as .txt) without touching the disk, in the encoding
    the file declares (corpus/encodings.py). Bad input (bytes not in that encoding, a binary
    file, more than `max_bytes`, an unknown suffix, JSON that is not a list, a file in which no
    entry at all is found) is a CorpusError naming the fix; every entry of the file is either
    read or named (`unparsed`, `untitled`)."""
    suffix = PurePath(name).suffix.lower()
    kind = KINDS.get(suffix, "wos" if suffix == ".txt" else None)
    if kind is None:
        raise CorpusError(_NOT_A_LIST.format(name=name))
    text = _as_text(data, name, max_bytes, bibtex=kind == "bibtex")
    if kind == "wos" and not wos_header(text[:200]):
        raise CorpusError(_NOT_A_LIST.format(name=name))
    entries, unparsed, untitled = [], [], []
    for source, record in _records(kind, text, name):
        if isinstance(record, Unparsed):
            unparsed.append(source)
        elif (paper := to_paper(record, source)) is None:
            untitled.append(source)
        else:
            entries.append(paper)
    if not (entries or unparsed or untitled):
        raise CorpusError(f"{name}:1: no references found in it. Give your reference manager's "
                          "export as BibTeX (.bib), RIS (.ris) or CSL JSON (.json).")
    return ReferenceList(tuple(entries), tuple(unparsed), tuple(untitled))


_NOT_A_LIST = ("{name}: not a reference list. Give a .bib (BibTeX), .ris (RIS, or a Web of "
               "Science export) or .json (CSL-JSON) file.")


def _records(kind: str, text: str, name: str) -> Iterator[tuple[str, dict]]:
    if kind == "bibtex":
        return read_bibtex(text, name)
    if kind == "ris":
        return read_tagged(text, name)
    if kind == "wos":
        return read_wos(text, name)
    return _read_csl(text, name)


def _as_text(data: str | bytes, name: str, max_bytes: int | None, *, bibtex: bool) -> str:
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if max_bytes is not None and size > max_bytes:
        raise CorpusError(f"{name}: {size:,} bytes, more than the {max_bytes:,} allowed. Split "
                          "the reference list.")
    if isinstance(data, bytes):
        return decode(data, name, bibtex=bibtex)
    if "\x00" in data:
        raise CorpusError(f"{name}: a NUL byte: this is a binary file, not a reference list. "
                          "Export it as text.")
    return data


def _read_csl(text: str, name: str) -> list[tuple[str, dict]]:
    """Every item of a CSL-JSON array: an object as a CSL item, anything else named."""
    items = json_document(text, name)
    if not isinstance(items, list):
        raise CorpusError(f"{name}:1: expected a JSON array of CSL items (Zotero: Export "
                          "Collection -> CSL JSON).")
    return [(f"{name}#{number}", csl_record(item) if isinstance(item, dict)
             else Unparsed(reason="not a CSL item (a JSON object)"))
            for number, item in enumerate(items, start=1)]


def identity_of(paper: Paper) -> Identity:
    """A stored paper's identity: its id, aliases, URL and BibTeX fields name DOIs/arXiv ids."""
    original = {name.lower(): value for name, value in reversed(paper.original)}
    names = [paper.paper_id, *paper.aliases, paper.url or "",
             *(original.get(k, "") for k in ("doi", "eprint", "url")),
             *(value for scheme, value in paper.external_ids if scheme in ("doi", "arxiv"))]
    names += [arxiv_in_text(original.get(k, "")) or "" for k in ("note", "journal")]
    return identify(names, "" if paper.title_is_derived else paper.title, paper.year,
                    paper.authors, paper.abstract, place_of(paper.original))


class Matcher:
    """The papers of an index, ready to match reference-list entries against (build it once per
    index: about a second per 100,000 papers); `match` is safe from many threads."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._ids = [paper.paper_id for paper in papers]
        self._registry = Registry()
        for row, paper in enumerate(papers):
            self._registry.add(row, identity_of(paper))

    def match(self, entries: Sequence[Paper]) -> tuple[dict[str, str], list[Paper]]:
        """(entry paper_id -> the corpus paper_id it is, the entries the corpus lacks)."""
        matched: dict[str, str] = {}
        missing: list[Paper] = []
        for entry in entries:
            row = self._registry.find(identity_of(entry))
            if row is None:
                missing.append(entry)
            else:
                matched[entry.paper_id] = self._ids[row]
        return matched, missing


def match_entries(entries: Sequence[Paper], papers: Sequence[Paper]
                  ) -> tuple[dict[str, str], list[Paper]]:
    """Which corpus paper each reference-list entry is: (entry paper_id -> corpus paper_id,
    the entries not in the corpus), by DOI, arXiv id, abstract, or (near) title."""
    return Matcher(papers).match(entries)
