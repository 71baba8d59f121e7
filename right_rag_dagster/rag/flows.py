"""RAG flows. Each declares its FLOW graph and records every step in a ``Trace`` checked against it.

``simple``: retrieve -> rerank -> generate.
``adaptive``: route (pick the retriever from the question's shape) -> retrieve -> check evidence ->
generate, or rewrite the question and retrieve again (at most ``max_rewrites`` times). Its route, check and
rewrite steps are fixed rules (node kind ``rule``), not model calls; the generate step records which attempt's
hits it answers from (query, retriever, attempt), which ``rag.query`` reports.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..core.registry import Registry
from ..errors import ConfigError
from ..retrieval.embedders import Embedder, embedder_for_identity
from ..retrieval.errors import IndexMissingError
from ..retrieval.hits import Hit
from ..retrieval.searching.searcher import search
from ..retrieval.searching.snapshot import open_index
from ..retrieval.settings import DEFAULT_IDENTITY
from ..store import Store
from .evidence import STOPWORDS, content_terms, coverage, passage_terms
from .generators import Generator
from .model import Generated
from .rerank import rerank, rerank_depth
from .trace import FlowGraph, Trace


@dataclass(frozen=True)
class FlowContext:
    """What a flow works with: where to search, how, and which generator answers."""

    store: Store
    chunker: str
    retriever: str
    k: int
    generator: Generator
    filters: dict[str, Any] | None = None
    embedder: Embedder | None = None
    registry: Registry | None = None
    expand: bool = False
    reranker: str = "none"
    retriever_chosen: bool = False  # the caller named the retriever: routing keeps it
    options: dict[str, Any] = field(default_factory=dict)
    identity: str = DEFAULT_IDENTITY
    neighbours: bool = True

    def search(self, query: str, retriever: str | None = None, k: int | None = None) -> list[Hit]:
        return search(self.store, query, chunker=self.chunker, retriever=retriever or self.retriever,
                      k=k or self.k, filters=self.filters, embedder=self.embedder, expand=self.expand,
                      registry=self.registry, options=self.options, identity=self.identity,
                      neighbours=self.neighbours)

    def dense_available(self) -> bool:
        try:
            vectors = open_index(self.store, self.chunker).vectors()
        except IndexMissingError:
            return False
        return (self.embedder or embedder_for_identity(vectors.identity)) is not None


def hit_summary(hits: list[Hit]) -> list[dict[str, Any]]:
    """Each hit's place and score, with how the score was made (hybrid: each ranking's rank and score)."""
    return [{"rank": h.rank, "chunk_id": h.chunk_id, "document": h.document_id, "pages": h.pages,
             "section_path": list(h.section_path), "score": round(h.score, 6),
             **({"details": h.details} if h.details else {}),
             **({"joined": [list(part) for part in h.joined]} if h.joined else {})} for h in hits]


def generated_summary(result: Generated) -> dict[str, Any]:
    return {"answer": result.text, "found": result.found, "cited": [c.number for c in result.citations],
            **result.details}


class Flow(ABC):
    """A RAG flow: ``FLOW`` (nodes with id/label/kind, edges) and ``run`` recording each step in the trace."""

    name: ClassVar[str]
    FLOW: ClassVar[dict[str, Any]]

    def graph(self) -> FlowGraph:
        return FlowGraph.from_dict(self.name, self.FLOW)

    @property
    def reranks(self) -> bool:
        """Whether the flow has a rerank step (a flow without one reranks nothing, and its answers say ``none``)."""
        return "rerank" in self.graph().node_ids

    @abstractmethod
    def run(self, question: str, context: FlowContext, trace: Trace) -> tuple[list[Hit], Generated]:
        """The hits handed to the generator and what it answered."""

    def _generate(self, question: str, hits: list[Hit], context: FlowContext, trace: Trace,
                  **answered_from: Any) -> Generated:
        with trace.step("generate", question=question, generator=context.generator.generator_name,
                        hits=[h.chunk_id for h in hits], **answered_from) as step:
            result = context.generator.generate(question, hits)
            step.output(**generated_summary(result))
        return result


class SimpleFlow(Flow):
    """Retrieve, rerank, generate."""

    name = "simple"
    FLOW = {
        "nodes": [{"id": "retrieve", "label": "Retrieve", "kind": "search"},
                  {"id": "rerank", "label": "Rerank", "kind": "search"},
                  {"id": "generate", "label": "Generate answer", "kind": "output"}],
        "edges": [["retrieve", "rerank"], ["rerank", "generate"]],
    }

    def run(self, question: str, context: FlowContext, trace: Trace) -> tuple[list[Hit], Generated]:
        depth = max(context.k, rerank_depth(context.reranker))
        with trace.step("retrieve", query=question, retriever=context.retriever, chunker=context.chunker,
                        k=depth, filters=context.filters) as step:
            hits = context.search(question, k=depth)
            step.output(hits=hit_summary(hits), scores=[h.score for h in hits])
        with trace.step("rerank", method=context.reranker, hits=len(hits)) as step:
            hits, scores = rerank(question, hits, context.reranker, context.store, context.embedder)
            hits, scores = hits[:context.k], scores[:context.k]
            step.output(order=[h.chunk_id for h in hits], scores=scores)
        return hits, self._generate(question, hits, context, trace)


_EXACT = re.compile(r"`[^`]+`|\"[^\"]+\"|\S*[\w][_./:\-]\w\S*")
"""Exact terms: quoted or back-quoted text, identifiers, paths, section and version numbers."""
_BARE = 2
"""A question with at most this many content words beside its exact terms is a lookup of those terms."""


@dataclass(frozen=True)
class Attempt:
    """One retrieval of the adaptive flow: its hits, their evidence coverage, and how they were retrieved."""

    hits: list[Hit]
    coverage: float
    number: int
    query: str
    retriever: str


class AdaptiveFlow(Flow):
    """Route, retrieve, check the evidence; rewrite the question and retry while the evidence is weak."""

    name = "adaptive"
    FLOW = {
        "nodes": [{"id": "route", "label": "Route question", "kind": "rule"},
                  {"id": "retrieve", "label": "Retrieve", "kind": "search"},
                  {"id": "check_evidence", "label": "Check evidence", "kind": "rule"},
                  {"id": "rewrite", "label": "Rewrite question", "kind": "rule"},
                  {"id": "generate", "label": "Generate answer", "kind": "output"}],
        "edges": [["route", "retrieve"], ["retrieve", "check_evidence"], ["check_evidence", "generate"],
                  ["check_evidence", "rewrite"], ["rewrite", "retrieve"]],
    }
    min_coverage = 0.5
    max_rewrites = 2

    def run(self, question: str, context: FlowContext, trace: Trace) -> tuple[list[Hit], Generated]:
        with trace.step("route", question=question, retriever=context.retriever) as step:
            retriever, reason = self._route(question, context)
            step.output(retriever=retriever, reason=reason)
        terms = content_terms(question)
        query, best = question, Attempt([], -1.0, 0, question, retriever)
        for attempt in range(self.max_rewrites + 1):
            with trace.step("retrieve", query=query, retriever=retriever, attempt=attempt) as step:
                hits = context.search(query, retriever=retriever)
                step.output(hits=hit_summary(hits), scores=[h.score for h in hits])
            with trace.step("check_evidence", terms=terms, threshold=self.min_coverage) as step:
                shares = [coverage(terms, passage_terms(h.text + " " + " ".join(h.section_path))) for h in hits[:3]]
                score = max(shares, default=0.0)
                enough = score >= self.min_coverage or attempt == self.max_rewrites
                step.output(coverage=round(score, 3), enough=enough, scores=shares)
            if score > best.coverage:
                best = Attempt(hits, score, attempt, query, retriever)
            if enough:
                break
            with trace.step("rewrite", query=query, attempt=attempt + 1) as step:
                query, retriever = self._rewrite(question, attempt, retriever, context)
                step.output(query=query, retriever=retriever)
        return best.hits, self._generate(question, best.hits, context, trace, attempt=best.number,
                                         query=best.query, retriever=best.retriever)

    def _route(self, question: str, context: FlowContext) -> tuple[str, str]:
        if context.retriever_chosen:
            return context.retriever, "chosen by the caller"
        if not context.dense_available():
            return "bm25", "no dense index: BM25"
        exact = _EXACT.findall(question)
        if exact and len(content_terms(_EXACT.sub(" ", question))) <= _BARE:
            return "bm25", "a lookup of exact terms (identifiers, paths, numbers): BM25 alone"
        if exact:
            return "hybrid", "a question with exact terms: hybrid (its BM25 side matches them exactly)"
        return "hybrid", "a natural-language question and a dense index: fuse BM25 and dense"

    def _rewrite(self, question: str, attempt: int, retriever: str, context: FlowContext) -> tuple[str, str]:
        """First retry: keywords only. Second: keywords with the other ranking (hybrid <-> bm25) when possible."""
        keywords = " ".join(w for w in re.findall(r"[\w./-]+", question) if w.casefold() not in STOPWORDS)
        if attempt == 0 or context.retriever_chosen:
            return keywords or question, retriever
        other = "bm25" if retriever != "bm25" else ("hybrid" if context.dense_available() else "bm25")
        return keywords or question, other


FLOWS: dict[str, type[Flow]] = {"simple": SimpleFlow, "adaptive": AdaptiveFlow}


def get_flow(name: str | Flow) -> Flow:
    if isinstance(name, Flow):
        return name
    try:
        return FLOWS[name]()
    except KeyError:
        raise ConfigError(f"no flow named {name!r}; available: {', '.join(FLOWS)}") from None
