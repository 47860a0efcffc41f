"""How strong a hit's cosine is: the cosine placed among random cosines of the same corpus, by
the share of them it beats (the words for it: explorer/wording.py). The random cosines
are computed at build time, here too (`pair_quantiles`, `question_quantiles`), and stored in the
index's extras under PAIR_QUANTILES and QUESTION_QUANTILES (artifacts/layout.py names them here).

A question's score (search, search_vector, recommend from a query alone) is compared with
title-like questions' cosines with other papers; a paper's or a document's (similar,
similar_to_text, recommend from liked papers) with random paper pairs'. An index built before
the question scores were stored compares a question's score with paper pairs, as before: a
percentile, no word.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.corpus.papers import Paper

QUESTIONS = "question-paper"  # a question's cosine with a paper, among random such pairs
PAPERS = "paper-paper"  # a paper's cosine with another, among random paper pairs
KINDS = (QUESTIONS, PAPERS)
# Keys of the extras file (JSON): percentiles of random cosines, of paper pairs and of title-like
# questions with other papers (absent in indexes built before); artifacts/layout.py points here.
PAIR_QUANTILES, QUESTION_QUANTILES = "pair_quantiles", "question_quantiles"

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
        """Hit's fields for `score`: percentile, compared_with, labelled (whether a strength word
        may be given: wording.strength)."""
        return {"percentile": self.percentile(score), "compared_with": self.compared_with,
                "labelled": self.labelled}



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


# -- what hits are compared with, computed at build time --------------------------------------
PAIR_SAMPLES = 50_000  # enough for percentiles to +-0.5 point
QUESTION_TEXTS = 1_000  # titles embedded as questions: about 8 s on the shared 2 cores
POINTS = 1001  # percentiles 0, 0.1, ..., 100: the strength labels sit in the top few percent
SEED = 0

Embed = Callable[[list[str]], np.ndarray]  # texts -> (n, d) unit rows, as questions are embedded


def pair_quantiles(vectors: np.ndarray, points: int = POINTS) -> list[float]:
    """Cosine of random distinct paper pairs at `points` evenly spaced percentiles 0..100."""
    count = len(vectors)
    if count < 2:
        return []
    rng = np.random.default_rng(SEED)
    samples = min(PAIR_SAMPLES, count * (count - 1) // 2)
    left = rng.integers(0, count, samples)
    right = (left + rng.integers(1, count, samples)) % count
    return _quantiles(np.einsum("ij,ij->i", vectors[left], vectors[right]), points)


def question_quantiles(papers: Sequence[Paper], vectors: np.ndarray, embed: Embed,
                       points: int = POINTS) -> list[float]:
    """Cosine of title-like questions with random OTHER papers at `points` evenly spaced
    percentiles 0..100: what a question's score to a paper is compared with.

    The questions are the titles (real or derived) of up to QUESTION_TEXTS papers drawn with a
    fixed seed, embedded by `embed` as a question is; each is scored against PAIR_SAMPLES /
    QUESTION_TEXTS random papers other than its own (all of them in a small corpus)."""
    count = len(papers)
    if count < 2:
        return []
    rng = np.random.default_rng(SEED)
    chosen = np.sort(rng.choice(count, min(QUESTION_TEXTS, count), replace=False))
    questions = embed([papers[row].title for row in chosen])  # (t, d)
    per_question = -(-PAIR_SAMPLES // len(chosen))
    if per_question >= count - 1:
        offsets = np.broadcast_to(np.arange(1, count), (len(chosen), count - 1))
    else:
        offsets = rng.integers(1, count, (len(chosen), per_question))
    others = (chosen[:, None] + offsets) % count  # never the question's own paper
    scores = np.concatenate([vectors[rows] @ question for question, rows in zip(questions, others)])
    return _quantiles(scores, points)


def kept_question_quantiles(previous: Sequence[float] | None, previous_count: int,
                            count: int, model_loaded: bool) -> list[float] | None:
    """The previous build's question quantiles when this build may keep them: nothing else
    needed the model (no text is new, so the corpus is the previous one or part of it) and at
    most a tenth of its papers are gone; None: compute them afresh."""
    if not previous or model_loaded or count < 0.9 * previous_count:
        return None
    return list(previous)


def _quantiles(scores: np.ndarray, points: int) -> list[float]:
    return [round(float(q), 5) for q in np.quantile(scores, np.linspace(0, 1, points))]
