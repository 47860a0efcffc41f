"""Semantic Scholar papers (the Graph API's paper objects, its search and batch responses; the
datasets' `papers` and `abstracts` records) -> corpus records.

Graph API fields are camelCase (`paperId`, `externalIds`, `publicationVenue`, `citationCount`),
the datasets' lower case (`corpusid`, `externalids`, `publicationvenueid`); both are read. The
paper id is `paperId`, else "CorpusId:<corpusid>" (the form the API accepts). Read: title,
abstract, `authors[].name`, year, venue (`venue`, else `publicationVenue.name`, else
`journal.name`), url, `externalIds` (DOI, ArXiv, CorpusId, MAG, PubMed, PubMedCentral, DBLP,
ACL, as external ids), `references[].paperId` (the references), `tldr.text` (the field
`tldr`). The status is Published for a journal article or conference paper printed outside a
preprint server; else none. The rest is kept in `fields` (but `embedding`: a vector).

The datasets keep abstracts apart from papers: an `abstracts` record (a corpus id and an
abstract, no title) is joined to the `papers` record of the same corpus id, in whichever file
and order they come (`AbstractJoin`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from explorer.corpus.converted import Converted, converted, first, member, objects, text, year_in
from explorer.corpus.fields import TLDR, FieldBag
from explorer.corpus.identity import arxiv_id, normalise_doi
from explorer.corpus.venues import PUBLISHED

SCHEMES = {"doi": "doi", "arxiv": "arxiv", "corpusid": "corpus_id", "mag": "mag",
           "pubmed": "pmid", "pubmedcentral": "pmcid", "dblp": "dblp", "acl": "acl"}
READ = frozenset({"paperid", "corpusid", "title", "abstract", "authors", "year", "venue", "url",
                  "externalids", "references", "tldr", "embedding", "citations"})
PRINTED_TYPES = frozenset({"journalarticle", "conference"})
PREPRINT_SERVERS = ("arxiv", "biorxiv", "medrxiv", "chemrxiv", "ssrn", "research square",
                    "preprints.org", "techrxiv", "psyarxiv", "osf preprints")
ORPHANS = "Semantic Scholar abstracts whose papers record was not read (give its papers file too)"


def recognises(record: Mapping[str, Any]) -> bool:
    """A Semantic Scholar paper: a paperId or corpus id, or external ids in its spelling."""
    return any(key in record for key in ("paperId", "corpusid", "corpusId", "externalIds",
                                         "externalids"))


def read(paper: Mapping[str, Any]) -> Converted:
    """One paper (or a datasets' abstracts record) as a corpus record; a converted.RecordError
    when its fields are not a paper's."""
    lower = {key.lower(): value for key, value in paper.items() if isinstance(key, str)}
    corpus_id = lower.get("corpusid")
    paper_id = text(lower, "paperid") or (f"CorpusId:{corpus_id}" if _is_id(corpus_id) else "")
    venue = first([text(lower, "venue"), member(lower, "publicationvenue", "name"),
                   member(lower, "journal", "name")])
    notes: Counter = Counter()
    bag = FieldBag(notes)
    bag.add(TLDR, member(lower, "tldr", "text"))
    bag.add_all({k: v for k, v in paper.items() if str(k).lower() not in READ})
    record = converted(
        bag, notes, id=paper_id, title=text(lower, "title"), abstract=text(lower, "abstract"),
        authors=[a["name"] for a in objects(lower.get("authors"), "authors")
                 if isinstance(a.get("name"), str)],
        year=year_in(lower.get("year")), venue=venue if isinstance(venue, str) else None,
        url=text(lower, "url") or None, status=_status(lower, venue),
        external_ids=_external_ids(lower, paper_id, corpus_id),
        references=[ref if isinstance(ref, str) else ref.get("paperId")
                    for ref in _references(lower.get("references"))],
    )
    if _is_id(corpus_id) and not (record["abstract"] and record["title"]):
        record.join = str(corpus_id)  # a papers record, or an abstracts one: joined later
    return record


def _is_id(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and value.isdigit())


def _references(value: Any) -> list[Any]:
    items = value if isinstance(value, list) else []
    return [item for item in items if (isinstance(item, str) and item)
            or (isinstance(item, Mapping) and isinstance(item.get("paperId"), str))]


def _status(lower: Mapping[str, Any], venue: Any) -> str | None:
    kinds = lower.get("publicationtypes")
    kinds = {k.lower() for k in kinds if isinstance(k, str)} if isinstance(kinds, list) else set()
    venue_type = member(lower, "publicationvenue", "type")
    printed = bool(kinds & PRINTED_TYPES) or venue_type in ("journal", "conference")
    if not printed or not isinstance(venue, str) or not venue.strip():
        return None
    name = venue.lower()
    return None if any(server in name for server in PREPRINT_SERVERS) else PUBLISHED


def _external_ids(lower: Mapping[str, Any], paper_id: str, corpus_id: Any) -> dict[str, str]:
    ids = {"s2": paper_id} if paper_id and not paper_id.startswith("CorpusId:") else {}
    given = lower.get("externalids")
    for scheme, value in (given.items() if isinstance(given, Mapping) else ()):
        name = SCHEMES.get(str(scheme).lower())
        if name and isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            ids[name] = str(value)
    if _is_id(corpus_id):
        ids.setdefault("corpus_id", str(corpus_id))
    if "doi" in ids:
        ids["doi"] = normalise_doi(ids["doi"]) or ids["doi"]
    if "arxiv" in ids:
        ids["arxiv"] = arxiv_id(ids["arxiv"]) or ids["arxiv"]
    return ids


class AbstractJoin:
    """Semantic Scholar datasets' abstracts joined to their papers by corpus id: `offer` each
    record as read (it returns the records ready to add), then `rest` at the end."""

    def __init__(self) -> None:
        self._abstracts: dict[str, tuple[str, str]] = {}  # corpus id -> (source, abstract)
        self._waiting: dict[str, tuple[str, Converted]] = {}  # papers without their abstract

    def offer(self, source: str, record: Any) -> Iterator[tuple[str, Any, list[str]]]:
        """(source, record, the other sources it was joined from) of each record ready."""
        key = getattr(record, "join", None)
        if key is None:
            yield source, record, []
        elif not record["title"]:  # an abstract alone (or nothing): wait for its paper
            paper = self._waiting.pop(key, None)
            if paper is None:
                self._abstracts.setdefault(key, (source, record["abstract"]))
            else:
                yield self._joined(paper, (source, record["abstract"]))
        elif key in self._abstracts:
            yield self._joined((source, record), self._abstracts.pop(key))
        else:
            self._waiting.setdefault(key, (source, record))

    def rest(self, skipped: Counter) -> Iterator[tuple[str, Any, list[str]]]:
        """The papers whose abstract never came (as they are); abstracts whose paper never
        came are counted in `skipped`."""
        for source, record in self._waiting.values():
            yield source, record, []
        if self._abstracts:
            skipped[ORPHANS] += len(self._abstracts)

    @staticmethod
    def _joined(paper: tuple[str, Converted], part: tuple[str, str]
                ) -> tuple[str, Converted, list[str]]:
        source, record = paper
        record["abstract"] = part[1]
        return source, record, [part[0]]
