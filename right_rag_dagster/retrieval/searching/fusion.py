"""Reciprocal rank fusion (score = sum over rankings of weight / (k + rank), ranks counted from 1), and the
placing of a fusion's order within the documents of one ranking."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .chunk_table import Candidate
from .within_document import take_places

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


def within_documents(lexical: Sequence[Candidate], fused: Sequence[Candidate],
                     document_of: Callable[[str], str], margin: float | None = None) -> list[Candidate]:
    """``lexical``'s places and scores, each taken by a chunk of the same document in ``fused``'s order.

    Which documents the top places belong to, and the scores later reorderings add to, stay the lexical
    ranking's; only the order of one document's chunks among its places is the fusion's. A chunk only
    ``fused`` holds is left out. Details are the fusion's (each ranking's rank and score). With ``margin``, a
    document's first lexical chunk keeps its first place when its lexical score is at least ``margin`` times that
    of the chunk the fusion would put there: rank fusion keeps no margins, so a clear lexical lead stands.
    """
    position = {c.chunk_id: i for i, c in enumerate(fused)}
    details = {c.chunk_id: c.details for c in fused}
    taken = take_places(lexical, lambda c: document_of(c.chunk_id),
                        lambda group: _keep_clear_leader(group, position, margin))
    return [Candidate(chunk.chunk_id, place.score, details.get(chunk.chunk_id, chunk.details)) for chunk, place in taken]


def _keep_clear_leader(group: Sequence[Candidate], position: Mapping[str, int], margin: float | None) -> list[Candidate]:
    """One document's lexical candidates in the fusion's order; with ``margin``, the lexical first stays first
    when its score is at least ``margin`` times the lexical score of the candidate the fusion puts first."""
    ordered = sorted(group, key=lambda c: position.get(c.chunk_id, len(position)))
    leader, rival = group[0], ordered[0]
    if margin is None or rival is leader or rival.score <= 0 or leader.score < margin * rival.score:
        return ordered
    return [leader, *(c for c in ordered if c is not leader)]
