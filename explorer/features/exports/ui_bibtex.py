"""Citations -> BibTeX (written with bibtexparser), every field inert TeX (ui_tex.py).

Entry types: a conference paper `@inproceedings` (`booktitle`: the proceedings' full name), a
journal article `@article` (`journal`), a submission that was not accepted `@misc` with
`note = {Submitted to ICLR 2018}` and BibLaTeX's `pubstate` (rejected, withdrawn, ...), an arXiv
preprint `@misc` (`howpublished = {arXiv preprint arXiv:ID}`, `eprint`, `archiveprefix`), any
other `@misc` (`howpublished`: where it appeared, as the corpus names it). `doi` and `url`
where known; the abstract only when asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import bibtexparser
from bibtexparser.model import Entry, Field

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
from explorer.features.exports.ui_tex import escape_tex, tex_text
from explorer.query.engine import Hit

ENTRY_TYPES = {CONFERENCE: "inproceedings", ARTICLE: "article"}  # all others: misc
_SPLITTING = re.compile(r",|\band\b", re.IGNORECASE)


def to_bibtex(items: Sequence[Hit | Paper], *, abstract: bool = False) -> str:
    """BibTeX entries of papers or hits, keys unique within the text; the abstract only
    when `abstract`."""
    library = bibtexparser.Library()
    for cited in citations(items, abstract=abstract):
        kind = ENTRY_TYPES.get(cited.kind, "misc")
        library.add(Entry(kind, cited.key, [Field(n, v) for n, v in bib_fields(cited)]))
    layout = bibtexparser.BibtexFormat()
    layout.indent = "  "
    layout.block_separator = "\n"
    return bibtexparser.write_string(library, bibtex_format=layout)


def bib_fields(cited: Citation) -> list[tuple[str, str]]:
    """The (name, value) fields of one entry, values as TeX."""
    fields = [("title", tex_text(cited.title, protect_case=True))]
    if cited.names:
        fields.append(("author", " and ".join(bib_name(n) for n in cited.names)))
    fields.extend(_where(cited))
    if cited.year:
        fields.append(("year", str(cited.year)))
    if cited.note:
        fields.append(("note", tex_text(cited.note)))
    if cited.kind == UNPUBLISHED and cited.status:
        fields.append(("pubstate", escape_tex(cited.status)))
    fields.extend(_identifiers(cited))
    if cited.keywords:
        fields.append(("keywords", escape_tex(", ".join(cited.keywords))))
    if cited.abstract:
        fields.append(("abstract", tex_text(cited.abstract)))
    return fields


def _where(cited: Citation) -> list[tuple[str, str]]:
    """Where the paper appeared: booktitle, journal or howpublished."""
    if cited.kind == CONFERENCE:
        return [("booktitle", tex_text(cited.container))]
    if cited.kind == ARTICLE:
        return [("journal", tex_text(cited.container))]
    if cited.kind == PREPRINT:
        return [("howpublished", escape_tex(f"arXiv preprint arXiv:{cited.arxiv}"
                                            if safe_arxiv(cited.arxiv) else "arXiv"))]
    return [("howpublished", tex_text(cited.published_in))] if cited.published_in else []


def _identifiers(cited: Citation) -> list[tuple[str, str]]:
    fields = []
    if safe_doi(cited.doi):
        fields.append(("doi", escape_tex(cited.doi)))
    if safe_arxiv(cited.arxiv):
        fields += [("eprint", cited.arxiv), ("archiveprefix", "arXiv")]
    url = safe_url(cited.url)
    if url:
        fields.append(("url", url))
    return fields


def bib_name(name: Name) -> str:
    """'Family, Given' ('Family, Jr., Given'; a one-word name alone), each part escaped and
    braced when it holds a comma or the word 'and', which would split it."""
    parts = [_part(p) for p in (name.family, name.suffix, name.given) if p]
    return ", ".join(parts)


def _part(text: str) -> str:
    escaped = escape_tex(text)
    return "{" + escaped + "}" if _SPLITTING.search(text) else escaped
