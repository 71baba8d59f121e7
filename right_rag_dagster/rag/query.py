"""``query``: answer a question from a project (or a bare store) with one RAG flow, with citations and a trace."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.registry import Registry
from ..errors import ConfigError
from ..retrieval.embedders import Embedder, make_embedder
from ..retrieval.settings import RetrievalSettings, default_chunker
from ..store import Store
from .flows import FlowContext, get_flow
from .generators import ExtractiveGenerator, Generator, make_generator
from .model import Answer
from .semantic import semantic_embedder
from .trace import Trace


def query(project_or_store: Any, question: str, *, k: int | None = None, retriever: str | None = None,
          chunker: str | None = None, flow: str | None = None, filters: dict[str, Any] | None = None,
          generator: Generator | str | Any = None, trace: bool = False, embedder: Embedder | str | Any = None,
          expand: bool | None = None, reranker: str | None = None, identity: str | None = None,
          neighbours: bool | None = None) -> Answer:
    """Answer ``question``: retrieve from the store, generate with citations [n], record the flow's trace.

    ``project_or_store`` is a ``Project`` (its ``[right-rag.retrieval]`` settings give the defaults and its
    ``spec/retrievers`` the plugins), a ``Store``, or a path to a store file. ``trace=True`` puts every
    step (inputs, outputs, scores, timings) and the flow's graph into ``Answer.trace``. ``identity`` says how
    a document named in the question ranks (``retrieval.searching.identity``; default: settings, else ``boost``);
    ``neighbours`` whether neighbouring chunks that rank high join (``retrieval.searching.neighbours``; default:
    settings, else on).
    """
    if k is not None and k < 1:
        raise ConfigError(f"k must be at least 1, not {k}")
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("the question is empty: ask it in words, e.g. right-rag query \"What is a covered work?\"")
    store, settings, registry = _resolve(project_or_store)
    chosen_retriever = retriever or settings.retriever
    context = FlowContext(
        store=store,
        chunker=chunker or settings.chunker or default_chunker(store),
        retriever=chosen_retriever,
        k=settings.k if k is None else k,
        generator=make_generator(generator if generator is not None else settings.generator,
                                 url=settings.generator_url, store=store, min_coverage=settings.answer_min_coverage),
        filters=filters or None,
        embedder=make_embedder(embedder if embedder is not None else settings.embedder, url=settings.embedder_url),
        registry=registry,
        expand=settings.expand if expand is None else expand,
        reranker=reranker or settings.reranker,
        identity=identity or settings.identity,
        neighbours=settings.neighbours if neighbours is None else neighbours,
        retriever_chosen=retriever is not None,
        options=_options(settings, dense=embedder is not None or settings.embedder is not None
                         or not _is_project(project_or_store)),
    )
    if retriever is None and settings.retriever_defaulted and context.retriever != "bm25" \
            and not context.dense_available():
        # the default follows the embedder setting; until `right-rag index` has built its vectors, BM25 answers
        context = replace(context, retriever="bm25")
    runner = get_flow(flow or settings.flow)
    # a flow without a rerank step reranks nothing (the answer says so); the default reranker reads meaning with the
    # model the retriever loads, so a query ranked without it loads none
    chosen = settings.reranker_for(context.retriever, context.embedder, reranker)
    context = replace(context, reranker=chosen if runner.reranks else "none")
    if context.reranker == "semantic" and isinstance(context.generator, ExtractiveGenerator):
        # the model that reordered the hits has read their sentences too: the answer quotes by meaning as well
        context = replace(context, generator=context.generator.reading_meaning(semantic_embedder(context.embedder)))
    recorder = Trace(runner.graph())
    hits, generated = runner.run(question, context, recorder)
    return Answer(
        question=question, text=generated.text, found=generated.found, hits=tuple(hits),
        citations=generated.citations, flow=runner.name,
        settings={"chunker": context.chunker, "k": context.k, **answered_from(recorder, hits, context.retriever),
                  "generator": context.generator.generator_name, "reranker": context.reranker,
                  "neighbours": context.neighbours,
                  "embedder": context.embedder.identity if context.embedder else None},
        trace=recorder.to_json() if trace else None,
    )


def answered_from(trace: Trace, hits: Any, requested: str) -> dict[str, Any]:
    """What really produced the answer: the retriever of the hits it was given (the last retrieval of a simple
    flow, the best attempt of an adaptive one), the retriever asked for, and the attempt when a flow retried."""
    generate = next((step for step in reversed(trace.steps) if step.step == "generate"), None)
    inputs = generate.inputs if generate is not None else {}
    used = inputs.get("retriever") or next((hit.retriever for hit in hits if hit.retriever), requested)
    found = {"retriever": used, "retriever_requested": requested}
    if "attempt" in inputs:
        found.update(attempt=inputs["attempt"] + 1, query=inputs.get("query"))
    return found


def _options(settings: RetrievalSettings, dense: bool) -> dict[str, Any]:
    """Retriever options: hybrid's weights and fusion, and ``dense = False`` when a project configures no embedder, so
    hybrid fuses BM25 alone and never loads a model (a bare store keeps the stored vectors' model)."""
    options = settings.retriever_options()
    if not dense:
        options["dense"] = False
    return options


def _is_project(target: Any) -> bool:
    return not isinstance(target, (Store, str, bytes)) and not hasattr(target, "__fspath__")


def _resolve(target: Any) -> tuple[Store, RetrievalSettings, Registry | None]:
    if isinstance(target, Store):
        return target, RetrievalSettings(), None
    if not _is_project(target):
        return Store(target), RetrievalSettings(), None
    settings = RetrievalSettings.from_dict(getattr(target, "retrieval", {}))
    return Store.for_project(target), settings, retriever_registry(target)


def retriever_registry(project: Any) -> Registry | None:
    """The project's registry when it has ``spec/retrievers`` plugins (discovery costs start-up time)."""
    folder = project.spec_dir / "retrievers"
    if not folder.is_dir() or not any(folder.rglob("*.py")):
        return None
    return project.registry
