"""Baseline chunks cached by document content, as the project's chunkers cache theirs in ``step_state``.

A baseline cuts a document again only when the key of its last cut changed: the document's text and page map
(hashed in DuckDB), the baseline's name, parameters and source code, and the store's schema. The key is written
in the transaction that replaces the chunks, so a crash leaves either the old cut with its key or the new one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..core.hashing import stable_hash
from ..store import Store
from ..store.batch import delete_where_in, insert_rows
from ..store.content import Connection, chunk_rows, read_documents, state_row
from ..store.evaluation_tables import (
    cut_keys,
    delete_document_chunks,
    drop_unloaded,
    loaded_documents,
)
from ..store.migrations import SCHEMA_VERSION
from .baselines import PREFIX, BaselineChunker, code_version

BATCH_CHARS = 4_000_000
"""Document text read and cut per transaction: bounds memory whatever the corpus size."""

@dataclass(frozen=True)
class Pending:
    """One document and the baselines whose cached cut of it is missing or out of date."""

    document_id: str
    chars: int
    keys: dict[str, str]  # baseline name -> the key its new cut is stored under


def step_of(baseline: BaselineChunker) -> str:
    """The ``step_state`` step of a baseline: the one the project's chunkers use (``chunks:<name>``)."""
    return f"chunks:{baseline.name}"


def cut_key(baseline: BaselineChunker, content_hash: str) -> str:
    """What a cached cut depends on, serialized with sorted keys (never ``repr``)."""
    return stable_hash({"step": step_of(baseline), "code": code_version(), "parameters": baseline.parameters(),
                        "schema": SCHEMA_VERSION, "document": content_hash})


def cut_baselines(store: Store, baselines: Sequence[BaselineChunker]) -> dict[str, int]:
    """Cut the loaded documents whose cached cuts are out of date; documents re-cut per baseline."""
    recut = {b.name: 0 for b in baselines}
    if not baselines:
        return recut
    by_name = {b.name: b for b in baselines}
    with store.write() as con:
        _drop_unloaded(con)
        pending = _pending(con, baselines)
    for batch in _batches(pending):
        with store.write() as con:
            documents = read_documents(con, [p.document_id for p in batch])
            for name, baseline in by_name.items():
                todo = [(p.document_id, p.keys[name]) for p in batch if name in p.keys]
                if not todo:
                    continue
                ids = [doc_id for doc_id, _ in todo]
                delete_document_chunks(con, name, ids)
                insert_rows(con, "chunks", [row for doc_id in ids for row in chunk_rows(
                    documents[doc_id], [], name, code_version(), baseline.chunk_document(documents[doc_id]))])
                delete_where_in(con, "step_state", "step || chr(31) || document_id",
                                [f"{step_of(baseline)}\x1f{doc_id}" for doc_id in ids])
                insert_rows(con, "step_state", [state_row(step_of(baseline), doc_id, key, None) for doc_id, key in todo])
                recut[name] += len(todo)
    return recut


def _drop_unloaded(con: Connection) -> None:
    """Baseline rows of documents that are no longer loaded (their new version failed to load)."""
    drop_unloaded(con, PREFIX)


def _pending(con: Connection, baselines: Sequence[BaselineChunker]) -> list[Pending]:
    """The loaded documents with at least one baseline whose cached cut is missing or out of date."""
    documents = loaded_documents(con)
    held = cut_keys(con, f"chunks:{PREFIX}")
    pending = []
    for doc_id, content_hash, chars in documents:
        keys = {b.name: key for b in baselines
                if held.get((step_of(b), doc_id)) != (key := cut_key(b, content_hash))}
        if keys:
            pending.append(Pending(doc_id, chars, keys))
    return pending


def _batches(pending: list[Pending]) -> Iterator[list[Pending]]:
    """Consecutive documents holding up to ``BATCH_CHARS`` characters of text (at least one document each)."""
    batch: list[Pending] = []
    size = 0
    for item in pending:
        if batch and size + item.chars > BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(item)
        size += item.chars
    if batch:
        yield batch
