"""The corpus map: t-SNE for small corpora, t-SNE on a sample plus placement for big ones."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.features.topics import stage as maps


@pytest.fixture
def short_tsne(monkeypatch) -> None:
    """t-SNE at scikit-learn's least iterations (250, half the build's): for the tests of the
    map's bookkeeping (which layout, when it is laid out afresh), not of the layout's quality.
    Not for the update test: it asserts where new papers land among the layout's clusters, and at
    250 iterations (the early-exaggeration phase alone) they are not yet apart enough."""
    monkeypatch.setattr(maps, "TSNE_ITERATIONS", 250)


def _clustered(count_per_cluster: int, clusters: int, dimension: int = 24) -> tuple:
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(clusters, dimension)) * 4
    labels = np.repeat(np.arange(clusters), count_per_cluster)
    vectors = centres[labels] + rng.normal(size=(len(labels), dimension))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32), labels


def test_big_corpora_keep_their_clusters_apart_on_the_map(monkeypatch):
    monkeypatch.setattr(maps, "TSNE_LIMIT", 60)
    vectors, labels = _clustered(50, 4)
    positions, method = maps._layout(vectors)
    assert method == "tsne-sample" and positions.shape == (200, 2)
    assert np.isfinite(positions).all()
    centres = np.array([positions[labels == c].mean(axis=0) for c in range(4)])
    nearest = np.argmin(((positions[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == labels).mean() > 0.95


def test_small_corpora_use_plain_tsne(short_tsne):
    vectors, _labels = _clustered(10, 3)
    positions, method = maps._layout(vectors)
    assert method == "tsne" and positions.shape == (30, 2)


def _papers(count: int) -> list:
    from explorer.corpus.papers import Paper

    return [Paper(f"p{i}", f"title {i}", False, f"abstract number {i} about topic {i % 4}")
            for i in range(count)]


def _hashes(papers: list) -> list[str]:
    return [p.text_hash for p in papers]


def test_an_update_keeps_the_map_and_places_new_papers_beside_their_neighbours():
    vectors, labels = _clustered(30, 4)
    papers = _papers(120)
    first = maps.compute_map(papers[:110], vectors[:110])
    updated = maps.update_map(papers, vectors, _hashes(papers[:110]), first)
    assert updated["x"][:110] == first["x"] and updated["topic"][:110] == first["topic"]
    positions = np.column_stack([updated["x"], updated["y"]])
    for row in range(110, 120):
        nearest = int(np.argmax(vectors[:110] @ vectors[row]))
        assert updated["topic"][row] == first["topic"][nearest]
        same_cluster = positions[:110][labels[:110] == labels[row]].mean(axis=0)
        other = positions[:110][labels[:110] != labels[row]].mean(axis=0)
        assert np.linalg.norm(positions[row] - same_cluster) < np.linalg.norm(
            positions[row] - other)
    assert sum(t["size"] for t in updated["topics"]) == 120
    assert updated["changed"] == 10


def test_the_map_is_laid_out_afresh_once_a_tenth_of_it_changed(short_tsne):
    vectors, _ = _clustered(30, 4)
    papers = _papers(120)
    first = maps.compute_map(papers[:100], vectors[:100])
    assert "changed" not in maps.update_map(papers, vectors, _hashes(papers[:100]), first)  # 20 new
    small = maps.update_map(papers[:105], vectors[:105], _hashes(papers[:100]), first)
    assert small["changed"] == 5
    again = maps.update_map(papers[:112], vectors[:112], _hashes(papers[:105]), small)  # 5 + 7 > 11.2
    assert "changed" not in again and again["method"] == "tsne"
    unusable = {"x": [0.0]}
    assert "changed" not in maps.update_map(papers, vectors, _hashes(papers[:3]), unusable)


def test_topic_labels_leave_out_every_english_stop_word():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from explorer.corpus.words import ENGLISH, STOP_WORDS

    assert ENGLISH_STOP_WORDS <= ENGLISH <= STOP_WORDS  # labels as before the list moved here


def test_big_corpora_find_topics_on_a_sample_and_every_paper_gets_one(monkeypatch):
    from explorer.corpus.papers import Paper

    monkeypatch.setattr(maps, "CLUSTER_SAMPLE", 80)
    monkeypatch.setattr(maps, "TOPIC_SAMPLE", 60)
    vectors, truth = _clustered(50, 4)
    words = ["proteins", "robots", "galaxies", "poetry"]
    papers = [Paper(f"p{i}", f"title {i}", False, f"a study of {words[truth[i]]} number {i}")
              for i in range(len(truth))]
    result = maps.compute_map(papers, vectors)
    labels = np.array(result["topic"])
    assert len(labels) == 200
    assert sorted(t["id"] for t in result["topics"]) == sorted(set(labels.tolist()))
    assert sum(t["size"] for t in result["topics"]) == 200
    for topic in result["topics"]:
        members = truth[labels == topic["id"]]
        assert len(set(members.tolist())) == 1  # fitted on 80 papers, no topic spans two clusters
        named = [word for word in words if word in topic["label"].lower()]
        assert named in ([], [words[members[0]]]), topic  # its own cluster's word, if any
    named = {word for t in result["topics"] for word in words if word in t["label"].lower()}
    assert named == set(words)  # the sample still names every cluster
