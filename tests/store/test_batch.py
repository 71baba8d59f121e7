"""A write batch replaces only what the store holds: a document without step state (new to the store) has no rows,
so its rows are inserted without the deletes that would scan each content table (real DuckDB files)."""

from __future__ import annotations

from datetime import datetime

from right_rag_dagster.store.batch import WriteBatch
from right_rag_dagster.store.content import state_row
from right_rag_dagster.store.db import Store


def file_row(document_id: str, content_hash: str) -> list:
    return [document_id, document_id, f"/documents/{document_id}.txt", content_hash, 10, 0.0, datetime(2026, 12, 2)]


def write(store: Store, documents: dict[str, str]) -> list[str]:
    """Write a ``files`` row and a done state per document (id -> content hash); returns the DELETE statements."""
    with store.write() as con:
        con.execute("CALL enable_logging('QueryLog')")
        batch = WriteBatch()
        for document_id, content_hash in documents.items():
            batch.replace_rows("files", document_id, [file_row(document_id, content_hash)])
            batch.set_state("document", document_id, state_row("document", document_id, content_hash, None))
        batch.flush(con)
        logged = [row[0] for row in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()]
    return [statement for statement in logged if statement.lstrip().upper().startswith("DELETE")]


def stored(store: Store) -> list[tuple]:
    with store.read() as con:
        return con.execute("SELECT f.document_id, f.content_hash, s.cache_key FROM files AS f "
                           "JOIN step_state AS s USING (document_id) ORDER BY 1").fetchall()


def test_documents_new_to_the_store_are_inserted_without_deletes(tmp_path):
    store = Store(tmp_path / "store.duckdb")
    store.ensure()
    assert write(store, {"a": "h1", "b": "h1"}) == []
    assert stored(store) == [("a", "h1", "h1"), ("b", "h1", "h1")]


def test_documents_the_store_holds_are_replaced(tmp_path):
    store = Store(tmp_path / "store.duckdb")
    store.ensure()
    write(store, {"a": "h1"})
    deletes = write(store, {"a": "h2", "c": "h1"})  # a is replaced, c is new
    assert any("FROM files" in d for d in deletes) and any("FROM step_state" in d for d in deletes)
    assert stored(store) == [("a", "h2", "h2"), ("c", "h1", "h1")]
