"""Filtering by the corpus's categorical fields (facets: corpus/facets.py): the filter's form
(`FacetSpec`, `facet_spec`), the values a field may be asked for and each paper's values
(`FacetColumns`, made on first use per field), and the clear refusal of a field or value the
corpus does not have (UnknownFacetError, naming the known ones)."""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from explorer.corpus.facets import STATUS, facet_counts, paper_values
from explorer.corpus.papers import Paper
from explorer.corpus.venues import status_of
from explorer.errors import UnknownFacetError

FacetSpec = tuple[tuple[str, tuple[str, ...]], ...]
MAX_FACETS = 20  # fields in one filter
MAX_FACET_VALUES = 100  # values of one field in one filter
MAX_FACET_CHARS = 200  # of a field's name or a value
SHOWN = 12  # known values named in a refusal


def facet_spec(facets: Mapping[str, Collection[str]] | Collection[tuple[str, Collection[str]]]
               ) -> FacetSpec:
    """A facet filter as Filters keeps it: (field, sorted values) pairs sorted by field, values
    of one field given twice joined; a ValueError past the bounds or on a value not text."""
    pairs = facets.items() if isinstance(facets, Mapping) else facets
    joined: dict[str, set[str]] = {}
    for name, values in pairs:
        if isinstance(values, str):
            values = (values,)
        if not isinstance(name, str) or not all(isinstance(v, str) for v in values):
            raise ValueError("Filters.facets takes field names and values as text")
        joined.setdefault(name.strip(), set()).update(v.strip() for v in values)
    if len(joined) > MAX_FACETS or any(
            len(vs) > MAX_FACET_VALUES or len(n) > MAX_FACET_CHARS
            or any(len(v) > MAX_FACET_CHARS for v in vs) for n, vs in joined.items()):
        raise ValueError(f"Filters.facets takes at most {MAX_FACETS} fields of at most "
                         f"{MAX_FACET_VALUES} values, each at most {MAX_FACET_CHARS} characters")
    return tuple((name, tuple(sorted(values))) for name, values in sorted(joined.items()))


class FacetColumns:
    """The facets of a loaded index: `counts` (stored at build in extras FACETS["fields"], else
    counted from the papers on first use) and, per field asked for, each paper's values (read
    from the papers the first time that field filters; thread-safe, made once)."""

    def __init__(self, papers: Sequence[Paper], stored: Any = None) -> None:
        self._papers = papers
        self._stored = stored if _fits(stored) else None
        self._columns: dict[str, list[tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    @cached_property
    def counts(self) -> dict[str, list[list]]:
        """{field: [[value, papers], ...] most papers first}: the corpus's facets."""
        return self._stored if self._stored is not None else facet_counts(self._papers)

    def resolve(self, name: str, values: Sequence[str]) -> tuple[str, set[str]]:
        """The field and values as the corpus writes them (case and blanks aside; a status
        as corpus/venues.py reads it: "reject" is Rejected); UnknownFacetError otherwise."""
        fields = {key.casefold(): key for key in self.counts}
        field = fields.get(name.casefold())
        if field is None:
            raise UnknownFacetError(
                f"no field {name!r} to filter by in this index; its fields with few values "
                f"are: {', '.join(self.counts) or 'none'}")
        known = {value.casefold(): value for value, _ in self.counts[field]}
        found = set()
        for value in values:
            match = known.get(" ".join(value.split()).casefold())
            if match is None and field == STATUS and (status := status_of(value)) is not None:
                match = known.get(status.status.casefold())
            if match is None:
                shown = [v for v, _ in self.counts[field][:SHOWN]]
                more = len(self.counts[field]) - len(shown)
                raise UnknownFacetError(
                    f"no paper has {field} {value!r}; its values are: {', '.join(shown)}"
                    + (f" and {more} more" if more > 0 else ""))
            found.add(match)
        return field, found

    def mask(self, name: str, values: Sequence[str]) -> np.ndarray:
        """(n,) bool: the papers holding any of `values` in field `name`."""
        field, wanted = self.resolve(name, values)
        column = self._column(field)
        return np.fromiter((not wanted.isdisjoint(held) for held in column), dtype=bool,
                           count=len(column))

    def _column(self, field: str) -> list[tuple[str, ...]]:
        if field not in self._columns:
            with self._lock:
                if field not in self._columns:
                    self._columns[field] = [paper_values(p, field) for p in self._papers]
        return self._columns[field]


def _fits(stored: Any) -> bool:
    return isinstance(stored, dict) and all(
        isinstance(key, str) and isinstance(values, list) for key, values in stored.items())
