"""What the service readers (openreview, openalex, arxiv, scholar) give, and the checks they
share: a field that must be text, a list of texts, a year from a date or a timestamp."""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from explorer.corpus.bibliography import Unparsed
from explorer.corpus.fields import FieldBag

MAX_LIST = 2_000  # items read of one list (authors, keywords, ids)
_YEAR = re.compile(r"(?<![0-9])(1[0-9]{3}|20[0-9]{2}|2100)(?![0-9])")


class Converted(dict):
    """A service's record in the corpus's field names (entries.to_entry reads it): id, title,
    abstract, authors, year, venue, url, keywords, status, external_ids ({scheme: id}),
    references (ids of cited works), fields (Paper.fields, gathered). `notes`: what reading it
    cut or dropped; `join`: the key under which its abstract is joined from another file
    (scholar.AbstractJoin), when it has none of its own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notes: Counter = Counter()
        self.join: str | None = None


class Malformed(Unparsed):
    """A record of a known form that is not of that form; `reason` says what is wrong."""


class RecordError(ValueError):
    """Raised by a reader: the record is malformed (the message says how)."""


def converted(bag: FieldBag, notes: Counter, **values: Any) -> Converted:
    """A Converted record of `values`, its fields from `bag` (whose notes are `notes`)."""
    record = Converted(values, fields=bag.freeze())
    record.notes = notes
    return record


def text(record: Mapping[str, Any], *names: str) -> str:
    """The first of `names` that `record` holds as text ("" when none does); a RecordError
    when one holds something else (a number is text too)."""
    for name in names:
        value = record.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise RecordError(f"'{name}' is not text")
        if str(value).strip():
            return str(value)
    return ""


def texts(value: Any, name: str) -> list[str]:
    """A list of texts (None items and blanks left out); a RecordError for anything else."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"'{name}' is not a list")
    kept = []
    for item in value[:MAX_LIST]:
        if item is None:
            continue
        if not isinstance(item, str):
            raise RecordError(f"'{name}' holds {type(item).__name__}s, not texts")
        if item.strip():
            kept.append(item)
    return kept


def objects(value: Any, name: str) -> list[Mapping[str, Any]]:
    """A list of objects (others left out); a RecordError when it is not a list."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"'{name}' is not a list")
    return [item for item in value[:MAX_LIST] if isinstance(item, Mapping)]


def member(record: Mapping[str, Any], *path: str) -> Any:
    """record[path[0]][path[1]]...; None where a step is missing or not an object."""
    value: Any = record
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def year_in(value: Any) -> int | None:
    """A year: an integer in 1000..2100, or the first such run of four digits in a text
    ("Mon, 2 Apr 2007 19:18:42 GMT", "2024-05-01")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1000 <= value <= 2100 else None
    if isinstance(value, str):
        found = _YEAR.search(value[:100])
        return int(found.group(1)) if found else None
    return None


def year_of_millis(value: Any) -> int | None:
    """The UTC year of a time in milliseconds since 1970 (OpenReview's cdate, pdate)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        year = datetime.datetime.fromtimestamp(value / 1000, datetime.timezone.utc).year
    except (OverflowError, OSError, ValueError):
        return None
    return year if 1000 <= year <= 2100 else None


def first(values: Iterable[Any]) -> Any:
    """The first value that is not None or empty."""
    return next((value for value in values if value not in (None, "", [], {})), None)
