"""Pseudo-relevance feedback for the hybrid ranking (Rocchio, 1971, on the dense channel).

A first hybrid pass ranks the candidates of both channels; the query vector, moved towards the
mean vector of the first pass's best papers, then re-scores the same candidates and the two
channels are fused again. The papers that agree with both the words and the meaning of the
query pull in their neighbours; a query that is ambiguous or short gains context.

Only the first pass's candidates are re-scored, so the stage costs one (candidates, d) product,
not a second search. Measured on ACM-CR (full corpus), settings chosen by 2-fold
cross-validation: studies/prf_study.py, studies/results/quality-acm-cr-prf.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.ranking.fusion import rocchio

FEEDBACK_DOCS = 3  # papers of the first pass that move the query
FEEDBACK_WEIGHT = 0.5  # how far: query + weight * their mean vector
# The gate: below this many papers the pass is skipped and the first pass comes back unchanged.
# On the 71 seeds the pass loses (seed questions MRR 0.964 with it, 0.993 without; related
# pairs 46 vs 47 of 60, cosine 47), chosen by 2-fold CV by question
# (studies/small_corpora.py, studies/results/quality-small-seeds.md); on full
# ACM-CR (106k papers) it wins. Where between them it starts to win is still to be measured
# on the 1k / 10k ACM-CR corpora of that study.
FEEDBACK_MIN_PAPERS = 1_000


def feedback_safe(papers: int, min_papers: int | None = None) -> bool:
    """Whether the feedback pass may run on a corpus of `papers` papers (at least
    `min_papers`, default FEEDBACK_MIN_PAPERS)."""
    return papers >= (FEEDBACK_MIN_PAPERS if min_papers is None else min_papers)


def feedback_channel(vectors: np.ndarray, vector: np.ndarray, first_pass: np.ndarray,
                     candidates: Sequence[np.ndarray], depth: int,
                     docs: int = FEEDBACK_DOCS, weight: float = FEEDBACK_WEIGHT,
                     min_papers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The dense channel again, after feedback -> (rows, cosines to the moved query), best
    first, at most `depth` rows (the candidate pool's size, as each channel returned it).

    `vectors` (n, d) are all papers, `vector` (d,) the query, `first_pass` the fused rows of
    the first pass (best first; its top `docs` are the feedback), `candidates` the row arrays
    each channel returned (the pool re-scored: filters and exclusions already applied; the
    first is the dense channel's). When `feedback_safe` says no (a corpus of fewer than
    `min_papers` papers), the dense channel of the first pass comes back unchanged."""
    if not feedback_safe(len(vectors), min_papers):
        rows = np.asarray(candidates[0], dtype=np.int64)[:depth]
        cosines = vectors[rows] @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-cosines, kind="stable")
        return rows[order], cosines[order]
    pool = np.unique(np.concatenate([np.asarray(c, dtype=np.int64) for c in candidates]))
    if len(pool) == 0:
        return pool, np.zeros(0, dtype=np.float32)
    target = rocchio(vector, vectors[np.asarray(first_pass[:docs], dtype=np.int64)], weight)
    cosines = vectors[pool] @ target
    order = np.argsort(-cosines, kind="stable")[:depth]
    return pool[order], cosines[order]
