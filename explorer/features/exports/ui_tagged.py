"""Citations -> RIS (written with rispy): what Zotero, Mendeley and EndNote import.

Types: a conference paper `CPAPER` (T2: the proceedings), a journal article `JOUR` (T2 and
JO: the journal), a submission that was not accepted `UNPB` (N1: "Submitted to ICLR 2018",
and its status), an arXiv preprint `UNPB` (N1: "arXiv:ID", UR its page), any other `GEN` (T2:
where it appeared). RIS is one tag a line, so every value has its line breaks and control
characters turned into spaces: no corpus text can start a tag or end a record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import rispy

from explorer.corpus.papers import Paper
from explorer.features.exports.ui_citation import (
    ARTICLE,
    CONFERENCE,
    PREPRINT,
    UNPUBLISHED,
    Citation,
    Name,
    citations,
    safe_arxiv,
    safe_doi,
    safe_url,
)
from explorer.query.engine import Hit

RIS_TYPES = {CONFERENCE: "CPAPER", ARTICLE: "JOUR", UNPUBLISHED: "UNPB", PREPRINT: "UNPB"}
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def to_ris(items: Sequence[Hit | Paper], *, abstract: bool = False) -> str:
    """RIS records of papers or hits (one TY..ER block each); the abstract only when asked."""
    records = [ris_record(cited) for cited in citations(items, abstract=abstract)]
    return rispy.dumps(records, implementation=PlainRis) if records else ""


class PlainRis(rispy.RisWriter):
    """rispy's writer without its "1." line before each record (not RIS: EndNote's and
    Zotero's files have none)."""

    def set_header(self, count: int) -> str:
        return ""


def ris_record(cited: Citation) -> dict[str, Any]:
    """One record as rispy's field names."""
    record: dict[str, Any] = {"type_of_reference": RIS_TYPES.get(cited.kind, "GEN"),
                              "id": cited.key, "title": _line(cited.title)}
    if cited.names:
        record["authors"] = [ris_name(n) for n in cited.names]
    if cited.year:
        record["year"] = str(cited.year)
    container = cited.container or cited.published_in
    if container:
        record["secondary_title"] = _line(container)
    if cited.kind == ARTICLE:
        record["journal_name"] = _line(container)
    record.update(_extras(cited))
    return record


def _extras(cited: Citation) -> dict[str, Any]:
    """Notes, identifiers, keywords and the abstract of a record."""
    record: dict[str, Any] = {}
    notes = [_line(cited.note)] if cited.note else []
    if cited.kind == UNPUBLISHED and cited.status:
        notes.append(f"Status: {_line(cited.status)}")
    if safe_arxiv(cited.arxiv):
        notes.append(f"arXiv:{cited.arxiv}")
    if notes:
        record["notes"] = notes
    if safe_doi(cited.doi):
        record["doi"] = cited.doi
    urls = [u for u in (safe_url(cited.url),) if u]
    if urls:
        record["urls"] = urls
    if cited.keywords:
        record["keywords"] = [k for k in map(_line, cited.keywords) if k]
    if cited.abstract:
        record["abstract"] = _line(cited.abstract)
    return record


def ris_name(name: Name) -> str:
    """'Family, Given' ('Family, Given, Jr.'), RIS's form."""
    return ", ".join(_line(p) for p in (name.family, name.given, name.suffix) if p)


def _line(text: str) -> str:
    return " ".join(_CONTROLS.sub(" ", text).split())
