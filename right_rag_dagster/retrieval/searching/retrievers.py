"""Retrievers are plugins: ``bm25``, ``dense`` and ``hybrid`` are built in; users add ``spec/retrievers/*.py``.

A retriever gets a ``RetrievalRequest`` (the question, how many results, the loaded index and the filter
mask) and returns ``Candidate`` chunk ids, best first. It can combine the built-in rankings through
``request.bm25()`` and ``request.dense()``; the search turns candidates into ``Hit`` rows of ``chunks``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ...core.registry import Registry
from ...errors import ConfigError
from ..embedders import Embedder, embedder_for_identity
from ..settings import DEFAULT_FUSION, DOCUMENT_PRIOR, FUSIONS
from .chunk_table import Candidate
from .fusion import reciprocal_rank_fusion, within_documents
from .snapshot import SearchIndex
from .within_document import DEPTH as WITHIN_DEPTH
from .within_document import order_within_documents, shared_documents


@dataclass(frozen=True)
class RetrievalRequest:
    """Everything a retriever may use. ``allowed`` is the filter mask over ``index.chunks`` (None: all rows).
    When the question names a document, ``lexical_query`` is the question without that name
    (``identity.identify``) and ``named_rows`` the mask of the named documents' chunks (and of the versions a
    name without a version fits, ``Identified.versions``): ``bm25()`` scores
    those by the whole question and every other chunk by ``lexical_query``, so a passage that merely quotes
    the name earns nothing for it (when the question only names a document, ``named_rows`` alone: BM25 does not
    weigh those documents by their whole text, ``settings.DOCUMENT_PRIOR``). ``expansion``: words BM25 scores too (the expansions of the acronyms the
    question writes, ``acronyms.expansion``). ``dense()`` embeds the whole question."""

    query: str
    k: int
    index: SearchIndex
    allowed: np.ndarray | None = None
    embedder: Embedder | None = None
    options: dict[str, Any] = field(default_factory=dict)
    lexical_query: str | None = None
    named_rows: np.ndarray | None = None
    expansion: str = ""

    @property
    def depth(self) -> int:
        """How many candidates a component ranking should return before fusion or expansion."""
        return int(self.options.get("depth") or max(self.k * 5, 50))

    def bm25(self, depth: int | None = None, query: str | None = None) -> list[Candidate]:
        """The BM25 ranking of ``query`` (default: the request's question, its name scored only in the named
        documents), ``depth`` candidates (default ``k``), each document's ordered by its own IDF among its places
        (``within_document``; option ``within_document = false`` turns it off), each weighed by its document's
        BM25 over whole documents (option ``document_prior``, ``settings.DOCUMENT_PRIOR``; 0 turns it off)."""
        postings, chunks = self.index.postings(), self.index.chunks
        wanted = depth or self.k
        fetch = max(wanted, WITHIN_DEPTH) if self.options.get("within_document", True) else wanted
        text = query or _plus(self.query, self.expansion)
        other = None
        if query is None and self.lexical_query is not None and self.named_rows is not None:
            other = _plus(self.lexical_query, self.expansion)
        found = postings.search(text, fetch, self.allowed, chunks,
                                elsewhere=(other, self.named_rows) if other is not None else None,
                                document_prior=float(self.options.get("document_prior", DOCUMENT_PRIOR)),
                                named=self.named_rows)
        if not self.options.get("within_document", True):
            return found
        terms = {words: postings.term_ids(words).values() for words in (text, other) if words is not None}
        document_of = {c.chunk_id: chunks.rows[chunks.row_of[c.chunk_id]][1] for c in found}
        several = shared_documents(document_of[c.chunk_id] for c in found)
        scored: dict[tuple[str, str], tuple[int, np.ndarray]] = {}  # (document, query) -> first row, scores
        local = []
        for candidate in found:
            document = document_of[candidate.chunk_id]
            if document not in several:
                local.append(0.0)
                continue
            row = chunks.row_of[candidate.chunk_id]
            words = text if other is None or self.named_rows[row] else other
            if (document, words) not in scored:
                start, end = chunks.document_rows(document)
                scored[document, words] = start, postings.document_scores(terms[words], start, end)
            start, scores = scored[document, words]
            local.append(float(scores[row - start]))
        return order_within_documents(found, local, lambda c: document_of[c.chunk_id], lambda c: c.score,
                                      _placed)[:wanted]

    def dense(self, depth: int | None = None, query: str | None = None) -> list[Candidate]:
        """The dense ranking; the embedder must be the model the vectors were made with."""
        vectors = self.index.vectors()
        embedder = vectors.check(self.embedder or embedder_for_identity(vectors.identity), self.index.chunker)
        vector = embedder.embed_query(query or self.query)
        return vectors.search(vector, depth or self.k, self.allowed, self.index.chunks, self.index.store)


def _plus(query: str, words: str) -> str:
    return f"{query} {words}" if words else query


def _placed(candidate: Candidate, score: float, local: float) -> Candidate:
    return Candidate(candidate.chunk_id, score, {**candidate.details, "document_bm25": round(local, 4)})


class Retriever(ABC):
    """A ranking of chunks for a question. A no-argument class with ``retriever_name`` and ``retrieve``."""

    selected_by_default: ClassVar[bool] = True

    @property
    @abstractmethod
    def retriever_name(self) -> str: ...

    @abstractmethod
    def retrieve(self, request: RetrievalRequest) -> list[Candidate]:
        """Candidates for ``request.query``, best first (at most ``request.k`` are kept)."""


class Bm25Retriever(Retriever):
    """BM25 over the pre-tokenized chunk text (DuckDB fts index)."""

    @property
    def retriever_name(self) -> str:
        return "bm25"

    def retrieve(self, request: RetrievalRequest) -> list[Candidate]:
        return request.bm25(request.k)


class DenseRetriever(Retriever):
    """Cosine similarity of the question's embedding to the chunks' embeddings."""

    @property
    def retriever_name(self) -> str:
        return "dense"

    def retrieve(self, request: RetrievalRequest) -> list[Candidate]:
        return request.dense(request.k)


DENSE_WEIGHT = 0.3
"""The dense ranking's default weight in hybrid fusion (BM25's is 1): the shipped MiniLM ranks a licence's or a
policy's passages less well than BM25 does (dev and two tuning sets: dense hit@1 0.80 / 0.59 / 0.63 against
BM25's 0.92 / 0.78 / 0.85), so with equal weights it pulled BM25's first passage down more often than it lifted
a better one. At 0.3 it orders what BM25 ranks close together (docs/evaluation.md, "Unseen documents"); on the 39
tuning sets (1,222 questions) it still leads 0.2 and 0.5 at rank 1 (888 against 875 and 882; thirty-seventh round).
"""


MARGIN: float | None = None
"""Option ``margin``: within a document, BM25's first passage keeps the document's first place when its BM25 score
is at least this many times that of the passage the fusion would put there (rank fusion keeps no margins, so
MiniLM's favourite passage overtakes a BM25 leader of any lead). Off by default: 1.25 lifted hybrid at rank 1 on
heldout4-6 (+6 questions) and left dev, heldout and heldout2 unchanged, but lowered heldout3 by one question
(docs/evaluation.md, "Unseen documents: a seventh held-out set")."""


class HybridRetriever(Retriever):
    """Reciprocal rank fusion of BM25 and dense (k = 60, ranks from 1; ``weights`` option per ranking, by default
    1 for BM25 and ``DENSE_WEIGHT`` for dense); with the option ``fusion = "documents"``, placed within BM25's
    documents (``settings.FUSIONS``).

    Rank fusion keeps no margin: BM25's first passage, far ahead of any other document's, and a dense rank 1 of a
    passage BM25 puts 50th end up a few thousandths apart. On the development documents dense was the weaker
    ranking of documents (it misses the names and the rare words that tell them apart), which made ``documents``
    the default; on an unseen set (heldout17) MiniLM alone ranked documents better than BM25, and letting the
    fusion decide them put more evidence in the top 5 on both (``settings.DEFAULT_FUSION``).

    With the option ``dense = False`` (a project that configures no embedder) it fuses BM25 alone, so no
    embedding model is ever loaded for it.
    """

    @property
    def retriever_name(self) -> str:
        return "hybrid"

    def retrieve(self, request: RetrievalRequest) -> list[Candidate]:
        weights = {"bm25": 1.0, "dense": DENSE_WEIGHT, **request.options.get("weights", {})}
        fusion = request.options.get("fusion", DEFAULT_FUSION)
        if fusion not in FUSIONS:
            raise ConfigError(f"unknown hybrid fusion {fusion!r}; use one of {', '.join(FUSIONS)}")
        rankings = {"bm25": request.bm25(request.depth)}
        if request.options.get("dense", True):
            rankings["dense"] = request.dense(request.depth)
        fused = reciprocal_rank_fusion(rankings, weights, rrf_k=int(request.options.get("rrf_k", 60)))
        if fusion == "rrf" or "dense" not in rankings:
            return fused
        chunks = request.index.chunks
        return within_documents(rankings["bm25"], fused, lambda chunk_id: chunks.rows[chunks.row_of[chunk_id]][1],
                                margin=request.options.get("margin", MARGIN))


BUILTIN_RETRIEVERS: dict[str, type[Retriever]] = {
    "bm25": Bm25Retriever, "dense": DenseRetriever, "hybrid": HybridRetriever,
}


def resolve_retriever(name: str | Retriever, registry: Registry | None = None) -> Retriever:
    """A retriever by name: a spec/retrievers plugin of that name first, then the built-ins."""
    if isinstance(name, Retriever):
        return name
    if registry is not None and name in registry.plugins.get("retrievers", {}):
        return registry.create("retrievers", name)
    if name in BUILTIN_RETRIEVERS:
        return BUILTIN_RETRIEVERS[name]()
    available = sorted({*BUILTIN_RETRIEVERS, *(registry.names("retrievers") if registry else [])})
    raise ConfigError(f"no retriever named {name!r}; available: {', '.join(available)}")
