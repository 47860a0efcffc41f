"""Ranking metrics over one ranked list and its relevance judgements (trec_eval definitions).

`ranked` is a sequence of document keys, best first; `relevant` maps each judged-relevant key to
its grade (> 0). Keys may be anything hashable (paper ids, index rows).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


def ndcg_at_k(ranked: Sequence[Hashable], relevant: Mapping[Hashable, float], top_k: int
              ) -> float:
    """Normalised discounted cumulative gain of the first `top_k`: gain = grade, discount =
    log2(rank + 1)."""
    _check(top_k)
    if not relevant:
        return 0.0
    gained = sum(relevant.get(key, 0.0) / math.log2(rank + 1)
                 for rank, key in enumerate(_unique(ranked)[:top_k], start=1))
    ideal_grades = sorted((g for g in relevant.values() if g > 0), reverse=True)[:top_k]
    ideal = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal_grades, start=1))
    return gained / ideal if ideal > 0 else 0.0


def recall_at_k(ranked: Sequence[Hashable], relevant: Mapping[Hashable, float], top_k: int
                ) -> float:
    """Share of the relevant documents found in the first `top_k`."""
    _check(top_k)
    wanted = {key for key, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(_unique(ranked)[:top_k])) / len(wanted)


def mrr_at_k(ranked: Sequence[Hashable], relevant: Mapping[Hashable, float], top_k: int
             ) -> float:
    """1 / rank of the first relevant document within the first `top_k`, else 0."""
    _check(top_k)
    for rank, key in enumerate(_unique(ranked)[:top_k], start=1):
        if relevant.get(key, 0.0) > 0:
            return 1.0 / rank
    return 0.0


def score_run(ranked: Sequence[Hashable], relevant: Mapping[Hashable, float]) -> dict[str, float]:
    """All of METRICS for one query."""
    return {
        "ndcg@10": ndcg_at_k(ranked, relevant, 10),
        "recall@10": recall_at_k(ranked, relevant, 10),
        "recall@100": recall_at_k(ranked, relevant, 100),
        "mrr@10": mrr_at_k(ranked, relevant, 10),
    }


def mean_scores(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over queries (each query weighs the same); zeros when empty."""
    if not per_query:
        return {name: 0.0 for name in METRICS}
    return {name: sum(q[name] for q in per_query) / len(per_query) for name in METRICS}


def _unique(ranked: Sequence[Hashable]) -> list[Hashable]:
    """Keep the first occurrence of each key: a repeated document earns nothing twice."""
    return list(dict.fromkeys(ranked))


def _check(top_k: int) -> None:
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
