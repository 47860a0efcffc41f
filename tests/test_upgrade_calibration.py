"""Everything calibrated per model (issue 35): an index of all-mpnet-base-v2 and one of the
default all-MiniLM-L6-v2 read the strength words, the close-relatives threshold and the draft
check's words by their own model's table (ranking/fitted.py), so the swap never changes what a
word means; a model without a table borrows nothing silently. Real seeds, real models (mpnet:
installed by `make mpnet`; its tests are skipped only where it is not)."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import wording
from explorer.cli.main import main
from explorer.features.drafts.missed import missed
from explorer.features.relatives.query import (
    DEFAULT_THRESHOLD,
    closest_pairs,
    default_threshold,
    twins_threshold,
)
from explorer.model import catalog
from explorer.query.engine import Explorer
from explorer.query.hits import placed
from explorer.ranking.calibration import (
    ABSENT_BEST,
    PAIR_QUANTILES,
    PAPERS,
    QUESTION_QUANTILES,
    QUESTIONS,
    best_absent,
    scale_for,
)
from explorer.ranking.fitted import (
    MIN_TWINS,
    MINILM,
    MPNET,
    calibration_for,
    strictest_relatives,
    versions_cosine,
)
from explorer.settings import default_cache_dir
from tests.absent_topics import ABSENT_TOPICS
from tests.paraphrases import PARAPHRASES

MPNET_INSTALLED = catalog.installed("mpnet", catalog.default_root(default_cache_dir())) is not None
needs_mpnet = pytest.mark.skipif(not MPNET_INSTALLED,
                                 reason="all-mpnet-base-v2 is not installed (`make mpnet`)")


@pytest.fixture(scope="module")
def mpnet_explorer(request: pytest.FixtureRequest) -> Explorer:
    """A real index of the 71 seeds embedded by all-mpnet-base-v2, built once in this run's
    temp folder (tests/model_fixtures.py): about a minute on an idle 2-core EPYC."""
    if not MPNET_INSTALLED:
        pytest.skip("all-mpnet-base-v2 is not installed (`make mpnet`)")
    return Explorer.open(request.getfixturevalue("mpnet_seeds_index"))


def test_each_model_has_its_own_table_and_an_unknown_one_none():
    assert calibration_for("sentence-transformers/all-MiniLM-L6-v2") is MINILM
    assert calibration_for("/home/me/models/all-MiniLM-L6-v2") is MINILM  # a local copy
    assert calibration_for("sentence-transformers/all-mpnet-base-v2") is MPNET
    for unknown in ("my-encoder", "", None, "sentence-transformers/all-MiniLM-L12-v2"):
        assert calibration_for(unknown) is None
    assert MPNET.relatives != MINILM.relatives  # fitted apart, not copied
    assert versions_cosine("my-encoder") == max(MINILM.versions, MPNET.versions)


def test_an_unknown_models_question_gets_its_percentile_and_no_word():
    extras = {QUESTION_QUANTILES: list(np.linspace(0.0, 0.6, 1001)),
              PAIR_QUANTILES: list(np.linspace(0.0, 0.7, 1001)), ABSENT_BEST: [0.3, 0.4, 0.5]}
    known = scale_for(QUESTIONS, extras, "sentence-transformers/all-MiniLM-L6-v2")
    unknown = scale_for(QUESTIONS, extras, "my-encoder")
    assert known.calibration is MINILM and known.worded
    assert unknown.calibration is None and not unknown.worded
    hit = placed(unknown, 0.59)
    assert hit["percentile"] == known.percentile(0.59) > 95 and hit["strength"] is None
    # A paper's word reads only the index's own paper-pair percentiles: kept for any model.
    papers = scale_for(PAPERS, extras, "my-encoder")
    assert placed(papers, 0.699)["strength"] == wording.strength(papers.percentile(0.699))


def test_the_twins_rule_on_an_indexs_own_versions():
    cosines = np.array([0.95, 0.93, 0.97, 0.91, 0.88, 0.99, 0.94, 0.96, 0.92, 0.90, 0.98, 0.83])
    found = twins_threshold(cosines)
    assert np.mean(cosines >= found) >= 0.9 > np.mean(cosines >= found + 0.01)
    assert twins_threshold(cosines[:MIN_TWINS - 1]) is None
    assert strictest_relatives() == max(MINILM.relatives, MPNET.relatives)


def test_the_default_models_seed_index_reads_its_own_table(seeds_explorer: Explorer):
    assert seeds_explorer.scale(QUESTIONS).calibration is MINILM
    assert default_threshold(seeds_explorer) == MINILM.relatives == DEFAULT_THRESHOLD


def _target_words(explorer: Explorer) -> list[str | None]:
    words = []
    for query, marker in PARAPHRASES:
        hits = explorer.search(query, 10)
        words.append(next((h.strength for h in hits if marker in h.paper.abstract), None))
    return words


@needs_mpnet
def test_both_models_word_the_seed_targets_alike(mpnet_explorer: Explorer,
                                                 seeds_explorer: Explorer):
    """Issue 31's target under each model's own table: >= 85% of the seed paraphrase targets
    read "strong" or "good match", and the words agree on most targets."""
    assert mpnet_explorer.scale(QUESTIONS).calibration is MPNET
    mine, theirs = _target_words(mpnet_explorer), _target_words(seeds_explorer)
    for words in (mine, theirs):
        assert sum(w in wording.WORDS[:2] for w in words) >= 0.85 * len(words), words
    agree = sum((a in wording.WORDS[:2]) == (b in wording.WORDS[:2]) for a, b in zip(mine, theirs))
    assert agree >= 0.85 * len(mine)
    above = [t for t in ABSENT_TOPICS if mpnet_explorer.search(t, 10)[0].strength != wording.WEAK]
    assert len(above) <= 2, above  # MiniLM: 1 of 14 (test_strength.py)


@needs_mpnet
def test_mpnets_relatives_and_drafts_use_its_own_numbers(mpnet_explorer: Explorer, capsys):
    assert default_threshold(mpnet_explorer) == MPNET.relatives
    pairs = closest_pairs(mpnet_explorer, None, 10_000)
    assert all(pair.score >= MPNET.relatives for pair in pairs)
    folder = str(mpnet_explorer.artifacts.folder)
    assert main(["twins", "--index", folder, "--model", "mpnet"]) == 0
    assert f"cos >= {MPNET.relatives:g}" in capsys.readouterr().out
    # The draft check words a missed paper by this index's own paper-pair percentiles.
    draft = mpnet_explorer.papers[5].abstract
    found = missed(mpnet_explorer, draft, [mpnet_explorer.papers[5].paper_id], 5).papers
    scale = mpnet_explorer.scale(PAPERS)
    assert found and scale.calibration is MPNET
    for paper in found:
        assert paper.hit.percentile == scale.percentile(paper.hit.cosine)
        assert paper.hit.strength == wording.strength(paper.hit.percentile)


def test_absent_bests_drop_versions_by_the_models_cosine():
    """A title's absent-topic best leaves out its paper and the papers above the model's
    versions cosine (fitted.versions_cosine): a near-copy at cos 0.96 is a version for a
    model whose versions cosine is 0.95, and a rival answer for one at 0.97."""
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(6, 16))
    vectors[1] = vectors[0] + 0.29 * rng.normal(size=16)  # paper 1: a near-copy of paper 0
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    near = float(vectors[0] @ vectors[1])
    assert 0.9 < near < 0.999
    question = vectors[:1]  # paper 0's title asked as a question
    dropped = best_absent(question, np.array([0]), vectors, points=2, versions=near - 0.005)
    kept = best_absent(question, np.array([0]), vectors, points=2, versions=near + 0.005)
    assert kept[0] == pytest.approx(near, abs=1e-5)
    assert dropped[0] == pytest.approx(float((vectors[2:] @ vectors[0]).max()), abs=1e-5)
