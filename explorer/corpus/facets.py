"""The categorical fields of a corpus (facets): status, venue, year and every field of
`Paper.fields` with few distinct values (track, primary area, an arXiv category, ...), each
paper's values in them, and how many papers hold each value.

A field is a facet when its values are texts, whole numbers or true/false (or lists of them)
and the corpus holds at most `MAX_VALUES` distinct ones, some of them shared by two papers; a
field of longer texts (a TL;DR, an abstract's note), of many values (keywords) or of one value per
paper (an id, a creation date, on a small corpus too) is kept with the paper but is no facet.
A value is compared as text: `value_text` (true/false as "true"/"false", numbers as digits).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from explorer.corpus.fields import FieldValue, given
from explorer.corpus.papers import Paper, countable_year

STATUS, VENUE, YEAR = "status", "venue", "year"
ATTRIBUTES = (STATUS, VENUE, YEAR)  # the facets a Paper holds as attributes
MAX_VALUES = 60  # distinct values of a facet; a field with more is no facet
MAX_VALUE_CHARS = 120  # a longer text is no category
UNIQUE_FROM = 5  # papers holding a field, each with a value of its own: an identifier
NOT_FACETS = frozenset({"tldr", "doc_id", "id", "url", "pdf", "abstract", given("venue")})


def value_text(value: FieldValue) -> str | None:
    """One scalar as a facet compares it; None for what is no category (a fraction, a long
    text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and 0 < len(value) <= MAX_VALUE_CHARS:
        return value
    return None


def paper_values(paper: Paper, name: str) -> tuple[str, ...]:
    """A paper's values in the facet `name` (() when it has none)."""
    if name == STATUS:
        return (paper.status,) if paper.status else ()
    if name == VENUE:
        return (paper.venue,) if paper.venue else ()
    if name == YEAR:
        year = countable_year(paper.year)
        return () if year is None else (str(year),)
    value = paper.field(name)
    items = value if isinstance(value, tuple) else (value,) if value is not None else ()
    return tuple(text for item in items if (text := value_text(item)) is not None)


def facet_counts(papers: Iterable[Paper]) -> dict[str, list[list]]:
    """The corpus's facets: {name: [[value, papers], ...] most papers first}, status, venue and
    year first, then the fields in the order first met. One pass; a field is dropped as soon
    as it has more than MAX_VALUES values (bounded memory)."""
    counts: dict[str, Counter[str]] = {name: Counter() for name in ATTRIBUTES}
    dropped: set[str] = set(NOT_FACETS)
    for paper in papers:
        names = [*ATTRIBUTES, *(name for name, _ in paper.fields if name not in dropped)]
        for name in names:
            values = _facet_values(paper, name)
            if values is None:
                dropped.add(name)
                counts.pop(name, None)
                continue
            counter = counts.setdefault(name, Counter())
            counter.update(set(values))
            if name not in ATTRIBUTES and len(counter) > MAX_VALUES:
                dropped.add(name)
                del counts[name]
    return {name: [[value, n] for value, n in sorted(counter.items(), key=_order)]
            for name, counter in counts.items() if counter and not _identifier(name, counter)}


def _identifier(name: str, counter: Counter[str]) -> bool:
    """A field whose every value one paper holds alone, on UNIQUE_FROM papers or more."""
    return (name not in ATTRIBUTES and len(counter) >= UNIQUE_FROM
            and max(counter.values()) == 1)


def _facet_values(paper: Paper, name: str) -> tuple[str, ...] | None:
    """`paper_values`, or None when the field holds what is no category."""
    if name in ATTRIBUTES:
        return paper_values(paper, name)
    value = paper.field(name)
    items = value if isinstance(value, tuple) else (value,)
    texts = tuple(value_text(item) for item in items)
    return None if None in texts else texts  # type: ignore[return-value]


def _order(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
