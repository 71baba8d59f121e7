"""The evaluation store's own statements: baseline chunks cached per document content, its loaded documents,
and its rewrite into a fresh file (``evaluation/compaction.py`` decides when)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from duckdb import DuckDBPyConnection as Connection

from .sql import execute
from .texts import WHOLE_TEXTS_SQL, in_groups, loaded_document_ids

CONTENT_HASH_SQL = ("md5(concat_ws(chr(31), t.text, coalesce(CAST(d.page_starts AS VARCHAR), ''), "
                    "coalesce(CAST(d.page_labels AS VARCHAR), '')))")
"""A document's text and page map, hashed in DuckDB (the text never leaves it), over ``documents AS d`` and its
whole text ``t.text``."""


class LoadedDocument(NamedTuple):
    document_id: str
    content_hash: str
    chars: int


def loaded_documents(con: Connection) -> list[LoadedDocument]:
    """Every loaded document with the hash of its text and page map, by id (a few hundred texts at a time)."""
    whole = WHOLE_TEXTS_SQL.format(where="list_contains(?::VARCHAR[], document_id)")
    found = []
    for group in in_groups(loaded_document_ids(con)):
        found.extend(LoadedDocument(*row) for row in execute(con,
            f"SELECT d.document_id, {CONTENT_HASH_SQL}, length(t.text) FROM documents AS d JOIN ({whole}) AS t "
            "USING (document_id) ORDER BY d.document_id", [group]).fetchall())
    return found


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
