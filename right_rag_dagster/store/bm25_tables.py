"""One chunker's BM25 tables (chunk lengths, term dictionary, postings): created, dropped, renamed, rows
inserted and deleted, and their totals. ``retrieval/build/bm25.py`` decides what to change."""

from __future__ import annotations

from collections.abc import Sequence

from duckdb import DuckDBPyConnection as Connection

from .search_tables import IndexTables
from .sql import execute


def create_tables(con: Connection, t: IndexTables) -> None:
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.bm25} (doc_key INTEGER NOT NULL, chunk_id VARCHAR NOT NULL, "
                "text_hash VARCHAR NOT NULL, token_count INTEGER NOT NULL, len INTEGER NOT NULL)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.terms} (termid INTEGER NOT NULL, term VARCHAR NOT NULL)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.postings} (termid INTEGER NOT NULL, doc_key INTEGER NOT NULL, "
                "tf INTEGER NOT NULL)")


def delete_chunks(con: Connection, t: IndexTables, chunk_ids: Sequence[str], prune: bool = True) -> None:
    """Delete these chunks' rows and postings (and, with ``prune``, the terms left unused)."""
    execute(con, f"CREATE OR REPLACE TEMP TABLE _bm25_gone AS SELECT doc_key FROM {t.bm25} "
            "WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [list(chunk_ids)])
    con.execute(f"DELETE FROM {t.postings} WHERE doc_key IN (SELECT doc_key FROM _bm25_gone)")
    con.execute(f"DELETE FROM {t.bm25} WHERE doc_key IN (SELECT doc_key FROM _bm25_gone)")
    if prune:  # terms no chunk uses any more leave the dictionary: it stays the indexed vocabulary
        prune_terms(con, t)
    con.execute("DROP TABLE _bm25_gone")


def insert_slice(con: Connection, t: IndexTables, rows: Sequence[tuple[str, str, str, int]]) -> None:
    """Add ``rows`` (chunk id, text hash, space-joined terms, token count), stemmed in DuckDB (fts loaded): each
    chunk's tokens are counted first and each (chunk, token) stemmed once, not each occurrence (the same terms and
    frequencies; ``stem`` was half the SQL time of a full build)."""
    first = con.execute(f"SELECT coalesce(max(doc_key), 0) + 1 FROM {t.bm25}").fetchone()[0]
    keys = list(range(first, first + len(rows)))
    chunk_ids, hashes, texts, token_counts = map(list, zip(*rows))
    execute(con, """
        CREATE OR REPLACE TEMP TABLE _bm25_new AS
        SELECT stem(token, 'porter') AS term, doc_key, sum(n)::INTEGER AS tf
        FROM (SELECT doc_key, token, count(*) AS n
              FROM (SELECT doc_key, unnest(string_split(terms, ' ')) AS token
                    FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS terms))
              WHERE token <> ''
              GROUP BY ALL)
        GROUP BY ALL""", [keys, texts])
    execute(con, f"""
        INSERT INTO {t.bm25}
        SELECT new.doc_key, new.chunk_id, new.text_hash, new.token_count, coalesce(lengths.len, 0)
        FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS chunk_id,
                     unnest(?::VARCHAR[]) AS text_hash, unnest(?::INTEGER[]) AS token_count) AS new
        LEFT JOIN (SELECT doc_key, sum(tf)::INTEGER AS len FROM _bm25_new GROUP BY doc_key) AS lengths
               USING (doc_key)""", [keys, chunk_ids, hashes, token_counts])
    con.execute(f"""
        INSERT INTO {t.terms}
        SELECT (SELECT coalesce(max(termid), -1) FROM {t.terms}) + row_number() OVER (ORDER BY term), term
        FROM (SELECT DISTINCT term FROM _bm25_new) AS new
        WHERE NOT EXISTS (SELECT 1 FROM {t.terms} AS known WHERE known.term = new.term)""")
    con.execute(f"INSERT INTO {t.postings} SELECT d.termid, n.doc_key, n.tf FROM _bm25_new AS n "
                f"JOIN {t.terms} AS d USING (term) ORDER BY d.termid, n.doc_key")
    con.execute("DROP TABLE _bm25_new")


def drop_tables(con: Connection, t: IndexTables) -> None:
    for name in (t.postings, t.terms, t.bm25):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    # Indexes of earlier versions kept their terms in a DuckDB fts index schema.
    con.execute(f"DROP SCHEMA IF EXISTS {t.legacy_fts_schema} CASCADE")


def rename_tables(con: Connection, source: IndexTables, target: IndexTables) -> None:
    """Swap a staged rebuild in: ``source``'s tables take ``target``'s names."""
    for old, new in ((source.bm25, target.bm25), (source.terms, target.terms), (source.postings, target.postings)):
        con.execute(f"ALTER TABLE {old} RENAME TO {new}")


def prune_terms(con: Connection, t: IndexTables) -> None:
    """Drop the terms no posting uses any more."""
    con.execute(f"DELETE FROM {t.terms} WHERE termid NOT IN (SELECT DISTINCT termid FROM {t.postings})")


def bm25_totals(con: Connection, t: IndexTables) -> tuple[int, int, int]:
    """Chunks indexed, their tokens, and the terms of the dictionary."""
    rows, tokens = con.execute(f"SELECT count(*), coalesce(sum(token_count), 0) FROM {t.bm25}").fetchone()
    return rows, tokens, int(con.execute(f"SELECT count(*) FROM {t.terms}").fetchone()[0])
