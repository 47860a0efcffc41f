"""Strength that means relevance (issue 31): a question's hit is named by its calibrated chance
of being relevant (ranking/calibration.relevance, wording.RELEVANCE_WORDS), so questions about
topics the corpus lacks read "weak" while the seed paraphrases' targets read "strong" or "good
match"; the words are labels only: the ranking is the same. Real seeds index and model."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from explorer import wording
from explorer.query.engine import Explorer
from explorer.ranking.calibration import CONTEXT, relevance
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES


def _above_weak(ex: Explorer) -> list[tuple[str, str]]:
    tops = [ex.search(question, 10)[0] for question in ABSENT_TOPICS]
    return [(hit.title, hit.strength) for hit in tops if hit.strength != wording.WEAK]


def test_few_absent_topic_questions_read_above_weak(seeds_explorer: Explorer):
    """With the percentile words 6 of these 14 top hits read above "weak"; at most a third now
    (4 of 14 when this was written; the issue's target, 1 in 10, is the test below)."""
    assert len(_above_weak(seeds_explorer)) <= len(ABSENT_TOPICS) // 3


@pytest.mark.xfail(strict=True, reason="issue 31's target, not reached yet: the list's own "
                   "signals do not tell a neighbour of an absent topic from its answer "
                   "(studies/results/strength-calibration.md)")
def test_at_most_one_in_ten_absent_topic_questions_reads_above_weak(seeds_explorer: Explorer):
    assert len(_above_weak(seeds_explorer)) <= len(ABSENT_TOPICS) // 10


def test_paraphrase_targets_read_strong_or_good(seeds_explorer: Explorer):
    ex = seeds_explorer
    words = []
    for query, marker in PARAPHRASES:
        hits = ex.search(query, 10)
        words.append(next((h.strength for h in hits if marker in h.paper.abstract), None))
    good = sum(word in wording.WORDS[:2] for word in words)
    assert good >= 0.85 * len(words), words


def test_the_words_are_labels_only_the_order_is_the_same(seeds_explorer: Explorer):
    for query in [q for q, _ in PARAPHRASES[:8]] + ABSENT_TOPICS[:4]:
        few, many = seeds_explorer.search(query, 3), seeds_explorer.search(query, 20)
        assert [(h.paper_id, h.score, h.strength) for h in few] == [
            (h.paper_id, h.score, h.strength) for h in many[:3]]
        chances = [h.relevance for h in many]
        assert all(a >= b for a, b in itertools.pairwise(chances))  # never rises down the list
        record = many[0].to_dict()
        assert record["strength"] == wording.relevance_word(many[0].relevance)
        assert record["relevance"] == round(many[0].relevance, 6)


def test_the_chance_is_read_in_its_list_and_its_corpus():
    quantiles = np.linspace(0.0, 0.6, 1001)
    standing_out = np.array([0.75, 0.40, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33, 0.32])
    crowded = np.array([0.45, 0.44, 0.44, 0.43, 0.43, 0.42, 0.42, 0.41, 0.41, 0.40])
    assert len(standing_out) == CONTEXT
    assert relevance(standing_out, quantiles)[0] > relevance(crowded, quantiles)[0]
    assert relevance(crowded, quantiles)[0] > relevance(crowded, quantiles + 0.2)[0]
