"""The columns of the evaluation tables, each a ranking by the product's own policy and
pipeline: lexical, dense and the default.

`Corpus` holds papers and their vectors in memory with the channels Explorer builds over an
index (query/ranker.py's channels_over: FAISS, BM25), so a sub-corpus of a cached pool is ranked
exactly as an index of the same papers would rank it: `ranked` calls the product's Ranker.rows,
as Explorer.rank does. Whatever policy ships is measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.corpus.papers import Paper
from explorer.index.lexical import LexicalIndex
from explorer.query.engine import Explorer
from explorer.query.ranker import Ranker, reference
from explorer.ranking.calibration import (
    ABSENT_BEST,
    PAPERS,
    QUESTION_QUANTILES,
    QUESTIONS,
    pair_quantiles,
    question_references,
)
from explorer.ranking.channels import Channel
from explorer.ranking.filters import Blocked
from explorer.ranking.fusion import DENSE, HYBRID, LEXICAL
from explorer.ranking.options import QueryOptions
from explorer.ranking.policy import DEFAULT_MODE

DEFAULT = "default"
COLUMNS = (LEXICAL, DENSE, DEFAULT)
TOP_K = 100  # ranks scored (MRR@100, Recall@100)


def columns_for(modes: Sequence[str]) -> tuple[str, ...]:
    """The columns that `explorer eval --mode MODES` asks for: lexical and dense as named;
    hybrid brings the default."""
    return tuple(c for c in COLUMNS if c in modes or (c == DEFAULT and HYBRID in modes))


@dataclass(frozen=True, eq=False)
class Corpus:
    """Papers and their vectors (n, d) float32, unit rows, with the product's two channels and
    the random cosines a build stores (`references`: calibration kind -> quantiles, and
    calibration.ABSENT_BEST -> the absent-topic questions' best cosines)."""

    papers: list[Paper]
    vectors: np.ndarray
    lexical: LexicalIndex
    channels: dict[str, Channel]
    references: dict[str, tuple[float, ...]]
    ranker: Ranker  # the product's ranking over these papers and channels

    @classmethod
    def of(cls, papers: Sequence[Paper], vectors: np.ndarray, titles: np.ndarray | None = None,
           references: dict[str, tuple[float, ...]] | None = None) -> Corpus:
        """Index `papers` and `vectors` (n, d) as a build does (exact FAISS, BM25, the paper
        pairs' and, given the papers' `titles` (n, d) embedded as questions, the questions'
        reference cosines); `references` instead: an index's own (ranker.reference)."""
        ranker = Ranker.of(list(papers), vectors)
        vectors = ranker.vectors
        if references is None:
            references = {PAPERS: tuple(pair_quantiles(vectors)), QUESTIONS: (), ABSENT_BEST: ()}
            if titles is not None:
                embedded = {paper.title: vector for paper, vector in zip(papers, titles)}
                references.update({kind: tuple(values) for kind, values in question_references(
                    papers, vectors, lambda texts: np.stack([embedded[t] for t in texts])
                ).items()})
                references[QUESTIONS] = references.pop(QUESTION_QUANTILES)
        return cls(list(ranker.papers), vectors, ranker.lexical(), dict(ranker.channels),
                   references, ranker)

    @classmethod
    def of_index(cls, explorer: Explorer) -> Corpus:
        """An open index's papers, vectors and stored reference cosines."""
        scale = explorer.scale(QUESTIONS)
        return cls.of(explorer.papers, explorer.vectors, references={
            **{kind: reference(explorer.scale(kind)) for kind in (QUESTIONS, PAPERS)},
            ABSENT_BEST: scale.absent if scale is not None else ()})

    def __len__(self) -> int:
        return len(self.papers)


def ranked(corpus: Corpus, column: str, text: str, vector: np.ndarray, *,
           paper_query: bool = False, exclude: Sequence[int] = (), top_k: int = TOP_K
           ) -> np.ndarray:
    """The rows (<= top_k,) that `column` ranks first for a query: `text` for BM25, `vector`
    (d,) for the dense channel; `paper_query`: the query is a paper's or document's text (a
    `similar` request), else a question; rows in `exclude` never come back."""
    reference = corpus.references[PAPERS if paper_query else QUESTIONS]
    blocked = Blocked(len(corpus), excluded=frozenset(int(row) for row in exclude))
    options = QueryOptions(top_k=top_k, mode=DEFAULT_MODE if column == DEFAULT else column)
    (rows, _), _ = corpus.ranker.rows(text, vector, options, blocked, reference=reference,
                                      paper_query=paper_query)
    return rows
