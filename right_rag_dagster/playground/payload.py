"""What the page gets for one run: the answer, its citations, the trace, and every chunk the trace names.

Live runs and recordings produce the same shape, so the page draws both alike. Chunk texts are looked up once
(``chunks``) instead of repeated in each retrieve step of the trace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..rag.model import Answer
from ..store import Store
from ..store.chunk_reads import chunks_by_id

CHUNK_COLUMNS = ("chunk_id", "chunker", "document_id", "unit_id", "fulltext", "source_start", "source_end",
                 "page_label_start", "page_label_end", "section_path")


def traced_chunk_ids(trace: dict[str, Any]) -> list[str]:
    """Chunk ids named by the trace's retrieve steps (every chunk of a joined hit), in order of first appearance."""
    ids: dict[str, None] = {}
    for step in trace.get("steps", []):
        for hit in step.get("outputs", {}).get("hits", []) or []:
            for chunk_id in joined_ids(hit):
                ids.setdefault(chunk_id, None)
    return list(ids)


def joined_ids(hit: dict[str, Any]) -> list[str]:
    """A hit's chunk id, then the chunk ids of its parts when it was joined with a neighbour (``Hit.joined``)."""
    return [hit["chunk_id"], *(part[0] for part in hit.get("joined") or ())]


def read_chunks(store: Store, chunker: str, chunk_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``chunk_id -> {document, unit_id, text, span, pages, section_path}`` for the given chunks of ``chunker``."""
    ids = list(dict.fromkeys(chunk_ids))
    if not ids:
        return {}
    with store.read() as con:
        rows = chunks_by_id(con, chunker, CHUNK_COLUMNS, ids)
    chunks = {}
    for chunk_id, name, document, unit, text, start, end, label_start, label_end, section in rows:
        pages = label_start if label_start == label_end or not label_end else f"{label_start}-{label_end}"
        chunks[chunk_id] = {"chunk_id": chunk_id, "chunker": name, "document": document, "unit_id": unit,
                            "text": text, "span": [start, end], "pages": pages or "",
                            "section_path": json.loads(section or "[]")}
    return chunks


def answer_payload(answer: Answer, store: Store) -> dict[str, Any]:
    """The JSON the page draws: settings, answer, citations (with quote spans), trace, and the chunks it names."""
    trace = answer.trace or {"flow": None, "steps": []}
    chunker = answer.settings["chunker"]
    return {
        "question": answer.question,
        "flow": answer.flow,
        "settings": {**answer.settings, "retriever": effective_retriever(trace, answer.settings["retriever"])},
        "answer": answer.text,
        "found": answer.found,
        "citations": [citation.to_json() for citation in answer.citations],
        "hits": [{k: v for k, v in hit.to_json().items() if k != "text"} for hit in answer.hits],
        "trace": trace,
        "chunks": read_chunks(store, chunker, [*traced_chunk_ids(trace),
                                               *(c for h in answer.hits for c in joined_ids(h.to_json()))]),
    }


def effective_retriever(trace: dict[str, Any], configured: str) -> str:
    """The retriever of the last retrieve step (the adaptive flow may route or switch), else the configured one."""
    used = [step["inputs"].get("retriever") for step in trace.get("steps", []) if step["step"] == "retrieve"]
    return next((name for name in reversed(used) if name), configured)
