"""When the question asked is one of the project's evaluation questions: where its evidence is, which retrieved
chunks hold it, and the rank at which the hits answer it (the evaluation's own rule, ``evaluation.judge``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..evaluation.judge import RetrievedChunk, resolve_question
from ..evaluation.metrics import first_hit_rank
from ..evaluation.questions import Evidence, Question, load_questions
from ..evaluation.spans import CollapsedText, collapse_whitespace, overlap
from ..store import Store
from ..store.content import read_document


def project_questions(path: Path) -> list[Question]:
    """The questions file's questions, or none when the project has no (readable) questions file."""
    if not path.is_file():
        return []
    try:
        return load_questions(path)
    except ConfigError:
        return []


def find_question(questions: Sequence[Question], text: str) -> Question | None:
    """The evaluation question asked, matched by its text (case and whitespace ignored) or its id."""
    wanted = collapse_whitespace(text).casefold()
    return next((q for q in questions if collapse_whitespace(q.question).casefold() == wanted or q.id == text), None)


def question_json(question: Question) -> dict[str, Any]:
    return {"id": question.id, "question": question.question,
            "evidence": [{"document": e.document, "quote": e.quote} for e in question.evidence]}


def questions_from_json(rows: Sequence[dict[str, Any]]) -> list[Question]:
    """Questions as ``question_json`` wrote them (recordings keep only id, text and evidence)."""
    return [Question(row["id"], row["question"], tuple(Evidence(e["document"], e["quote"]) for e in row["evidence"]))
            for row in rows]


def evidence_marks(question: Question, store: Store, payload: dict[str, Any]) -> dict[str, Any]:
    """Evidence located in its documents; ``chunks``: chunk id -> evidence items its span overlaps;
    ``first_hit_rank``: the rank at which the final hits answer every item (None: they do not)."""
    documents = {e.document for e in question.evidence}
    with store.read() as con:
        texts = {doc_id: CollapsedText.of(doc.text) for doc_id in documents
                 if (doc := read_document(con, doc_id)) is not None}
    resolved = resolve_question(question, texts)
    items = [{"document": t.document, "quote": t.value, "spans": [list(s) for s in t.spans], "error": t.error}
             for t in resolved.targets if t.kind == "quote"]
    marks: dict[str, list[int]] = {}
    for chunk_id, chunk in payload["chunks"].items():
        start, end = chunk["span"]
        if start is None or end is None:
            continue
        hits = [n for n, item in enumerate(items) if item["document"] == chunk["document"]
                and any(overlap((start, end), tuple(span)) for span in item["spans"])]
        if hits:
            marks[chunk_id] = hits
    retrieved = [RetrievedChunk(h["rank"], h["chunk_id"], h["document"], h["unit_id"], h["source_start"],
                                h["source_end"], h["page_start"], h["page_end"], h["score"],
                                "\n\n".join(payload["chunks"].get(c, {}).get("text", "") for c in _in_text_order(h)),
                                tuple(tuple(part) for part in h.get("joined") or ()))
                 for h in payload["hits"]]
    rank = first_hit_rank(resolved.answered_ranks(retrieved)) if resolved.scored else None
    return {"question_id": question.id, "items": items, "chunks": marks, "first_hit_rank": rank,
            "scored": resolved.scored, "depth": len(retrieved)}


def _in_text_order(hit: dict[str, Any]) -> list[str]:
    """A hit's chunk ids in document order: its own, or a joined hit's (as ``Hit.joined``)."""
    return [part[0] for part in sorted(hit.get("joined") or (), key=lambda part: part[2])] or [hit["chunk_id"]]
