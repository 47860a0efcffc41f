"""Every index type answers like a brute-force NumPy ranking: plain, filtered and `similar`."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts.store import read_manifest
from explorer.index.dense import EXACT, EXACT_FILTER_SHARE, HNSW, INDEX_TYPES, VectorIndex
from explorer.ingest.run import build
from explorer.query.engine import Explorer, Filters

TOP_K = 10


def _clustered(count: int, dimension: int = 48, seed: int = 0) -> np.ndarray:
    """Unit vectors (count, dimension) around 40 centres: neighbours are not all ties."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, dimension))
    vectors = centres[rng.integers(0, 40, count)] + 0.6 * rng.normal(size=(count, dimension))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def _exact(vectors: np.ndarray, query: np.ndarray, rows: np.ndarray, top_k: int) -> list[int]:
    scores = vectors[rows] @ query
    return [int(rows[i]) for i in np.argsort(-scores, kind="stable")[:top_k]]


@pytest.fixture(scope="module")
def corpus() -> tuple[np.ndarray, np.ndarray]:
    vectors = _clustered(4000)
    rng = np.random.default_rng(1)  # queries near corpus points, as real queries are
    queries = vectors[rng.choice(len(vectors), 30)] + 0.1 * rng.normal(size=(30, 48))
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return vectors, queries.astype(np.float32)


@pytest.mark.parametrize("kind", INDEX_TYPES)
def test_unfiltered_search_recalls_the_exact_top_k(kind, corpus):
    vectors, queries = corpus
    index = VectorIndex.build(vectors, kind)
    scores, rows = index.search(queries, TOP_K)
    everything = np.arange(len(vectors))
    found = sum(len(set(rows[i]) & set(_exact(vectors, q, everything, TOP_K)))
                for i, q in enumerate(queries))
    recall = found / (len(queries) * TOP_K)
    assert recall == 1.0 if kind == EXACT else recall >= 0.95
    np.testing.assert_allclose(scores, np.take_along_axis(queries @ vectors.T, rows, 1), atol=1e-5)


@pytest.mark.parametrize("kind", INDEX_TYPES)
@pytest.mark.parametrize("share", [0.01, EXACT_FILTER_SHARE / 2, 0.6])
def test_filtered_search_only_returns_allowed_rows(kind, share, corpus):
    vectors, queries = corpus
    index = VectorIndex.build(vectors, kind)
    rng = np.random.default_rng(2)
    allowed = np.sort(rng.choice(len(vectors), int(share * len(vectors)), replace=False))
    _scores, rows = index.search(queries, TOP_K, allowed)
    assert set(rows.ravel()) <= set(allowed.tolist())
    assert (rows >= 0).all()  # k hits whenever k rows are allowed
    for i, query in enumerate(queries):
        expected = _exact(vectors, query, allowed, TOP_K)
        if kind == EXACT or share < EXACT_FILTER_SHARE:
            assert rows[i].tolist() == expected
        else:
            assert len(set(rows[i]) & set(expected)) >= 8


@pytest.mark.parametrize("kind", INDEX_TYPES)
def test_a_filter_smaller_than_k_pads_with_minus_one(kind, corpus):
    vectors, queries = corpus
    index = VectorIndex.build(vectors, kind)
    allowed = [5, 17, 123]
    _, rows = index.search(queries[:1], TOP_K, allowed)
    assert sorted(rows[0][:3].tolist()) == allowed and (rows[0][3:] == -1).all()


@pytest.mark.parametrize("kind", INDEX_TYPES)
def test_save_load_keeps_vectors_and_answers(kind, corpus, tmp_path: Path):
    vectors, queries = corpus
    index = VectorIndex.build(vectors, kind)
    index.save(tmp_path / "index.faiss")
    loaded = VectorIndex.load(tmp_path / "index.faiss", kind)
    np.testing.assert_array_equal(loaded.vectors(), vectors)
    np.testing.assert_array_equal(loaded.search(queries, TOP_K)[1], index.search(queries, TOP_K)[1])


@pytest.fixture(scope="module")
def hnsw_explorer(venue_explorer: Explorer, tmp_path_factory) -> Explorer:
    """test_search's venue/year index rebuilt as HNSW from the same inputs (nothing embedded)."""
    out = tmp_path_factory.mktemp("hnsw") / "index"
    shutil.copytree(venue_explorer.artifacts.folder, out)
    report = build(venue_explorer.manifest.inputs, out, "default", index_type=HNSW)
    assert report.embedded == 0 and report.index_type == HNSW
    assert read_manifest(out).index_type == HNSW
    return Explorer.open(out)


def _brute_force_ids(explorer: Explorer, vector: np.ndarray, keep) -> list[str]:
    scores = explorer.vectors @ vector
    order = [i for i in np.argsort(-scores, kind="stable") if keep(explorer.papers[i])]
    return [explorer.papers[i].paper_id for i in order]


def test_hnsw_search_and_similar_match_brute_force(hnsw_explorer: Explorer):
    query = "graph neural networks"
    expected = _brute_force_ids(hnsw_explorer, hnsw_explorer.embed_query(query), lambda p: True)
    hits = hnsw_explorer.search(query, top_k=TOP_K, mode="dense")
    assert [h.paper_id for h in hits] == expected[:TOP_K]
    paper = hnsw_explorer.papers[3]
    vector = hnsw_explorer.vectors[3]
    neighbours = [h.paper_id for h in hnsw_explorer.similar(paper.paper_id, top_k=TOP_K,
                                                            mode="dense")]
    assert paper.paper_id not in neighbours
    assert neighbours == [pid for pid in _brute_force_ids(hnsw_explorer, vector, lambda p: True)
                          if pid != paper.paper_id][:TOP_K]


def test_hnsw_filters_apply_inside_the_search(hnsw_explorer: Explorer):
    filters = Filters(venues=frozenset({"ICML"}), year_min=2022)
    keep = lambda p: p.venue == "ICML" and p.year >= 2022  # noqa: E731
    query = "language models"
    hits = hnsw_explorer.search(query, top_k=TOP_K, filters=filters, mode="dense")
    expected = _brute_force_ids(hnsw_explorer, hnsw_explorer.embed_query(query), keep)
    assert [h.paper_id for h in hits] == expected[:TOP_K]
    paper = hnsw_explorer.papers[0]
    similar = hnsw_explorer.similar(paper.paper_id, top_k=TOP_K, filters=filters, mode="dense")
    assert similar and all(keep(h.paper) and h.paper_id != paper.paper_id for h in similar)


def test_a_vectors_view_outlives_its_index():
    """The (n, d) view points into FAISS memory; it must keep that memory alive."""
    import gc

    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(500, 32)).astype(np.float32)
    view = VectorIndex.build(vectors, "flat").vectors()
    gc.collect()
    _ = [np.full(500 * 32, 7.0, dtype=np.float32) for _ in range(50)]  # would reuse freed memory
    np.testing.assert_array_equal(view, vectors)
    assert not view.flags.writeable


@pytest.mark.parametrize("parts", [2, 3])
def test_a_big_exact_index_searched_in_parallel_parts_equals_one_search(monkeypatch, corpus,
                                                                       parts):
    from explorer.index import scan

    vectors, queries = corpus
    doubled = np.vstack([vectors, vectors])  # every score tied with a second row
    whole = VectorIndex.build(doubled, EXACT)
    expected = whole.search(queries[:4], TOP_K)
    monkeypatch.setattr(scan, "SPLIT_ROWS", 1000)
    monkeypatch.setattr(scan, "_cores", lambda: parts)
    assert scan.parts(len(doubled), 1) == parts
    scores, rows = whole.search(queries[:4], TOP_K)
    np.testing.assert_allclose(scores, expected[0], rtol=1e-6)
    for query, found, plain in zip(queries[:4], rows, expected[1]):
        assert set(found.tolist()) == set(plain.tolist())  # FAISS orders ties its own way
        assert found.tolist() == _exact(doubled, query, np.arange(len(doubled)), TOP_K)
