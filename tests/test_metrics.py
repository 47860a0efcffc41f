"""Ranking metrics against examples computed by hand."""

import math

import pytest

from explorer.eval.metrics import mean_scores, mrr_at_k, ndcg_at_k, recall_at_k, score_run


def test_ndcg_binary_by_hand():
    # relevant at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3)
    ranked, relevant = ["a", "b", "c", "d"], {"b": 1, "d": 1}
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(ranked, relevant, 10) == pytest.approx(expected)
    assert expected == pytest.approx(0.650921, abs=1e-6)


def test_ndcg_cut_off_and_missing_relevant():
    # only "b" (rank 2) within k=3; a relevant doc never retrieved still counts in the ideal
    ranked, relevant = ["a", "b", "c", "d"], {"b": 1, "d": 1, "z": 1}
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranked, relevant, 3) == pytest.approx((1 / math.log2(3)) / ideal)


def test_ndcg_graded_and_perfect():
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 2}, 10) == pytest.approx(
        (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert ndcg_at_k(["b", "a", "x"], {"a": 1, "b": 2}, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "y"], {"a": 1}, 10) == 0.0
    assert ndcg_at_k(["x"], {}, 10) == 0.0


def test_recall_and_mrr_by_hand():
    ranked, relevant = ["a", "b", "c", "d"], {"b": 1, "d": 1, "z": 1}
    assert recall_at_k(ranked, relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, relevant, 10) == pytest.approx(2 / 3)
    assert mrr_at_k(ranked, relevant, 10) == pytest.approx(0.5)
    assert mrr_at_k(ranked, relevant, 1) == 0.0
    assert mrr_at_k(["d"], relevant, 10) == 1.0


def test_repeated_documents_count_once():
    assert recall_at_k(["b", "b", "b"], {"b": 1, "c": 1}, 10) == pytest.approx(0.5)
    assert ndcg_at_k(["b", "b"], {"b": 1}, 10) == pytest.approx(1.0)
    assert mrr_at_k(["x", "x", "b"], {"b": 1}, 2) == pytest.approx(0.5)


def test_score_run_and_mean():
    first = score_run(["a", "b"], {"a": 1})
    second = score_run(["a", "b"], {"b": 1})
    assert first == {"ndcg@10": 1.0, "recall@10": 1.0, "recall@100": 1.0, "mrr@10": 1.0}
    mean = mean_scores([first, second])
    assert mean["mrr@10"] == pytest.approx(0.75)
    assert mean["ndcg@10"] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    assert mean_scores([])["ndcg@10"] == 0.0


def test_bad_k_is_a_value_error():
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a": 1}, 0)
