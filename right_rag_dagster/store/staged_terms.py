"""Terms the writers tokenized, kept on a DuckLake for the BM25 build that follows them.

On a DuckLake the writers cannot add postings (they would number terms and chunks alike), but their workers
tokenize every chunk anyway. Each batch inserts those tokens here, in its own transaction with the chunks (inserts
only, so writers do not conflict); the build after them reads them instead of reading and tokenizing every
chunk's text again. Rows are matched on (chunk_id, text_hash), so a row of an older text is never used; the build
empties the table once it has used it.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from .sql import execute


def has_staged_terms(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether the table exists (asked once per build: on a lake each catalog query costs ~0.1 s)."""
    row = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' "
                      "AND table_name = ?", [table]).fetchone()
    return bool(row and row[0])


def stage_terms(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple[str, str, str, int]]) -> None:
    """Add (chunk_id, text_hash, space-joined tokens, token count) rows in ``con``'s transaction."""
    if not rows:
        return
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} (chunk_id VARCHAR, text_hash VARCHAR, terms VARCHAR, "
                "token_count INTEGER)")
    chunk_ids, hashes, terms, counts = map(list, zip(*rows))
    execute(con, f"INSERT INTO {table} SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                 "unnest(?::INTEGER[])", [chunk_ids, hashes, terms, counts])


def staged_terms(con: duckdb.DuckDBPyConnection, table: str, chunks: Sequence[tuple[str, str]]
                 ) -> dict[str, tuple[str, int]]:
    """chunk_id -> (tokens, token count) for the (chunk_id, text_hash) pairs that have staged terms (the table
    must exist: ``has_staged_terms``)."""
    if not chunks:
        return {}
    chunk_ids, hashes = map(list, zip(*chunks))
    rows = execute(con, f"SELECT s.chunk_id, any_value(s.terms), any_value(s.token_count) FROM {table} AS s "
                        "JOIN (SELECT unnest(?::VARCHAR[]) AS chunk_id, unnest(?::VARCHAR[]) AS text_hash) AS w "
                        "ON s.chunk_id = w.chunk_id AND s.text_hash = w.text_hash GROUP BY s.chunk_id",
                   [chunk_ids, hashes]).fetchall()
    return {chunk_id: (terms, int(count)) for chunk_id, terms, count in rows}


def clear_staged_terms(con: duckdb.DuckDBPyConnection, table: str) -> None:
    if has_staged_terms(con, table):
        con.execute(f"DELETE FROM {table}")
