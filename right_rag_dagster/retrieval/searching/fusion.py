"""Reciprocal rank fusion: score = sum over rankings of weight / (k + rank), ranks counted from 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .chunk_table import Candidate

RRF_K = 60


def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[Candidate]], weights: Mapping[str, float] | None = None,
                           rrf_k: int = RRF_K) -> list[Candidate]:
    """Fuse rankings (name -> candidates, best first); details keep each ranking's rank and score.

    Ties keep the order in which chunks were first seen (first ranking first), so results are deterministic.
    """
    scores: dict[str, float] = {}
    details: dict[str, dict[str, dict[str, float]]] = {}
    for name, ranking in rankings.items():
        weight = float((weights or {}).get(name, 1.0))
        for rank, candidate in enumerate(ranking, start=1):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + weight / (rrf_k + rank)
            details.setdefault(candidate.chunk_id, {})[name] = {"rank": rank, "score": candidate.score}
    order = sorted(scores, key=lambda chunk_id: -scores[chunk_id])
    return [Candidate(chunk_id, scores[chunk_id], details[chunk_id]) for chunk_id in order]
