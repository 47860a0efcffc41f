"""The approximate index (HNSW) on REAL vectors: the venue corpus (about 3,160 paperlists-ml
abstracts embedded by the bundled model, tests/venue_fixtures.py) rebuilt as HNSW from its own
vectors, against its exact index: recall@10 of real questions and of papers' own vectors, and
the hybrid answers a reader sees. (Speed and recall at 100k-1M: benchmarks.run scale.)"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import read_manifest
from explorer.index.dense import EXACT, HNSW
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.venue_fixtures import venue_index  # noqa: F401 - the fixture, shared

TOP_K = 10
QUESTIONS = [
    "graph neural networks for molecules", "adversarial robustness of image classifiers",
    "exploration in deep reinforcement learning", "variational autoencoders",
    "neural architecture search", "generalization of overparameterized networks",
    "machine translation with attention", "meta-learning for few-shot classification",
    "generative adversarial networks training stability", "optimization with adaptive learning rates",
    "interpretability of neural networks", "continual learning without forgetting",
]


def rebuilt_as(folder: Path, tmp_path_factory, kind: str) -> tuple[Explorer, Explorer]:
    """(exact, approximate): the exact index in `folder` (the venue index), and a copy rebuilt
    as `kind` (nothing embedded: the build reuses the stored vectors)."""
    exact = Explorer.open(folder)
    assert exact.manifest.index_type == EXACT
    out = tmp_path_factory.mktemp(f"venues-{kind}") / "index"
    shutil.copytree(folder, out)
    report = build(exact.manifest.inputs, out, "default", index_type=kind, sentences=False)
    assert report.embedded == 0 and read_manifest(out).index_type == kind
    return exact, Explorer.open(out)


def answers_in_threads(ask: Callable[[int], np.ndarray], count: int,
                       threads: int = 4) -> dict[int, np.ndarray]:
    """{i: ask(i)} for i < count, asked from `threads` threads at once (round robin)."""
    answers: dict[int, np.ndarray] = {}

    def run(start: int) -> None:
        for i in range(start, count, threads):
            answers[i] = ask(i)

    running = [threading.Thread(target=run, args=(start,)) for start in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return answers


@pytest.fixture(scope="module")
def pair(venue_index: Path, tmp_path_factory) -> tuple[Explorer, Explorer]:  # noqa: F811
    """(exact, approximate): the venue index, and a copy rebuilt as HNSW."""
    return rebuilt_as(venue_index, tmp_path_factory, HNSW)


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(found, truth)]))


def exact_rows(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    return np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :TOP_K]


def test_hnsw_recalls_the_exact_top_10_of_real_questions_and_papers(pair):
    exact, approximate = pair
    vectors = approximate.vectors
    np.testing.assert_array_equal(vectors, exact.vectors)  # the same real vectors, reused
    rows = np.random.default_rng(34).choice(len(vectors), 300, replace=False)
    queries = np.vstack([[exact.embed_query(q) for q in QUESTIONS], vectors[rows]])
    _, found = approximate.artifacts.index.search(queries, TOP_K)
    assert recall(found, exact_rows(vectors, queries)) >= 0.99
    _, flat = exact.artifacts.index.search(queries, TOP_K)
    assert recall(flat, exact_rows(vectors, queries)) == 1.0


def hybrid_overlap(exact: Explorer, approximate: Explorer) -> float:
    """The mean share of the exact index's top TOP_K that the approximate one's hybrid search
    finds for QUESTIONS; each question's top 3 must be the same, in order."""
    overlaps = []
    for question in QUESTIONS:
        expected = [h.paper_id for h in exact.search(question, top_k=TOP_K)]
        found = [h.paper_id for h in approximate.search(question, top_k=TOP_K)]
        assert found[:3] == expected[:3], question
        overlaps.append(len(set(found) & set(expected)) / TOP_K)
    return float(np.mean(overlaps))


def test_hybrid_answers_over_hnsw_equal_the_exact_ones(pair):
    assert hybrid_overlap(*pair) >= 0.98


def test_threads_searching_one_hnsw_index_get_the_answers_of_one_thread(pair):
    """efSearch goes with each search (faiss.SearchParametersHNSW), never set on the shared
    index: searches from many threads at once answer as a lone search does."""
    _, approximate = pair
    index = approximate.artifacts.index
    queries = approximate.vectors[:64]
    alone = [index.search(q, TOP_K)[1] for q in queries]
    answers = answers_in_threads(lambda i: index.search(queries[i], TOP_K)[1], len(queries))
    for i, rows in enumerate(alone):
        np.testing.assert_array_equal(answers[i], rows)


def test_threads_asking_with_different_pools_each_get_their_own_pools_answers(pair):
    """Searches of one index with a small and a large efSearch at once, from three threads:
    each answer is the one a lone search with its own pool gives (a pool set on the shared
    index by one thread would leak into the others' searches)."""
    _, approximate = pair
    index, vectors = approximate.artifacts.index, approximate.vectors
    noise = np.random.default_rng(7).standard_normal((64, vectors.shape[1])).astype(np.float32)
    queries = vectors[:64] + 0.5 * noise / np.sqrt(vectors.shape[1])
    pools = [TOP_K if i % 2 else 512 for i in range(len(queries))]
    alone = [index.search(q, TOP_K, breadth=pool)[1] for q, pool in zip(queries, pools)]
    small = np.array([a[0] for a, pool in zip(alone, pools) if pool == TOP_K])
    large = np.array([a[0] for a, pool in zip(alone, pools) if pool == 512])
    truth = exact_rows(vectors, queries)
    assert recall(large, truth[0::2]) >= 0.99
    assert recall(small, truth[1::2]) < 1.0  # the pools answer differently: this can fail
    answers = answers_in_threads(  # three threads: each asks with both pools
        lambda i: index.search(queries[i], TOP_K, breadth=pools[i])[1], len(queries), 3)
    for i, rows in enumerate(alone):
        np.testing.assert_array_equal(answers[i], rows)
