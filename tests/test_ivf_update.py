"""An IVF update keeps the previous build's trained lists (index/ivf.py), on REAL vectors: the
venue corpus (about 3,160 paperlists-ml abstracts embedded by the bundled model,
tests/venue_fixtures.py). Its first 85% stand for the last build, the rest for new papers.
(The time it saves at 1M-2.7M rows: benchmarks.run scale.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import faiss
import numpy as np
import pytest

from explorer.artifacts.store import read_manifest
from explorer.index import ivf
from explorer.index.dense import IVF, VectorIndex
from explorer.ingest.run import build
from explorer.query.engine import Explorer
from tests.test_approximate import exact_rows, recall
from tests.venue_fixtures import venue_index  # noqa: F401 - the fixture, shared

OLD_SHARE = 0.85
NEW = 60  # papers added in the product's build test: the corpus's lists then number one more


@pytest.fixture(scope="module")
def real(venue_index: Path) -> np.ndarray:  # noqa: F811
    """The venue corpus's real vectors (n, d)."""
    return np.array(Explorer.open(venue_index).vectors)


@pytest.fixture(scope="module")
def saved(real: np.ndarray, tmp_path_factory) -> Path:
    """The last build's IVF over the first OLD_SHARE of the rows, saved."""
    path = tmp_path_factory.mktemp("ivf-previous") / "index.faiss"
    VectorIndex.build(real[: int(OLD_SHARE * len(real))], IVF).save(path)
    return path


@pytest.fixture(scope="module")
def previous(saved: Path) -> VectorIndex:
    """The last build's IVF opened as a served index is (memory-mapped, read only)."""
    return VectorIndex.load(saved, IVF)


def _questions(real: np.ndarray) -> np.ndarray:
    """Papers' own vectors moved off themselves a little, old and new rows alike."""
    rng = np.random.default_rng(35)
    rows = rng.choice(len(real), 300, replace=False)
    moved = real[rows] + 0.5 * rng.standard_normal((300, real.shape[1])).astype(
        np.float32) / np.sqrt(real.shape[1])
    return moved.astype(np.float32)


def test_new_rows_join_the_trained_lists_as_if_added_to_them(real, saved, previous):
    updated = VectorIndex.build(real, IVF, previous=previous)
    in_memory = VectorIndex(faiss.read_index(str(saved)), IVF)  # read whole: rows can be added
    in_memory.add(real[previous.count:])
    np.testing.assert_array_equal(updated.vectors(), real)
    queries = _questions(real)
    scores, rows = updated.search(queries, 10)
    expected_scores, expected_rows = in_memory.search(queries, 10)
    np.testing.assert_array_equal(rows, expected_rows)  # the copied lists, code for code
    np.testing.assert_array_equal(scores, expected_scores)
    # fewer lists than a build of this size trains afresh: the previous ones, not retrained
    assert updated.lists == previous.lists < VectorIndex.build(real, IVF).lists


def test_an_update_finds_what_a_build_from_scratch_finds(real, previous):
    queries = _questions(real)
    truth = exact_rows(real, queries)
    updated = recall(VectorIndex.build(real, IVF, previous=previous).search(queries, 10)[1], truth)
    scratch = recall(VectorIndex.build(real, IVF).search(queries, 10)[1], truth)
    assert updated >= 0.99 and updated >= scratch - 0.01


def test_changed_rows_keep_the_lists_and_are_all_assigned_again(real, previous):
    changed = real[::-1].copy()  # the same papers in another order: not an extension
    assert not ivf.extends(previous.vectors(), changed)
    updated = VectorIndex.build(changed, IVF, previous=previous)
    assert updated.lists == previous.lists and updated.count == len(changed)
    queries = _questions(real)
    assert recall(updated.search(queries, 10)[1], exact_rows(changed, queries)) >= 0.99


def test_a_corpus_grown_past_the_reuse_bound_trains_afresh(real, previous):
    small = VectorIndex.build(real[: int(len(real) / (ivf.REUSE_GROWTH + 0.1))], IVF)
    grown = VectorIndex.build(real, IVF, previous=small)
    assert grown.lists == VectorIndex.build(real, IVF).lists != small.lists


def test_the_served_index_is_read_only_and_unchanged(real, previous):
    before = previous.search(real[:5], 10)
    VectorIndex.build(real, IVF, previous=previous)
    with pytest.raises(ValueError, match="read only"):
        previous.add(real[:1])
    after = previous.search(real[:5], 10)
    np.testing.assert_array_equal(before[1], after[1])
    assert previous.count == int(OLD_SHARE * len(real))


@pytest.mark.slow  # two whole builds of the venue corpus, 60 papers embedded
def test_explorer_build_with_new_papers_updates_the_ivf(venue_index, tmp_path):  # noqa: F811
    """The product's path: an IVF folder built from all but the last NEW papers of the corpus
    file, then built again from the whole file, embeds only the new papers and keeps the
    trained lists (fewer than a build of the whole corpus trains: 39 rows a list at least)."""
    exact = Explorer.open(venue_index)
    corpus = Path(exact.manifest.inputs[0])
    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    first = tmp_path / "first.jsonl"
    first.write_text("".join(lines[:-NEW]), encoding="utf-8")
    out = tmp_path / "index"
    shutil.copytree(venue_index, out)
    build([first], out, "default", index_type=IVF, sentences=False)
    before = Explorer.open(out).artifacts.index.lists
    report = build([corpus], out, "default", index_type=IVF, sentences=False)
    assert report.embedded == NEW and read_manifest(out).index_type == IVF
    after = Explorer.open(out)
    vectors = np.array(after.vectors)
    assert after.artifacts.index.lists == before < VectorIndex.build(vectors, IVF).lists
    # the same papers in order: the old rows' vectors reused as they were, the new ones embedded
    # again (equal up to a batch's rounding)
    np.testing.assert_array_equal(vectors[:-NEW], exact.vectors[:-NEW])
    assert np.einsum("nd,nd->n", vectors[-NEW:], exact.vectors[-NEW:]).min() > 0.999
    queries = _questions(vectors)
    found = after.artifacts.index.search(queries, 10)[1]
    assert recall(found, exact_rows(vectors, queries)) >= 0.99
