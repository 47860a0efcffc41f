"""The BM25 weights worked out by blocks of papers (lexical.bm25_matrix, so that a build of
millions of papers holds a block's temporaries, not the corpus's) equal the whole-corpus
formula bit for bit, and the bm25s library's scores, on the seed abstracts; an index of papers
(their texts made as the build reads them) equals one of their texts made at once."""

import numpy as np
import pytest
from scipy import sparse

from explorer.corpus.papers import read_corpus
from explorer.index.lexical import SETTINGS, LexicalIndex, Tokenizer, bm25_matrix, lexical_text
from tests.conftest import SEEDS


@pytest.fixture(scope="module")
def counts() -> sparse.csr_matrix:
    """The seed abstracts' term counts (n, terms), as a build stores them."""
    texts = [lexical_text(p) for p in read_corpus([SEEDS]).papers]
    arrays = LexicalIndex.build(texts).to_arrays()
    parts = tuple(arrays[f"lexical_counts_{name}"] for name in ("data", "indices", "indptr"))
    terms = len(arrays["lexical_indptr"]) - 1
    return sparse.csr_matrix(parts, shape=(len(texts), terms))


def _whole(counts: sparse.csr_matrix) -> np.ndarray:
    """The Lucene BM25 weight of every stored (paper, term), the corpus at once, in CSR order."""
    k1, b = SETTINGS["k1"], SETTINGS["b"]
    lengths = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float64)
    idf = np.log(1 + (counts.shape[0] - df + 0.5) / (df + 0.5))
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    tf = counts.data.astype(np.float64)
    norm = k1 * (1 - b + b * lengths[rows] / lengths.mean())
    return (idf[counts.indices] * tf / (tf + norm)).astype(np.float32)


@pytest.mark.parametrize("block", [1, 3, 64, 10**6])
def test_blocks_of_any_size_give_the_whole_corpus_weights(counts, block):
    matrix = bm25_matrix(counts, block=block)
    assert matrix.shape == counts.shape and counts.shape[0] > 3
    np.testing.assert_array_equal(matrix.tocsr().data, _whole(counts))
    np.testing.assert_array_equal(matrix.tocsr().indices, counts.indices)


def test_blocked_scores_equal_the_bm25s_library():
    import bm25s

    texts = [lexical_text(p) for p in read_corpus([SEEDS]).papers]
    tokenize = Tokenizer()
    reference = bm25s.BM25(k1=SETTINGS["k1"], b=SETTINGS["b"], method=SETTINGS["method"])
    reference.index([tokenize(t) for t in texts], show_progress=False)
    arrays = LexicalIndex.build(texts).to_arrays()
    parts = tuple(arrays[f"lexical_counts_{name}"] for name in ("data", "indices", "indptr"))
    counts = sparse.csr_matrix(parts, shape=(len(texts), len(arrays["lexical_indptr"]) - 1))
    scores = bm25_matrix(counts, block=5)
    for word in ("graph", "reward", "diffus"):
        column = reference.vocab_dict[word]
        expected = reference.get_scores_from_ids([column])
        ours = scores[:, LexicalIndex.build(texts).vocab[word]].toarray().ravel()
        assert ours == pytest.approx(expected, rel=1e-5, abs=1e-6), word


def test_an_index_of_papers_equals_one_of_their_texts():
    papers = read_corpus([SEEDS]).papers
    lazy = LexicalIndex.from_papers(papers).to_arrays()
    eager = LexicalIndex.build([lexical_text(p) for p in papers]).to_arrays()
    assert lazy.keys() == eager.keys()
    for name, array in eager.items():
        np.testing.assert_array_equal(lazy[name], array, err_msg=name)
