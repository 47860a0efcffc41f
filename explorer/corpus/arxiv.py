"""The arXiv metadata snapshot (Kaggle's arxiv-metadata-oai-snapshot.json: one JSON object a
line) -> corpus records.

A record: `id` ("2501.01234", or an old-style "hep-th/9901001", kept as the paper's id),
`title` (line breaks folded), `abstract`, `authors` (one text: "A. One, B. Two and C. Three")
and `authors_parsed` ([["One", "A.", ""], ...], read first), `versions` ([{"version": "v1",
"created": "Mon, 2 Apr 2007 19:18:42 GMT"}, ...]: the first one's year is the paper's; else
the year the id encodes), `categories` ("cs.LG stat.ML": the field `categories`), `doi`,
`journal-ref`, `comments`, ... (kept in `fields`). The venue is arXiv; the status none (a
preprint: a `journal-ref` is kept as given, not read as a publication).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from explorer.corpus.converted import Converted, RecordError, converted, objects, text, year_in
from explorer.corpus.fields import CATEGORIES, FieldBag
from explorer.corpus.identity import arxiv_id, normalise_doi

ABS = "https://arxiv.org/abs/"
READ = ("id", "title", "abstract", "authors", "authors_parsed", "versions", "categories", "doi")
_NEW_ID = re.compile(r"([0-9]{2})([0-9]{2})\.[0-9]{4,5}")
_OLD_ID = re.compile(r"[a-z][a-z.\-]{0,30}/([0-9]{2})([0-9]{2})[0-9]{3}")
_AUTHORS = re.compile(r", ?| and ")  # on text whose blanks are folded to single spaces


def recognises(record: Mapping[str, Any]) -> bool:
    """A snapshot record: `authors_parsed`, or `versions` with `categories`."""
    return "authors_parsed" in record or (
        isinstance(record.get("versions"), list) and "categories" in record)


def read(record: Mapping[str, Any]) -> Converted:
    """One snapshot record as a corpus record; a converted.RecordError when its fields are
    not the snapshot's."""
    raw_id = text(record, "id").strip()
    paper_id = arxiv_id(raw_id) or raw_id
    versions = objects(record.get("versions"), "versions")
    created = text(versions[0], "created") if versions else ""
    doi = normalise_doi(text(record, "doi"))
    notes: Counter = Counter()
    bag = FieldBag(notes)
    categories = text(record, "categories").split()
    if categories:
        bag.add(CATEGORIES, categories)
    if created:
        bag.add("created", created)
    if len(versions) > 1:
        bag.add("version", text(versions[-1], "version"))
    bag.add_all(record, READ)
    return converted(
        bag, notes, id=paper_id, title=text(record, "title"), abstract=text(record, "abstract"),
        authors=_authors(record), year=year_in(created) or _id_year(paper_id), venue="arXiv",
        url=ABS + paper_id if paper_id else None,
        external_ids={k: v for k, v in (("arxiv", arxiv_id(raw_id)), ("doi", doi)) if v},
    )


def _authors(record: Mapping[str, Any]) -> list[str]:
    """Names from `authors_parsed` (family, given, suffix) as "Given Family Suffix", else
    the `authors` text split at commas and "and"."""
    parsed = record.get("authors_parsed")
    if parsed is not None:
        if not isinstance(parsed, list):
            raise RecordError("'authors_parsed' is not a list")
        names = []
        for parts in parsed[:2_000]:
            if not isinstance(parts, list) or not all(isinstance(p, (str, type(None)))
                                                      for p in parts[:3]):
                raise RecordError("'authors_parsed' holds something other than name parts")
            family, given, suffix = [*(p or "" for p in parts[:3]), "", ""][:3]
            names.append(" ".join(p.strip() for p in (given, family, suffix) if p.strip()))
        if any(names):
            return [name for name in names if name]
    folded = " ".join(text(record, "authors").split())
    return [name for name in _AUTHORS.split(folded) if name.strip()]


def _id_year(paper_id: str) -> int | None:
    """The year an arXiv id encodes: 2501.01234 -> 2025, hep-th/9901001 -> 1999."""
    found = _NEW_ID.fullmatch(paper_id) or _OLD_ID.fullmatch(paper_id)
    if found is None:
        return None
    year, month = int(found.group(1)), int(found.group(2))
    if not 1 <= month <= 12:
        return None
    return 1900 + year if year >= 91 else 2000 + year
