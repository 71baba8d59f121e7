"""Stores as older schemas left them, for migration tests: made from a current store by undoing migrations."""

from __future__ import annotations

import duckdb


def undo_document_texts(con: duckdb.DuckDBPyConnection) -> None:
    """Undo migration 8: each document's text back in ``documents.text``, no ``document_texts`` table."""
    con.execute("ALTER TABLE documents ADD COLUMN text VARCHAR")
    con.execute("UPDATE documents SET text = t.text FROM (SELECT document_id, string_agg(text, '' ORDER BY piece) "
                "AS text FROM document_texts GROUP BY document_id) AS t WHERE documents.document_id = t.document_id")
    con.execute("DROP TABLE document_texts")
    con.execute("DELETE FROM schema_migrations WHERE version >= 8")
