"""A reference list read in memory (an upload, a pasted .bib) and matched against the papers of
an index by the identity rules of corpus/identity.py: which entries the corpus has, which not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from explorer.corpus.bibliography import Unparsed, csl_record, is_csl, read_bibtex, read_ris
from explorer.corpus.encodings import decode
from explorer.corpus.identity import Identity, Registry, arxiv_in_text, identify, place_of
from explorer.corpus.papers import Paper, to_paper
from explorer.errors import CorpusError
from explorer.files import ReadErrors, parse_json

__all__ = ["KINDS", "Matcher", "ReferenceList", "identity_of", "match_entries",
           "read_references"]
KINDS = {".bib": "bibtex", ".ris": "ris", ".json": "csl-json"}
_ERRORS = ReadErrors(CorpusError)


@dataclass(frozen=True)
class ReferenceList:
    """The entries of a reference list as papers (in file order; `paper_id` is the entry's DOI,
    else arXiv id, else citation key, else text hash), and where the entries that did not parse
    start (`name:line`). `empty`: entries with neither title nor abstract (not kept)."""

    entries: tuple[Paper, ...]
    unparsed: tuple[str, ...] = ()
    empty: int = 0


def read_references(data: str | bytes, name: str, max_bytes: int | None = None) -> ReferenceList:
    """Parse a .bib, .ris or CSL-JSON text (the format by `name`'s suffix) without touching the
    disk, in the encoding the file declares (corpus/encodings.py). Bad input (bytes not in that
    encoding, a binary file, more than `max_bytes`, an unknown suffix, JSON that is not a list
    of CSL items) is a CorpusError naming the fix."""
    kind = KINDS.get(PurePath(name).suffix.lower())
    if kind is None:
        raise CorpusError(f"{name}: not a reference list. Give a .bib (BibTeX), .ris or .json "
                          "(CSL-JSON) file.")
    text = _as_text(data, name, max_bytes, bibtex=kind == "bibtex")
    if kind == "bibtex":
        records = read_bibtex(text, name)
    elif kind == "ris":
        records = read_ris(text, name)
    else:
        records = _read_csl(text, name)
    entries, unparsed, empty = [], [], 0
    for source, record in records:
        if isinstance(record, Unparsed):
            unparsed.append(source)
        elif (paper := to_paper(record, source)) is None:
            empty += 1
        else:
            entries.append(paper)
    return ReferenceList(tuple(entries), tuple(unparsed), empty)


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
    items = parse_json(text, name, _ERRORS)
    if not isinstance(items, list):
        raise CorpusError(f"{name}: expected a JSON array of CSL items (Zotero: Export "
                          "Collection -> CSL JSON).")
    return [(f"{name}#{number}", csl_record(item)) for number, item in enumerate(items, start=1)
            if isinstance(item, dict) and is_csl(item)]


def identity_of(paper: Paper) -> Identity:
    """A stored paper's identity: its id, aliases, URL and BibTeX fields name DOIs/arXiv ids."""
    original = {name.lower(): value for name, value in reversed(paper.original)}
    names = [paper.paper_id, *paper.aliases, paper.url or "",
             *(original.get(k, "") for k in ("doi", "eprint", "url"))]
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
