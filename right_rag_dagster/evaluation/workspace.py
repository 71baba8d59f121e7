"""The evaluation store: a separate DuckDB file holding the project's indexed content plus baseline chunks.

Baselines never touch the project's own store (so nothing in production can search them): each run copies the
project's documents, units and chosen chunkers' chunks into ``<store folder>/evaluation.duckdb`` (same schema),
and writes the baseline chunks there. Search indexes built in it are updated incrementally by retrieval.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..core.model import Document
from ..errors import ConfigError, StoreError
from ..project import Project
from ..store import Store
from ..store.content import read_document, replace_chunks
from ..store.sql import execute
from .baselines import BaselineChunker

EVALUATION_STORE_NAME = "evaluation.duckdb"


def evaluation_store_path(project: Project) -> Path:
    """``evaluation.duckdb`` beside the project's store (``.right-rag/`` by default, git-ignored)."""
    return project.store_path.parent / EVALUATION_STORE_NAME


@dataclass(frozen=True)
class Workspace:
    """The prepared evaluation store, its documents and the chunkers whose chunks it holds."""

    store: Store
    documents: dict[str, Document]
    chunkers: tuple[str, ...]


def prepare_workspace(project: Project, chunkers: Sequence[str], baselines: Sequence[BaselineChunker]) -> Workspace:
    """Copy the project's indexed content for ``chunkers`` and cut the ``baselines`` into the evaluation store."""
    names = [*chunkers, *(b.name for b in baselines)]
    if not names:
        raise ConfigError("no chunker to evaluate: name one with --chunker or add a chunk parser to spec/")
    source = Store(project.store_path)
    with source.read() as con:
        available = {row[0] for row in con.execute("SELECT DISTINCT chunker FROM chunks").fetchall()}
        missing = [name for name in chunkers if name not in available]
        if missing:
            raise ConfigError(f"the index at {source.path} has no chunks of {missing}; chunkers indexed: "
                              f"{sorted(available) or 'none'} (run `right-rag index`, or pick another --chunker)")
    store = Store(evaluation_store_path(project))
    try:
        _clear(store)
    except (duckdb.Error, StoreError) as exc:  # a damaged cache (e.g. left by a crash): start it again
        for path in (store.path, store.path.with_name(store.path.name + ".wal")):
            path.unlink(missing_ok=True)
        store = Store(store.path)
        _clear(store)
        print(f"note: rebuilt the damaged evaluation store {store.path} ({str(exc).splitlines()[0][:120]})",
              file=sys.stderr)
    with store.write() as con:
        _attach(con, source.path)  # detached when this connection closes (not allowed inside the transaction)
        for table in ("documents", "units"):
            con.execute(f"INSERT INTO {table} SELECT * FROM src.{table}")
        execute(con, "INSERT INTO chunks SELECT * FROM src.chunks WHERE list_contains(?::VARCHAR[], chunker)",
                [list(chunkers)])
    with store.write() as con:
        ids = [row[0] for row in con.execute("SELECT document_id FROM documents WHERE status = 'loaded' "
                                             "ORDER BY document_id").fetchall()]
        documents = {doc_id: doc for doc_id in ids if (doc := read_document(con, doc_id)) is not None}
        for baseline in baselines:
            for document in documents.values():
                replace_chunks(con, document, [], baseline.name, "baseline", baseline.chunk_document(document))
    if not documents:
        raise StoreError(f"the index at {source.path} holds no loaded documents: run `right-rag index` first")
    return Workspace(store, documents, tuple(names))


def _clear(store: Store) -> None:
    """Empty the content tables. Three transactions follow (clear, copy, baselines) because DuckDB 1.5.5 rejects
    deleting and re-inserting one primary key in a transaction; a half-written store is only a cache.

    The secondary ``document_id`` indexes are dropped here: with them, DuckDB 1.5.5 fails to delete rows
    ("Failed to delete all rows from index") once a later transaction has written to the file.
    """
    with store.write() as con:
        con.execute("DROP INDEX IF EXISTS units_document")
        con.execute("DROP INDEX IF EXISTS chunks_document")
        for table in ("documents", "units", "chunks"):
            con.execute(f"DELETE FROM {table}")


def _attach(con: duckdb.DuckDBPyConnection, path: Path, timeout: float = 60.0) -> None:
    """Attach the project's store read-only, waiting while an indexing run holds its lock."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            con.execute(f"ATTACH '{_sql_string(path)}' AS src (READ_ONLY)")
            return
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise StoreError(f"cannot read {path} for evaluation: {exc}") from exc
            time.sleep(0.1)


def _sql_string(path: Path) -> str:
    return str(path).replace("'", "''")
