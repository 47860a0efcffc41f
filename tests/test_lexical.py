"""The BM25 matrices: equal to bm25s's, and an incremental update equal to a fresh index."""

import numpy as np
import pytest

from explorer.corpus.papers import read_corpus
from explorer.index.lexical import SETTINGS, LexicalIndex, Tokenizer, lexical_text
from tests.conftest import SEEDS

QUERIES = ("graph neural networks", "diffusion models for images", "reinforcement learning reward",
           "language model reasoning benchmark", "zzz unknown words only")


@pytest.fixture(scope="module")
def seed_texts():
    return [lexical_text(p) for p in read_corpus([SEEDS]).papers]


def test_scores_equal_the_bm25s_library(seed_texts):
    import bm25s

    tokenize = Tokenizer()
    reference = bm25s.BM25(k1=SETTINGS["k1"], b=SETTINGS["b"], method=SETTINGS["method"])
    reference.index([tokenize(t) for t in seed_texts], show_progress=False)
    ours = LexicalIndex.build(seed_texts)
    for query in QUERIES:
        ids = [reference.vocab_dict[t] for t in tokenize(query) if t in reference.vocab_dict]
        expected = (reference.get_scores_from_ids(ids) if ids
                    else np.zeros(len(seed_texts), dtype=np.float32))
        assert ours.scores(query) == pytest.approx(expected, rel=1e-5, abs=1e-6), query
    assert ours.scores("reward reward").sum() == pytest.approx(2 * ours.scores("reward").sum())


def test_an_update_equals_a_fresh_index(seed_texts):
    first, later = seed_texts[:50], seed_texts[10:] + ["a brand new paper about quokkas"]
    old = LexicalIndex.build(first)
    updated = LexicalIndex.build(later, previous=old.to_arrays())
    fresh = LexicalIndex.build(later)
    for query in (*QUERIES, "quokkas"):
        assert updated.scores(query) == pytest.approx(fresh.scores(query), rel=1e-6), query
    assert updated.idf("quokkas") == pytest.approx(fresh.idf("quokkas"))
    assert updated.scores("quokkas").argmax() == len(later) - 1


def test_an_update_tokenises_only_new_texts(seed_texts, monkeypatch):
    old = LexicalIndex.build(seed_texts)
    seen = []
    original = Tokenizer.__call__
    monkeypatch.setattr(Tokenizer, "__call__", lambda self, text: seen.append(text) or
                        original(self, text))
    LexicalIndex.build(seed_texts + ["one more abstract"], previous=old.to_arrays())
    assert seen == ["one more abstract"]


def test_searching_reads_only_the_score_matrix(seed_texts):
    arrays = LexicalIndex.build(seed_texts).to_arrays()
    scores_only = {k: v for k, v in arrays.items() if "counts_" not in k}
    full = LexicalIndex.from_arrays(arrays, len(seed_texts))
    slim = LexicalIndex.from_arrays(scores_only, len(seed_texts))
    assert np.array_equal(full.scores("neural networks"), slim.scores("neural networks"))


@pytest.mark.parametrize("long_query", [False, True])
@pytest.mark.parametrize("dense_share", [0.0, 1e9])  # always dense / always sparse summing
def test_top_equals_ranking_every_score(seed_texts, long_query, dense_share, monkeypatch):
    """top() against brute force: every paper's BM25 score, blocked rows and papers that
    share no term left out, sorted by score and then by row (top's tie rule)."""
    from explorer.index import lexical

    monkeypatch.setattr(lexical, "DENSE_SHARE", dense_share)
    index = LexicalIndex.build(seed_texts)
    blocked = np.zeros(len(seed_texts), dtype=bool)
    blocked[::3] = True
    queries = seed_texts[:5] if long_query else QUERIES  # whole abstracts reach most papers
    for query in queries:
        for mask in (None, blocked):
            rows, scores = index.top(query, 10, mask)
            every = index.scores(query)
            candidates = [row for row in range(len(every))
                          if every[row] > 0 and (mask is None or not mask[row])]
            expected = sorted(candidates, key=lambda row: (-every[row], row))[:10]
            assert rows.tolist() == expected
            assert scores.tolist() == every[expected].tolist()
