"""How results are restricted: Filters, the facet table and the rows a ranking may not return
(Blocked)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from explorer.corpus.authors import MAX_NAME_CHARS
from explorer.corpus.papers import Paper, facet_values, source_file
from explorer.ranking.author_arrays import Lazy
from explorer.ranking.authors import Lookups
from explorer.ranking.facets import FacetColumns, FacetSpec, facet_spec

MAX_AUTHORS = 20  # names in one author filter


@dataclass(frozen=True)
class Filters:
    """Restrict results; empty fields mean no restriction. Years are inclusive.

    `venues` and `sources` may be given as any collection of names (a set, a list); they are
    kept as sorted tuples without repeats, so equal Filters are equal whatever order they were
    given in, hash alike and serialise alike (a stable cache key).

    `authors`: papers by any of these people, each name as a reader types it ('Sergey Levine',
    'S. Levine', 'Levine, Sergey', 'levine', 'Scholkopf' for 'Schölkopf': ranking/authors.py
    says how names match); at most MAX_AUTHORS names of at most MAX_NAME_CHARS characters.

    `facets`: {field: values} of the corpus's categorical fields (status, venue, year, track,
    primary_area, ...: `Explorer.facets()["fields"]`): a paper passes when it holds one of the
    values of every field named (values of one field: OR; fields: AND). Given as a mapping or
    (field, values) pairs; kept as sorted pairs (ranking/facets.py, `facet_spec`)."""

    venues: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    year_min: int | None = None
    year_max: int | None = None
    authors: tuple[str, ...] = ()
    facets: FacetSpec = ()

    def __post_init__(self) -> None:
        for name in ("venues", "sources", "authors"):
            object.__setattr__(self, name, _names(name, getattr(self, name)))
        object.__setattr__(self, "facets", facet_spec(self.facets))
        if len(self.authors) > MAX_AUTHORS or any(len(a) > MAX_NAME_CHARS for a in self.authors):
            raise ValueError(f"Filters.authors takes at most {MAX_AUTHORS} names of at most "
                             f"{MAX_NAME_CHARS} characters each")

    def active(self) -> bool:
        return bool(self.venues or self.sources or self.year_min or self.year_max or self.authors
                    or self.facets)


class FacetTable:
    """Per-paper venue, source files and year (0 when unknown), for fast filtering; each read
    from the papers on first use (a search without filters needs none of them: the CLI's
    cold start). Two threads reading one at once at first may both compute it, alike."""

    def __init__(self, papers: Sequence[Paper], stored: Any = None,
                 arrays: Mapping[str, np.ndarray] | None = None) -> None:
        """`stored`: the index's facet values (extras FACETS), which `values` then gives
        without reading the papers; anything but facet_values' shape is ignored. `arrays`:
        the index's named arrays (the author table a build stored, ranking/author_arrays.py)."""
        self.count = len(papers)
        self._papers = papers
        self._stored = stored if isinstance(stored, dict) else {}
        self._authors = Lazy(papers, arrays)
        self.columns = FacetColumns(papers, self._stored.get("fields"))

    @property
    def authors(self) -> Lookups:
        """Who wrote which paper (ranking/authors.py), made once on first use, thread-safe."""
        return self._authors.get()

    @cached_property
    def venues(self) -> np.ndarray:
        return np.array([p.venue or "" for p in self._papers], dtype=object)

    @cached_property
    def sources(self) -> list[tuple[str, ...]]:
        return [(source_file(p.sources[0]),) if len(p.sources) == 1
                else tuple(sorted({source_file(s) for s in p.sources})) for p in self._papers]

    @cached_property
    def years(self) -> np.ndarray:
        return np.array([p.year or 0 for p in self._papers], dtype=np.int64)

    @cached_property
    def _computed(self) -> dict[str, Any]:
        """facet_values of the papers, when none are stored (papers in memory: Ranker.of)."""
        return facet_values(self._papers)

    def values(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        keys = ("venues", "sources", "years")
        fits = all(isinstance(self._stored.get(key), list) for key in keys)
        facets = self._stored if fits else self._computed
        return {key: list(facets[key]) for key in keys}

    def year_counts(self) -> tuple[dict[int, int], int]:
        """Papers per year ({year: papers}, as corpus.papers.countable_year reads a year) and
        the papers without one."""
        stored = self._stored
        fits = isinstance(stored.get("year_counts"), list) and type(stored.get("undated")) is int
        facets = stored if fits else self._computed
        return {int(year): int(count) for year, count in facets["year_counts"]}, facets["undated"]

    def allowed_rows(self, filters: Filters | None) -> np.ndarray | None:
        """Rows that pass `filters`; None when nothing is filtered."""
        if filters is None or not filters.active():
            return None
        mask = np.ones(self.count, dtype=bool)
        if filters.venues:
            mask &= np.isin(self.venues, list(filters.venues))
        if filters.year_min:
            mask &= self.years >= filters.year_min
        if filters.year_max:
            mask &= (self.years <= filters.year_max) & (self.years > 0)
        if filters.sources:
            wanted = set(filters.sources)
            mask &= np.array([not wanted.isdisjoint(group) for group in self.sources])
        if filters.authors:
            by = np.zeros(self.count, dtype=bool)
            by[self.authors.rows(filters.authors)] = True
            mask &= by
        for name, values in filters.facets:
            mask &= self.columns.mask(name, values)
        return np.flatnonzero(mask)

    def blocked(self, filters: Filters | None, exclude: Collection[int] = (),
                within: Sequence[int] | None = None) -> Blocked:
        """The rows a filter or `exclude` keeps out (and, given `within`, every other row)."""
        allowed = self.allowed_rows(filters)
        if within is not None:
            inside = np.asarray(within, dtype=np.int64)
            allowed = inside if allowed is None else np.intersect1d(allowed, inside)
        return Blocked(self.count, allowed, frozenset(exclude))


@dataclass(frozen=True, eq=False)
class Blocked:
    """Rows a ranking may not return: those outside `allowed` (the rows that pass the filters;
    None when nothing is filtered) and the `excluded` ones (the paper asked about, seeds).

    Channels read it the way they search: `mask` for a scan of every row, `allowed_rows` and
    `excluded` for a vector index that restricts inside the search."""

    count: int
    allowed: np.ndarray | None = None
    excluded: frozenset[int] = frozenset()

    @cached_property
    def mask(self) -> np.ndarray | None:
        """(n,) bool, True where a row is blocked; None when nothing is."""
        if self.allowed is None and not self.excluded:
            return None
        mask = np.zeros(self.count, dtype=bool)
        if self.allowed is not None:
            mask[:] = True
            mask[self.allowed] = False
        mask[list(self.excluded)] = True
        return mask

    @cached_property
    def allowed_rows(self) -> np.ndarray | None:
        """The rows that pass the filters and are not excluded; None when nothing is filtered
        (then only `excluded` is kept out)."""
        if self.allowed is None or not self.excluded:
            return self.allowed
        return np.setdiff1d(self.allowed, np.fromiter(self.excluded, dtype=np.int64))


def _names(field: str, names: Collection[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError(f"Filters.{field} takes a collection of names, not the string {names!r}")
    if field == "authors":
        names = {" ".join(name.split()) for name in names} - {""}
    return tuple(sorted(set(names)))


