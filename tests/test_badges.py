"""Strength badges (ranking/calibration.py, explorer/wording.py) with the real model and the real
seeds index: a good match reads good, nonsense reads weak, each verb's score is compared with its
own kind of random scores, and an index built before question scores were stored still opens and
falls back to paper pairs."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.layout import PAIR_QUANTILES, QUESTION_QUANTILES
from explorer.ingest import embedding
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from explorer.query.ranker import reference
from explorer.ranking import policy
from explorer.ranking.calibration import PAPERS, QUESTIONS, kept_question_quantiles
from explorer.ui.page import score_help, score_text
from explorer.wording import STRENGTHS, WEAK, relevance_word, strength
from tests.conftest import SEEDS
from tests.paraphrases import PARAPHRASES, RELATED_PAIRS

WORDS = [word for _, word in STRENGTHS] + [WEAK]  # strongest first
AT_LEAST_GOOD = set(WORDS[:2])


def target(ex: Explorer, marker: str) -> str:
    (paper_id,) = [p.paper_id for p in ex.papers if marker in p.abstract]
    return paper_id


def test_the_words_follow_the_thresholds_strongest_first():
    cuts = [cut for cut, _ in STRENGTHS]
    assert cuts == sorted(cuts, reverse=True)
    assert [strength(cut) for cut in cuts] == WORDS[:-1]
    assert strength(np.nextafter(cuts[-1], 0)) == WEAK and strength(100.0) == WORDS[0]


def test_paraphrased_questions_find_targets_that_read_at_least_good(seeds_explorer: Explorer):
    ex = seeds_explorer
    badges = []
    for query, marker in PARAPHRASES:
        hit = next(h for h in ex.search(query, len(ex.papers)) if h.paper_id == target(ex, marker))
        assert hit.compared_with == QUESTIONS
        badges.append(hit.strength)
    # issue 31's trade-off: the absent-topic gate may leave a found target below "good", at
    # most 15% of them (4 of 69 read "weak" when the gate came in: tests/test_strength.py)
    assert sum(badge in AT_LEAST_GOOD for badge in badges) >= 0.85 * len(badges)
    assert badges[0] in AT_LEAST_GOOD


@pytest.mark.parametrize("query", ["recipes for sourdough bread", "medieval castle architecture"])
def test_an_off_topic_question_reads_weak(seeds_explorer: Explorer, query: str):
    hits = seeds_explorer.search(query, 5)
    assert hits[0].strength == WEAK
    assert all(h.strength == WEAK for h in hits)
    assert score_text(hits[0]).endswith(" · weak")


def test_similar_compares_with_paper_pairs_and_finds_related_partners(seeds_explorer: Explorer):
    ex = seeds_explorer
    badges = []
    for first, second, _ in RELATED_PAIRS:
        a, b = target(ex, first), target(ex, second)
        for paper_id, partner in ((a, b), (b, a)):
            hit = next(h for h in ex.similar(paper_id, len(ex.papers)) if h.paper_id == partner)
            assert hit.compared_with == PAPERS and hit.strength in WORDS
            badges.append(hit.strength)
    assert sum(badge != WEAK for badge in badges) >= 2 / 3 * len(badges)


def test_each_verb_says_what_its_score_is_compared_with(seeds_explorer: Explorer):
    ex = seeds_explorer
    paper_id = target(ex, PARAPHRASES[0][1])
    vector = ex.embed_query(PARAPHRASES[0][0])
    assert {h.compared_with for h in ex.search_vector(vector, 3)} == {QUESTIONS}
    abstract = ex.papers[0].abstract  # a pasted document is ranked and placed as a paper
    assert {h.compared_with for h in ex.similar_to_text(abstract, 3)} == {PAPERS}
    assert {h.compared_with for h in ex.recommend([paper_id], top_k=3)} == {PAPERS}
    assert {h.compared_with for h in ex.recommend([], query="graph edit distance", top_k=3)} == {
        QUESTIONS}
    lexical = ex.search("graph edit distance", 3, mode="lexical")
    assert {(h.percentile, h.compared_with, h.strength) for h in lexical} == {(None, None, None)}
    hit = ex.search(PARAPHRASES[0][0], 1)[0]
    record = hit.to_dict()
    assert (record["compared_with"], record["strength"]) == (QUESTIONS, hit.strength)
    assert f"chance relevant {hit.relevance:.2f}" in score_help(hit)
    assert hit.strength == relevance_word(hit.relevance)
    assert score_text(hit) == f"score {hit.score:.3f} · {hit.strength}"


def test_questions_embedded_in_a_batch_are_embedded_as_one_question_is(seeds_explorer: Explorer):
    titles = [p.title for p in seeds_explorer.papers[:5]]
    embedder = seeds_explorer.embedder
    np.testing.assert_allclose(embedder.embed_queries(titles),
                               np.stack([embedder.embed_query(t) for t in titles]), atol=1e-5)
    assert embedder.embed_queries([]).shape == (0, embedder.dimension)


def _drop_question_scores(folder: Path) -> None:
    """Make `folder` an index as built before question scores were stored."""
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = manifest["files"]["extras"]
    path = folder / entry["name"]
    extras = json.loads(path.read_text())
    del extras[QUESTION_QUANTILES]
    data = json.dumps(extras).encode()
    path.write_bytes(data)
    entry.update(bytes=len(data), crc32=f"{zlib.crc32(data):08x}")
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))


def test_an_index_without_question_scores_opens_and_falls_back_to_paper_pairs(
        index_copy: Path, seeds_explorer: Explorer, monkeypatch):
    _drop_question_scores(index_copy)
    old = Explorer.open(index_copy)
    assert QUESTION_QUANTILES not in old.artifacts.extras and reference(old.scale(QUESTIONS)) == ()
    hits = old.search("graph edit distance by pairing up nodes", 3)
    # With no question-paper cosines to place a cosine among, shared words count whole:
    # plain absolute fusion, as the current index ranks once switched to it.
    monkeypatch.setattr(policy, "HYBRID_FUSION", policy.ABSOLUTE_FUSION)
    assert [h.paper_id for h in hits] == [
        h.paper_id for h in seeds_explorer.search("graph edit distance by pairing up nodes", 3)]
    monkeypatch.undo()
    for hit in hits:
        assert (hit.compared_with, hit.strength) == (PAPERS, None)
        assert hit.percentile == old.scale(PAPERS).percentile(hit.cosine) is not None
    assert "paper pairs" in score_text(hits[0]) and "rebuild" in score_help(hits[0])
    similar = old.similar(hits[0].paper_id, 3)
    assert all(h.compared_with == PAPERS and h.strength in WORDS for h in similar)


def test_the_next_build_gives_an_old_index_its_question_scores_reusing_its_vectors(
        index_copy: Path):
    _drop_question_scores(index_copy)
    manifest = json.loads((index_copy / "manifest.json").read_text())
    (index_copy / "manifest.json").write_text(json.dumps({**manifest, "format_version": 1}))
    report = build([SEEDS], index_copy, "default")  # an older format: rebuilt, vectors reused
    assert report.embedded == 0
    assert len(Explorer.open(index_copy).artifacts.extras[QUESTION_QUANTILES]) > 100
    assert build([SEEDS], index_copy, "default").up_to_date


def test_builds_store_question_scores_and_updates_keep_them_without_the_model(
        index_copy: Path, monkeypatch):
    before = Explorer.open(index_copy).artifacts.extras
    questions, pairs = before[QUESTION_QUANTILES], before[PAIR_QUANTILES]
    assert len(questions) == len(pairs) == 1001
    assert questions == sorted(questions) and questions[-1] > questions[0]
    # random questions score lower against papers than papers do against each other
    assert questions[500] < pairs[500]

    def no_model(self):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(embedding.LazyEmbedder, "_get", no_model)
    report = build([SEEDS], index_copy, "default", index_type="hnsw")  # embeds nothing
    assert not report.up_to_date and report.embedded == 0
    assert Explorer.open(index_copy).artifacts.extras[QUESTION_QUANTILES] == questions


def test_an_update_recomputes_question_scores_when_the_corpus_changed_enough():
    kept = [0.1, 0.2, 0.3]
    assert kept_question_quantiles(kept, 100, 95, model_loaded=False) == kept
    assert kept_question_quantiles(kept, 100, 80, model_loaded=False) is None
    assert kept_question_quantiles(kept, 100, 100, model_loaded=True) is None
    assert kept_question_quantiles(None, 100, 100, model_loaded=False) is None
