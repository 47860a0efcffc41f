"""The fp16 first pass of a big exact index (scan.Compressed): its answers are bit for bit
those of the float32 scan, alone and in batches, with ties and near-ties finer than fp16 can
tell apart, and when its candidates are not enough; it is made on its own after
COMPRESS_AFTER searches, while other threads keep searching; small and HNSW indexes keep none.
Two indexes searched at once answer as each alone (no process-wide FAISS setting changes).
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from explorer.batching import IN_PROGRESS
from explorer.index import dense, scan
from explorer.index.dense import VectorIndex

DIMENSION = 64


def _corpus(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Clustered unit vectors of a size that is split and compressed, with exact duplicates
    across the ranges and a cluster of 300 near-duplicates (5e-5 apart, so fp16 rounding
    reorders them), and queries near corpus points (some at the near-duplicates)."""
    rng = np.random.default_rng(seed)
    count = scan.SPLIT_ROWS + 5000
    centres = rng.normal(size=(60, DIMENSION))
    vectors = centres[rng.integers(0, 60, count)] + 0.7 * rng.normal(size=(count, DIMENSION))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[-300:] = vectors[:300]  # ties across the parallel ranges
    near = rng.choice(count - 600, 300, replace=False) + 300
    vectors[near] = vectors[7] + 5e-5 * rng.normal(size=(300, DIMENSION))
    queries = vectors[rng.choice(count, 24)] + 0.2 * rng.normal(size=(24, DIMENSION))
    queries[:4] = vectors[7] + 0.01 * rng.normal(size=(4, DIMENSION))
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return vectors.astype(np.float32), queries.astype(np.float32)


@pytest.fixture(scope="module")
def corpus() -> tuple[np.ndarray, np.ndarray]:
    return _corpus()


def _fallbacks(monkeypatch) -> list[int]:
    """Queries searched again alone over the float32 vectors, from now on."""
    calls: list[int] = []
    split = scan.split_search

    def counted(vectors, queries, *args, **kwargs):
        calls.append(len(queries))
        return split(vectors, queries, *args, **kwargs)

    monkeypatch.setattr(scan, "split_search", counted)
    return calls


def _plain(vectors: np.ndarray) -> VectorIndex:
    """An exact index that never makes its fp16 copy."""
    index = VectorIndex.build(vectors)
    index._searches = dense.COMPRESS_AFTER  # counted past the trigger: never copied
    return index


@pytest.mark.parametrize("top_k", [10, 200])
def test_the_compressed_scan_answers_as_the_float32_scan(monkeypatch, corpus, top_k: int):
    vectors, queries = corpus
    plain, compressed = _plain(vectors), VectorIndex.build(vectors)
    assert compressed.compress() and compressed.compressed and not plain.compressed
    expected = [plain.search(query, top_k) for query in queries]
    fallbacks = _fallbacks(monkeypatch)
    for size in (1, 2, 5, scan.FEW_QUERIES):
        for start in range(0, len(queries), size):
            scores, rows = compressed.search(queries[start:start + size], top_k)
            for i, (want_scores, want_rows) in enumerate(expected[start:start + size]):
                np.testing.assert_array_equal(rows[i], want_rows[0], err_msg=f"{size} {start}")
                np.testing.assert_array_equal(scores[i], want_scores[0])
    assert len(fallbacks) < len(queries), "the fp16 candidates answered (almost) nothing"


def test_candidates_that_are_not_enough_are_searched_again(monkeypatch, corpus):
    """With no room beyond top_k a query whose k-th score a left-out row might reach
    (the near-duplicates, the ties) is searched again over float32: still the same answer."""
    vectors, queries = corpus
    plain, compressed = _plain(vectors), VectorIndex.build(vectors)
    compressed.compress()
    queries = queries[:scan.FEW_QUERIES]
    expected = [plain.search(query, 50) for query in queries]
    monkeypatch.setattr(scan, "RESCORED", 0)
    fallbacks = _fallbacks(monkeypatch)
    scores, rows = compressed.search(queries, 50)
    np.testing.assert_array_equal(rows, np.vstack([want[1] for want in expected]))
    np.testing.assert_array_equal(scores, np.vstack([want[0] for want in expected]))
    assert len(fallbacks) >= 4  # at least the queries at the near-duplicates


def test_the_copy_is_made_after_some_searches_while_threads_search(monkeypatch, corpus):
    vectors, queries = corpus
    monkeypatch.setattr(dense, "COMPRESS_AFTER", 3)
    plain, index = _plain(vectors), VectorIndex.build(vectors)
    expected = [plain.search(query, 30) for query in queries]
    for query in queries[:2]:
        index.search(query, 30)
    assert not index.compressed  # a one-off search (the CLI) never pays for the copy
    errors: list[str] = []

    def session(offset: int) -> None:
        for round_ in range(6):
            i = (offset + round_) % len(queries)
            scores, rows = index.search(queries[i], 30)
            if not (np.array_equal(rows[0], expected[i][1][0])
                    and np.array_equal(scores[0], expected[i][0][0])):
                errors.append(f"query {i}, compressed: {index.compressed}")

    threads = [threading.Thread(target=session, args=(offset,)) for offset in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadline = time.monotonic() + 60
    while not index.compressed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.compressed and not errors, errors
    session(0)
    assert not errors, errors


def test_small_and_graph_indexes_keep_no_copy(corpus):
    vectors, _ = corpus
    assert not VectorIndex.build(vectors[:scan.SPLIT_ROWS - 1]).compress()
    assert not VectorIndex.build(vectors[:2000], dense.HNSW).compress()
    huge = vectors.copy()
    huge[5] *= 1e6  # beyond fp16: scanned in float32 only
    assert not VectorIndex.build(huge).compress()


def test_a_question_counts_once_per_thread_however_deep_its_calls():
    assert IN_PROGRESS.alone()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with IN_PROGRESS.answering():
            inside.set()
            release.wait(30)

    with IN_PROGRESS.answering(), IN_PROGRESS.answering():
        assert IN_PROGRESS.alone()  # nested: still one question
        thread = threading.Thread(target=other)
        thread.start()
        inside.wait(30)
        assert not IN_PROGRESS.alone()
        release.set()
        thread.join()
        assert IN_PROGRESS.alone()
    assert IN_PROGRESS.alone()


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no per-thread priority here")
def test_the_copy_is_made_at_the_lowest_priority(monkeypatch, corpus):
    """The background copy never competes with the questions being answered, and its thread
    is not a daemon (the interpreter waits for it at exit, not freeing the vectors under it)."""
    vectors, queries = corpus
    monkeypatch.setattr(dense, "COMPRESS_AFTER", 1)
    index = VectorIndex.build(vectors)
    seen: list[int] = []
    daemons: list[bool] = []
    compress = index.compress
    monkeypatch.setattr(index, "compress", lambda: daemons.append(
        threading.current_thread().daemon) or seen.append(
        os.getpriority(os.PRIO_PROCESS, threading.get_native_id())) or compress())
    index.search(queries[0], 10)
    deadline = time.monotonic() + 60
    while not index.compressed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen == [19] and daemons == [False] and index.compressed
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < 19  # this thread's own


def test_two_indexes_searched_at_once_answer_as_each_alone(monkeypatch, seeds_explorer):
    """No search changes what another index's searches read: from many threads at once, a big
    index's batches of 8 and a small index's batches of 4 each get, bit for bit, the answers
    they get alone. (Before: the big index's batches of 4+ lowered FAISS's BLAS threshold,
    global to the process, for their first pass, and the small index's batches meanwhile went
    through BLAS, whose sums round otherwise.) Real vectors: the seeds' papers and sentences."""
    papers = np.ascontiguousarray(seeds_explorer.vectors, dtype=np.float32)
    sentences = seeds_explorer.artifacts.arrays["sentence_vectors"].astype(np.float32)
    monkeypatch.setattr(scan, "SPLIT_ROWS", len(papers) + 1)  # the big index only is split
    big, small = _plain(np.vstack([papers, sentences])), _plain(papers)
    assert scan.parts(big.count, 8) and not scan.parts(small.count, 4)
    queries = sentences[np.random.default_rng(5).permutation(len(sentences))[:96]]
    sizes = {big: 8, small: 4}  # 4 x d: FAISS's BLAS threshold as the big index once set it
    alone = {index: [index.search(queries[start:start + size], 20)
                     for start in range(0, len(queries), size)]
             for index, size in sizes.items()}
    differ: list[str] = []

    def work(index: VectorIndex) -> None:
        size = sizes[index]
        for _ in range(6):
            for batch, start in enumerate(range(0, len(queries), size)):
                scores, rows = index.search(queries[start:start + size], 20)
                want_scores, want_rows = alone[index][batch]
                if not (np.array_equal(rows, want_rows) and np.array_equal(scores, want_scores)):
                    differ.append(f"{index.count} rows, batch {batch}")

    threads = [threading.Thread(target=work, args=(index,)) for index in (big, small) * 3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not differ, f"{len(differ)} answers differ from alone: {differ[:5]}"
