"""Postings the writers stemmed, kept on a DuckLake for the BM25 build that follows them.

On a DuckLake the writers cannot add postings (they would number terms and chunks alike), but their workers
tokenize every chunk anyway. Each batch stems those tokens and counts them in SQL, as the embedded file's live
postings do, and inserts one row per chunk here (its terms and their frequencies), in its own transaction with
the chunks (inserts only, so writers do not conflict), so the stemming runs in the writers, in parallel. The
build after them only numbers chunks and terms and writes the postings from these rows (``bm25_tables.
insert_stemmed``). Rows are matched on (chunk_id, text_hash), so a row of an older text is never used; the build
empties the table once it has used it.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from .bm25_tables import term_frequencies_sql
from .sql import execute, literal


def has_staged_terms(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Whether the table exists (asked once per build: on a lake each catalog query costs ~0.1 s)."""
    row = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' "
                      f"AND table_name = {literal(table)}").fetchone()  # a parameter would import pandas (0.6 s)
    return bool(row and row[0])


def stage_postings(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple[str, str, str, int]]) -> None:
    """Add the (chunk_id, text_hash, space-joined tokens, token count) rows of the workers, stemmed and counted
    (fts loaded), in ``con``'s transaction: (chunk_id, text_hash, token_count, len, terms, tfs)."""
    if not rows:
        return
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} (chunk_id VARCHAR, text_hash VARCHAR, token_count INTEGER, "
                "len INTEGER, terms VARCHAR[], tfs INTEGER[])")
    chunk_ids, hashes, terms, counts = map(list, zip(*rows))
    execute(con, "CREATE OR REPLACE TEMP TABLE _stage_in AS SELECT unnest(?::VARCHAR[]) AS chunk_id, "
                 "unnest(?::VARCHAR[]) AS text_hash, unnest(?::VARCHAR[]) AS terms, unnest(?::INTEGER[]) AS token_count",
            [chunk_ids, hashes, terms, counts])
    con.execute(f"""
        INSERT INTO {table}
        SELECT i.chunk_id, i.text_hash, i.token_count, coalesce(s.len, 0), coalesce(s.terms, []), coalesce(s.tfs, [])
        FROM _stage_in AS i
        LEFT JOIN (SELECT chunk_id, sum(tf)::INTEGER AS len, list(term ORDER BY term) AS terms,
                          list(tf ORDER BY term) AS tfs
                   FROM ({term_frequencies_sql('_stage_in', 'chunk_id')}) GROUP BY chunk_id) AS s USING (chunk_id)""")
    con.execute("DROP TABLE _stage_in")


def clear_staged_terms(con: duckdb.DuckDBPyConnection, table: str, legacy: str | None = None) -> None:
    """Empty the table once a build used it, and drop ``legacy``, where earlier versions kept unstemmed tokens."""
    if has_staged_terms(con, table):
        con.execute(f"DELETE FROM {table}")
    if legacy is not None:
        con.execute(f"DROP TABLE IF EXISTS {legacy}")
