"""Issue 31's target on questions about topics a corpus lacks, read the way `explorer eval`
reads it (eval/strength.reliability): each seed paraphrase and seed title asked of the real
seeds index with its paper, that paper's versions and its close neighbours left out (KIN% of the
index's paper pairs) gets a top hit above "weak" at most 1 time in 10, while at least 85% of
the paraphrases' targets still read "strong" or "good match". With the "related" cut of 0.2
(before the study in studies/strength_absent.py) 15 of 140 read above weak with MiniLM (the
MiniLM test fails there); with 0.22, 10. mpnet: 12 of 140 with 0.2, 9 with 0.22 (its own pick
is 0.2: its test passes either way). Near-but-absent questions (only the paper and its
versions left out) keep the answer's close relatives, which are often relevant: they are
reported, not held to the target.
Real model, real index: the default model (seeds_explorer) and all-mpnet-base-v2 where it is
installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer import wording
from explorer.eval.seeds import target_row
from explorer.eval.strength import KIN, reliability, strength_table, versions
from explorer.model import catalog
from explorer.query.engine import Explorer
from explorer.ranking.calibration import PAPERS
from explorer.settings import default_cache_dir
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES

MPNET = pytest.mark.skipif(
    catalog.installed("mpnet", catalog.default_root(default_cache_dir())) is None,
    reason="all-mpnet-base-v2 is not installed (`make mpnet`)")


@pytest.fixture(scope="module")
def mpnet_seeds(mpnet_seeds_index: Path) -> Explorer:
    """The seeds embedded by all-mpnet-base-v2 without sentence vectors (what eval's seed_index
    builds), shared with test_upgrade_calibration (tests/model_fixtures.py): one build a run."""
    return Explorer.open(mpnet_seeds_index)


def _questions(explorer: Explorer) -> list[tuple[str, set[int]]]:
    paraphrases = [(query, {target_row(explorer.papers, marker)}) for query, marker in PARAPHRASES]
    titles = [(paper.title, {row}) for row, paper in enumerate(explorer.papers)]
    return paraphrases + titles


def _read(explorer: Explorer) -> dict:
    questions = _questions(explorer)
    vectors = np.asarray(explorer.embedder.embed_queries([text for text, _ in questions]))
    return reliability(explorer, questions, vectors)


def _targets(explorer: Explorer) -> float:
    words = []
    for query, marker in PARAPHRASES:
        hits = explorer.search(query, 10)
        words.append(next((h.strength for h in hits if marker in h.paper.abstract), None))
    return sum(word in wording.WORDS[:2] for word in words) / len(words)


def _check(explorer: Explorer) -> None:
    read = _read(explorer)
    assert read["topic_absent_lists"] == len(PARAPHRASES) + len(explorer.papers)
    assert read["topic_absent_top_above_weak"] <= 0.10, read
    assert _targets(explorer) >= 0.85


def _hand_written_above_weak(explorer: Explorer) -> list[str]:
    tops = [explorer.search(question, 10)[0] for question in ABSENT_TOPICS]
    return [f"{hit.paper.title} ({hit.strength})" for hit in tops if hit.strength != wording.WEAK]


def test_absent_topic_questions_read_weak_and_targets_strong_minilm(seeds_explorer: Explorer):
    _check(seeds_explorer)
    assert len(_hand_written_above_weak(seeds_explorer)) <= len(ABSENT_TOPICS) // 10


@MPNET
def test_absent_topic_questions_read_weak_and_targets_strong_mpnet(mpnet_seeds: Explorer):
    _check(mpnet_seeds)


@MPNET
@pytest.mark.xfail(strict=True, reason="not met with mpnet: 'knowledge distillation to compress "
                   "BERT' -> MARC (video token compression by teacher-student distillation) "
                   "reads 'strong match', spared by the gate (calibration.SHARED) beside the "
                   "Atari question: MARC holds 'compress' and 'distil', 2 of the 4 words, 0.51 "
                   "of their weight, as Lean Finder holds 2 of 4 of 'search for lemmas in a "
                   "proof assistant' (0.56), which test_strength.py needs spared")
def test_hand_written_absent_topics_read_weak_mpnet(mpnet_seeds: Explorer):
    assert len(_hand_written_above_weak(mpnet_seeds)) <= len(ABSENT_TOPICS) // 10


def test_near_but_absent_keeps_a_relevant_relative_that_topic_absent_drops(
        seeds_explorer: Explorer):
    """Why near-but-absent lists are bad "nothing relevant" labels: the MT-DAO paraphrase asked
    without MT-DAO finds DES-LOC, another low-communication data-parallel optimizer (a right
    answer), and calls it a strong match; without MT-DAO's close neighbours it does not."""
    explorer = seeds_explorer
    query, marker = next((q, m) for q, m in PARAPHRASES if q.startswith("infrequent sync"))
    row = target_row(explorer.papers, marker)
    vector = explorer.embedder.embed_queries([query])[0]
    near = explorer.search_vector(vector, 10, text=query, exclude=versions(explorer.vectors,
                                                                         {row}))
    assert near[0].paper.title.startswith("DES-LOC") and near[0].strength == wording.WORDS[0]
    pairs = explorer.scale(PAPERS).quantiles
    level = pairs[round(KIN / 100 * (len(pairs) - 1))]
    gone = versions(explorer.vectors, {row}, level)
    assert explorer.row(near[0].paper_id) in gone
    topic = explorer.search_vector(vector, 10, text=query, exclude=gone)
    assert topic[0].strength == wording.WEAK, (topic[0].paper.title, topic[0].relevance)


def test_the_related_band_starts_where_the_study_put_it():
    """The "related" cut is the study's rule's (results/strength-absent*.md): a chance just
    below it reads weak, at it related, and "good match" still starts at 0.3 (the targets)."""
    cuts = dict((word, cut) for cut, word in wording.RELEVANCE_WORDS)
    assert cuts["related"] == 0.22 and cuts["good match"] == 0.3
    assert wording.relevance_word(0.219) == wording.WEAK
    assert wording.relevance_word(0.22) == "related"
    assert wording.meaning("related") == "chance relevant 0.22 to 0.3"


def test_eval_reports_both_kinds_of_absent_question(seeds_explorer: Explorer):
    explorer = seeds_explorer
    questions = [(PARAPHRASES[0][0], {target_row(explorer.papers, PARAPHRASES[0][1])})]
    read = reliability(explorer, questions,
                       explorer.embedder.embed_queries([questions[0][0]]))
    assert read["absent_lists"] == read["topic_absent_lists"] == 1
    text = strength_table(read, "seeds")
    assert "near-but-absent" in text and "absent-topic questions" in text
