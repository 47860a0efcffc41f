"""What a hit's cosine is compared with at query time (query/calibration.py): quantiles of the
cosines of random paper pairs, and of title-like questions with random other papers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from explorer.corpus.papers import Paper

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
