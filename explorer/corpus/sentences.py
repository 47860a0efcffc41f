"""Split abstracts into sentences with character offsets, and embed them at build time."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from explorer.corpus.papers import Paper

_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9$\\(\[*`\"'])")
_NO_SPLIT_AFTER = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|approx|resp|No|Dr|Mr|Ms|St)\.|"
    r"\b[A-Z]\.)$"
)
MIN_CHARS = 12
SPLITTER_VERSION = 1  # bump when splitting changes: stored sentence vectors are then redone


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans (start, end) of the sentences in `text`, in order, covering its words."""
    spans: list[tuple[int, int]] = []
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        if _NO_SPLIT_AFTER.search(text[start:boundary.start()]):
            continue
        spans.append((start, boundary.start()))
        start = boundary.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return _merge_short(text, spans)


def _merge_short(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Fold fragments shorter than MIN_CHARS into the sentence before them."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and end - start < MIN_CHARS:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def sentence_table(papers: Sequence[Paper]) -> np.ndarray:
    """One row per sentence: (paper row, start, end) into paper.abstract -> int32 (m, 3)."""
    rows = [(row, start, end) for row, paper in enumerate(papers)
            for start, end in split_sentences(paper.abstract)]
    return np.asarray(rows, dtype=np.int32).reshape(-1, 3)


def embed_sentences(
    papers: Sequence[Paper],
    table: np.ndarray,
    embed: Callable[[list[str]], np.ndarray],
    cached: dict[str, np.ndarray],
) -> np.ndarray:
    """Sentence vectors (m, d) float16 in `table` order; papers whose text hash is in `cached`
    (hash -> (k, d) array of that paper's sentences) are not embedded again."""
    todo = [row for row, paper in enumerate(papers) if paper.text_hash not in cached]
    todo_set = set(todo)
    wanted = [i for i, (row, _, _) in enumerate(table) if row in todo_set]
    texts = [papers[row].abstract[start:end] for row, start, end in table[wanted]]
    fresh = embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    fresh_by_row: dict[int, list[np.ndarray]] = {}
    for (row, _, _), vector in zip(table[wanted], fresh):
        fresh_by_row.setdefault(int(row), []).append(vector)
    parts = []
    for row, paper in enumerate(papers):
        if row in todo_set:
            parts.extend(fresh_by_row.get(row, []))
        else:
            parts.extend(cached[paper.text_hash])
    if not parts:
        return np.zeros((0, 0), dtype=np.float16)
    return np.vstack(parts).astype(np.float16)


def per_paper(hashes: Sequence[str], table: np.ndarray, vectors: np.ndarray
              ) -> dict[str, np.ndarray]:
    """Split stored sentence vectors back by paper text hash (`hashes`: one per paper row),
    for the incremental cache."""
    bounds = np.searchsorted(table[:, 0], np.arange(len(hashes) + 1)) if len(table) else None
    if bounds is None:
        return {}
    return {text_hash: vectors[bounds[row]:bounds[row + 1]]
            for row, text_hash in enumerate(hashes)}
