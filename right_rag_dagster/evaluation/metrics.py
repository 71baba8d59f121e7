"""Ranking metrics over "answered ranks": for each evidence item of a question, the rank (from 1) at which the
retrieved chunks ranked at or above it first answer it, or None when the ranking never does.

A question is hit at rank r when every one of its evidence items is answered at rank r or better, so its
``first_hit_rank`` is the largest answered rank. All functions are pure; ``aggregate`` averages them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

AnsweredRanks = Sequence[int | None]


def first_hit_rank(answered: AnsweredRanks) -> int | None:
    """The rank at which every evidence item is answered (None if one never is, or there are none)."""
    if not answered or any(rank is None for rank in answered):
        return None
    return max(rank for rank in answered if rank is not None)


def hit_at(answered: AnsweredRanks, k: int) -> float:
    """1.0 when all evidence is answered within the top ``k`` chunks, else 0.0."""
    rank = first_hit_rank(answered)
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(answered: AnsweredRanks, cutoff: int = 10) -> float:
    """1 / first hit rank, or 0 when it is worse than ``cutoff`` (MRR@cutoff averages this)."""
    rank = first_hit_rank(answered)
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def recall_at(answered: AnsweredRanks, k: int) -> float:
    """Share of the evidence items answered within the top ``k`` chunks."""
    if not answered:
        return 0.0
    return sum(1 for rank in answered if rank is not None and rank <= k) / len(answered)


def ndcg_at(answered: AnsweredRanks, k: int = 10) -> float:
    """nDCG@k where the gain of rank i is the number of evidence items first answered at rank i.

    The ideal ranking answers one item per rank from the top (or several at once where this ranking did), so
    duplicates and overlapping chunks earn nothing and the value stays within [0, 1].
    """
    if not answered:
        return 0.0
    gains: dict[int, int] = {}
    for rank in answered:
        if rank is not None and rank <= k:
            gains[rank] = gains.get(rank, 0) + 1
    dcg = sum(gain / math.log2(rank + 1) for rank, gain in gains.items())
    missed = len(answered) - sum(gains.values())
    ideal_gains = sorted(gains.values(), reverse=True) + [1] * missed
    idcg = sum(gain / math.log2(position + 2) for position, gain in enumerate(ideal_gains[:k]))
    return dcg / idcg if idcg else 0.0


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (0-100) with linear interpolation between ranks; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
