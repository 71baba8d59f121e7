"""Rerankers reorder retrieved hits before generation. ``none`` keeps the retriever's order;
``coverage`` puts hits containing more of the question's content terms first (retrieval order breaks ties).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..errors import ConfigError
from ..retrieval.hits import Hit
from .evidence import content_terms, coverage, passage_terms

RERANKERS = ("none", "coverage")


def rerank(question: str, hits: Sequence[Hit], method: str = "none") -> tuple[list[Hit], list[float]]:
    """Hits in their new order (ranks renumbered from 1) and the rerank score of each."""
    if method not in RERANKERS:
        raise ConfigError(f"unknown reranker {method!r}; available: {', '.join(RERANKERS)}")
    if method == "none" or not hits:
        return list(hits), [h.score for h in hits]
    terms = content_terms(question)
    shares = [coverage(terms, passage_terms(hit.text + " " + " ".join(hit.section_path))) for hit in hits]
    order = sorted(range(len(hits)), key=lambda i: (-shares[i], i))
    ranked = [replace(hits[i], rank=rank, details={**hits[i].details, "retrieval_rank": hits[i].rank,
                                                   "coverage": round(shares[i], 3)})
              for rank, i in enumerate(order, start=1)]
    return ranked, [shares[i] for i in order]
