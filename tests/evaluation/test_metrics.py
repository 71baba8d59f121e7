"""Each ranking metric on rankings checked by hand."""

from __future__ import annotations

import math

import pytest

from right_rag_dagster.evaluation import metrics as m


def test_single_evidence_answered_at_rank_three() -> None:
    ranks = [3]
    assert m.first_hit_rank(ranks) == 3
    assert (m.hit_at(ranks, 1), m.hit_at(ranks, 3), m.hit_at(ranks, 5)) == (0.0, 1.0, 1.0)
    assert m.reciprocal_rank(ranks) == pytest.approx(1 / 3)
    assert m.ndcg_at(ranks, 10) == pytest.approx(0.5)  # 1 / log2(3 + 1)
    assert (m.recall_at(ranks, 2), m.recall_at(ranks, 3)) == (0.0, 1.0)


def test_first_rank_counts_fully() -> None:
    assert (m.hit_at([1], 1), m.reciprocal_rank([1]), m.ndcg_at([1])) == (1.0, 1.0, 1.0)


def test_miss_and_rank_beyond_cutoff_score_zero() -> None:
    for ranks in ([None], [11]):
        assert m.hit_at(ranks, 5) == 0.0
        assert m.reciprocal_rank(ranks, 10) == 0.0
        assert m.ndcg_at(ranks, 10) == 0.0
    assert m.first_hit_rank([None]) is None
    assert m.first_hit_rank([]) is None
    assert m.recall_at([11], 10) == 0.0


def test_multi_evidence_question_is_hit_when_all_items_are_answered() -> None:
    ranks = [1, 4]
    assert m.first_hit_rank(ranks) == 4
    assert (m.hit_at(ranks, 1), m.hit_at(ranks, 5)) == (0.0, 1.0)
    assert m.reciprocal_rank(ranks) == 0.25
    assert (m.recall_at(ranks, 1), m.recall_at(ranks, 3), m.recall_at(ranks, 4)) == (0.5, 0.5, 1.0)
    expected = (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert m.ndcg_at(ranks) == pytest.approx(expected)  # 0.8772


def test_ndcg_with_one_chunk_answering_two_items_and_with_a_missing_item() -> None:
    assert m.ndcg_at([2, 2]) == pytest.approx((2 / math.log2(3)) / 2)  # ideal puts the double gain at rank 1
    assert m.ndcg_at([1, 1]) == 1.0
    assert m.ndcg_at([2, None]) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert m.hit_at([2, None], 10) == 0.0 and m.recall_at([2, None], 10) == 0.5


def test_percentile_interpolates_and_mean() -> None:
    values = [40.0, 10.0, 30.0, 20.0]
    assert m.percentile(values, 50) == 25.0
    assert m.percentile(values, 95) == pytest.approx(38.5)
    assert m.percentile([7.0], 95) == 7.0
    assert m.percentile([], 50) is None
    assert m.mean([1.0, 0.0, 0.5]) == 0.5 and m.mean([]) is None
