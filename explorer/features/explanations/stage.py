"""A build's sentence table and vectors (for explanations), reused by text hash.

Two kinds of sentence vectors (studies/explain_options.py measured both; DECISIONS.md item 7):
- EXACT_SENTENCES (the default): every sentence embedded as a text of its own, a second model run after
  the papers'; the build writes the index without them first, so it is usable meanwhile;
- POOLED_SENTENCES: each sentence's token states from the paper's own pass, mean-pooled
  (model/pooling.py): no second run, but another sentence is often the best one.
Only exact vectors are reused by a later build (a manifest with `sentences: true` holds them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from explorer.artifacts.layout import SENTENCE_TABLE, SENTENCE_VECTORS
from explorer.artifacts.manifest import Manifest
from explorer.corpus.papers import Paper
from explorer.corpus.sentences import (
    SPLITTER_VERSION,
    per_paper,
    sentence_table,
    split_sentences,
    stack_sentences,
    text_spans,
)
from explorer.ingest.checkpoint import BLOCK
from explorer.ingest.embedding import LazyEmbedder

EXACT_SENTENCES, POOLED_SENTENCES = "exact", "pooled"
KINDS = (EXACT_SENTENCES, POOLED_SENTENCES)


def embed_papers(embedder: LazyEmbedder, papers: Sequence[Paper], done: int, total: int,
                 pooled: dict[str, np.ndarray] | None) -> np.ndarray:
    """Vectors (n, d) of `papers` (progress phase "papers", from `done` of `total`); with
    `pooled`, their sentence vectors pooled from the same pass go there by text hash."""
    texts = [p.text for p in papers]
    if pooled is None:
        return embedder.embed("papers", texts, done, total)
    vectors, parts = embedder.embed_with_spans("papers", texts, [text_spans(p) for p in papers],
                                               done, total)
    pooled.update(zip((p.text_hash for p in papers), (v.astype(np.float16) for v in parts)))
    return vectors


def reuse_stored(by_hash: dict[str, np.ndarray], previous: Manifest,
                 arrays: Mapping[str, np.ndarray], text_hashes: Sequence[str]) -> None:
    """Add to `by_hash` the exact sentence vectors of the previous build (`previous`: its
    manifest, `arrays`, one text hash per row) it lacks. Pooled vectors (a manifest with
    `sentences` false) and sentences split another way are not reused."""
    if previous.sentences and SENTENCE_VECTORS in arrays and (
            previous.sentence_splitter == SPLITTER_VERSION):
        stored = per_paper(text_hashes, arrays[SENTENCE_TABLE], arrays[SENTENCE_VECTORS])
        by_hash.update((h, v) for h, v in stored.items() if h not in by_hash)


def missing(papers: Sequence[Paper], by_hash: Mapping[str, np.ndarray]) -> list[Paper]:
    """Papers with sentences whose vectors `by_hash` lacks, once per text."""
    return list({p.text_hash: p for p in papers
                 if p.abstract and p.text_hash not in by_hash}.values())


def embed_sentences(papers: Sequence[Paper], embedder: LazyEmbedder, kind: str
                    ) -> dict[str, np.ndarray]:
    """Text hash -> (k, d) float16 sentence vectors of `papers`, of `kind`, in blocks of papers
    (progress phase "sentences": papers when pooled, else sentences)."""
    spans = [split_sentences(p.abstract) for p in papers]
    total, done = sum(map(len, spans)), 0
    found: dict[str, np.ndarray] = {}
    for start in range(0, len(papers), BLOCK):
        block, block_spans = papers[start:start + BLOCK], spans[start:start + BLOCK]
        if kind == POOLED_SENTENCES:
            _, parts = embedder.embed_with_spans("sentences", [p.text for p in block],
                                                 [text_spans(p) for p in block], start,
                                                 len(papers))
        else:
            texts = [p.abstract[s:e] for p, paper_spans in zip(block, block_spans)
                     for s, e in paper_spans]
            flat = embedder.embed("sentences", texts, done, total)
            done += len(texts)
            bounds = np.cumsum([0] + [len(paper_spans) for paper_spans in block_spans])
            parts = [flat[bounds[i]:bounds[i + 1]] for i in range(len(block))]
        found.update(zip((p.text_hash for p in block), (v.astype(np.float16) for v in parts)))
    return found


def sentence_arrays(papers: Sequence[Paper], embedder: LazyEmbedder, kind: str,
                    by_hash: dict[str, np.ndarray], dimension: int,
                    previous: tuple[Manifest, Mapping[str, np.ndarray], Sequence[str]] | None,
                    before_second_run: Callable[[], None]) -> dict[str, np.ndarray]:
    """The named arrays SENTENCE_TABLE (m, 3) and SENTENCE_VECTORS (m, d) float16 of `papers`:
    from this pass's vectors (`by_hash`: text hash -> (k, d)), the previous build's
    (`previous`: its manifest, arrays and row hashes; see reuse_stored), the rest embedded as
    `kind` says; `before_second_run()` is called before a second model run over sentences."""
    if previous is not None:
        reuse_stored(by_hash, *previous)
    todo = missing(papers, by_hash)
    if todo and kind == EXACT_SENTENCES:
        before_second_run()
    by_hash.update(embed_sentences(todo, embedder, kind))
    return {SENTENCE_TABLE: sentence_table(papers),
            SENTENCE_VECTORS: stack_sentences(papers, by_hash, dimension)}
