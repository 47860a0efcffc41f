"""Strength that means relevance (issue 31): a question's hit is named by its calibrated chance
of being relevant (ranking/calibration.relevance, wording.RELEVANCE_WORDS), so questions about
topics the corpus lacks read "weak" while the seed paraphrases' targets read "strong" or "good
match"; the words are labels only: the ranking is the same. Real seeds index and model."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from explorer import wording
from explorer.cli import main as cli
from explorer.query.engine import Explorer
from explorer.ranking.calibration import (
    CONTEXT,
    GATE,
    GATED_CHANCE,
    QUESTIONS,
    SHARED,
    absent_level,
    best_absent,
    relevance,
)
from explorer.ranking.fusion import LEXICAL_WEIGHT
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES
from tests.test_eval import beir_folder  # noqa: F401 (a fixture)


def _above_weak(ex: Explorer) -> list[tuple[str, str]]:
    tops = [ex.search(question, 10)[0] for question in ABSENT_TOPICS]
    return [(hit.title, hit.strength) for hit in tops if hit.strength != wording.WEAK]


def test_at_most_one_in_ten_absent_topic_questions_reads_above_weak(seeds_explorer: Explorer):
    """Issue 31's target on the 14 hand-written absent topics: 6 top hits read above "weak"
    with the percentile words, 4 with the three-signal model, at most 1 with the per-hit model
    and the absent-topic gate (model-based RL on Atari -> a goal-reaching RL paper). (The
    self-supervised absent questions of the study, a title or TLDR asked with its paper gone,
    are harder: studies/results/strength-calibration.md.)"""
    above = _above_weak(seeds_explorer)
    assert len(above) <= len(ABSENT_TOPICS) // 10, above


def test_paraphrase_targets_read_strong_or_good(seeds_explorer: Explorer):
    ex = seeds_explorer
    words = []
    for query, marker in PARAPHRASES:
        hits = ex.search(query, 10)
        words.append(next((h.strength for h in hits if marker in h.paper.abstract), None))
    good = sum(word in wording.WORDS[:2] for word in words)
    assert good >= 0.85 * len(words), words


def test_a_near_topic_paper_far_below_the_answers_is_not_a_strong_match(
        seeds_explorer: Explorer):
    """Per hit, not per question: for "diffusion models for video generation" the two
    video-diffusion papers read "strong match"; a video matting paper and a video-LLM token
    compression paper further down (fused score far below the best) read no better than
    "related" (with the question-level signals alone both read "strong match")."""
    hits = seeds_explorer.search("diffusion models for video generation", 10)
    words = {hit.paper.title.split(":")[0].split(" (")[0]: hit.strength for hit in hits}
    assert words["BWCache"] == words["LikePhys"] == wording.WORDS[0], words
    assert words["MAM2"] not in wording.WORDS[:2] and words["MARC"] not in wording.WORDS[:2]


@pytest.mark.parametrize("question", [
    "retrieving theorems for formal theorem proving",  # cosine 0.40, below the gate's level
    "search for lemmas in a proof assistant", PARAPHRASES[2][0]])
def test_a_question_whose_answer_shares_its_words_is_not_silenced(seeds_explorer: Explorer,
                                                                   question: str):
    """Lean Finder-like: the best cosine stays below what half the corpus's absent-topic
    questions reach (the gate), but Lean Finder shares most of the question's words: its
    strength is not capped to "weak" and no notice says nothing is relevant."""
    hits = seeds_explorer.search(question, 10)
    assert hits[0].paper.title.startswith("Lean Finder")
    assert hits[0].strength in wording.WORDS[:2], (hits[0].strength, hits[0].relevance)
    assert not wording.nothing_relevant([hit.strength for hit in hits])


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


def test_the_build_stores_what_absent_topic_questions_reach(seeds_explorer: Explorer):
    """The seeds index carries the best cosines of its titles asked with their own paper gone,
    and a question whose best cosine stays below GATE% of them reads "weak" throughout."""
    absent = seeds_explorer.scale(QUESTIONS).absent
    assert len(absent) == 101 and list(absent) == sorted(absent)
    assert 0.2 < absent_level(absent, 50) < absent[-1] < 1.0


def test_absent_bests_leave_out_the_paper_and_its_versions():
    """Three papers: 0 and 1 are versions of one work (cosine 0.99), 2 is far; the title of 0
    asked as a question reaches paper 2's cosine, not its own version's."""
    vectors = np.array([[1.0, 0.0, 0.0], [0.99, np.sqrt(1 - 0.99**2), 0.0], [0.6, 0.0, 0.8]])
    question = np.array([[1.0, 0.0, 0.0]])
    assert best_absent(question, np.array([0]), vectors, points=3) == [0.6, 0.6, 0.6]


def test_the_gate_caps_a_question_whose_best_stays_below_what_absent_topics_reach():
    quantiles = np.linspace(0.0, 0.6, 1001)
    absent = tuple(np.linspace(0.3, 0.7, 101))
    standing_out = np.array([0.75, 0.40, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33, 0.32])
    below = standing_out - (standing_out[0] - absent_level(absent, GATE) + 0.01)
    above = standing_out - (standing_out[0] - absent_level(absent, GATE) - 0.01)
    capped = relevance(standing_out, quantiles, cosines=below, absent=absent)
    assert capped.max() <= GATED_CHANCE
    assert relevance(standing_out, quantiles, cosines=above, absent=absent)[0] > GATED_CHANCE
    older = relevance(standing_out, quantiles)  # an index without absent bests: no gate
    assert older[0] > GATED_CHANCE and np.all(np.diff(older) <= 0)


def test_the_gate_spares_a_best_hit_that_shares_the_questions_words():
    """Every cosine below the gate's level (0.5 here); the best hit's fused score stands
    `share` * LEXICAL_WEIGHT above its cosine: below SHARED it is capped, from SHARED on it
    keeps the model's chance (the gate at 0 percent: no gate)."""
    quantiles, absent = np.linspace(0.0, 0.6, 1001), tuple(np.linspace(0.3, 0.7, 101))
    scores = np.array([0.95, 0.45, 0.42, 0.40, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34])
    for share, capped in ((SHARED - 0.05, True), (SHARED + 0.05, False)):
        cosines = scores - 0.1
        cosines[0] = scores[0] - share * LEXICAL_WEIGHT
        assert cosines.max() < absent_level(absent, GATE)
        gated = relevance(scores, quantiles, cosines=cosines, absent=absent)
        free = relevance(scores, quantiles, cosines=cosines, absent=absent, gate=0)
        assert free[0] > GATED_CHANCE
        assert bool(gated[0] <= GATED_CHANCE) is capped and bool(gated[0] == free[0]) is not capped


def test_eval_reports_what_each_word_has_meant(beir_folder: Path, tmp_path: Path,  # noqa: F811
                                                capsys):
    """`explorer eval` prints, per query set, the share of hits relevant per strength word and
    how often a question asked with its relevant papers left out still reads above "weak"."""
    output = tmp_path / "result.json"
    assert cli.main(["eval", str(beir_folder), "--set", "paragraphs", "--mode", "hybrid",
                     "--cache", str(tmp_path / "cache"), "--output", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "paragraphs (" in printed and "strength words on" in printed
    assert all(word in printed for word in wording.WORDS)
    assert 'top hit above "weak" in' in printed and "chance relevant 0.5 or more" in printed
    result = json.loads(output.read_text())["strength"]["paragraphs"]
    questions = result["questions"]
    assert questions == len(PARAPHRASES)
    assert sum(cell["hits"] for cell in result["words"].values()) == 10 * questions
    strong = result["words"][wording.WORDS[0]]
    assert strong["hits"] >= 0.6 * questions and strong["relevant"] >= 0.8
    assert result["absent_lists"] == questions and result["absent_top_above_weak"] <= 0.5
    assert 'first relevant hit "strong" or "good match" in' in printed
    assert result["answered"] >= 0.9 * questions and result["answer_strong_or_good"] >= 0.85
