"""Exact searches of many queries multiplied with numpy's BLAS (index/blas.py), used where
FAISS's bundled OpenBLAS runs narrower kernels than numpy's: the same hits as FAISS's search
on the real model's vectors, in blocks and from many threads at once, and the rule that picks
it. The rule is not switched by changing OPENBLAS_CORETYPE here (the machines' own setting,
never changed in tests); the tests that run the product's path with it force the choice.
"""

from __future__ import annotations

import threading

import faiss
import numpy as np
import pytest

from explorer.index import blas
from explorer.index.dense import EXACT, HNSW, VectorIndex
from explorer.index.pairs import near_pairs
from explorer.query.engine import Explorer

QUESTIONS = ["which sequence models can track non-abelian groups?",
             "diffusion models for protein structure", "reinforcement learning from feedback",
             "graph neural networks", "a benchmark for code generation"]


@pytest.fixture(scope="module")
def searched(seeds_explorer: Explorer) -> tuple[np.ndarray, np.ndarray]:
    """The seeds' paper vectors (real model) and queries: the papers and real questions."""
    vectors = np.array(seeds_explorer.vectors)
    questions = seeds_explorer.embedder.embed_queries(QUESTIONS)
    return vectors, np.vstack([vectors, questions]).astype(np.float32)


def _faiss(vectors: np.ndarray, queries: np.ndarray, top_k: int):
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    return index.search(queries, top_k)


def _assert_same_hits(got, expected, tolerance: float = 1e-5) -> None:
    """Same scores up to rounding; the same rows but where a score ties the k-th within it."""
    (scores, rows), (want_scores, want_rows) = got, expected
    np.testing.assert_allclose(scores, want_scores, atol=tolerance)
    for i in range(len(rows)):
        clear = want_scores[i] > want_scores[i, -1] + tolerance  # not tied with the cut
        assert set(rows[i][clear]) == set(want_rows[i][clear]), f"query {i}"
        assert len(set(rows[i])) == len(rows[i])


@pytest.mark.parametrize(("block_rows", "block_queries"), [(16, 8), (4096, 4096), (7, 100)])
def test_knn_finds_what_faiss_finds(monkeypatch, searched, block_rows: int, block_queries: int):
    vectors, queries = searched
    monkeypatch.setattr(blas, "BLOCK_ROWS", block_rows)  # several blocks, the last one short
    monkeypatch.setattr(blas, "BLOCK_QUERIES", block_queries)
    for top_k in (1, 10, 21):
        got = blas.knn(vectors, queries, top_k)
        _assert_same_hits(got, _faiss(vectors, queries, top_k))
        assert (got[1][: len(vectors), 0] == np.arange(len(vectors))).mean() > 0.9  # itself first


def test_knn_pads_past_the_vectors_as_faiss_does(searched):
    vectors, queries = searched
    scores, rows = blas.knn(vectors[:5], queries[:3], 8)
    want_scores, want_rows = _faiss(vectors[:5], queries[:3], 8)
    np.testing.assert_array_equal(rows[:, 5:], want_rows[:, 5:])
    np.testing.assert_array_equal(scores[:, 5:], want_scores[:, 5:])
    assert (rows[:, 5:] == -1).all()
    with pytest.raises(ValueError, match="top_k"):
        blas.knn(vectors, queries, 0)


def test_knn_from_many_threads_at_once_answers_as_alone(monkeypatch, searched):
    vectors, queries = searched
    monkeypatch.setattr(blas, "BLOCK_ROWS", 16)
    depths = (10, 3, 21)
    alone = {top_k: blas.knn(vectors, queries, top_k) for top_k in depths}
    results: dict[int, list[tuple]] = {}
    barrier = threading.Barrier(6)

    def ask(number: int) -> None:
        barrier.wait()
        results[number] = [blas.knn(vectors, queries, depths[number % 3]) for _ in range(5)]

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 6
    for number, answers in results.items():
        want_scores, want_rows = alone[depths[number % 3]]
        for scores, rows in answers:  # bit for bit: nothing shared between calls
            np.testing.assert_array_equal(rows, want_rows)
            np.testing.assert_array_equal(scores, want_scores)


@pytest.mark.parametrize(("faiss_kernels", "numpy_kernels", "chosen"), [
    ("Barcelona", "SkylakeX", True),  # a Zen 5 with the environment naming no kernels
    ("Prescott", "SapphireRapids", True),  # a Xeon newer than FAISS's OpenBLAS
    ("Haswell", "SkylakeX", True),
    ("Sandybridge", "Haswell", True),
    ("Haswell", "Haswell", False),  # both named by OPENBLAS_CORETYPE (this machine's setting)
    ("SkylakeX", "Haswell", False),
    ("Haswell", "Zen", False),  # the same width
    ("Prescott", "SomeFutureCore", False),  # unknown: FAISS's own, as before
    ("Prescott", None, False),
    (None, "SkylakeX", False),
])
def test_numpy_multiplies_only_where_its_kernels_are_wider(faiss_kernels, numpy_kernels, chosen):
    kernels = {owner: name for owner, name in (("faiss", faiss_kernels), ("numpy", numpy_kernels))
               if name is not None}
    assert blas.wider(kernels) is chosen


def test_the_kernels_of_both_openblas_copies_are_read(cpu_branch):
    found = blas.kernels()
    cpu_branch(f"kernels {found}: {'numpy' if blas.numpy_multiplies() else 'FAISS'} multiplies")
    assert {"faiss", "numpy"} <= set(found), found  # both wheels bundle an OpenBLAS
    assert blas.numpy_multiplies() == blas.wider(found)


def test_faiss_rule_for_many_queries_is_followed():
    threshold = faiss.cvar.distance_compute_blas_threshold
    assert blas.many(threshold // 384 + 1, 384) and not blas.many(threshold // 384 - 1, 384)


@pytest.fixture
def numpy_chosen(monkeypatch) -> list[int]:
    """The product's searches multiply with numpy's BLAS as where FAISS's kernels are older;
    the number of queries of each such search."""
    calls: list[int] = []
    knn = blas.knn

    def counted(vectors, queries, top_k):
        calls.append(len(queries))
        return knn(vectors, queries, top_k)

    monkeypatch.setattr(blas, "numpy_multiplies", lambda: True)
    monkeypatch.setattr(blas, "knn", counted)
    monkeypatch.setattr(blas, "BLOCK_ROWS", 16)
    return calls


def test_the_self_join_through_numpys_blas_finds_the_same_pairs(seeds_explorer, numpy_chosen):
    index = seeds_explorer.artifacts.index
    faiss_threshold = faiss.cvar.distance_compute_blas_threshold
    faiss.cvar.distance_compute_blas_threshold = index.dimension  # the seeds: 71 queries a block
    try:
        pairs = near_pairs(index, 0.3, 5)
    finally:
        faiss.cvar.distance_compute_blas_threshold = faiss_threshold
    assert numpy_chosen == [index.count]
    expected = near_pairs(index, 0.3, 5)  # FAISS's own search (71 queries: below its rule)
    assert len(expected) > 10
    assert {tuple(r) for r in pairs.rows.tolist()} == {tuple(r) for r in expected.rows.tolist()}
    np.testing.assert_allclose(pairs.scores, expected.scores, atol=1e-5)


def test_only_big_unfiltered_exact_searches_take_numpys_blas(searched, numpy_chosen):
    vectors, queries = searched
    many = np.repeat(queries, 8, axis=0)[:400]  # 400 x 384: past FAISS's rule
    exact, graph = VectorIndex.build(vectors, EXACT), VectorIndex.build(vectors, HNSW)
    _assert_same_hits(exact.search(many, 10), _faiss(vectors, many, 10))
    assert numpy_chosen == [400]
    exact.search(queries[:50], 10)  # below FAISS's rule: FAISS's scan
    exact.search(many, 10, allowed=list(range(0, len(vectors), 2)))
    graph.search(many, 10)
    assert numpy_chosen == [400]
