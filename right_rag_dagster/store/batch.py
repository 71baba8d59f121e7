"""Buffered writes: a batch of documents' rows applied in a few bulk statements inside one transaction.

DuckDB is a column store: thousands of single-row INSERT/DELETE statements cost seconds, a DataFrame insert of
the same rows milliseconds. The indexer plans each document's changes into a ``WriteBatch``; ``flush`` applies
them all (deletes, inserts, step state, rejections) in the caller's transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import duckdb

from .sql import INLINE_LIMIT, NotInlinable, execute, literal

LITERAL_ROWS = 1000
"""Batches up to this many rows are inserted as literals: 1,000 rows parse in ~40 ms, pandas imports in 300."""

_COLUMNS: dict[str, list[str]] = {}


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Column names of a table in order (cached per process; the schema only changes by migration)."""
    if table not in _COLUMNS:
        _COLUMNS[table] = [r[0] for r in execute(con,
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND table_catalog = current_database() AND table_schema = current_schema() ORDER BY ordinal_position",
            [table]).fetchall()]
    return _COLUMNS[table]


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """Insert many rows at once: as SQL literals when they are few (see ``sql``), else through a DataFrame
    (object dtype keeps None, lists and JSON text intact), which DuckDB reads faster than it parses text."""
    if not rows:
        return
    if len(rows) <= LITERAL_ROWS:
        try:
            values = ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
        except NotInlinable:
            pass
        else:
            if len(values) <= INLINE_LIMIT:
                con.execute(f"INSERT INTO {table} VALUES {values}")
                return
    import pandas as pd  # lazily: importing pandas costs ~0.3 s of a CLI run (see ``sql``)

    frame = pd.DataFrame(list(rows), columns=table_columns(con, table), dtype=object)
    con.register("_rows", frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _rows")
    finally:
        con.unregister("_rows")


def delete_where_in(con: duckdb.DuckDBPyConnection, table: str, column: str, values: Iterable[str]) -> None:
    """``DELETE FROM table WHERE column IN values`` in one statement."""
    values = sorted(set(values))
    if values:
        execute(con, f"DELETE FROM {table} WHERE list_contains(?::VARCHAR[], {column})", [values])


def documents_with_state(con: duckdb.DuckDBPyConnection, documents: Iterable[str]) -> set[str]:
    """Which of ``documents`` have any row in ``step_state`` (a small table: a few rows per document)."""
    documents = sorted(set(documents))
    if not documents:
        return set()
    return {row[0] for row in execute(con, "SELECT DISTINCT document_id FROM step_state "
                                           "WHERE list_contains(?::VARCHAR[], document_id)", [documents]).fetchall()}


class WriteBatch:
    """Pending writes of a batch of documents. Later operations on the same key win, as if run in order."""

    def __init__(self) -> None:
        self.loaded_states: dict[tuple[str, str], tuple[str, str | None, str | None]] = {}
        self.deleted: dict[str, set[str]] = defaultdict(set)
        self.chunk_deletes: set[tuple[str, str]] = set()
        self.rows: dict[str, list[Sequence[Any]]] = defaultdict(list)
        self.states: dict[tuple[str, str], Sequence[Any] | None] = {}
        self.rejections: dict[str, Sequence[Any] | None] = {}
        self.deferred: list[tuple[str, str, Callable[..., Any], tuple[Any, ...]]] = []
        self.index_rows: dict[str, dict[str, list[Any]]] = {}  # chunker -> document -> rows for a search index
        self._stored: set[str] | None = None  # documents of the batch that have step state (``stored``)

    def replace_rows(self, table: str, document_id: str, rows: Iterable[Sequence[Any]]) -> None:
        """Replace every row of ``table`` belonging to the document."""
        self.deleted[table].add(document_id)
        self.rows[table] = [r for r in self.rows[table] if _document_of(table, r) != document_id]
        self.rows[table].extend(rows)

    def delete_rows(self, table: str, document_id: str) -> None:
        self.replace_rows(table, document_id, [])

    def replace_chunks(self, document_id: str, chunker: str, rows: Iterable[Sequence[Any]]) -> None:
        self.chunk_deletes.add((document_id, chunker))
        self.rows["chunks"] = [r for r in self.rows["chunks"] if (r[2], r[0]) != (document_id, chunker)]
        self.rows["chunks"].extend(rows)

    def append(self, table: str, rows: Iterable[Sequence[Any]]) -> None:
        self.rows[table].extend(rows)

    def load_states(self, states: dict[tuple[str, str], tuple[str, str | None, str | None]]) -> None:
        """Start from the stored step state of a batch's documents (``content.step_states``)."""
        self.loaded_states.update(states)

    def get_state(self, step: str, document_id: str) -> tuple[str, str | None, str | None] | None:
        """(cache_key, data_version, owner) as it will be after this batch's pending writes."""
        key = (step, document_id)
        if key in self.states:
            row = self.states[key]
            return None if row is None else (row[2], row[3], row[4])
        return self.loaded_states.get(key)

    def set_state(self, step: str, document_id: str, row: Sequence[Any] | None) -> None:
        self.states[(step, document_id)] = row

    def set_rejection(self, document_id: str, row: Sequence[Any]) -> None:
        self.rejections[document_id] = row

    def clear_rejection(self, document_id: str) -> None:
        self.rejections[document_id] = None

    def after_commit(self, plugin: str, document_id: str, call: Callable[..., Any], *args: Any) -> None:
        """Run ``call(*args)`` once the batch is committed (savers write files: never before the store has the
        rows they describe). A failure there is reported, not raised: the store is already right."""
        self.deferred.append((plugin, document_id, call, args))

    def stored(self, con: duckdb.DuckDBPyConnection) -> set[str]:
        """The batch's documents that have step state in the store, read once in the caller's transaction: only
        they can have rows to replace, since every write of a document records its state in the same
        transaction and removing one deletes both. A first index then issues no deletes: each scanned a
        content table's ``document_id`` (chunks: every chunk of the store) per batch, filling DuckDB's budget
        with cached blocks as the store grew."""
        if self._stored is None:
            documents = {d for ids in self.deleted.values() for d in ids} | {d for d, _ in self.chunk_deletes}
            documents |= {d for _, d in self.states} | set(self.rejections)
            documents |= {d for rows in self.index_rows.values() for d in rows}
            self._stored = documents_with_state(con, documents)
        return self._stored

    def flush(self, con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, Callable[..., Any], tuple[Any, ...]]]:
        """Apply everything in the caller's transaction and empty the batch; returns the calls to make after
        the commit (see ``run_deferred``). Rows are deleted only for documents the store has (``stored``)."""
        stored = self.stored(con)
        for table, documents in self.deleted.items():
            delete_where_in(con, table, "document_id", documents & stored)
        # One statement per chunker, not per document: on a DuckLake each DELETE scans the table's data files
        # (204 of them took 3.7 s of a 200-document writer's 16 s of writes).
        by_chunker: dict[str, set[str]] = defaultdict(set)
        for document_id, chunker in self.chunk_deletes:
            if document_id in stored:
                by_chunker[chunker].add(document_id)
        for chunker, documents in sorted(by_chunker.items()):
            execute(con, "DELETE FROM chunks WHERE chunker = ? AND list_contains(?::VARCHAR[], document_id)",
                    [chunker, sorted(documents)])
        for table, rows in self.rows.items():
            insert_rows(con, table, rows)
        if self.states:
            delete_where_in(con, "step_state", "step || chr(31) || document_id",
                            [f"{s}\x1f{d}" for s, d in self.states if d in stored])
            insert_rows(con, "step_state", [row for row in self.states.values() if row is not None])
        delete_where_in(con, "rejections", "document_id", set(self.rejections) & stored)
        insert_rows(con, "rejections", [row for row in self.rejections.values() if row is not None])
        deferred = self.deferred
        self.__init__()  # type: ignore[misc]
        return deferred


def run_deferred(deferred: Sequence[tuple[str, str, Callable[..., Any], tuple[Any, ...]]]) -> list[tuple[str, str]]:
    """Make the calls a committed batch deferred; returns (document id, message) per call that failed."""
    problems = []
    for plugin, document_id, call, args in deferred:
        try:
            call(*args)
        except Exception as exc:
            problems.append((document_id, f"saver {plugin!r} failed on {document_id}: {type(exc).__name__}: {exc}"))
    return problems


_DOCUMENT_COLUMN = {"documents": 0, "document_texts": 0, "files": 0, "units": 1, "coverage": 0, "rejections": 0,
                    "materializations": 2, "chunks": 2, "step_state": 1}


def _document_of(table: str, row: Sequence[Any]) -> Any:
    return row[_DOCUMENT_COLUMN[table]]
