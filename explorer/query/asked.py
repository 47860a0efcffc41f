"""Whole questions that threads ask at the same moment, answered together: each batch's
questions embedded in one model run, then ranked in turn, each caller freed as soon as its own
answer is ready (batching.Batcher). It pays on the path users take, which `Explorer.search` is
for the app, the CLI and the API alike (benchmarks/README.md, "Concurrent answers": more
answers/s and a lower p99 for 8 sessions). The last questions' vectors are kept,
so that what a page asks next of the same question (its hits' highlights) needs no model run."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator

import numpy as np

from explorer.batching import Batcher
from explorer.model.embedder import BATCHED_QUESTION_CHARS, Embedder
from explorer.query.hits import Hit
from explorer.query.ranker import Ranker
from explorer.ranking.fusion import LEXICAL
from explorer.ranking.options import QueryOptions
from explorer.settings import cores

# At most this many questions a batch, one batch per core at a time: a batch of 4 costs each
# question about half a lone one's CPU, and a bigger one keeps its last callers waiting.
ASKED_TOGETHER = 4
KEPT_VECTORS = 256  # the last questions' vectors (d,), 1.5 KB each at d = 384


class Questions:
    """Answers questions (text cut, options resolved) by `ranker`, vectors from `embedder()`;
    `batch`: questions asked at once share a model run (False: each alone; same answers)."""

    def __init__(self, ranker: Ranker, embedder: Callable[[], Embedder], batch: bool) -> None:
        self._ranker, self._embedder = ranker, embedder
        self._batcher = Batcher(self._answer_all, ASKED_TOGETHER, cores()) if batch else None
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # held only to read or change `_kept`

    def vector(self, query: str) -> np.ndarray:
        """The question's vector (d,): one a recent `answer` embedded, else embedded now."""
        with self._lock:
            found = self._kept.get(query)
        return found if found is not None else self._keep(query, self._embedder().embed_query(query))

    def _keep(self, query: str, vector: np.ndarray) -> np.ndarray:
        with self._lock:
            self._kept[query] = vector
            self._kept.move_to_end(query)
            while len(self._kept) > KEPT_VECTORS:
                self._kept.popitem(last=False)
        return vector

    def answer(self, query: str, options: QueryOptions) -> list[Hit]:
        if self._batcher is not None and len(query) <= BATCHED_QUESTION_CHARS:
            return self._batcher((query, options))  # (a long one alone: embedder.py says why)
        return next(self._answer_all([(query, options)]))

    def _answer_all(self, asked: list[tuple[str, QueryOptions]]) -> Iterator[list[Hit]]:
        """Questions asked at once -> each one's hits, yielded as each is ranked; their
        vectors (lexical mode needs none) from one model run."""
        texts = [query for query, options in asked if options.mode != LEXICAL]
        vectors = iter(self._embedder().embed_asked_together(texts))
        for query, options in asked:
            vector = None if options.mode == LEXICAL else self._keep(query, next(vectors))
            yield self._ranker.question(query, vector, options)
