"""A paper's sentences and their vectors, for the explanations: read from the index when its
build stored them (`explorer build --sentences`), else embedded the first time the paper is
explained and kept for every later question and session (issue 12: the build no longer embeds
every sentence of the corpus up front; only the papers a page shows are ever embedded).

Embedding on demand gives the vectors a stored build would: the same model on the same sentence
texts, each sentence a text of its own."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from explorer.artifacts.layout import SENTENCE_TABLE, SENTENCE_VECTORS
from explorer.corpus.sentences import split_sentences

Spans = list[tuple[int, int]]
Sentences = tuple[Spans, np.ndarray]  # spans into the abstract, unit vectors (k, d) float32

# Papers whose embedded sentences are kept (least recently used out first): about 7 sentences
# of 384 floats each, so ~11 KB a paper and ~45 MB when full.
CACHED_PAPERS = 4096
NO_SENTENCES: Sentences = ([], np.zeros((0, 0), dtype=np.float32))


def stored_sentences(arrays: Mapping[str, np.ndarray], row: int) -> Sentences | None:
    """The row's sentences as the index stores them (`arrays`: its named arrays); None when it
    stores none (built without --sentences, or before its build wrote them: after the index)."""
    if SENTENCE_TABLE not in arrays:
        return None
    table = arrays[SENTENCE_TABLE]
    lo, hi = np.searchsorted(table[:, 0], [row, row + 1])
    spans = [(int(s), int(e)) for _, s, e in table[lo:hi]]
    return spans, arrays[SENTENCE_VECTORS][lo:hi].astype(np.float32)


class SentenceVectors:
    """Sentences by row for one index, safe to share between threads: `stored(row)` answers
    from the index (None when it has no sentence vectors), `abstract(row)` gives the text to
    split, `embed(texts)` the model's unit vectors (n, d) for texts of their own."""

    def __init__(self, stored: Callable[[int], Sentences | None], abstract: Callable[[int], str],
                 embed: Callable[[list[str]], np.ndarray], capacity: int = CACHED_PAPERS) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._stored, self._abstract, self._embed = stored, abstract, embed
        self._capacity = capacity
        self._cache: OrderedDict[int, Sentences] = OrderedDict()
        self._lock = threading.Lock()  # held only to read or update the cache, never to embed

    def of(self, row: int) -> Sentences:
        """The row's sentence spans and vectors: stored, cached, or embedded now."""
        return self.of_rows([row])[0]

    def of_rows(self, rows: Iterable[int]) -> list[Sentences]:
        """`of` for each row, the sentences of every row not stored or cached embedded in one
        model call (a page's hits cost one run, not one per hit)."""
        rows = list(rows)
        unique = list(dict.fromkeys(rows))
        found = {row: stored for row in unique if (stored := self._stored(row)) is not None}
        with self._lock:
            for row in unique:
                if row not in found and row in self._cache:
                    self._cache.move_to_end(row)
                    found[row] = self._cache[row]
        missing = [row for row in unique if row not in found]
        if missing:
            embedded = self._embedded(missing)
            found.update(embedded)
            with self._lock:
                for row, sentences in embedded.items():
                    self._cache[row] = sentences
                    self._cache.move_to_end(row)
                while len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)
        return [found[row] for row in rows]

    def _embedded(self, rows: list[int]) -> dict[int, Sentences]:
        """The sentences of `rows`, all embedded in one call. Two threads may embed the same
        paper at once: the vectors are the same, the later one is kept."""
        abstracts = {row: self._abstract(row) for row in rows}
        spans = {row: split_sentences(abstract) for row, abstract in abstracts.items()}
        texts = [abstracts[row][start:end] for row in rows for start, end in spans[row]]
        vectors = self._embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        vectors.setflags(write=False)  # shared by every later caller
        out: dict[int, Sentences] = {}
        position = 0
        for row in rows:
            count = len(spans[row])
            out[row] = (spans[row], vectors[position:position + count]) if count else NO_SENTENCES
            position += count
        return out
