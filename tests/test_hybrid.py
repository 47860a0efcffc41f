"""The lexical (BM25) channel, rank fusion and MMR: by hand, and on the real seeds index."""

import json
import math

import numpy as np
import pytest

from explorer.errors import IndexInvalidError
from explorer.index.lexical import SETTINGS, LexicalIndex, Tokenizer
from explorer.query.engine import Explorer, Filters
from explorer.ranking.calibration import Scale
from explorer.ranking.fusion import (
    LEXICAL_WEIGHT,
    absolute_fusion,
    blend_fusion,
    mmr,
    plausible_by,
    query_ceiling,
    top_rows,
)


def test_bm25_matches_the_lucene_formula_by_hand():
    texts = ["graph neural networks for ranking", "ranking ranking documents quickly",
             "protein folding with diffusion", "neural retrieval of documents"]
    index = LexicalIndex.build(texts)
    tokens = [Tokenizer()(t) for t in texts]
    k1, b = SETTINGS["k1"], SETTINGS["b"]
    average = sum(map(len, tokens)) / len(tokens)

    def by_hand(term: str) -> list[float]:
        df = sum(term in doc for doc in tokens)
        idf = math.log(1 + (len(texts) - df + 0.5) / (df + 0.5))
        return [idf * doc.count(term) / (doc.count(term) + k1 * (1 - b + b * len(doc) / average))
                for doc in tokens]

    expected = np.add(by_hand("rank"), by_hand("document"))
    assert index.scores("Ranking the documents") == pytest.approx(expected, rel=1e-5)
    assert index.scores("nothing here matches zzz").tolist() == [0.0] * 4
    assert index.idf("documents") == pytest.approx(math.log(1 + 2.5 / 2.5))


def test_lexical_arrays_round_trip():
    texts = ["sparse retrieval with BM25", "dense passage retrieval", "ünïcode wörds"]
    index = LexicalIndex.build(texts)
    again = LexicalIndex.from_arrays(index.to_arrays(), 3)
    for query in ("dense retrieval", "wörds", "BM25 sparse"):
        assert np.array_equal(index.scores(query), again.scores(query))


def test_blend_fusion_by_hand():
    dense = (np.array([1, 2, 3]), np.array([0.9, 0.7, 0.5]))  # -> 1.0, 0.5, 0.0
    lexical = (np.array([3, 4]), np.array([12.0, 4.0]))  # -> 1.0, 0.0
    rows, scores = blend_fusion([dense, lexical], [0.5, 0.5])
    assert rows.tolist() == [1, 3, 2, 4]
    assert scores.tolist() == pytest.approx([0.5, 0.5, 0.25, 0.0])
    rows, _ = blend_fusion([dense, (np.array([], dtype=int), np.array([]))], [0.5, 0.5])
    assert rows.tolist() == [1, 2, 3]  # an empty channel leaves the other's order


def test_top_rows_skips_blocked_and_non_matching():
    scores = np.array([0.5, 0.0, 2.0, 1.0, 3.0], dtype=np.float32)
    blocked = np.array([False, False, False, False, True])
    rows, values = top_rows(scores, 10, blocked)
    assert rows.tolist() == [2, 3, 0] and values.tolist() == [2.0, 1.0, 0.5]


def test_mmr_prefers_a_different_paper_over_a_near_copy():
    vectors = np.array([[1, 0], [0.999, 0.045], [0, 1]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert mmr(np.array([1.0, 0.95, 0.6]), vectors, 3, balance=0.5) == [0, 2, 1]
    assert mmr(np.array([1.0, 0.95, 0.6]), vectors, 3, balance=1.0) == [0, 1, 2]


def test_modes_on_the_seeds(seeds_explorer: Explorer):
    ex = seeds_explorer
    target = ex.search("HydraFake", 1, mode="lexical")[0]
    assert "HydraFake" in target.paper.abstract
    query = "detecting forged faces from unseen generators"
    vector = ex.embed_query(query)
    hybrid = ex.search(query, 10, mode="hybrid")
    dense = {h.paper_id for h in ex.search(query, 100, mode="dense")}
    lexical = {h.paper_id for h in ex.search(query, 100, mode="lexical")}
    assert {h.paper_id for h in hybrid} <= dense | lexical
    for hit in hybrid:  # hybrid hits carry their cosine beside the fused score
        assert hit.score >= hit.cosine - 1e-6
        assert hit.cosine == pytest.approx(float(ex.vectors[ex.row(hit.paper_id)] @ vector), abs=1e-5)
    assert [h.rank for h in hybrid] == list(range(1, len(hybrid) + 1))
    with pytest.raises(ValueError):
        ex.search(query, 5, mode="sparse")


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_similar_and_filters_in_every_mode(seeds_explorer: Explorer, mode: str):
    ex = seeds_explorer
    paper = ex.papers[0]
    hits = ex.similar(paper.paper_id, 10, mode=mode)
    assert hits and paper.paper_id not in {h.paper_id for h in hits}
    source = ex.facets()["sources"][1]
    filtered = ex.search("learning models", 10, Filters(sources=frozenset({source})), mode=mode)
    assert filtered and all(any(s.startswith(source) for s in h.paper.sources) for h in filtered)
    everyone = {h.paper_id for h in ex.search("learning models", 10, mode=mode)}
    assert everyone != {h.paper_id for h in filtered}
    diverse = ex.similar(paper.paper_id, 5, mode=mode, diverse=True)
    assert len({h.paper_id for h in diverse}) == len(diverse) == 5
    assert paper.paper_id not in {h.paper_id for h in diverse}


def test_index_without_lexical_channel_is_refused_with_a_rebuild_hint(index_copy):
    """Every index of format 2 holds BM25: a manifest without it is refused on load, naming
    the build to run (an older format's index: tests/test_index_format.py)."""
    path = index_copy / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    del manifest["files"]["lexical_vocab"]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IndexInvalidError, match="no lexical_vocab file.*explorer build"):
        Explorer.open(index_copy)


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_similar_to_text_finds_the_paper_the_text_came_from(seeds_explorer: Explorer, mode: str):
    paper = seeds_explorer.papers[7]
    hits = seeds_explorer.similar_to_text(paper.abstract, 5, mode=mode)
    assert hits[0].paper_id == paper.paper_id
    assert seeds_explorer.similar_to_text("   ", 5, mode=mode) == []


def test_absolute_fusion_by_hand():
    dense = (np.array([1, 2, 3]), np.array([0.5, 0.45, 0.3]))
    lexical = (np.array([3, 4]), np.array([3.0, 1.0]))
    rows, scores = absolute_fusion(dense, lexical, ceiling=4.0, lexical_weight=0.4)
    # cosine + 0.4 * bm25 / 4: row 3 = 0.3 + 0.3; row 4 (lexical only) = lowest cosine + 0.1
    assert rows.tolist() == [3, 1, 2, 4]
    assert scores.tolist() == pytest.approx([0.6, 0.5, 0.45, 0.4])
    rows, _ = absolute_fusion(dense, (np.array([], dtype=int), np.array([])), 0.0)
    assert rows.tolist() == [1, 2, 3]  # no lexical match: the cosine order
    # a three-way tie at 0.5 keeps first appearance: the dense rows, then the lexical-only row
    rows, scores = absolute_fusion((np.array([5, 6]), np.array([0.5, 0.25], dtype=np.float32)),
                                   (np.array([7, 6]), np.array([1.0, 1.0])), 4.0, 1.0)
    assert rows.tolist() == [5, 6, 7] and scores.tolist() == [0.5, 0.5, 0.5]
    rows, scores = absolute_fusion((np.array([], dtype=int), np.array([], dtype=np.float32)),
                                   (np.array([4, 2]), np.array([2.0, 1.0])), 4.0, 1.0)
    assert rows.tolist() == [4, 2] and scores.tolist() == [0.5, 0.25]  # no dense rows: from 0


def test_a_weak_lexical_match_does_not_outrank_a_far_higher_cosine():
    """The issue's case: min-max stretches one shared common word to full weight; absolute
    fusion adds LEXICAL_WEIGHT * its share of the query's ceiling (here 1.2 of 15), whatever
    the other candidates are, so a cosine lead larger than that keeps its place."""
    bonus = LEXICAL_WEIGHT * 1.2 / 15
    for cosines in ([0.446, 0.385, 0.30], [0.446, 0.446 - bonus - 0.01, 0.10]):
        dense = (np.array([1, 2, 3]), np.array(cosines))
        lexical = (np.array([2, 4]), np.array([1.2, 1.0]))  # one common word of a 6-term query
        assert blend_fusion([dense, lexical], [0.5, 0.5])[0].tolist()[:2] == [2, 1]
        rows, scores = absolute_fusion(dense, lexical, ceiling=6 * 2.5)
        assert dict(zip(rows.tolist(), scores.tolist()))[2] == pytest.approx(cosines[1] + bonus)
    assert rows.tolist()[:2] == [1, 2]  # the lead of the second case is above the bonus


def test_plausibility_scales_each_rows_lexical_share_by_its_cosines_percentile():
    """plausible_by places a cosine among reference cosines as the badges do (calibration.
    Scale.percentile) and raises the share to `power`; absolute_fusion multiplies each row's
    lexical share by it, so shared words lift a paper at random-level cosine hardly at all."""
    reference = np.linspace(0.0, 0.5, 101).tolist()  # percentile p sits at cosine p / 200
    for cosine in (0.0, 0.049, 0.2, 0.37, 0.5, 0.9):
        expected = Scale("question-paper", tuple(reference)).percentile(cosine) / 100
        assert plausible_by(reference, 1)(np.array([cosine]))[0] == pytest.approx(expected)
        assert plausible_by(reference, 4)(np.array([cosine]))[0] == pytest.approx(expected ** 4)
    dense = (np.array([1, 2, 3]), np.array([0.40, 0.25, 0.10]))  # percentiles 80, 50, 20
    lexical = (np.array([3, 2]), np.array([4.0, 2.0]))
    plain, _ = absolute_fusion(dense, lexical, ceiling=4.0, lexical_weight=0.8)
    assert plain.tolist() == [3, 2, 1]  # 0.9, 0.65, 0.4
    rows, scores = absolute_fusion(dense, lexical, 4.0, 0.8, plausible_by(reference, 1))
    assert rows.tolist() == [2, 1, 3]  # 0.45, 0.40, 0.26: row 3's words barely count
    assert dict(zip(rows.tolist(), scores.tolist())) == pytest.approx(
        {1: 0.40, 2: 0.25 + 0.8 * 0.5 * 0.5, 3: 0.10 + 0.8 * 1.0 * 0.2})


def test_query_ceiling_is_the_sum_of_the_query_terms_idf():
    texts = ["graph neural networks for ranking", "ranking ranking documents quickly",
             "protein folding with diffusion", "neural retrieval of documents"]
    index = LexicalIndex.build(texts)
    idf = math.log(1 + 2.5 / 2.5)  # "rank" and "document" are each in 2 of 4 texts
    assert query_ceiling(index, "Ranking the documents, ranking") == pytest.approx(3 * idf)
    assert query_ceiling(index, "zzz unknown") == 0.0
    for text in ("ranking documents", "neural graph diffusion", "documents"):
        assert index.scores(text).max() < query_ceiling(index, text)
