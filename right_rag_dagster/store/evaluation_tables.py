"""The evaluation store's own statements: baseline chunks cached per document content, its loaded documents,
and its rewrite into a fresh file (``evaluation/compaction.py`` decides when)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import duckdb
from duckdb import DuckDBPyConnection as Connection

from .db import memory_limit
from .extensions import load_extension
from .sql import execute, literal

CONTENT_HASH_SQL = ("md5(concat_ws(chr(31), text, coalesce(CAST(page_starts AS VARCHAR), ''), "
                    "coalesce(CAST(page_labels AS VARCHAR), '')))")
"""A document's text and page map, hashed in DuckDB (the text never leaves it)."""


class LoadedDocument(NamedTuple):
    document_id: str
    content_hash: str
    chars: int


def loaded_documents(con: Connection) -> list[LoadedDocument]:
    """Every loaded document with the hash of its text and page map, by id."""
    return [LoadedDocument(*row) for row in con.execute(
        f"SELECT document_id, {CONTENT_HASH_SQL}, length(text) FROM documents "
        "WHERE status = 'loaded' ORDER BY document_id").fetchall()]


def loaded_document_ids(con: Connection) -> tuple[str, ...]:
    return tuple(row[0] for row in con.execute("SELECT document_id FROM documents WHERE status = 'loaded' "
                                               "ORDER BY document_id").fetchall())


def cut_keys(con: Connection, step_prefix: str) -> dict[tuple[str, str], str]:
    """(step, document id) -> cache key of every cut whose step starts with ``step_prefix``."""
    return {(step, doc_id): key for step, doc_id, key in con.execute(
        f"SELECT step, document_id, cache_key FROM step_state WHERE starts_with(step, '{step_prefix}')").fetchall()}


def delete_document_chunks(con: Connection, chunker: str, document_ids: Sequence[str]) -> None:
    execute(con, "DELETE FROM chunks WHERE chunker = ? AND list_contains(?::VARCHAR[], document_id)",
            [chunker, list(document_ids)])


def drop_unloaded(con: Connection, chunker_prefix: str) -> None:
    """Chunks and cut keys of chunkers named ``chunker_prefix...`` whose document is no longer loaded."""
    for table, column, prefix in (("chunks", "chunker", chunker_prefix), ("step_state", "step", f"chunks:{chunker_prefix}")):
        con.execute(f"DELETE FROM {table} WHERE starts_with({column}, '{prefix}') AND document_id NOT IN "
                    "(SELECT document_id FROM documents WHERE status = 'loaded')")


def database_blocks(con: Connection) -> tuple[int, int]:
    """(total, free) blocks of the connection's database file."""
    return con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size() "
                       "WHERE database_name = current_database()").fetchone()


def copy_and_swap(path: Path) -> None:
    """Copy every table (and index) of the DuckDB file at ``path`` into a fresh file, then replace ``path``."""
    fresh = path.with_name(path.name + ".compact")
    for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
        leftover.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = {literal(memory_limit())}")
        con.execute("SET enable_progress_bar = false")
        con.execute(f"ATTACH {literal(str(path))} AS old (READ_ONLY)")
        hnsw = con.execute("SELECT count(*) FROM duckdb_indexes() WHERE database_name = 'old' "
                           "AND sql ILIKE '%USING HNSW%'").fetchone()[0]
        if hnsw:  # the dense index of a large chunker: recreated in the copy, which needs the extension
            load_extension(con, "vss")
            con.execute("SET hnsw_enable_experimental_persistence = true")
        con.execute(f"ATTACH {literal(str(fresh))} AS fresh")
        con.execute("COPY FROM DATABASE old TO fresh")
        con.execute("CHECKPOINT fresh")  # everything in the file itself: no log may be left behind the swap
        con.execute("DETACH fresh")
        con.execute("DETACH old")
    finally:
        con.close()
    os.replace(fresh, path)
