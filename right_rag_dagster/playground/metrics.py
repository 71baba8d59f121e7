"""Retrieval metrics of one chunker x retriever on the project's questions, computed the way ``right-rag
evaluate`` computes them (same searcher, judge and aggregate), over the store that holds the chunker."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..evaluation.judge import resolve_question
from ..evaluation.questions import Question
from ..evaluation.report import QuestionOutcome, aggregate
from ..evaluation.runner import MIN_DEPTH
from ..evaluation.searching import Searcher
from ..evaluation.spans import CollapsedText
from ..evaluation.workspace import Workspace
from ..project import Project
from ..store import Store
from ..store.content import read_document
from .stores import project_on

SHOWN = ("questions", "scored", "hit@1", "hit@5", f"recall@{MIN_DEPTH}", "mrr@10", "ndcg@10", "context_chars@5",
         "quotes_not_found", "latency_p50_ms")


def retrieval_metrics(project: Project, questions: list[Question], chunker: str, retriever: str) -> dict[str, Any]:
    """hit@1, hit@5, recall@10, MRR@10, nDCG@10 and context size of ``chunker`` x ``retriever`` (10 hits each)."""
    target = project_on(project, chunker)
    store = Store(target.store_path)
    used = {e.document for q in questions for e in q.evidence}
    with store.read() as con:
        texts = {doc_id: CollapsedText.of(doc.text) for doc_id in sorted(used)
                 if (doc := read_document(con, doc_id)) is not None}
    searcher = Searcher(project, Workspace(store, (), (chunker,)), chunker, retriever, None, None)
    outcomes = []
    for question in questions:
        started = time.perf_counter()
        answer = searcher.ask(question.question, MIN_DEPTH)
        outcomes.append(QuestionOutcome(resolve_question(question, texts), answer.hits,
                                        (time.perf_counter() - started) * 1000))
    values = aggregate(outcomes, MIN_DEPTH)
    ranks = {o.resolved.question.id: o.first_hit_rank for o in outcomes}
    return {"chunker": chunker, "retriever": retriever, "metrics": {k: values[k] for k in SHOWN},
            "first_hit_ranks": ranks}


def questions_file_label(path: Path, root: Path) -> str:
    """The questions file relative to the project when it is inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
