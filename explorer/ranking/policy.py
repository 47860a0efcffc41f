"""The ranking policy: which channels a request asks, how their lists are fused, whether the
feedback pass runs, how deep each channel looks. pipeline.py carries a Plan out.

A question (`search`) and a paper (`similar`) are ranked by policies chosen on their own
judgments: HYBRID_FUSION (plausible absolute fusion) + DEFAULT_FEEDBACK for questions,
PAPER_FUSION without feedback for papers in corpora below PAPER_POLICY_BELOW papers and
BLEND_FUSION + DEFAULT_FEEDBACK for papers in larger ones; precomputed scores (recommend's
SVM), which are not cosines, are blended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.ranking.channels import Ranked, Request
from explorer.ranking.fusion import (
    CANDIDATES,
    DENSE,
    DENSE_WEIGHT,
    HYBRID,
    LEXICAL,
    LEXICAL_WEIGHT,
    PAPER_LEXICAL_WEIGHT,
    PLAUSIBILITY_POWER,
    absolute_fusion,
    blend_fusion,
    check_mode,
    plausible_by,
)
from explorer.ranking.options import QueryOptions

# The ranking used when none is asked for, once an index has the lexical channel. Chosen by
# `explorer eval` on ACM-CR slices (studies/results/quality-acm-cr-2026-11-30.md): hybrid
# beat both lexical and dense in nDCG@10 on all three query sets, on 3k and 10k papers.
DEFAULT_MODE = HYBRID
# Hybrid runs a pseudo-relevance feedback pass unless told not to (feedback.py): it won in
# 2-fold cross-validation on full ACM-CR (studies/results/quality-acm-cr-prf.md).
DEFAULT_FEEDBACK = True
# The exact-match guard of the feedback pass (pipeline.exact_match): a first-pass top hit that
# also leads the lexical channel and whose cosine is above this percentile of the corpus's
# random cosines of its kind stays first. Its own number, not a display label's threshold.
EXACT_PERCENTILE = 99.5
# The channels, by name: the keys of query/ranker.py's channels_over (Ranker.candidates).
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


def plausible(ranked: Sequence[Ranked], weights: Sequence[float], request: Request) -> Ranked:
    """absolute fusion with each candidate's lexical share scaled by its cosine's percentile
    among the corpus's random cosines of the request's kind (request.reference), raised to
    PLAUSIBILITY_POWER (ranking.plausible_by): shared words lift a paper only as far as its
    meaning is plausible for the query. Without a reference: plain absolute fusion."""
    dense, lexical = ranked
    factor = (plausible_by(request.reference, PLAUSIBILITY_POWER)
              if request.reference and PLAUSIBILITY_POWER else None)
    return absolute_fusion(dense, lexical, request.ceiling(), weights[1], factor)


# How hybrid fuses its two channels (dense first, then lexical), with their weights, for a
# question, at every corpus size: cosine + LEXICAL_WEIGHT * BM25 / the question's ceiling,
# the BM25 share scaled by plausibility. Chosen by studies/plausible_fusion.py (2-fold CV under
# the never-lose rule on ACM-CR 100 / 1k / 10k / full, paperlists-ml TLDR and title questions
# at 1k / 10k and the seed questions; studies/DECISIONS.md item 15).
HYBRID_FUSION: tuple[Fusion, tuple[float, ...]] = (plausible, (1.0, LEXICAL_WEIGHT))
# The min-max blend: precomputed scores (recommend's SVM, not cosines) with BM25, and a paper
# as the query in a corpus of PAPER_POLICY_BELOW papers or more (it won there: item 10).
BLEND_FUSION: tuple[Fusion, tuple[float, ...]] = (blend, (DENSE_WEIGHT, 1 - DENSE_WEIGHT))
ABSOLUTE_FUSION: tuple[Fusion, tuple[float, ...]] = (absolute, (1.0, LEXICAL_WEIGHT))
# One paper as the query (similar, similar_to_text), on a corpus of fewer than
# PAPER_POLICY_BELOW papers: absolute fusion
# (its whole text against BM25 gave a lexical channel whose min-max stretch lost to plain
# cosine there), no feedback pass. From PAPER_POLICY_BELOW papers on, papers are ranked like
# questions (the blend then the pass: it won there). Both folds of studies/size_gate.py chose
# this gate and no feedback under the never-lose rule; held out it beats dense at 100
# and 1,000 papers and on the seed pairs; from 10,000 papers on, BLEND_FUSION.
PAPER_FUSION: tuple[Fusion, tuple[float, ...]] = (absolute, (1.0, PAPER_LEXICAL_WEIGHT))
PAPER_POLICY_BELOW = 10_000


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
    cosine: bool  # hits carry their cosine to Request.vector besides the score they are ranked by


def plan_for(mode: str, options: QueryOptions, scores: bool = False,
             paper_query: bool = False, papers: int | None = None) -> Plan:
    """The Plan for `mode` (lexical, dense or hybrid: the caller resolves the default) and
    `options` (feedback None: the policy's default). `scores`: the request brings a
    precomputed score vector (recommend's SVM) that replaces the dense channel; no feedback
    then. `paper_query`: the query is one paper's or document's text (similar,
    similar_to_text), not a question; `papers`: the corpus's size (None: large)."""
    first = SCORES if scores else DENSE
    channels = {LEXICAL: (LEXICAL,), DENSE: (first,), HYBRID: (first, LEXICAL)}[check_mode(mode)]
    paper = (paper_query and not scores and papers is not None
             and papers < PAPER_POLICY_BELOW)
    if scores or (paper_query and not paper):
        fusion, weights = BLEND_FUSION
    else:
        fusion, weights = PAPER_FUSION if paper else HYBRID_FUSION
    fused = len(channels) > 1
    default = False if paper else DEFAULT_FEEDBACK
    wanted = default if options.feedback is None else options.feedback
    top_k = options.top_k
    return Plan(channels=channels, weights=weights[: len(channels)], fusion=fusion,
                feedback=fused and wanted and not scores, diverse=options.diverse,
                depth=max(CANDIDATES, top_k) if fused or options.diverse else top_k,
                top_k=top_k, cosine=mode != LEXICAL)
