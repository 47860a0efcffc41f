"""What the verbs return and how results are restricted: Hit, Filters and the facet table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.corpus.papers import Paper


@dataclass(frozen=True)
class Filters:
    """Restrict results; empty fields mean no restriction. Years are inclusive."""

    venues: frozenset[str] = frozenset()
    sources: frozenset[str] = frozenset()
    year_min: int | None = None
    year_max: int | None = None

    def active(self) -> bool:
        return bool(self.venues or self.sources or self.year_min or self.year_max)


@dataclass(frozen=True)
class Hit:
    """One ranked result: `score` is the cosine similarity to the query or paper (in every mode
    but lexical, where it is the BM25 score), `percentile` how unusual the cosine is."""

    rank: int
    score: float
    percentile: float | None
    paper: Paper

    @property
    def paper_id(self) -> str:
        return self.paper.paper_id

    @property
    def title(self) -> str:
        return self.paper.title

    def to_dict(self) -> dict[str, Any]:
        data = {"rank": self.rank, "paper_id": self.paper_id, "title": self.title,
                "title_is_derived": self.paper.title_is_derived,
                "score": round(self.score, 6), "percentile": self.percentile}
        data.update({k: v for k, v in self.paper.to_dict().items()
                     if k not in ("paper_id", "title", "title_is_derived")})
        return data


class FacetTable:
    """Per-paper venue, source files and year (0 when unknown), for fast filtering."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.count = len(papers)
        self.venues = np.array([p.venue or "" for p in papers], dtype=object)
        self.sources = [(_file(p.sources[0]),) if len(p.sources) == 1
                        else tuple(sorted({_file(s) for s in p.sources})) for p in papers]
        self.years = np.array([p.year or 0 for p in papers], dtype=np.int64)

    def values(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        return {"venues": sorted({v for v in self.venues if v}),
                "sources": sorted({s for group in self.sources for s in group}),
                "years": sorted({int(y) for y in self.years if y > 0})}

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
            mask &= np.array([bool(filters.sources & set(group)) for group in self.sources])
        return np.flatnonzero(mask)

    def blocked(self, filters: Filters | None, exclude: set[int]) -> np.ndarray | None:
        """(n,) bool: rows a filter or `exclude` keeps out; None when nothing is blocked."""
        allowed = self.allowed_rows(filters)
        if allowed is None and not exclude:
            return None
        blocked = np.zeros(self.count, dtype=bool)
        if allowed is not None:
            blocked[:] = True
            blocked[allowed] = False
        blocked[list(exclude)] = True
        return blocked


def _file(source: str) -> str:
    """The file of a source ("path:line" or "path#record")."""
    return source.rsplit(":", 1)[0].split("#")[0]
