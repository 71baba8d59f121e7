"""One chunker's dense vectors table and its HNSW index: written, counted, dropped.
``retrieval/build/dense.py`` decides what to change."""

from __future__ import annotations

from collections.abc import Sequence

from duckdb import DuckDBPyConnection as Connection

from .extensions import load_extension
from .search_tables import IndexTables
from .sql import execute


def drop_vectors(con: Connection, t: IndexTables) -> None:
    con.execute(f"DROP TABLE IF EXISTS {t.dense}")


def vector_count(con: Connection, t: IndexTables) -> int:
    return int(con.execute(f"SELECT count(*) FROM {t.dense}").fetchone()[0])


def replace_vectors(con: Connection, t: IndexTables, dims: int, gone: Sequence[str],
                    new: tuple[list[str], list[str], list]) -> int:
    """Delete the ``gone`` chunk ids' vectors and insert ``new`` (chunk ids, text hashes, vectors), the HNSW
    index dropped first (``create_hnsw`` makes it again); returns the vectors held."""
    load_extension(con, "vss")
    con.execute("SET hnsw_enable_experimental_persistence = true")
    con.execute(f"DROP INDEX IF EXISTS {t.hnsw}")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.dense} (chunk_id VARCHAR NOT NULL, text_hash VARCHAR NOT NULL, "
                f"vector FLOAT[{dims}] NOT NULL)")
    if gone:
        execute(con, f"DELETE FROM {t.dense} WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [list(gone)])
    if new[0]:
        execute(con, f"INSERT INTO {t.dense} SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), "
                f"unnest(?::FLOAT[{dims}][])", list(new))
    return vector_count(con, t)


def stored_vectors(con: Connection, t: IndexTables, chunk_ids: Sequence[str],
                   text_hashes: Sequence[str]) -> list[tuple[str, list[float]]]:
    """(chunk id, vector) of the given chunks whose stored vector was made from the same text."""
    return execute(con, f"SELECT d.chunk_id, d.vector FROM {t.dense} d JOIN (SELECT unnest(?::VARCHAR[]) AS chunk_id, "
                   "unnest(?::VARCHAR[]) AS text_hash) w ON d.chunk_id = w.chunk_id AND d.text_hash = w.text_hash",
                   [list(chunk_ids), list(text_hashes)]).fetchall()


def create_hnsw(con: Connection, t: IndexTables) -> None:
    con.execute(f"CREATE INDEX {t.hnsw} ON {t.dense} USING HNSW (vector) WITH (metric = 'cosine')")
