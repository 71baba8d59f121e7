"""``run_evaluation``: questions x chunkers x retrievers over the evaluation store, into an ``EvaluationReport``.

A plain function (no Dagster): ``right-rag evaluate`` and the Dagster ``evaluation`` asset both call it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from ..errors import ConfigError
from ..project import Project
from ..retrieval.settings import VARIANTS, check_variant
from ..store.lock import IndexLock
from . import searching
from .baselines import PREFIX, BaselineChunker, baselines_by_name
from .compaction import reclaim_space
from .judge import ResolvedQuestion, resolve_question
from .questions import load_questions
from .report import EvaluationReport, QuestionOutcome, RunResult
from .spans import CollapsedText
from .workspace import evaluation_store_path, prepare_workspace

MIN_DEPTH = 10  # MRR@10 and nDCG@10 need ten ranks whatever k is


def run_evaluation(project: Project, questions_path: str | Path | None = None, *,
                   chunkers: Sequence[str] | None = None, retrievers: Sequence[str] | None = None, k: int = 10,
                   flow: str | None = None, compare: bool = False,
                   identities: Sequence[str] | None = None) -> EvaluationReport:
    """Score retrieval (and answers, with ``flow``) on a question file; ``compare`` adds every baseline chunker
    and every available retriever, and every document-identity variant for the project's own chunkers (or the
    ``identities`` given). Runs are sorted best first (MRR@10, then hit@1, hit@5, nDCG@10)."""
    if k < 1:
        raise ConfigError(f"k must be at least 1, not {k}")
    path = Path(questions_path) if questions_path else project.questions_file
    questions = load_questions(path)
    own, baselines = choose_chunkers(project, chunkers, compare)
    retriever_names = choose_retrievers(project, retrievers, compare)
    variants = choose_identities(project, identities, compare)
    # One evaluation at a time per store (the Dagster asset and the CLI may overlap): each brings the store
    # up to date, builds its indexes in it and searches it.
    with IndexLock(evaluation_store_path(project)):
        workspace = prepare_workspace(project, own, baselines, units=searching.settings_of(project).expand)
        used = sorted({e.document for q in questions for e in q.evidence})
        texts = {doc_id: CollapsedText.of(doc.text) for doc_id, doc in workspace.read_documents(used).items()}
        resolved = [resolve_question(question, texts) for question in questions]
        depth = max(k, MIN_DEPTH)
        embedder = searching.shared_embedder(project, retriever_names)
        index_seconds = {chunker: searching.build_index(workspace, chunker, embedder) for chunker in workspace.chunkers}
        space = reclaim_space(workspace.store)  # after the index updates, which also leave dead rows behind
        runs = []
        for chunker in workspace.chunkers:
            for retriever in retriever_names:
                for identity in (variants if not chunker.startswith(PREFIX) else variants[:1]):
                    searcher = searching.Searcher(project, workspace, chunker, retriever, flow, embedder, identity)
                    searcher.ask(questions[0].question, depth)  # warm-up: latencies below are of warm queries
                    outcomes = tuple(_ask(searcher, r, depth) for r in resolved)
                    runs.append(RunResult(chunker, retriever, flow, k, outcomes, index_seconds[chunker], identity,
                                          searcher.reranker))
    runs.sort(key=RunResult.sort_key)
    config = {"project": str(project.root), "questions_file": str(path), "k": k, "depth": depth, "flow": flow,
              "documents": len(workspace.document_ids), "evaluation_store": str(workspace.store.path),
              "chunkers": workspace.chunkers, "retrievers": retriever_names, "identities": variants,
              "evaluation_store_changes": {**workspace.changes.to_json(), "store_bytes": space.bytes_after,
                                           "store_rewritten": space.rewritten}}
    return EvaluationReport(config, tuple(runs))


def _ask(searcher: searching.Searcher, resolved: ResolvedQuestion, depth: int) -> QuestionOutcome:
    started = time.perf_counter()
    answer = searcher.ask(resolved.question.question, depth)
    latency_ms = (time.perf_counter() - started) * 1000
    return QuestionOutcome(resolved, answer.hits, latency_ms, answer.text, answer.answered, answer.citations)


def choose_chunkers(project: Project, names: Sequence[str] | None,
                    compare: bool) -> tuple[list[str], list[BaselineChunker]]:
    """The project's chunkers and the baselines to measure: as named, else the project's own (plus every
    baseline with ``compare``). Names starting with ``baseline:`` are baselines, others must be registered."""
    if names:
        own = [n for n in names if not n.startswith(PREFIX)]
        project.registry.resolve_names("chunk_parsers", own)
        picked = [n for n in names if n.startswith(PREFIX)]
        return own, (baselines_by_name(picked) if picked else [])
    own = project.selected("chunk_parsers")
    return own, (baselines_by_name() if compare else [])


def choose_identities(project: Project, names: Sequence[str] | None, compare: bool) -> list[str]:
    """As named; else every variant with ``compare`` (the project's own first, so baselines run with it); else
    the project's setting."""
    default = searching.settings_of(project).identity
    if names:
        return [check_variant(name) for name in dict.fromkeys(names)]
    return [default, *(v for v in VARIANTS if v != default)] if compare else [default]


def choose_retrievers(project: Project, names: Sequence[str] | None, compare: bool) -> list[str]:
    """As named; else every built-in retriever that can run here with ``compare``; else the project's default."""
    if names:
        chosen = list(dict.fromkeys(names))
    elif compare:
        chosen = searching.available_retrievers(project)
    else:
        chosen = [searching.default_retriever(project)]
    searching.check_retrievers(project, chosen)
    return chosen
