"""The cited set of a draft: a reference list (.bib, .ris, CSL-JSON) matched against the papers
of an index by the identity rules (corpus/identity.py: DOI, arXiv id, abstract, near title;
then a folded abstract, which survives a round trip through BibTeX), or a saved collection's
ids; and which corpus papers are the same paper as a cited one.
"""

from __future__ import annotations

import re
import threading
import unicodedata
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from explorer.corpus.identity import ABSTRACT_MIN_WORDS, Registry
from explorer.corpus.papers import Paper
from explorer.corpus.references import Matcher, ReferenceList, identity_of

__all__ = ["CitedSet", "CorpusMatcher", "Identities", "cited_from_references",
           "folded_abstract", "matcher_for"]


class Corpus(Protocol):
    """What matching reads of an index (an Explorer is one)."""

    @property
    def papers(self) -> list[Paper]: ...


@dataclass(frozen=True)
class CitedSet:
    """A reference list against an index: `paper_ids` the corpus papers its entries are (in
    entry order, without repeats), `missing` the entries the corpus lacks, `unparsed` where
    the entries that did not parse start (`name:line`), `entries` how many were read,
    `untitled` where the entries with neither title nor abstract start."""

    paper_ids: tuple[str, ...]
    missing: tuple[Paper, ...] = ()
    unparsed: tuple[str, ...] = ()
    entries: int = 0
    untitled: tuple[str, ...] = ()

    def summary(self) -> str:
        """'12 of 14 entries are in this index; 2 are not; 1 did not parse (refs.bib:40).'"""
        text = (f"{len(self.paper_ids)} of {self.entries} "
                f"{'entry is' if self.entries == 1 else 'entries are'} in this index")
        if self.missing:
            text += f"; {len(self.missing)} {'is' if len(self.missing) == 1 else 'are'} not"
        for sources, what in ((self.unparsed, "did not parse"),
                              (self.untitled, "had no title or abstract")):
            if sources:
                shown = ", ".join(sources[:5]) + (" …" if len(sources) > 5 else "")
                text += f"; {len(sources)} {what} ({shown})"
        return text + "."


class CorpusMatcher:
    """The papers of an index, to match reference-list entries against: the identity rules
    (references.Matcher), then, for an entry they leave unmatched, its abstract folded to
    ASCII letters and digits (`folded_abstract`): a .bib from a tool that writes the text as
    TeX (`--`, ``quotes'', `\\emph{x}` read back as a dash, curly quotes, `x`) still names its
    paper where rule 3's exact abstract does not. (The app's own export reads back exactly.)"""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._ids = [paper.paper_id for paper in papers]
        self._matcher = Matcher(papers)
        self._folded: dict[str, int] = {}
        for row, paper in enumerate(papers):
            key = folded_abstract(paper.abstract)
            if key:
                self._folded.setdefault(key, row)

    def match(self, entries: Sequence[Paper]) -> tuple[dict[str, str], list[Paper]]:
        """(entry paper_id -> the corpus paper_id it is, the entries the corpus lacks)."""
        matched, unmatched = self._matcher.match(entries)
        missing = []
        for entry in unmatched:
            key = folded_abstract(entry.abstract)
            row = self._folded.get(key) if key else None
            if row is None:
                missing.append(entry)
            else:
                matched[entry.paper_id] = self._ids[row]
        return matched, missing


def folded_abstract(text: str) -> str:
    """An abstract as its ASCII letters and digits, lower case (accents and TeX command words
    such as \\emph dropped: a .bib reader keeps only their argument); "" when it has fewer
    than ABSTRACT_MIN_WORDS words (too short to name one paper)."""
    if len(text.split()) < ABSTRACT_MIN_WORDS:
        return ""
    decomposed = unicodedata.normalize("NFKD", _COMMAND.sub("", text).casefold())
    return _NOT_ALNUM.sub("", decomposed.encode("ascii", "ignore").decode("ascii"))


_COMMAND = re.compile(r"\\[A-Za-z]+")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")  # a character class: linear, no backtracking
_MATCHERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MATCHERS_LOCK = threading.Lock()


def matcher_for(corpus: Corpus) -> CorpusMatcher:
    """The CorpusMatcher of an index's papers, built once per index object (about a second
    per 100,000 papers) and shared by every thread."""
    with _MATCHERS_LOCK:
        matcher = _MATCHERS.get(corpus)
        if matcher is None:
            matcher = _MATCHERS[corpus] = CorpusMatcher(corpus.papers)
    return matcher


def cited_from_references(corpus: Corpus, references: ReferenceList) -> CitedSet:
    """Which corpus papers a reference list's entries are, and which entries it lacks."""
    matched, missing = matcher_for(corpus).match(references.entries)
    ids = dict.fromkeys(matched[entry.paper_id] for entry in references.entries
                        if entry.paper_id in matched)
    return CitedSet(tuple(ids), tuple(missing), references.unparsed, len(references.entries),
                    references.untitled)


class Identities:
    """The identities of the cited papers, for `same`: is a corpus paper one of them (another
    record of the same paper that the corpus did not merge: a preprint, a second export)?"""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self._registry = Registry()
        for number, paper in enumerate(papers):
            self._registry.add(number, identity_of(paper))

    def same(self, paper: Paper) -> bool:
        return self._registry.find(identity_of(paper)) is not None

    def keep(self, papers: Sequence[Paper]) -> list[bool]:
        """For each paper, True when it is none of the cited ones."""
        return [not self.same(paper) for paper in papers]
