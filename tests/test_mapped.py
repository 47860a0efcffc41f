"""Memory-mapped vectors: opening an index does not read its vectors into the process, and an
open index keeps answering from its own files while a rebuild swaps the folder's files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.artifacts import store
from explorer.index.dense import EXACT, HNSW, VectorIndex
from explorer.query.engine import Explorer

QUESTION = "reinforcement learning for robots"


def _anonymous_mib() -> float:
    """The process's own resident memory (RssAnon: not counting mapped files' pages)."""
    with open("/proc/self/status", encoding="utf-8") as handle:
        status = dict(line.split(":", 1) for line in handle)
    return int(status["RssAnon"].split()[0]) / 1024


def _unit_rows(count: int, dimension: int = 384) -> np.ndarray:
    vectors = np.random.default_rng(3).standard_normal((count, dimension), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.parametrize("kind", [EXACT, HNSW])
def test_opening_an_index_maps_its_vectors_instead_of_reading_them(kind, tmp_path: Path):
    count = 60_000 if kind == EXACT else 4_000  # an HNSW graph of 60k takes a minute to build
    vectors = _unit_rows(count)
    built = VectorIndex.build(vectors, kind)
    built.save(tmp_path / "index.faiss")
    expected = built.search(vectors[:5], 10)
    del built
    before = _anonymous_mib()
    opened = VectorIndex.load(tmp_path / "index.faiss", kind)
    grown = _anonymous_mib() - before
    if kind == EXACT:  # 88 MiB of vectors; an HNSW graph (read, not mapped) is more than these
        assert grown < 0.2 * vectors.nbytes / 2**20, grown
    view = opened.vectors()
    assert not view.flags.writeable
    np.testing.assert_array_equal(view, vectors)
    scores, rows = opened.search(vectors[:5], 10)
    np.testing.assert_array_equal(rows, expected[1])
    np.testing.assert_array_equal(scores, expected[0])


def test_an_open_index_answers_from_its_old_files_after_a_rebuild_swaps_them(index_copy: Path):
    opened = Explorer.open(index_copy)
    paper = opened.papers[0].paper_id
    old_files = [index_copy / entry.name for entry in opened.manifest.files.values()]
    vectors = np.array(opened.vectors)
    similar = [h.paper_id for h in opened.similar(paper, 5, mode="dense")]
    found = [h.paper_id for h in opened.search(QUESTION, 5, mode="dense")]

    # a rebuild with other vectors (the same papers, the rows' vectors in reverse order)
    loaded = store.load_artifacts(index_copy)
    arrays = {role: np.asarray(loaded.arrays[role]) for role in loaded.arrays}
    kept = {k: v for k, v in loaded.manifest.to_dict().items()
            if k not in ("files", "build_id", "count")}
    swapped = VectorIndex.build(vectors[::-1].copy(), EXACT)
    store.write_artifacts(index_copy, loaded.papers, swapped, loaded.extras, kept, arrays)
    del loaded
    assert not any(path.exists() for path in old_files)  # the old files are deleted

    np.testing.assert_array_equal(opened.vectors, vectors)
    assert [h.paper_id for h in opened.similar(paper, 5, mode="dense")] == similar
    assert [h.paper_id for h in opened.search(QUESTION, 5, mode="dense")] == found
    fresh = Explorer.open(index_copy)
    np.testing.assert_array_equal(fresh.vectors, vectors[::-1])
    assert [h.paper_id for h in fresh.similar(paper, 5, mode="dense")] != similar


def test_an_index_with_every_array_mapped_answers_as_one_read_whole(
        index_copy: Path, monkeypatch: pytest.MonkeyPatch):
    """The seeds' arrays are all under MAPPED_BYTES: mapped here all the same (read only), the
    query path answers as it does over arrays read whole (none of it writes into one)."""
    from explorer.artifacts import arrays

    whole = Explorer.open(index_copy)
    monkeypatch.setattr(arrays, "MAPPED_BYTES", 0)
    mapped = Explorer.open(index_copy)
    stored = store.load_artifacts(index_copy).arrays
    assert stored and all(not stored[role].flags.writeable for role in stored)
    paper = whole.papers[3].paper_id
    for mode in ("hybrid", "lexical", "dense"):
        assert ([h.paper_id for h in mapped.search(QUESTION, 10, mode=mode)]
                == [h.paper_id for h in whole.search(QUESTION, 10, mode=mode)])
        assert ([h.paper_id for h in mapped.similar(paper, 10, mode=mode)]
                == [h.paper_id for h in whole.similar(paper, 10, mode=mode)])
    liked = [paper, whole.papers[7].paper_id]
    assert ([h.paper_id for h in mapped.recommend(liked, top_k=10)]
            == [h.paper_id for h in whole.recommend(liked, top_k=10)])
