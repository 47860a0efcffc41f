"""Explorer: open an index folder once, then search, walk to similar papers, recommend."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.corpus import Paper
from explorer.embedder import BUNDLED_NAMES, Embedder, resolve_model
from explorer.errors import IndexInvalidError, ModelNotFoundError, UnknownPaperError
from explorer.store import Artifacts, load_artifacts, rebuild_hint


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
    """One ranked result: `score` is the cosine similarity, `percentile` how unusual it is."""

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


class Explorer:
    """The engine behind the CLI, the app and notebooks."""

    def __init__(self, artifacts: Artifacts, model: str | None = None) -> None:
        self.artifacts = artifacts
        self.model = model
        self._embedder: Embedder | None = None
        self._rows = {p.paper_id: row for row, p in enumerate(artifacts.papers)}
        for row, paper in enumerate(artifacts.papers):
            for alias in paper.aliases:
                self._rows.setdefault(alias, row)
        self._facets = _facet_arrays(artifacts.papers)

    @classmethod
    def open(cls, folder: str | Path = "embeddings", model: str | None = None) -> Explorer:
        """Load and check the index in `folder`. The model loads on the first text query.

        `model` overrides the model recorded in the manifest; it must be the same model.
        """
        explorer = cls(load_artifacts(Path(folder)), model=model)
        if model is not None:
            explorer._check_model(model)
        return explorer

    # -- what is loaded -------------------------------------------------------------
    @property
    def papers(self) -> list[Paper]:
        return self.artifacts.papers

    @property
    def manifest(self) -> dict[str, Any]:
        return self.artifacts.manifest

    @property
    def vectors(self) -> np.ndarray:
        """All paper vectors (n, d), read-only."""
        return self.artifacts.index.vectors()

    def paper(self, paper_id: str) -> Paper:
        return self.papers[self.row(paper_id)]

    def row(self, paper_id: str) -> int:
        """Position of a paper (or of a duplicate merged into it); suggests close ids if unknown."""
        try:
            return self._rows[paper_id]
        except KeyError:
            close = difflib.get_close_matches(paper_id, list(self._rows), n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise UnknownPaperError(
                f"No paper with id {paper_id!r} in this index.{hint} "
                "Find ids with `explorer search QUERY`."
            ) from None

    def facets(self) -> dict[str, list]:
        """Values present in the corpus: venues, sources (files), years."""
        venues, sources, years = self._facets
        return {"venues": sorted({v for v in venues if v}),
                "sources": sorted({s for group in sources for s in group}),
                "years": sorted({int(y) for y in years if y > 0})}

    # -- the verbs ------------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray:
        """The query's vector (d,)."""
        return self.embedder.embed_query(query)

    def query_note(self, query: str) -> str | None:
        """A note for the user when the query is longer than the model reads."""
        tokens = self.embedder.token_count(query)
        limit = self.embedder.max_seq_length
        if tokens > limit:
            return f"query is {tokens} tokens; the model reads the first {limit}, the rest is ignored"
        return None

    def search(self, query: str, top_k: int = 10, filters: Filters | None = None) -> list[Hit]:
        """Papers ranked by cosine similarity to `query`; [] for an empty query."""
        if not query or not query.strip():
            return []
        return self.search_vector(self.embed_query(query), top_k, filters)

    def search_vector(self, vector: np.ndarray, top_k: int = 10,
                      filters: Filters | None = None, exclude: Iterable[int] = ()) -> list[Hit]:
        """Papers ranked by inner product with `vector` (d,), skipping rows in `exclude`."""
        exclude = set(exclude)
        allowed = self._allowed_rows(filters)
        if allowed is not None and exclude:
            allowed = np.setdiff1d(allowed, np.fromiter(exclude, dtype=np.int64))
        if allowed is not None and len(allowed) == 0:
            return []
        extra = 0 if allowed is not None else len(exclude)
        scores, rows = self.artifacts.index.search(vector, top_k + extra, allowed)
        hits = []
        for score, row in zip(scores[0], rows[0]):
            if row < 0 or row in exclude:
                continue
            hits.append(self._hit(len(hits) + 1, float(score), int(row)))
            if len(hits) == top_k:
                break
        return hits

    def similar(self, paper_id: str, top_k: int = 10, filters: Filters | None = None) -> list[Hit]:
        """Nearest papers to `paper_id`, never the paper itself (nor its merged duplicates)."""
        row = self.row(paper_id)
        return self.search_vector(self.vectors[row], top_k, filters, exclude={row})

    def recommend(self, like: Sequence[str], unlike: Sequence[str] = (), query: str | None = None,
                  top_k: int = 10, filters: Filters | None = None) -> list[Hit]:
        """Rank papers from several liked papers, optional disliked ones and optional text.

        Rocchio-style: mean of liked vectors, minus half the mean of disliked ones, plus the
        query's vector. The seed papers never come back.
        """
        liked = [self.row(pid) for pid in like]
        disliked = [self.row(pid) for pid in unlike]
        if not liked and not (query and query.strip()):
            raise ValueError("recommend needs at least one liked paper or a query")
        target = np.zeros(self.vectors.shape[1], dtype=np.float32)
        if liked:
            target += self.vectors[liked].mean(axis=0)
        if disliked:
            target -= 0.5 * self.vectors[disliked].mean(axis=0)
        if query and query.strip():
            target += self.embed_query(query)
        norm = float(np.linalg.norm(target))
        target = target / norm if norm > 0 else target
        return self.search_vector(target, top_k, filters, exclude=set(liked) | set(disliked))

    def percentile(self, score: float) -> float | None:
        """Share of random paper pairs in this corpus less similar than `score` (0-100)."""
        quantiles = self.artifacts.extras.get("pair_quantiles") or []
        if not quantiles:
            return None
        position = bisect.bisect_left(quantiles, score)
        return round(100.0 * min(position, len(quantiles) - 1) / (len(quantiles) - 1), 1)

    # -- internals ------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = Embedder(self._check_model(self.model))
        return self._embedder

    def _check_model(self, model: str | None):
        recorded = self.manifest.get("model", {})
        if model is None:
            name = recorded.get("id", "")
            model = "default" if name.lower() in BUNDLED_NAMES else recorded.get("path", name)
        try:
            spec = resolve_model(model)
        except ModelNotFoundError as exc:
            raise ModelNotFoundError(
                f"{exc} (this index was built with {recorded.get('id')})") from None
        if spec.fingerprint != recorded.get("fingerprint"):
            raise IndexInvalidError(
                f"This index was built with model {recorded.get('id')} but {spec.model_id} was "
                f"requested; their vectors are not comparable. Use the same model, or rebuild: "
                f"`{rebuild_hint(self.artifacts.folder, self.manifest)} --model {model}`."
            )
        return spec

    def _hit(self, rank: int, score: float, row: int) -> Hit:
        return Hit(rank=rank, score=score, percentile=self.percentile(score),
                   paper=self.papers[row])

    def _allowed_rows(self, filters: Filters | None) -> np.ndarray | None:
        if filters is None or not filters.active():
            return None
        venues, sources, years = self._facets
        mask = np.ones(len(self.papers), dtype=bool)
        if filters.venues:
            mask &= np.isin(venues, list(filters.venues))
        if filters.year_min:
            mask &= years >= filters.year_min
        if filters.year_max:
            mask &= (years <= filters.year_max) & (years > 0)
        if filters.sources:
            mask &= np.array([bool(filters.sources & set(group)) for group in sources])
        return np.flatnonzero(mask)


def _facet_arrays(papers: Sequence[Paper]) -> tuple[np.ndarray, list[tuple[str, ...]], np.ndarray]:
    """Per-paper venue, source files and year (0 when unknown), for fast filtering."""
    venues = np.array([p.venue or "" for p in papers], dtype=object)
    sources = [tuple(sorted({s.rsplit(":", 1)[0].split("#")[0] for s in p.sources}))
               for p in papers]
    years = np.array([p.year or 0 for p in papers], dtype=np.int64)
    return venues, sources, years
