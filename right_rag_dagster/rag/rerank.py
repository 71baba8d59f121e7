"""Rerankers reorder retrieved hits before generation. ``none`` keeps the retriever's order;
``coverage`` puts hits containing more of the question's content terms first (retrieval order breaks ties);
``sentences`` reorders each document's passages among the first ``SENTENCE_DEPTH`` places by their score plus
``SENTENCE_WEIGHT`` x how much of the question their best sentence covers (as the extractive answer weighs it);
``semantic`` reorders the first ten by a model fit on the tuning sets that reads their meaning with the embedding
model beside their rank and words (``rag/semantic.py``).

A passage that holds the question's words in one sentence answers more often than one that scatters them over a
page: BM25 cannot see that, the extractive answer's sentence scoring does. Only the order of one document's
passages changes (which documents hold which places stays the retriever's, ``within_document.take_places``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError
from ..retrieval.embedders import Embedder
from ..retrieval.hits import Hit
from ..retrieval.searching.within_document import take_places
from ..store import Store
from .evidence import content_terms, coverage, passage_terms
from .extractive import answer_cue, name_terms, question_weights, score_passages
from .semantic import DEPTH as SEMANTIC_DEPTH
from .semantic import rerank_semantic, semantic_embedder

RERANKERS = ("none", "coverage", "sentences", "semantic")
SENTENCE_DEPTH = 5
"""Places the ``sentences`` reranker reorders (the passages a generator reads)."""
SENTENCE_WEIGHT = 0.3
"""What a passage's best sentence covering the whole question adds to its score, over the first hit's score."""


def rerank_depth(method: str) -> int:
    """Hits a reranker reads: ``semantic`` reorders its first ``DEPTH`` whatever ``k`` is (the flow keeps ``k`` of
    them after it; its weights were fit and measured on ten), the others only the ``k`` they are given."""
    return SEMANTIC_DEPTH if method == "semantic" else 0


def rerank(question: str, hits: Sequence[Hit], method: str = "none", store: Store | None = None,
           embedder: Embedder | None = None) -> tuple[list[Hit], list[float]]:
    """Hits in their new order (ranks renumbered from 1) and the rerank score of each. ``store`` gives the
    ``sentences`` and ``semantic`` rerankers their term weights (BM25's IDF; every term weighs 1 without it);
    ``semantic`` reads meaning with the model its weights were fit with (``embedder`` when it is that model)."""
    if method not in RERANKERS:
        raise ConfigError(f"unknown reranker {method!r}; available: {', '.join(RERANKERS)}")
    if method == "none" or not hits:
        return list(hits), [h.score for h in hits]
    if method == "sentences":
        return _by_sentences(question, list(hits), store)
    if method == "semantic":
        return rerank_semantic(question, list(hits), store, semantic_embedder(embedder))
    terms = content_terms(question)
    shares = [coverage(terms, passage_terms(hit.text + " " + " ".join(hit.section_path))) for hit in hits]
    order = sorted(range(len(hits)), key=lambda i: (-shares[i], i))
    ranked = [hits[i].reranked(rank, coverage=round(shares[i], 3)) for rank, i in enumerate(order, start=1)]
    return ranked, [shares[i] for i in order]


def _by_sentences(question: str, hits: list[Hit], store: Store | None) -> tuple[list[Hit], list[float]]:
    head = hits[:SENTENCE_DEPTH]
    # a document's names say which document, not which sentence, answers: as the extractive answer weighs them
    named = name_terms(store) if store is not None else {}
    scored = score_passages(question_weights(question, store, head[0].chunker),
                            [(h.text, " ".join(h.section_path)) for h in head], cue=answer_cue(question),
                            known=[named.get(h.document_id, set()) for h in head])
    best = {id(h): max((s.share for s in sentences_), default=0.0) for h, sentences_ in zip(head, scored)}
    top = abs(head[0].score) or 1.0
    placed = take_places(head, lambda h: h.document_id,
                         lambda group: sorted(group, key=lambda h: -(h.score / top + SENTENCE_WEIGHT * best[id(h)])))
    order = [h for h, _ in placed] + hits[SENTENCE_DEPTH:]
    ranked = [h.reranked(rank, **({"best_sentence": round(best[id(h)], 3)} if id(h) in best else {}))
              for rank, h in enumerate(order, start=1)]
    return ranked, [h.score for h in ranked]
