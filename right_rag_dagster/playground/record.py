"""``right-rag playground --record``: run the project's questions through a fixed set of choices and write the
recording the page replays without a model.

Runs happen in the evaluation store (the project's chunks plus three baselines, as ``right-rag evaluate`` makes
it), with the extractive generator. Dense and hybrid are recorded for the project's chunkers only: embedding
every baseline chunk on a CPU takes many minutes, and the baselines' point is the chunking, shown with BM25.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..evaluation.baselines import baselines_by_name
from ..evaluation.searching import shared_embedder
from ..evaluation.workspace import prepare_workspace
from ..project import Project
from ..rag import query
from ..retrieval import build_search_index
from ..store import Store
from .evidence import evidence_marks, project_questions, question_json
from .fingerprint import fingerprint
from .metrics import retrieval_metrics
from .payload import answer_payload
from .recordings import SCHEMA, Recording, is_source_checkout, metrics_key, run_key
from .units import citation_context

BASELINES = ("baseline:fixed-chars-500", "baseline:heading-1500", "baseline:page-4000")
OWN_CHOICES = (("bm25", "simple"), ("hybrid", "simple"), ("dense", "simple"), ("", "adaptive"), ("bm25", "adaptive"))
BASELINE_CHOICES = (("bm25", "simple"), ("", "adaptive"))
NEEDS_VECTORS = {"dense", "hybrid"}


def recorded_choices(own: list[str], with_vectors: bool) -> list[dict[str, str]]:
    """chunker x retriever x flow triples to record (an empty retriever: the flow decides)."""
    triples = [(c, r, f) for c in own for r, f in OWN_CHOICES if with_vectors or r not in NEEDS_VECTORS]
    triples += [(c, r, f) for c in BASELINES for r, f in BASELINE_CHOICES]
    return [{"chunker": c, "retriever": r, "flow": f} for c, r, f in triples]


def record(project: Project, path: Path, log: Any = sys.stderr) -> Recording:
    """Record every question of the project's questions file through ``recorded_choices``; write ``path``."""
    questions = project_questions(project.questions_file)
    if not questions:
        raise ConfigError(f"no questions to record: write {project.questions_file} (see eval/questions.example.jsonl)")
    own = project.selected("chunk_parsers")
    workspace = prepare_workspace(project, own, baselines_by_name(list(BASELINES)))
    embedder = shared_embedder(project, ["hybrid"])
    for chunker in workspace.chunkers:
        print(f"indexing {chunker} ...", file=log, flush=True)
        build_search_index(workspace.store, chunker, embedder=embedder if chunker in own else None)
    target = replace(project, store_path=workspace.store.path, lake=None)  # the evaluation store is a file
    choices = recorded_choices(own, embedder is not None)
    runs, chunks, citations = {}, {}, {}
    for choice in choices:
        print(f"recording {choice['chunker']} x {choice['retriever'] or 'flow decides'} x {choice['flow']}",
              file=log, flush=True)
        for question in questions:
            payload = _record_run(target, workspace.store, question, choice, embedder)
            chunks.update(payload.pop("chunks"))
            for citation in payload["citations"]:
                key = f"{choice['chunker']}|{citation['chunk_id']}"
                if key not in citations:
                    citations[key] = citation_context(workspace.store, choice["chunker"], citation["chunk_id"])
            runs[run_key(question.id, choice["chunker"], choice["retriever"], choice["flow"])] = payload
    pairs = sorted({(c["chunker"], r) for c in choices
                    for r in ([c["retriever"]] if c["retriever"] else _routed(runs, c))})
    metrics = {metrics_key(c, r): retrieval_metrics(target, questions, c, r) for c, r in pairs}
    data = {
        "schema": SCHEMA, "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "project": "sample" if is_source_checkout(project) else project.root.name, "fingerprint": fingerprint(project),
        "settings": {"k": 5, "generator": "extractive", "embedder": embedder.identity if embedder else None},
        "generator": "extractive", "chunkers": list(workspace.chunkers), "configs": choices,
        "questions": [question_json(q) for q in questions], "runs": runs, "chunks": chunks,
        "citations": citations, "metrics": metrics,
    }
    recording = Recording(path, data)
    recording.write()
    return recording


def _record_run(target: Project, store: Store, question: Any, choice: dict[str, str], embedder: Any) -> dict[str, Any]:
    answer = query(target, question.question, k=5, retriever=choice["retriever"] or None, chunker=choice["chunker"],
                   flow=choice["flow"], generator="extractive", trace=True, embedder=embedder)
    payload = answer_payload(answer, store)
    payload["evidence"] = evidence_marks(question, store, payload)
    payload["chunk_ids"] = list(payload["chunks"])
    return payload


def _routed(runs: dict[str, dict[str, Any]], choice: dict[str, str]) -> set[str]:
    """The retrievers the flow chose in the recorded runs of ``choice`` (for their metrics)."""
    suffix = "|" + "|".join((choice["chunker"], choice["retriever"], choice["flow"]))
    return {run["settings"]["retriever"] for key, run in runs.items() if key.endswith(suffix)}
