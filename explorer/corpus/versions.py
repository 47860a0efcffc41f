"""Versions of one work: records of the corpus that are one work published (or submitted)
more than once, across venues or years: an ICLR 2018 reject that reappeared at NeurIPS 2018.

Two papers are versions of one work when they share a DOI or an arXiv id, or when their
titles are the same once case, accents and punctuation are folded (corpus/identity.py's
`title_words`, at least `identity.TITLE_MIN_LETTERS` letters) and they have an author's family
name in common. Papers linked in a chain form one work (`version_groups`). A title shared by
more than `MAX_BUCKET` papers is generic ("Introduction", "Withdrawn") and links nothing.
Which version is the one to cite: `preferred` (accepted over workshop over submitted over
rejected over withdrawn: venues.citable_rank; then the latest year)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from explorer.corpus.identity import TITLE_MIN_LETTERS, family_name, title_words
from explorer.corpus.papers import Paper
from explorer.corpus.venues import citable_rank

MAX_BUCKET = 20  # papers under one title or id; more: a generic title, nothing linked
ID_SCHEMES = ("doi", "arxiv")


def version_groups(papers: Sequence[Paper]) -> list[list[int]]:
    """The rows of `papers` that are versions of one work, each group sorted, groups by first
    row; papers with no other version are in no group. Time linear in the papers (bounded
    buckets)."""
    parent = list(range(len(papers)))
    for bucket in _buckets(papers):
        _link_bucket(papers, bucket, parent)
    groups: dict[int, list[int]] = defaultdict(list)
    for row in range(len(papers)):
        groups[_root(parent, row)].append(row)
    return sorted(group for group in groups.values() if len(group) > 1)


def preferred(papers: Iterable[Paper]) -> Paper:
    """The version of a work to cite: the best `citable_rank` of its status, then the latest
    (a tie: the first given)."""
    return max(papers, key=cite_order)


def cite_order(paper: Paper) -> tuple[int, int]:
    """How much a version is the one to cite (higher: more): its status's rank, its year."""
    return citable_rank(paper.status), paper.year or 0


def title_key(title: str) -> str | None:
    """A title as versions compare it (folded words), None when too short to say anything."""
    words = title_words(title)
    return " ".join(words) if sum(len(w) for w in words) >= TITLE_MIN_LETTERS else None


def _buckets(papers: Sequence[Paper]) -> Iterable[tuple[bool, list[int]]]:
    """(by id, rows) of papers under one title key or one DOI / arXiv id."""
    keyed: dict[tuple[str, str], list[int]] = defaultdict(list)
    for row, paper in enumerate(papers):
        if not paper.title_is_derived and (key := title_key(paper.title)):
            keyed["title", key].append(row)
        for scheme in ID_SCHEMES:
            if value := paper.external_id(scheme):
                keyed[scheme, value.lower()].append(row)
    for (kind, _), rows in keyed.items():
        if 1 < len(rows) <= MAX_BUCKET:
            yield kind != "title", rows


def _link_bucket(papers: Sequence[Paper], bucket: tuple[bool, list[int]], parent: list[int]
                 ) -> None:
    """Link the rows of one bucket: all of them for an id, those sharing a family name for a
    title."""
    by_id, rows = bucket
    names = {row: {n for a in papers[row].authors if (n := family_name(a))} for row in rows}
    for i, first in enumerate(rows):
        for second in rows[i + 1:]:
            if by_id or names[first] & names[second]:
                parent[_root(parent, second)] = _root(parent, first)


def _root(parent: list[int], row: int) -> int:
    while parent[row] != row:
        parent[row] = parent[parent[row]]
        row = parent[row]
    return row
