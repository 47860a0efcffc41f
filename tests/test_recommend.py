"""Multi-paper recommendations: centroid and per-request SVM, by hand and on the seeds."""

import numpy as np
import pytest

from explorer.query.engine import Explorer, Filters
from explorer.ranking.fusion import rocchio, svm_scores


def test_centroid_target_by_hand():
    liked = np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32)
    disliked = np.array([[0, 0, 1]], dtype=np.float32)
    target = rocchio(None, liked, 1.0, disliked=disliked)  # recommend's centroid
    expected = np.array([0.5, 0.5, -0.5]) / np.linalg.norm([0.5, 0.5, -0.5])
    assert target == pytest.approx(expected)
    assert np.linalg.norm(target) == pytest.approx(1.0)
    steered = rocchio(np.array([0, 0, 1], dtype=np.float32), liked, 1.0, disliked=disliked)
    assert steered == pytest.approx(np.array([1.0, 1.0, 1.0]) / np.sqrt(3))  # + the query
    only_query = rocchio(np.array([0, 3, 4], dtype=np.float32), liked[:0], 1.0)
    assert only_query == pytest.approx([0.0, 0.6, 0.8])


def test_svm_separates_the_liked_cluster():
    rng = np.random.default_rng(0)
    centre_a, centre_b = np.eye(8)[0], np.eye(8)[1]
    vectors = np.vstack([centre_a + 0.1 * rng.standard_normal((30, 8)),
                         centre_b + 0.1 * rng.standard_normal((300, 8))]).astype(np.float32)
    scores = svm_scores(vectors, positives=[0, 1, 2])
    assert scores[3:30].min() > scores[30:].max()
    sampled = svm_scores(vectors, positives=[0, 1, 2], background=50)  # a sample of negatives
    assert sampled[3:30].min() > sampled[30:].max()


@pytest.mark.parametrize("method", ["centroid", "svm"])
def test_recommend_never_returns_seeds(seeds_explorer: Explorer, method: str):
    ex = seeds_explorer
    first = ex.papers[0]
    second = ex.similar(first.paper_id, 1)[0].paper
    unliked = ex.papers[-1]
    hits = ex.recommend([first.paper_id, second.paper_id], [unliked.paper_id], top_k=10,
                        method=method)
    ids = [h.paper_id for h in hits]
    assert len(ids) == 10 and len(set(ids)) == 10
    assert not {first.paper_id, second.paper_id, unliked.paper_id} & set(ids)
    # the nearest other paper of the pair comes back high in both methods
    centroid = ex.recommend([first.paper_id, second.paper_id], top_k=3, method="centroid")
    assert set(ids[:5]) & {h.paper_id for h in centroid}


def test_recommend_rejects_unknown_method(seeds_explorer: Explorer):
    with pytest.raises(ValueError):
        seeds_explorer.recommend([seeds_explorer.papers[0].paper_id], method="knn")


@pytest.mark.parametrize("method", ["centroid", "svm"])
def test_recommend_respects_filters(seeds_explorer: Explorer, method: str):
    ex = seeds_explorer
    source = ex.facets()["sources"][0]
    filters = Filters(sources=frozenset({source}))
    like = [p.paper_id for p in ex.papers[:2]]
    hits = ex.recommend(like, top_k=5, filters=filters, method=method)
    assert hits and all(any(s.startswith(source) for s in h.paper.sources) for h in hits)
    assert not set(like) & {h.paper_id for h in hits}
