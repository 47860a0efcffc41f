"""Citations -> CSL-JSON (a JSON array of CSL items): what pandoc, Zotero and citeproc read.

Types: a conference paper `paper-conference` (container-title: the proceedings), a journal
article `article-journal`, a submission that was not accepted `manuscript` (note and `genre`,
which APA shows, "Submitted to ICLR 2018"; `status` "rejected", "withdrawn", ...), an arXiv
preprint `article` (publisher arXiv, number "arXiv:ID"), any other `article`
(container-title: where it appeared). CSL reads
a few HTML tags in titles (<i>, <b>, <sup>, ...) as rich text: in corpus text their `<` is
written as its full-width twin, so no corpus text becomes markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

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

CSL_TYPES = {CONFERENCE: "paper-conference", ARTICLE: "article-journal",
             UNPUBLISHED: "manuscript", PREPRINT: "article"}
# The tags CSL processors read as rich text (citeproc-js, citeproc-py, pandoc).
_RICH_TEXT = re.compile(r"<(?=/?(?:i|b|sc|sup|sub|span)\b)", re.IGNORECASE)


def to_csl_json(items: Sequence[Hit | Paper], *, abstract: bool = False) -> str:
    """A JSON array of CSL items (CSL 1.0.1: the id is the citation key), indented, UTF-8 as
    written; the abstract only when asked."""
    items_ = [csl_item(cited) for cited in citations(items, abstract=abstract)]
    return json.dumps(items_, ensure_ascii=False, indent=2) + "\n"


def csl_item(cited: Citation) -> dict[str, Any]:
    """One CSL item."""
    item: dict[str, Any] = {"id": cited.key, "type": CSL_TYPES.get(cited.kind, "article"),
                            "title": _inert(cited.title)}
    if cited.names:
        item["author"] = [csl_name(n) for n in cited.names]
    if cited.year:
        item["issued"] = {"date-parts": [[cited.year]]}
    container = cited.container or cited.published_in
    if container:
        item["container-title"] = _inert(container)
    if cited.kind == PREPRINT:
        item["publisher"] = "arXiv"
    if safe_arxiv(cited.arxiv):
        item["number"] = f"arXiv:{cited.arxiv}"
    item.update(_extras(cited))
    return item


def _extras(cited: Citation) -> dict[str, Any]:
    """Note, status, identifiers, keywords and the abstract of an item."""
    item: dict[str, Any] = {}
    if cited.note:
        item["note"] = _inert(cited.note)
    if cited.kind == UNPUBLISHED:  # APA shows the genre: [Submitted to ICLR 2018]
        item["genre"] = _inert(cited.note)
        if cited.status:
            item["status"] = cited.status
    if safe_doi(cited.doi):
        item["DOI"] = cited.doi
    url = safe_url(cited.url)
    if url:
        item["URL"] = url
    if cited.keywords:
        item["keyword"] = _inert(", ".join(cited.keywords))
    if cited.abstract:
        item["abstract"] = _inert(cited.abstract)
    return item


def csl_name(name: Name) -> dict[str, str]:
    """{"family", "given", "suffix"} (the parts a name has)."""
    parts = {"family": name.family, "given": name.given, "suffix": name.suffix}
    return {key: _inert(value) for key, value in parts.items() if value}


def _inert(text: str) -> str:
    return _RICH_TEXT.sub("\uff1c", text)
