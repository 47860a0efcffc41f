"""The corpus map: t-SNE for small corpora, t-SNE on a sample plus placement for big ones."""

from __future__ import annotations

import numpy as np

from explorer import maps


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


def test_small_corpora_use_plain_tsne():
    vectors, labels = _clustered(10, 3)
    positions, method = maps._layout(vectors)
    assert method == "tsne" and positions.shape == (30, 2)
