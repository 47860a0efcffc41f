"""A build's sentence table and vectors (for explanations), reused by text hash.

Sentence vectors come from the papers' own pass (builder._paper_vectors puts them in `fresh`:
pooled from the token states, model/pooling.py), from the previous build, or, for papers whose
paper vectors were reused without sentence vectors (an index built with --no-sentences, a
resumed build), from a pass over just those papers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from explorer.artifacts.layout import SENTENCE_TABLE, SENTENCE_VECTORS
from explorer.build.checkpoint import BLOCK
from explorer.build.embedding import LazyEmbedder
from explorer.corpus.papers import Paper
from explorer.corpus.sentences import (
    SPLITTER_VERSION,
    per_paper,
    sentence_table,
    stack_sentences,
    text_spans,
)


def stored_sentences(arrays: Mapping[str, np.ndarray], text_hashes: Sequence[str],
                     splitter: int | None) -> dict[str, np.ndarray]:
    """The previous build's sentence vectors by paper text hash (none when it stored none or
    split sentences another way)."""
    if SENTENCE_VECTORS not in arrays or splitter != SPLITTER_VERSION:
        return {}
    return per_paper(text_hashes, arrays[SENTENCE_TABLE], arrays[SENTENCE_VECTORS])


def sentence_arrays(papers: Sequence[Paper], embedder: LazyEmbedder,
                    by_hash: dict[str, np.ndarray], dimension: int) -> dict[str, np.ndarray]:
    """The named arrays SENTENCE_TABLE (m, 3) and SENTENCE_VECTORS (m, d) float16 of `papers`,
    from `by_hash` (text hash -> (k, d)), which gains the papers it lacked."""
    missing = list({p.text_hash: p for p in papers
                    if p.abstract and p.text_hash not in by_hash}.values())
    for start in range(0, len(missing), BLOCK):
        block = missing[start:start + BLOCK]
        _, parts = embedder.embed_with_spans("sentences", [p.text for p in block],
                                             [text_spans(p) for p in block], start, len(missing))
        by_hash.update(zip((p.text_hash for p in block), parts))
    return {SENTENCE_TABLE: sentence_table(papers),
            SENTENCE_VECTORS: stack_sentences(papers, by_hash, dimension)}
