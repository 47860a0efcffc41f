"""The ranking policy: which channels a request asks, how their lists are fused, whether the
feedback pass runs, how deep each channel looks. pipeline.py carries a Plan out.

Changing the hybrid fusion (e.g. to ranking.absolute_fusion) is one line: HYBRID_FUSION.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.query.channels import Ranked, Request
from explorer.query.options import QueryOptions
from explorer.query.ranking import (
    CANDIDATES,
    DENSE,
    DENSE_WEIGHT,
    HYBRID,
    LEXICAL,
    LEXICAL_WEIGHT,
    absolute_fusion,
    blend_fusion,
    check_mode,
)

# The ranking used when none is asked for, once an index has the lexical channel. Chosen by
# `explorer eval` on ACM-CR slices (studies/results/quality-acm-cr-2026-11-30.md): hybrid
# beat both lexical and dense in nDCG@10 on all three query sets, on 3k and 10k papers.
DEFAULT_MODE = HYBRID
# Hybrid runs a pseudo-relevance feedback pass unless told not to (feedback.py): it won in
# 2-fold cross-validation on full ACM-CR (studies/results/quality-acm-cr-prf.md).
DEFAULT_FEEDBACK = True
# The channels, by name: what Explorer.channel(name) returns.
SCORES = "scores"  # a precomputed score of every row (Request.scores), in place of dense
CHANNELS = (DENSE, LEXICAL, SCORES)

Fusion = Callable[[Sequence[Ranked], Sequence[float], Request], Ranked]


def blend(ranked: Sequence[Ranked], weights: Sequence[float], request: Request) -> Ranked:
    """ranking.blend_fusion: min-max normalised scores, weighted."""
    return blend_fusion(ranked, weights)


def absolute(ranked: Sequence[Ranked], weights: Sequence[float], request: Request) -> Ranked:
    """ranking.absolute_fusion of (dense, lexical): cosine + weights[1] * BM25 / the text's
    ceiling (weights[0] is not used: the cosine counts as it is)."""
    dense, lexical = ranked
    return absolute_fusion(dense, lexical, request.ceiling(), weights[1])


# How hybrid fuses its two channels (dense or scores first, then lexical), with their weights.
# ABSOLUTE_FUSION is ready but not shipped (ranking.LEXICAL_WEIGHT says what is measured);
# switching is `HYBRID_FUSION = ABSOLUTE_FUSION` (tests/test_options.py checks the switch).
# It would take recommend's SVM decision values as if they were cosines: measure that too.
HYBRID_FUSION: tuple[Fusion, tuple[float, ...]] = (blend, (DENSE_WEIGHT, 1 - DENSE_WEIGHT))
ABSOLUTE_FUSION: tuple[Fusion, tuple[float, ...]] = (absolute, (1.0, LEXICAL_WEIGHT))


@dataclass(frozen=True)
class Plan:
    """How one request is ranked (the policy's decisions, carried out by pipeline.run)."""

    channels: tuple[str, ...]  # asked in this order; the first is the one feedback re-scores
    weights: tuple[float, ...]  # one per channel, for `fusion` (one channel: not fused)
    fusion: Fusion
    feedback: bool  # re-score the first channel with the query moved towards the first pass
    diverse: bool  # re-rank the fused list with MMR
    # Candidate pool: rows each channel returns, >= top_k when fusion or MMR re-orders them.
    depth: int
    top_k: int  # the result count
    cosine: bool  # hits scored by their cosine to Request.vector, else by the fused score


def plan_for(mode: str, options: QueryOptions, scores: bool = False) -> Plan:
    """The Plan for `mode` (lexical, dense or hybrid: the caller resolves the default) and
    `options` (feedback None: DEFAULT_FEEDBACK). `scores`: the request brings a precomputed
    score vector (recommend's SVM) that replaces the dense channel; no feedback then."""
    first = SCORES if scores else DENSE
    channels = {LEXICAL: (LEXICAL,), DENSE: (first,), HYBRID: (first, LEXICAL)}[check_mode(mode)]
    fusion, weights = HYBRID_FUSION
    fused = len(channels) > 1
    wanted = DEFAULT_FEEDBACK if options.feedback is None else options.feedback
    top_k = options.top_k
    return Plan(channels=channels, weights=weights[: len(channels)], fusion=fusion,
                feedback=fused and wanted and not scores, diverse=options.diverse,
                depth=max(CANDIDATES, top_k) if fused or options.diverse else top_k,
                top_k=top_k, cosine=mode != LEXICAL)
