"""How strong a hit's cosine is: the cosine placed among random cosines of the same corpus, by
the share of them it beats (the words for it: explorer/wording.py). The random cosines
are computed at build time, here too (`pair_quantiles`, `question_quantiles`), and stored in the
index's extras under PAIR_QUANTILES and QUESTION_QUANTILES (artifacts/layout.py names them here).

A question's score (search, search_vector, recommend from a query alone) is compared with
title-like questions' cosines with other papers; a paper's or a document's (similar,
similar_to_text, recommend from liked papers) with random paper pairs'. An index built before
the question scores were stored compares a question's score with paper pairs, as before: a
percentile, no word.

The numbers fitted on raw cosines (the strength model's weights, its gate, the versions cosine)
are per model (ranking/fitted.py); a Scale carries its index's model's (`calibration`), and an
index of a model without them gives a question's hits their percentile and no word.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.corpus.papers import Paper
from explorer.ranking.fitted import MINILM, ModelCalibration, calibration_for, versions_cosine
from explorer.ranking.fusion import LEXICAL_WEIGHT

QUESTIONS = "question-paper"  # a question's cosine with a paper, among random such pairs
PAPERS = "paper-paper"  # a paper's cosine with another, among random paper pairs
KINDS = (QUESTIONS, PAPERS)
# Keys of the extras file (JSON): percentiles of random cosines, of paper pairs and of title-like
# questions with other papers (absent in indexes built before); artifacts/layout.py points here.
PAIR_QUANTILES, QUESTION_QUANTILES = "pair_quantiles", "question_quantiles"
# ... and of the best cosine a question about a topic the corpus lacks reaches (absent_quantiles;
# absent in indexes built before issue 31's gate): ABSENT_BEST names them in both places.
ABSENT_BEST = "absent_best_quantiles"

@dataclass(frozen=True)
class Scale:
    """What hits' cosines are compared with: the quantiles (at evenly spaced percentiles 0..100)
    of the random cosines named by `compared_with` (QUESTIONS or PAPERS). `labelled` is False
    when those are of another kind than the hits' (a question's against paper pairs): then a
    hit gets its percentile but no word. `absent`: a question's, the best cosines absent-topic
    questions reach in this corpus (ABSENT_BEST quantiles; () in an index built before).
    `calibration`: the values fitted on the index's model (fitted.py); None for a model
    without them: a question's hits then get no word (`worded`)."""

    compared_with: str
    quantiles: tuple[float, ...]
    labelled: bool = True
    absent: tuple[float, ...] = ()
    calibration: ModelCalibration | None = MINILM

    @property
    def worded(self) -> bool:
        """Whether hits on this scale may carry a strength word: labelled, and for a question's
        hits the model's calibration known (a paper's word reads only the index's own
        percentiles)."""
        return self.labelled and (self.compared_with != QUESTIONS or self.calibration is not None)

    def percentile(self, score: float) -> float:
        """Share of the random cosines below `score`, 0-100."""
        steps = len(self.quantiles) - 1
        position = bisect.bisect_left(self.quantiles, score)
        return round(100.0 * min(position, steps) / steps, 1)

    def place(self, score: float) -> dict[str, Any]:
        """Hit's fields for `score`: percentile, compared_with, labelled (whether a strength word
        may be given: wording.strength)."""
        return {"percentile": self.percentile(score), "compared_with": self.compared_with,
                "labelled": self.worded}



def scale_for(kind: str, extras: Mapping[str, Any], model_id: str | None) -> Scale | None:
    """The Scale of a `kind` score given an index's extras (the quantiles stored at build time;
    either may be missing) and its manifest's `model_id` (fitted.calibration_for); None when
    there is nothing to compare with."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of score {kind!r}; expected one of {KINDS}")
    questions, pairs = extras.get(QUESTION_QUANTILES), extras.get(PAIR_QUANTILES)
    calibration = calibration_for(model_id)
    if kind == QUESTIONS and questions and len(questions) > 1:
        return Scale(QUESTIONS, tuple(questions), absent=tuple(extras.get(ABSENT_BEST) or ()),
                     calibration=calibration)
    if pairs and len(pairs) > 1:
        return Scale(PAPERS, tuple(pairs), labelled=kind == PAPERS, calibration=calibration)
    return None


# -- how likely a question's hit is relevant ---------------------------------------------------
# A question's hit is judged with the first CONTEXT hits of its list (fused scores, best first):
# the chance that it is relevant, from a logistic model of six signals (relevance_features),
# three about the hit itself and three about its question:
#   tail     its score's place among this corpus's random question-paper cosines
#            (-log10 of the share above it, at most TAIL_CAP);
#   floor    how far it stands above the list's CONTEXT-th score;
#   behind   how far it stays below the list's best (0 for the best: a near-topic paper far
#            below a real answer reads lower than the answer);
#   ahead    how far it stands above the next hit;
#   lead     how far the list's best stands above its second;
#   margin   the list's best cosine minus the median best cosine that this corpus's
#            absent-topic questions reach (ABSENT_BEST, stored by the build).
# The weights (intercept, then one per signal) are per model (fitted.py; RELEVANCE_WEIGHTS here
# are the default model's), fitted by
# studies/strength_calibration.py on judged questions of three sets (seeds, paperlists-ml TLDRs
# and titles, ACM-CR citation contexts), each also asked with its relevant papers removed (the
# absent-topic questions), and checked held out (studies/results/strength-calibration.md).
# The gate: when the list's best cosine stays below what GATE% of the corpus's absent-topic
# questions reach, no hit's chance exceeds GATED_CHANCE. GATE was chosen by the study's rule:
# the highest percentile, in steps of 5, at which the seed paraphrase targets stay >= 85%
# "strong" or "good", read by weights fitted on the other sets and by weights fitted on the
# even questions of all sets (the odd targets); checked on paperlists and ACM-CR.
# The gate spares a list whose best hit shares at least SHARED of the question's word weight
# (its fused score minus its cosine is at least SHARED of LEXICAL_WEIGHT: half the question's
# idf, roughly): its words say the topic is here even when the cosine is unsure ('retrieving
# theorems for formal theorem proving' -> Lean Finder, cosine 0.40, fused 1.13).
# An index built before ABSENT_BEST was stored has no question-level reference: its hits are
# judged by THREE_SIGNAL_WEIGHTS (tail, floor, lead), without the gate.
CONTEXT = 10
TAIL_CAP = 3.0  # -log10(1 - percentile/100) at most: the quantiles' resolution is 0.1 point
SIGNALS = ("tail", "floor", "behind", "ahead", "lead", "margin")
RELEVANCE_WEIGHTS = MINILM.relevance_weights
THREE_SIGNAL_WEIGHTS = MINILM.three_signal_weights
GATE, GATED_CHANCE = MINILM.gate, 0.1
SHARED = 0.5


def relevance_features(scores: np.ndarray, quantiles: Sequence[float],
                       cosines: np.ndarray | None = None,
                       absent: Sequence[float] = ()) -> np.ndarray:
    """(m, 6) SIGNALS of each of one list's hits from its fused `scores` (m,), best first, the
    corpus's question-paper `quantiles`, the hits' `cosines` (at least the first CONTEXT) and
    the corpus's `absent` quantiles (ABSENT_BEST); without `cosines` or `absent` (an index
    built before they were stored): (m, 3), tail, floor and lead."""
    scores = np.asarray(scores, dtype=np.float64)
    width = len(SIGNALS) if _gated(cosines, absent) else 3
    if not len(scores):
        return np.zeros((0, width))
    table = np.asarray(quantiles, dtype=np.float64)
    steps = max(1, len(table) - 1)
    share = np.minimum(np.searchsorted(table, scores, side="left"), steps) / steps
    tail = np.minimum(-np.log10(np.maximum(1.0 - share, 10.0 ** -TAIL_CAP)), TAIL_CAP)
    lead = np.full(len(scores), scores[0] - scores[1] if len(scores) > 1 else 0.0)
    floor = scores - scores[min(CONTEXT, len(scores)) - 1]
    if width == 3:
        return np.column_stack([tail, floor, lead])
    ahead = scores - np.append(scores[1:], scores[-1])
    margin = np.full(len(scores), _best(cosines) - absent_level(absent, 50))
    return np.column_stack([tail, floor, scores[0] - scores, ahead, lead, margin])


def relevance(scores: np.ndarray, quantiles: Sequence[float],
              weights: Sequence[float] | None = None, *, cosines: np.ndarray | None = None,
              absent: Sequence[float] = (), gate: float | None = None,
              calibration: ModelCalibration = MINILM) -> np.ndarray:
    """The chance (m,) that each hit of one list (fused `scores`, best first; the first CONTEXT
    of them at least, for the signals to mean what they were fitted on) is relevant: the
    logistic model over relevance_features, never rising down the list (a hit's chance is at
    most the one above it), then the gate (at most GATED_CHANCE when the best of `cosines`
    stays below `gate`% of the `absent` quantiles and the best hit shares less than SHARED of
    the question's words: words_shared). Without `cosines` and `absent` (an index
    built before they were stored): the three-signal weights, no gate. `weights` and `gate`
    default to the `calibration`'s: the index's model's (fitted.py)."""
    features = relevance_features(scores, quantiles, cosines, absent)
    gated = features.shape[1] == len(SIGNALS)
    if weights is None:
        weights = (calibration.relevance_weights if gated
                   else calibration.three_signal_weights)
    gate = calibration.gate if gate is None else gate
    logit = weights[0] + features @ np.asarray(weights[1:], dtype=np.float64)
    chance = np.minimum.accumulate(1.0 / (1.0 + np.exp(-logit))) if len(logit) else logit
    if (gated and len(chance) and _best(cosines) < absent_level(absent, gate)
            and words_shared(scores, cosines) < SHARED):
        chance = np.minimum(chance, GATED_CHANCE)
    return chance


def words_shared(scores: np.ndarray, cosines: np.ndarray) -> float:
    """About how much of a question's word weight (idf) its best hit shares, 0-1: the hit's
    lexical part of the fused score (fusion.absolute_fusion) over LEXICAL_WEIGHT."""
    return float((scores[0] - np.asarray(cosines)[0]) / LEXICAL_WEIGHT)


def absent_level(absent: Sequence[float], percent: float) -> float:
    """The best cosine that `percent`% of the corpus's absent-topic questions stay below."""
    return float(absent[round(percent / 100 * (len(absent) - 1))])


def _gated(cosines: np.ndarray | None, absent: Sequence[float]) -> bool:
    return cosines is not None and len(absent) > 1


def _best(cosines: np.ndarray | None) -> float:
    return float(np.max(np.asarray(cosines)[:CONTEXT])) if cosines is not None and len(
        cosines) else -1.0


# -- what hits are compared with, computed at build time --------------------------------------
PAIR_SAMPLES = 50_000  # enough for percentiles to +-0.5 point
QUESTION_TEXTS = 1_000  # titles embedded as questions: about 8 s on the shared 2 cores
POINTS = 1001  # percentiles 0, 0.1, ..., 100: the strength labels sit in the top few percent
SEED = 0
ABSENT_POINTS = 101  # percentiles 0, 1, ..., 100 of the absent-topic questions' best cosines
VERSIONS = MINILM.versions  # a paper's cosine with another version of itself: per model, fitted.py
BLOCK = 64  # questions scored against the whole corpus at once

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
    chosen = _chosen(count, rng)
    questions = embed([papers[row].title for row in chosen])  # (t, d)
    per_question = -(-PAIR_SAMPLES // len(chosen))
    if per_question >= count - 1:
        offsets = np.broadcast_to(np.arange(1, count), (len(chosen), count - 1))
    else:
        offsets = rng.integers(1, count, (len(chosen), per_question))
    others = (chosen[:, None] + offsets) % count  # never the question's own paper
    scores = np.concatenate([vectors[rows] @ question for question, rows in zip(questions, others)])
    return _quantiles(scores, points)


def absent_quantiles(papers: Sequence[Paper], vectors: np.ndarray, embed: Embed,
                     points: int = ABSENT_POINTS, versions: float = VERSIONS) -> list[float]:
    """What a question about a topic this corpus lacks reaches: the best cosine of a title-like
    question with any paper but its own and its versions (cosine with it above `versions`, the
    model's: fitted.versions_cosine), at
    `points` evenly spaced percentiles 0..100 -- self-supervised absent-topic questions, the
    same titles question_quantiles draws (QUESTION_TEXTS, fixed seed), so a build embeds them
    once (the embedder caches nothing: see question_references)."""
    count = len(papers)
    if count < 2:
        return []
    chosen = _chosen(count)
    return best_absent(embed([papers[row].title for row in chosen]), chosen, vectors, points,
                       versions)


def best_absent(questions: np.ndarray, chosen: np.ndarray, vectors: np.ndarray,
                points: int = ABSENT_POINTS, versions: float = VERSIONS) -> list[float]:
    """absent_quantiles from the embedded `questions` (t, d) of the papers at rows `chosen`
    (t,) of `vectors` (n, d), in blocks of BLOCK questions (memory O(n * BLOCK))."""
    best = np.empty(len(chosen), dtype=np.float64)
    for start in range(0, len(chosen), BLOCK):
        rows = chosen[start:start + BLOCK]
        scores = vectors @ questions[start:start + BLOCK].T  # (n, b)
        same = vectors @ vectors[rows].T > versions  # (n, b): the paper and its versions
        same[rows, np.arange(len(rows))] = True
        best[start:start + BLOCK] = np.where(same, -np.inf, scores).max(axis=0)
    return _quantiles(best[np.isfinite(best)], points) if np.isfinite(best).any() else []


def question_references(papers: Sequence[Paper], vectors: np.ndarray, embed: Embed,
                        model_id: str | None = None) -> dict[str, list[float]]:
    """QUESTION_QUANTILES and ABSENT_BEST of a corpus, its drawn titles embedded once; its
    versions dropped by the cosine of the model `model_id` (fitted.versions_cosine; None:
    the default model's)."""
    versions = VERSIONS if model_id is None else versions_cosine(model_id)
    embedded: dict[tuple[str, ...], np.ndarray] = {}

    def once(texts: list[str]) -> np.ndarray:
        if tuple(texts) not in embedded:
            embedded[tuple(texts)] = embed(texts)
        return embedded[tuple(texts)]

    return {QUESTION_QUANTILES: question_quantiles(papers, vectors, once),
            ABSENT_BEST: absent_quantiles(papers, vectors, once, versions=versions)}


def kept_question_quantiles(previous: Sequence[float] | None, previous_count: int,
                            count: int, model_loaded: bool) -> list[float] | None:
    """The previous build's question quantiles when this build may keep them: nothing else
    needed the model (no text is new, so the corpus is the previous one or part of it) and at
    most a tenth of its papers are gone; None: compute them afresh."""
    if not previous or model_loaded or count < 0.9 * previous_count:
        return None
    return list(previous)


def _chosen(count: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """The rows (t,) whose titles are asked as questions, drawn with the fixed SEED."""
    rng = np.random.default_rng(SEED) if rng is None else rng
    return np.sort(rng.choice(count, min(QUESTION_TEXTS, count), replace=False))


def _quantiles(scores: np.ndarray, points: int) -> list[float]:
    return [round(float(q), 5) for q in np.quantile(scores, np.linspace(0, 1, points))]
