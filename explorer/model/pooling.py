"""Vectors for parts of a text from the token states of the text's own pass (one model run).

A span's vector is the mean of the last token states of the tokens inside it, normalised: the
paper's vector is the (normalised) mean over all its tokens, so the span vectors are the parts it
is made of. A text longer than the model's window is cut: the spans past the cut are pooled from
further windows, each a pass over the text from the first span the window before cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Spans = Sequence[tuple[int, int]]
# texts, their spans -> (vectors (n, d), per text: span vectors (k, d), per text: how many of
# its spans, from the first, lay wholly inside the window)
Pass = Callable[[list[str], list[Spans]], tuple[np.ndarray, list[np.ndarray], list[int]]]


def pool_spans(states: np.ndarray, offsets: Sequence[tuple[int, int]],
               special: Sequence[int], spans: Spans) -> tuple[np.ndarray, int]:
    """Unit vectors (k, d) of `spans` (character offsets into the encoded text), each the mean of
    the token `states` (tokens, d) inside it; and how many spans, from the first, the encoding
    holds wholly (the rest were cut by truncation; a span with no token left gets zeros)."""
    content = np.array([row for row, flag in enumerate(special) if not flag and row < len(states)],
                       dtype=np.int64)
    starts = np.array([offsets[row][0] for row in content], dtype=np.int64)
    kept_end = offsets[content[-1]][1] if len(content) else 0
    pooled = np.zeros((len(spans), states.shape[1]), dtype=np.float32)
    whole = 0
    for index, (start, end) in enumerate(spans):
        low, high = np.searchsorted(starts, [start, end])
        if high > low:
            pooled[index] = states[content[low:high]].mean(axis=0)
        if end <= kept_end and whole == index:
            whole += 1
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, 1e-12), whole


def windowed(run: Pass, texts: Sequence[str], spans: Sequence[Spans]
             ) -> tuple[np.ndarray, list[np.ndarray]]:
    """`run` over `texts`, then over further windows until every span is pooled whole: vectors
    (n, d) of the texts (from the first pass) and per text the unit vectors (k, d) of its spans.

    A window starts at the first span the previous one did not hold whole; a span longer than
    a whole window keeps the part that fits (so every window makes progress)."""
    vectors, pooled, whole = run(list(texts), [list(s) for s in spans])
    pooled = [p.copy() for p in pooled]
    todo = {i: whole[i] for i in range(len(texts)) if whole[i] < len(spans[i])}
    while todo:
        rows = list(todo)
        starts = [spans[i][todo[i]][0] for i in rows]
        window_texts = [texts[i][start:] for i, start in zip(rows, starts)]
        window_spans = [[(s - start, e - start) for s, e in spans[i][todo[i]:]]
                        for i, start in zip(rows, starts)]
        _, parts, held = run(window_texts, window_spans)
        for i, part, count in zip(rows, parts, held):
            count = max(count, 1)  # a span longer than the window: the part that fits
            first = todo[i]
            pooled[i][first:first + count] = part[:count]
            todo[i] = first + count
            if todo[i] >= len(spans[i]):
                del todo[i]
    return vectors, pooled
