"""Records in the forms scholarly services write, recognised by what they hold (never by the
file's name) and read into the corpus's own field names.

- OpenReview notes, API v1 (`content.title`) and v2 (`content.title.value`): corpus/openreview.py
- OpenAlex works (API pages or the snapshot's lines): corpus/openalex.py
- the arXiv metadata snapshot (Kaggle's arxiv-metadata-oai-snapshot.json): corpus/arxiv.py
- Semantic Scholar Graph API papers and its datasets' papers and abstracts: corpus/scholar.py

`convert(record)` gives a `Converted` record (title, abstract, authors, year, venue, url,
keywords, status, external_ids, references as entries.py reads them; `fields`: the rest,
already gathered), a `Malformed` one (a record of a known form whose fields are not of that
form: named in the build summary with its reason, the others read) or the record unchanged
(the corpus's own format, CSL-JSON). `unwrap` opens the pages APIs return
({"results": [...]}, {"data": [...]}, {"notes": [...]}).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explorer.corpus import arxiv, openalex, openreview, scholar
from explorer.corpus.converted import Converted, Malformed, RecordError

__all__ = ["Converted", "Malformed", "convert", "recognise", "unwrap"]
READERS = (openreview, arxiv, scholar, openalex)  # tried in this order
# A record that holds none of these fields (nor a title that is an object: an OpenReview
# note's content alone) is none of theirs (the corpus's own: a fast path).
TRIGGERS = frozenset({"content", "authors_parsed", "versions", "paperId", "corpusid", "corpusId",
                      "externalIds", "externalids", "abstract_inverted_index", "authorships",
                      "id"})

PAGE_KEYS = ("results", "data", "notes")  # OpenAlex, Semantic Scholar, OpenReview pages


def unwrap(value: Any) -> list[Any] | None:
    """The records of an API page ({"results": [...]}, {"data": [...]}, {"notes": [...]}):
    the list under the first such key that holds one; None for anything else."""
    if not isinstance(value, dict):
        return None
    for key in PAGE_KEYS:
        if isinstance(value.get(key), list) and not _is_record(value, key):
            return value[key]
    return None


def convert(record: dict[str, Any]) -> dict[str, Any]:
    """`record` in the corpus's field names if a service wrote it (Converted or Malformed),
    else unchanged."""
    known = not TRIGGERS.isdisjoint(record) or isinstance(record.get("title"), dict)
    reader = recognise(record) if known else None
    if reader is None:
        return record
    try:
        return reader(record)
    except RecordError as exc:
        return Malformed(reason=str(exc))


def recognise(record: dict[str, Any]) -> Callable[[dict[str, Any]], Converted] | None:
    """The reader for `record`'s form, by the fields it holds; None for the corpus's own."""
    for module in READERS:
        if module.recognises(record):
            return module.read
    return None


def _is_record(value: dict[str, Any], key: str) -> bool:
    """A paper that happens to have a list under a page key (OpenReview's note "data"?): a
    page has no title or abstract of its own."""
    return any(name in value for name in ("title", "abstract", "content", "paperId"))
