"""The ranking channels, behind one narrow call: `top(request, depth, blocked) -> (rows, scores)`.

A channel ranks every paper by one kind of evidence (the query vector, the query's words, a
score computed elsewhere) and returns its best `depth` rows, best first, never a blocked one.
Fusion, feedback and MMR (pipeline.py) only see those arrays, never what the channel is.

`depth` is the candidate pool a channel returns (policy.Plan.depth: CANDIDATES when fusion or
MMR re-orders the pool), not the result count `top_k` the caller asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from explorer.batching import Batcher
from explorer.index.dense import FEW_QUERIES, VectorIndex
from explorer.index.lexical import LexicalIndex
from explorer.ranking.filters import Blocked
from explorer.ranking.fusion import top_rows
from explorer.settings import cores

Ranked = tuple[np.ndarray, np.ndarray]  # (rows int64, scores), best first


def _no_ceiling() -> float:
    return 0.0


@dataclass(frozen=True, eq=False)
class Request:
    """What one request ranks by; each channel reads its part.

    `text` feeds BM25, `vector` (d,) the dense channel (and the hits' cosine), `scores` (n,)
    are a precomputed dense channel (e.g. an SVM's decision values). `ceiling()` is the best
    BM25 score `text` can reach in this corpus (ranking.query_ceiling), computed only when a
    fusion asks for it (the feedback pass fuses twice: Ranker.rows computes it once).
    `reference`: the corpus's random cosines of the request's kind (quantiles at percentiles
    0..100, calibration.Scale), which plausible fusion places each candidate's cosine among;
    empty when the index stores none of that kind."""

    text: str = ""
    vector: np.ndarray | None = None
    scores: np.ndarray | None = None
    ceiling: Callable[[], float] = _no_ceiling
    reference: tuple[float, ...] = ()


class Channel(Protocol):
    def top(self, request: Request, depth: int, blocked: Blocked | None = None) -> Ranked:
        """The `depth` best rows for `request` that `blocked` lets through, best first."""
        ...


def _empty() -> Ranked:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)


class DenseChannel:
    """Inner product with the request's vector, searched in the FAISS index.

    With `batch`, unfiltered searches that arrive together from several threads are answered
    by one search of all their vectors (batching.Batcher; the index scans its vectors once for
    them), each exactly as it is answered alone (dense.FEW_QUERIES). One search per core may
    run at once: the questions Explorer.search batches come from one thread per core, and a
    search waiting for another's scan would leave its core idle (the fp16 scan costs each
    query the same in a batch; benchmarks/README.md, "Concurrent answers")."""

    def __init__(self, index: VectorIndex, batch: bool = True) -> None:
        self.index = index
        self._batched = Batcher(self._search_all, FEW_QUERIES, cores()) if batch else None

    def top(self, request: Request, depth: int, blocked: Blocked | None = None) -> Ranked:
        """-> (rows, inner products). A filter restricts inside the search (so a filtered
        search still fills `depth`); rows only excluded are dropped from a slightly deeper one."""
        blocked = blocked or Blocked(self.index.count)
        allowed, excluded = blocked.allowed_rows, blocked.excluded
        if allowed is not None and len(allowed) == 0:
            return _empty()
        extra = 0 if allowed is not None else len(excluded)
        if allowed is None and self._batched is not None:
            scores, rows = self._batched((request.vector, depth + extra))
        else:
            scores, rows = (found[0] for found in
                            self.index.search(request.vector, depth + extra, allowed))
        keep = rows >= 0
        if excluded:
            keep &= ~np.isin(rows, np.fromiter(excluded, dtype=np.int64, count=len(excluded)))
        rows, scores = rows[keep][:depth], scores[keep][:depth]
        return rows.astype(np.int64), scores

    def _search_all(self, asks: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Unfiltered searches for (vector (d,), depth) pairs -> (scores, rows) of each: one
        index search per distinct depth (a query's result depends on nothing else)."""
        vectors = np.vstack([np.asarray(vector, dtype=np.float32).reshape(1, -1)
                             for vector, _ in asks])
        found: list = [None] * len(asks)
        for depth in {depth for _, depth in asks}:
            picked = [i for i, (_, wanted) in enumerate(asks) if wanted == depth]
            scores, rows = self.index.search(vectors[picked], depth)
            for position, i in enumerate(picked):
                found[i] = (scores[position], rows[position])
        return found


class LexicalChannel:
    """BM25 of the request's text; only papers sharing a term with it come back."""

    def __init__(self, index: Callable[[], LexicalIndex]) -> None:
        self._index = index  # loaded on first use: indexes that predate BM25 refuse it then

    def top(self, request: Request, depth: int, blocked: Blocked | None = None) -> Ranked:
        """-> (rows, BM25 scores > 0)."""
        return self._index().top(request.text, depth, None if blocked is None else blocked.mask)


class ScoreChannel:
    """A score of every row computed elsewhere (the request's `scores`, e.g. an SVM's)."""

    def top(self, request: Request, depth: int, blocked: Blocked | None = None) -> Ranked:
        """-> (rows, scores shifted so the lowest row scores 1e-6: top_rows keeps scores > 0)."""
        scores = request.scores
        shifted = scores - scores.min() + 1e-6
        return top_rows(shifted, depth, None if blocked is None else blocked.mask)
