"""The corpus map, computed once at build time: 2-D positions, topics and their key terms."""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
from threadpoolctl import threadpool_limits

from explorer.corpus.papers import Paper
from explorer.features.topics.stage_names import describe, refresh

TSNE_LIMIT = 5000  # above this many papers t-SNE runs on a sample of this size
# Up to this many papers t-SNE and k-means run on one OpenMP thread: the same numbers, and on
# a busy 2-core machine two threads that wait on each other took 39 s for 73 papers against
# 2.9 s on one (1,000 papers: 45 s against 5.0 s); the suite makes about 100 small builds.
ONE_THREAD_UP_TO = 2000
# t-SNE iterations, 250 of them early exaggeration (scikit-learn's default is 1000): on 5,000
# real abstracts 30 CPU s instead of 56, with 10-NN kept 0.392 against 0.396 and a paper's 2-D
# neighbours in its own topic 0.633 against 0.627.
TSNE_ITERATIONS = 500
# Above these many papers, k-means is fitted on a sample (every paper then joins its nearest
# centre) and topic terms are counted on a sample: at 92k papers the full fit and counts took
# 50 and 53 CPU seconds; on 16k real abstracts a 5k-sample fit lost 0.14% inertia and agreed
# with the full fit as well as two full fits with other seeds agree (ARI 0.60 and 0.62), and
# 8k-sample counts kept 89% of the topics' key terms (benchmarks/README.md, build stages).
CLUSTER_SAMPLE = 10_000
TOPIC_SAMPLE = 20_000
REFRESH_SHARE = 0.1  # an update lays the map out afresh once this share of it has changed
NEIGHBOURS = 3  # sampled papers a paper outside the sample is placed between
SEED = 0


def compute_map(papers: Sequence[Paper], vectors: np.ndarray) -> dict:
    """Lay out `vectors` (n, d) in 2-D and find topics.

    Returns {"x": [n], "y": [n], "topic": [n], "closeness": [n], "topics": [{"id", "label",
    "terms", "size", "area", "neighbours"}], "areas": [{"id", "label", "terms", "size",
    "topics"}], "method": str} (features/topics/stage_names.py: two levels of named topics);
    empty lists for an empty corpus.
    """
    count = len(papers)
    if count < 3:
        return {"x": [0.0] * count, "y": [0.0] * count, "topic": [0] * count,
                "closeness": [1.0] * count,
                "topics": [{"id": 0, "label": "all papers", "terms": [], "size": count,
                            "area": 0, "neighbours": []}],
                "areas": [{"id": 0, "label": "all papers", "terms": [], "size": count,
                           "topics": [0]}], "method": "none"}
    positions, method = _layout(vectors)
    labels = _cluster(vectors)
    described = describe(papers, vectors, labels, _sample(count, TOPIC_SAMPLE))
    return {
        "x": [round(float(v), 4) for v in positions[:, 0]],
        "y": [round(float(v), 4) for v in positions[:, 1]],
        "topic": [int(label) for label in labels],
        **described,
        "method": method,
    }


def update_map(papers: Sequence[Paper], vectors: np.ndarray, previous_hashes: Sequence[str],
               previous: dict | None) -> dict:
    """The map of `papers` given the map of an earlier build (`previous_hashes`: the text hash
    of each of its rows).

    Papers already on it keep their place and topic; new ones are placed among their nearest
    neighbours there and join the topic (and so the area) of the nearest one; names are kept,
    sizes, closeness and neighbours recomputed (a map from before the two levels gets them,
    its layout kept). Once more than REFRESH_SHARE of the
    papers have been added or removed since the last full layout (or when there is no usable
    earlier map), the whole map is computed afresh with compute_map.
    """
    known = _positions(previous_hashes, previous)
    rows = [known.get(p.text_hash) for p in papers]
    kept = [i for i, place in enumerate(rows) if place is not None]
    added = len(papers) - len(kept)
    changed = (previous or {}).get("changed", 0) + added + (len(previous_hashes) - len(kept))
    if not kept or len(papers) < 3 or changed > REFRESH_SHARE * len(papers):
        return compute_map(papers, vectors)
    x, y, topic = (np.array([rows[i][k] for i in kept]) for k in range(3))
    positions = np.zeros((len(papers), 2))
    labels = np.zeros(len(papers), dtype=np.int64)
    positions[kept], labels[kept] = np.column_stack([x, y]), topic
    new = np.setdiff1d(np.arange(len(papers)), kept)
    if len(new):
        positions[new], nearest = _place(vectors[new], vectors[kept], positions[kept])
        labels[new] = labels[kept][nearest]
    if previous.get("areas"):
        described = refresh(previous, vectors, labels)
    else:
        described = describe(papers, vectors, labels, _sample(len(papers), TOPIC_SAMPLE))
    return {"x": [round(float(v), 4) for v in positions[:, 0]],
            "y": [round(float(v), 4) for v in positions[:, 1]],
            "topic": [int(label) for label in labels], **described,
            "method": previous["method"], "changed": changed}


def _positions(hashes: Sequence[str], stored: dict | None) -> dict[str, tuple]:
    """text hash -> (x, y, topic) of a stored map; {} when it does not fit its rows."""
    if not stored or any(len(stored.get(k, ())) != len(hashes) for k in ("x", "y", "topic")):
        return {}
    return {h: (x, y, t) for h, x, y, t in zip(hashes, stored["x"], stored["y"], stored["topic"])}


def _place(vectors: np.ndarray, anchors: np.ndarray, anchor_positions: np.ndarray,
           rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """2-D positions (m, 2) for `vectors` (m, d) among the `anchors` (k, d) already placed at
    `anchor_positions` (k, 2): the cosine-weighted mean of their nearest anchors, plus a little
    jitter; and the nearest anchor of each (m,)."""
    rng = np.random.default_rng(SEED) if rng is None else rng
    nearest, weights = _neighbours(vectors, anchors)
    placed = (anchor_positions[nearest] * weights[:, :, None]).sum(axis=1)
    placed /= weights.sum(axis=1, keepdims=True)
    jitter = rng.normal(scale=float(anchor_positions.std()) * 0.01, size=placed.shape)
    return placed + jitter, nearest[:, 0]


def _neighbours(vectors: np.ndarray, anchors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of `vectors` (m, d): its NEIGHBOURS nearest `anchors` (rows, (m, k)), nearest
    first, and their cosines floored at 1e-3 as weights (m, k)."""
    count = min(NEIGHBOURS, len(anchors))
    rows = np.empty((len(vectors), count), dtype=np.int64)
    weights = np.empty((len(vectors), count))
    for start in range(0, len(vectors), 4096):
        scores = vectors[start:start + 4096] @ anchors.T
        if count < len(anchors):
            top = np.argpartition(-scores, count - 1, axis=1)[:, :count]
        else:
            top = np.tile(np.arange(count), (len(scores), 1))
        best = np.take_along_axis(scores, top, axis=1)
        order = np.argsort(-best, axis=1)
        rows[start:start + 4096] = np.take_along_axis(top, order, axis=1)
        weights[start:start + 4096] = np.maximum(np.take_along_axis(best, order, axis=1), 1e-3)
    return rows, weights


def _layout(vectors: np.ndarray) -> tuple[np.ndarray, str]:
    """2-D positions (n, 2): t-SNE, on a sample for big corpora (the rest placed beside their
    nearest sampled neighbours)."""
    if len(vectors) <= TSNE_LIMIT:
        return _tsne(vectors), "tsne"
    rng = np.random.default_rng(SEED)
    sample = np.sort(rng.choice(len(vectors), TSNE_LIMIT, replace=False))
    anchors = _tsne(vectors[sample])
    positions = np.empty((len(vectors), 2), dtype=np.float64)
    positions[sample] = anchors
    rest = np.setdiff1d(np.arange(len(vectors)), sample)
    positions[rest], _ = _place(vectors[rest], vectors[sample], anchors, rng)
    return positions, "tsne-sample"


def import_in_background() -> None:
    """Start importing what compute_map needs (scikit-learn: 1.6 s of a 1,000-paper build) on
    a thread of its own, for a build to call before it embeds: the import's Python then runs
    while the model's runs hold no GIL. Imports are thread-safe; compute_map's own import
    waits for this one if it is still going."""
    threading.Thread(target=_import_sklearn, name="explorer-import", daemon=True).start()


def _import_sklearn() -> None:
    for name in ("sklearn.cluster", "sklearn.manifold"):
        importlib.import_module(name)


def _threads(count: int) -> threadpool_limits | nullcontext:
    """One OpenMP thread for a small corpus (see ONE_THREAD_UP_TO), the default otherwise."""
    return threadpool_limits(1, user_api="openmp") if count <= ONE_THREAD_UP_TO else nullcontext()


def _tsne(vectors: np.ndarray) -> np.ndarray:
    from sklearn.manifold import TSNE

    perplexity = float(min(30, max(2, (len(vectors) - 1) // 3)))
    tsne = TSNE(n_components=2, perplexity=perplexity, metric="cosine", init="pca",
                max_iter=TSNE_ITERATIONS, random_state=SEED)
    with _threads(len(vectors)):
        return tsne.fit_transform(vectors)


def _cluster(vectors: np.ndarray) -> np.ndarray:
    """A topic per row of `vectors` (n, d): k-means, fitted on up to CLUSTER_SAMPLE rows."""
    from sklearn.cluster import KMeans

    clusters = int(min(40, max(2, round(math.sqrt(len(vectors) / 2)))))
    kmeans = KMeans(n_clusters=clusters, n_init=4, random_state=SEED)
    if len(vectors) <= CLUSTER_SAMPLE:
        with _threads(len(vectors)):
            return kmeans.fit_predict(vectors)
    return kmeans.fit(vectors[_sample(len(vectors), CLUSTER_SAMPLE)]).predict(vectors)


def _sample(count: int, size: int) -> np.ndarray:
    """Rows 0..count-1 when count <= size, else `size` of them drawn with the fixed seed, in
    order."""
    if count <= size:
        return np.arange(count)
    return np.sort(np.random.default_rng(SEED).choice(count, size, replace=False))

