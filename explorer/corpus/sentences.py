"""Split abstracts into sentences with character offsets; the table of them and their vectors."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from explorer.corpus.papers import Paper

_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9$\\(\[*`\"'])")
_NO_SPLIT_AFTER = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|approx|resp|No|Dr|Mr|Ms|St)\.|"
    r"\b[A-Z]\.)$"
)
_ABBREVIATION_CHARS = 9  # the longest of _NO_SPLIT_AFTER ("approx.") and the letter before it
MIN_CHARS = 12
SPLITTER_VERSION = 1  # bump when splitting changes: stored sentence vectors are then redone


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans (start, end) of the sentences in `text`, in order, covering its words."""
    spans: list[tuple[int, int]] = []
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        # Only the last few characters can end in "e.g." or "approx.": searching the whole
        # sentence so far cost n^2 on a text of "e.g. X" after "e.g. X".
        if _NO_SPLIT_AFTER.search(text, max(start, boundary.start() - _ABBREVIATION_CHARS),
                                  boundary.start()):
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


def text_spans(paper: Paper) -> list[tuple[int, int]]:
    """The abstract's sentence spans as offsets into `paper.text` (what the model embeds: the
    abstract is its end)."""
    offset = len(paper.text) - len(paper.abstract)
    return [(offset + start, offset + end) for start, end in split_sentences(paper.abstract)]


def stack_sentences(papers: Sequence[Paper], by_hash: Mapping[str, np.ndarray],
                    dimension: int) -> np.ndarray:
    """Sentence vectors (m, d) float16 in `sentence_table(papers)` order, from `by_hash`
    (text hash -> (k, d) array of that paper's k sentences)."""
    parts = [by_hash[paper.text_hash] for paper in papers if paper.abstract]
    count = sum(len(part) for part in parts)
    vectors = np.empty((count, dimension), dtype=np.float16)
    row = 0
    for part in parts:  # part by part: no concatenated float32 copy of every sentence
        vectors[row:row + len(part)] = part
        row += len(part)
    return vectors


def per_paper(hashes: Sequence[str], table: np.ndarray, vectors: np.ndarray
              ) -> dict[str, np.ndarray]:
    """Split stored sentence vectors back by paper text hash (`hashes`: one per paper row),
    for the incremental cache."""
    bounds = np.searchsorted(table[:, 0], np.arange(len(hashes) + 1)) if len(table) else None
    if bounds is None:
        return {}
    return {text_hash: vectors[bounds[row]:bounds[row + 1]]
            for row, text_hash in enumerate(hashes)}
