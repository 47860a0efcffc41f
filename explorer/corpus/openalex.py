"""OpenAlex works (the API's `results` pages, pyalex's `Works().get()`, the snapshot's lines or
its Parquet rows) -> corpus records.

Read: the work's id ("https://openalex.org/W2741809807" -> the paper id W2741809807), `title`
(else `display_name`), the abstract rebuilt from `abstract_inverted_index` ({"word":
[positions]}; in the snapshot or a Parquet file also a JSON text, or a list of (word,
positions) pairs), `authorships[].author.display_name`, `publication_year`,
`primary_location.source.display_name` (the venue), `doi`, `ids` (doi, mag, pmid, pmcid) and
an arXiv location as external ids, `keywords[].display_name`, and `referenced_works` (as W
ids: the references). The status is Published for a work that is not a preprint, printed in a
journal or a conference's proceedings; else none. The rest is kept in `fields`.

Rebuilding an abstract is bounded: at most `MAX_POSITIONS` (word, position) pairs, positions
below `MAX_POSITION`; words past either bound are left out and counted in the notes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from explorer.corpus.converted import (
    Converted,
    RecordError,
    converted,
    first,
    member,
    objects,
    text,
    texts,
    year_in,
)
from explorer.corpus.fields import FieldBag
from explorer.corpus.identity import arxiv_id, normalise_doi
from explorer.corpus.venues import PUBLISHED

PREFIX = "https://openalex.org/"
READ = ("id", "title", "display_name", "abstract_inverted_index", "authorships",
        "publication_year", "doi", "ids", "keywords", "referenced_works")
MAX_POSITIONS = 20_000
MAX_POSITION = 20_000
MAX_INDEX_CHARS = 1_000_000  # of an inverted index given as a JSON text
CUT = f"OpenAlex abstracts past {MAX_POSITIONS} words (the rest left out)"
WRONG_INDEX = "'abstract_inverted_index' is not a map of words to positions"
PRINTED = ("journal", "conference", "book series", "ebook platform")


def recognises(record: Mapping[str, Any]) -> bool:
    """A work: an inverted abstract, authorships, or an OpenAlex work id."""
    work_id = record.get("id")
    return ("abstract_inverted_index" in record or "authorships" in record
            or (isinstance(work_id, str) and work_id.startswith(PREFIX + "W")))


def read(work: Mapping[str, Any]) -> Converted:
    """One work as a corpus record; a converted.RecordError when its fields are not a work's
    (a title that is not text, an inverted index that is not words and positions)."""
    notes: Counter = Counter()
    work_id = short_id(text(work, "id"))
    source = member(work, "primary_location", "source")
    doi = normalise_doi(text(work, "doi")) or normalise_doi(str(member(work, "ids", "doi") or ""))
    bag = FieldBag(notes)
    bag.add_all(work, READ)
    bag.add("source_type", member(source, "type"))
    return converted(
        bag, notes, id=work_id, title=text(work, "title") or text(work, "display_name"),
        abstract=abstract(work.get("abstract_inverted_index"), notes),
        authors=_authors(work.get("authorships")), year=year_in(work.get("publication_year")),
        venue=member(source, "display_name") if isinstance(member(source, "display_name"), str)
        else None,
        url=_url(work, doi, work_id), status=_status(work, source),
        keywords=[k["display_name"] for k in objects(work.get("keywords"), "keywords")
                  if isinstance(k.get("display_name"), str)],
        external_ids=_external_ids(work, work_id, doi),
        references=[short_id(ref) for ref in texts(work.get("referenced_works"),
                                                   "referenced_works")],
    )


def short_id(value: str) -> str:
    """'https://openalex.org/W2741809807' -> 'W2741809807' (other text as it is)."""
    value = value.strip()
    return value[len(PREFIX):] if value.startswith(PREFIX) else value


def abstract(index: Any, notes: Counter) -> str:
    """The text of an inverted abstract: {"word": [positions]}, its JSON text, or (word,
    positions) pairs (a Parquet map); '' for none. Bounded (the module's note)."""
    if index is None or index == "":
        return ""
    words: dict[int, str] = {}
    seen = 0
    for word, positions in _pairs(index):
        for position in positions:
            if isinstance(position, bool) or not isinstance(position, int):
                raise RecordError("'abstract_inverted_index' has a position that is not a number")
            seen += 1
            if seen > MAX_POSITIONS:
                notes[CUT] += 1
                return _joined(words)
            if 0 <= position < MAX_POSITION:
                words[position] = word
    return _joined(words)


def _joined(words: dict[int, str]) -> str:
    return " ".join(words[position] for position in sorted(words))


def _pairs(index: Any) -> Iterator[tuple[str, list[Any] | tuple[Any, ...]]]:
    """(word, positions) of an inverted index in any of its forms; a RecordError when it is
    not one."""
    if isinstance(index, str):
        try:
            index = json.loads(index[:MAX_INDEX_CHARS])
        except ValueError as exc:
            raise RecordError("'abstract_inverted_index' is not valid JSON") from exc
    if isinstance(index, Mapping) and isinstance(index.get("InvertedIndex"), Mapping):
        index = index["InvertedIndex"]  # the format of older snapshots (and MAG's)
    pairs = index.items() if isinstance(index, Mapping) else index
    if not isinstance(pairs, (list, tuple, type({}.items()))):
        raise RecordError(WRONG_INDEX)
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 \
                or not isinstance(pair[0], str) or not isinstance(pair[1], (list, tuple)):
            raise RecordError(WRONG_INDEX)
        yield pair[0], pair[1]


def _authors(authorships: Any) -> list[str]:
    names = []
    for authorship in objects(authorships, "authorships"):
        name = first([member(authorship, "author", "display_name"),
                      authorship.get("raw_author_name")])
        if isinstance(name, str) and name.strip():
            names.append(name)
    return names


def _url(work: Mapping[str, Any], doi: str | None, work_id: str) -> str | None:
    landing = member(work, "primary_location", "landing_page_url")
    if doi:
        return f"https://doi.org/{doi}"
    if isinstance(landing, str) and landing.startswith(("https://", "http://")):
        return landing
    return PREFIX + work_id if work_id else None


def _status(work: Mapping[str, Any], source: Any) -> str | None:
    kind = member(source, "type")
    if work.get("type") == "preprint" or kind not in PRINTED:
        return None
    return PUBLISHED


def _external_ids(work: Mapping[str, Any], work_id: str, doi: str | None) -> dict[str, str]:
    ids = {"openalex": work_id} if work_id else {}
    if doi:
        ids["doi"] = doi
    for scheme in ("mag", "pmid", "pmcid"):
        value = member(work, "ids", scheme)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            ids[scheme] = str(value).rsplit("/", 1)[-1]
    for location in objects(work.get("locations"), "locations"):
        landing = location.get("landing_page_url")
        if isinstance(landing, str) and (found := arxiv_id(landing)):
            ids["arxiv"] = found
            break
    return ids
