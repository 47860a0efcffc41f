"""The IVF index (8-bit codes in inverted lists, the best candidates re-scored exactly on the
float vectors) on REAL vectors: the venue corpus (about 3,160 paperlists-ml abstracts embedded
by the bundled model, tests/venue_fixtures.py) rebuilt as IVF from its own vectors, against
its exact index. (Recall and speed at 100k-1M: benchmarks.run scale.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.index.dense import IVF, IVF_PROBES
from explorer.query.engine import Explorer
from tests.test_approximate import (
    QUESTIONS,
    TOP_K,
    answers_in_threads,
    exact_rows,
    hybrid_overlap,
    rebuilt_as,
    recall,
)
from tests.venue_fixtures import venue_index  # noqa: F401 - the fixture, shared


@pytest.fixture(scope="module")
def pair(venue_index: Path, tmp_path_factory) -> tuple[Explorer, Explorer]:  # noqa: F811
    """(exact, ivf): the venue index as built, and a copy rebuilt as IVF (nothing embedded)."""
    return rebuilt_as(venue_index, tmp_path_factory, IVF)


def _queries(exact: Explorer, vectors: np.ndarray) -> np.ndarray:
    """Real questions, and papers' own vectors moved off themselves a little."""
    rng = np.random.default_rng(34)
    rows = rng.choice(len(vectors), 300, replace=False)
    moved = vectors[rows] + 0.5 * rng.standard_normal((300, vectors.shape[1])).astype(
        np.float32) / np.sqrt(vectors.shape[1])
    return np.vstack([[exact.embed_query(q) for q in QUESTIONS], moved]).astype(np.float32)


def test_ivf_recalls_the_exact_top_10_with_exact_scores(pair):
    exact, approximate = pair
    vectors = approximate.vectors
    np.testing.assert_array_equal(vectors, exact.vectors)  # the float vectors, in row order
    queries = _queries(exact, vectors)
    truth = exact_rows(vectors, queries)
    index = approximate.artifacts.index
    scores, found = index.search(queries, TOP_K)
    assert index.breadth == IVF_PROBES and recall(found, truth) >= 0.99
    # re-scored on the float vectors: each score is the exact cosine of its row
    np.testing.assert_allclose(scores, np.einsum("qkd,qd->qk", vectors[found], queries),
                               atol=1e-5)
    _, narrow = index.search(queries, TOP_K, breadth=1)
    assert recall(narrow, truth) < recall(found, truth)  # the lists probed matter


def test_hybrid_answers_over_ivf_equal_the_exact_ones(pair):
    assert hybrid_overlap(*pair) >= 0.98


@pytest.mark.parametrize("share", [0.05, 0.5])
def test_a_filter_keeps_only_its_rows_and_their_exact_best(pair, share):
    exact, approximate = pair
    vectors = approximate.vectors
    allowed = np.flatnonzero(np.random.default_rng(5).random(len(vectors)) < share)
    query = exact.embed_query(QUESTIONS[0])
    _, rows = approximate.artifacts.index.search(query, TOP_K, allowed=allowed)
    expected = allowed[np.argsort(-(vectors[allowed] @ query), kind="stable")[:TOP_K]]
    assert set(rows[0]) <= set(allowed)
    assert len(set(rows[0]) & set(expected)) >= TOP_K - 1


def test_threads_with_different_breadths_each_get_their_own_answers(pair):
    """The lists probed go with each search, never set on the shared index."""
    exact, approximate = pair
    index = approximate.artifacts.index
    queries = _queries(exact, approximate.vectors)[:64]
    breadths = [1 if i % 2 else IVF_PROBES for i in range(len(queries))]
    alone = [index.search(q, TOP_K, breadth=b)[1] for q, b in zip(queries, breadths)]
    assert any(not np.array_equal(alone[i], index.search(queries[i], TOP_K)[1])
               for i in range(1, len(queries), 2))  # breadth 1 answers differently: can fail
    answers = answers_in_threads(  # three threads: each asks with both breadths
        lambda i: index.search(queries[i], TOP_K, breadth=breadths[i])[1], len(queries), 3)
    for i, rows in enumerate(alone):
        np.testing.assert_array_equal(answers[i], rows)
