"""One chunker's BM25 tables (chunk lengths, term dictionary, postings): created, dropped, renamed, rows
inserted and deleted, and their totals. ``retrieval/build/bm25.py`` decides what to change."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def term_frequencies_sql(source: str, key: str) -> str:
    """SELECT (term, ``key``, tf) from ``source``'s (``key``, space-joined tokens ``terms``) rows, stemmed in DuckDB
    (fts loaded): each row's tokens are counted first and each (row, token) stemmed once, not each occurrence
    (the same terms and frequencies; ``stem`` was half the SQL time of a full build)."""
    return f"""
        SELECT stem(token, 'porter') AS term, {key}, sum(n)::INTEGER AS tf
        FROM (SELECT {key}, token, count(*) AS n
              FROM (SELECT {key}, unnest(string_split(terms, ' ')) AS token FROM {source})
              WHERE token <> ''
              GROUP BY ALL)
        GROUP BY ALL"""


def next_doc_key(con: Connection, t: IndexTables) -> int:
    return int(con.execute(f"SELECT coalesce(max(doc_key), 0) + 1 FROM {t.bm25}").fetchone()[0])


def insert_slice(con: Connection, t: IndexTables, rows: Sequence[tuple[str, str, str, int]],
                 keys: Sequence[int] | None = None) -> None:
    """Add ``rows`` (chunk id, text hash, space-joined terms, token count) under ``keys`` (by default the next
    free doc keys), stemmed in DuckDB (fts loaded)."""
    if not rows:
        return
    if keys is None:
        first = next_doc_key(con, t)
        keys = range(first, first + len(rows))
    keys = list(keys)
    chunk_ids, hashes, texts, token_counts = map(list, zip(*rows))
    source = "(SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS terms)"
    execute(con, f"CREATE OR REPLACE TEMP TABLE _bm25_new AS {term_frequencies_sql(source, 'doc_key')}",
            [keys, texts])
    execute(con, f"""
        INSERT INTO {t.bm25}
        SELECT new.doc_key, new.chunk_id, new.text_hash, new.token_count, coalesce(lengths.len, 0)
        FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS chunk_id,
                     unnest(?::VARCHAR[]) AS text_hash, unnest(?::INTEGER[]) AS token_count) AS new
        LEFT JOIN (SELECT doc_key, sum(tf)::INTEGER AS len FROM _bm25_new GROUP BY doc_key) AS lengths
               USING (doc_key)""", [keys, chunk_ids, hashes, token_counts])
    _add_postings(con, t)


def insert_stemmed(con: Connection, t: IndexTables, stems: str, chunks: Sequence[tuple[int, str, str]]) -> set[str]:
    """Add the chunks (doc key, chunk id, text hash) that ``stems`` holds, already stemmed by the writers
    (``staged_terms.stage_postings``; a row of another text hash is not used); returns the chunk ids added."""
    if not chunks:
        return set()
    keys, chunk_ids, hashes = map(list, zip(*chunks))
    execute(con, f"""
        CREATE OR REPLACE TEMP TABLE _bm25_stemmed AS
        SELECT w.doc_key, s.chunk_id, s.text_hash, s.token_count, s.len, s.terms, s.tfs
        FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS chunk_id,
                     unnest(?::VARCHAR[]) AS text_hash) AS w
        JOIN {stems} AS s ON s.chunk_id = w.chunk_id AND s.text_hash = w.text_hash
        QUALIFY row_number() OVER (PARTITION BY w.doc_key) = 1""", [keys, chunk_ids, hashes])
    con.execute(f"INSERT INTO {t.bm25} SELECT doc_key, chunk_id, text_hash, token_count, len FROM _bm25_stemmed")
    con.execute("CREATE OR REPLACE TEMP TABLE _bm25_new AS SELECT unnest(terms) AS term, doc_key, unnest(tfs) AS tf "
                "FROM _bm25_stemmed")
    _add_postings(con, t)
    added = {row[0] for row in con.execute("SELECT chunk_id FROM _bm25_stemmed").fetchall()}
    con.execute("DROP TABLE _bm25_stemmed")
    return added


def _add_postings(con: Connection, t: IndexTables) -> None:
    """Number the new terms of ``_bm25_new`` (term, doc_key, tf) after the dictionary's and add its postings."""
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


def indexed_fingerprint(con: Connection, t: IndexTables) -> str:
    """The fingerprint of the chunks the BM25 table holds, computed as ``chunk_reads.chunks_fingerprint``
    computes it over the chunks: equal, the index holds exactly the chunks as they are (same ids, same text
    hashes), whatever wrote it."""
    count, digest = con.execute(f"SELECT count(*), bit_xor(hash(chunk_id, text_hash)) FROM {t.bm25}").fetchone()
    return f"{count}:{digest}"


def bm25_totals(con: Connection, t: IndexTables) -> tuple[int, int, int]:
    """Chunks indexed, their tokens, and the terms of the dictionary."""
    rows, tokens = con.execute(f"SELECT count(*), coalesce(sum(token_count), 0) FROM {t.bm25}").fetchone()
    return rows, tokens, int(con.execute(f"SELECT count(*) FROM {t.terms}").fetchone()[0])


def write_stopword_table(con: Connection, table: str, words: Iterable[str]) -> None:
    """A one-column table of ``words`` (column ``sw``), as fts's ``stopwords`` option reads it."""
    con.execute(f"CREATE OR REPLACE TABLE {table} (sw VARCHAR)")
    con.executemany(f"INSERT INTO {table} VALUES (?)", [(word,) for word in sorted(words)])
