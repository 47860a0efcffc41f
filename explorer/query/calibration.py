"""How strong a hit's cosine is, in words a reader takes in at a glance: the cosine placed among
random cosines of the same corpus (stored at build time, build/quantiles.py) and named by the
share of them it beats.

A question's score (search, search_vector, recommend from a query alone) is compared with
title-like questions' cosines with other papers; a paper's or a document's (similar,
similar_to_text, recommend from liked papers) with random paper pairs'. An index built before
the question scores were stored compares a question's score with paper pairs, as before: a
percentile, no word.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.artifacts.layout import PAIR_QUANTILES, QUESTION_QUANTILES

QUESTIONS = "question-paper"  # a question's cosine with a paper, among random such pairs
PAPERS = "paper-paper"  # a paper's cosine with another, among random paper pairs
KINDS = (QUESTIONS, PAPERS)

# The labels, by percentile (the share of the random cosines below the hit's), strongest first;
# below the last: WEAK. Checked on the seeds (studies/badge_check.py ->
# studies/results/badges-seeds.md): every paraphrased question's target reads at least
# "related" (nearly all "good" or "strong"); off-topic questions' best hits read "weak".
STRENGTHS = ((99.5, "strong match"), (97.0, "good match"), (85.0, "related"))
WEAK = "weak"


def compared(percentile: float, compared_with: str) -> str:
    """'above 99.2% of random question-paper cosines' ('above all ...' past the top quantile)."""
    share = "all" if percentile >= 100 else f"{percentile:g}% of"
    return f"above {share} random {compared_with} cosines"


def strength(percentile: float) -> str:
    """The word for a score at `percentile` (0-100) of its reference scores."""
    for threshold, word in STRENGTHS:
        if percentile >= threshold:
            return word
    return WEAK


@dataclass(frozen=True)
class Scale:
    """What hits' cosines are compared with: the quantiles (at evenly spaced percentiles 0..100)
    of the random cosines named by `compared_with` (QUESTIONS or PAPERS). `labelled` is False
    when those are of another kind than the hits' (a question's against paper pairs): then a
    hit gets its percentile but no word."""

    compared_with: str
    quantiles: tuple[float, ...]
    labelled: bool = True

    def percentile(self, score: float) -> float:
        """Share of the random cosines below `score`, 0-100."""
        steps = len(self.quantiles) - 1
        position = bisect.bisect_left(self.quantiles, score)
        return round(100.0 * min(position, steps) / steps, 1)

    def place(self, score: float) -> dict[str, Any]:
        """Hit's fields for `score`: percentile, compared_with, strength."""
        percentile = self.percentile(score)
        return {"percentile": percentile, "compared_with": self.compared_with,
                "strength": strength(percentile) if self.labelled else None}


UNPLACED: dict[str, Any] = {"percentile": None, "compared_with": None, "strength": None}


def scale_for(kind: str, extras: Mapping[str, Any]) -> Scale | None:
    """The Scale of a `kind` score given an index's extras (the quantiles stored at build time;
    either may be missing); None when there is nothing to compare with."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of score {kind!r}; expected one of {KINDS}")
    questions, pairs = extras.get(QUESTION_QUANTILES), extras.get(PAIR_QUANTILES)
    if kind == QUESTIONS and questions and len(questions) > 1:
        return Scale(QUESTIONS, tuple(questions))
    if pairs and len(pairs) > 1:
        return Scale(PAPERS, tuple(pairs), labelled=kind == PAPERS)
    return None
