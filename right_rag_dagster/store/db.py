"""Connections to the DuckDB file: short write transactions with retry, read-only readers, migrations.

DuckDB lets one process write at a time and refuses readers from other processes while it does. Every writer
here holds the file only for one short transaction and every open retries on a lock error with backoff, so
concurrent runs, the multiprocess executor and ``right-rag query`` wait their turn instead of failing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from ..errors import ConfigError, SchemaVersionError, StoreError, StoreMemoryError
from .migrations import SCHEMA_VERSION, load_migrations
from .sql import execute, literal

logger = logging.getLogger("right_rag_dagster")

DEFAULT_LOCK_TIMEOUT = 120.0
COMPACT_FREE_SHARE = 0.2
COMPACT_MIN_BYTES = 16 * 2**20
"""A store is compacted at the end of an index run when it is at least this large and this much of it is free."""
COMPACT_MEMORY_MB = 192
"""Copying a table keeps row groups (122,880 rows: of chunks, ~100 MB of text) in memory: the default 128 MB budget
failed on a 790 MB store (7,100 files), 160 MB was enough; compaction runs once, at the end of a run."""
DEFAULT_MEMORY_LIMIT = "128MB"
"""DuckDB's buffer pool; it spills to disk beyond it. Uncapped, DuckDB may take 80% of RAM: the 710-document
index peaked at 741 MB RSS, 615 MB with 256 MB, 490 MB with 128 MB. Raise it with RIGHT_RAG_DUCKDB_MEMORY_LIMIT
for much larger corpora (an out-of-memory error says so)."""
MEMORY_HINT = ("DuckDB ran out of its memory budget ({limit}); set RIGHT_RAG_DUCKDB_MEMORY_LIMIT higher "
               "(e.g. RIGHT_RAG_DUCKDB_MEMORY_LIMIT=1GB) to allow it more: {error}")


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(s in text for s in ("could not set lock", "conflicting lock", "database is locked",
                                    "being used by another process", "write-write conflict",
                                    "unique file handle conflict"))


def memory_limit() -> str:
    """DuckDB's memory budget: RIGHT_RAG_DUCKDB_MEMORY_LIMIT (e.g. "512MB") or the default; it reaches SQL only
    once checked to be a size."""
    value = os.environ.get("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", DEFAULT_MEMORY_LIMIT)
    try:
        megabytes(value)
    except ConfigError:
        raise ConfigError(f"RIGHT_RAG_DUCKDB_MEMORY_LIMIT={value!r} is not a memory size; use e.g. 512MB or 2GB") from None
    return value.strip()


_UNITS = {"b": 1 / 2**20, "kb": 1000 / 2**20, "mb": 1e6 / 2**20, "gb": 1e9 / 2**20, "tb": 1e12 / 2**20,
          "kib": 1 / 1024, "mib": 1.0, "gib": 1024.0, "tib": 1024.0**2}


def megabytes(size: str) -> float:
    """A memory size as DuckDB reads it ("128MB", "2GiB") in MiB."""
    match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$", size, re.I)
    if not match or match.group(2).lower() not in _UNITS:
        raise ConfigError(f"{size!r} is not a memory size; use e.g. 512MB or 2GB")
    return float(match.group(1)) * _UNITS[match.group(2).lower()]


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:  # the failed statement may have ended the transaction already
        pass


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Store:
    """The project's DuckDB file. Use ``write()`` for a transaction and ``read()`` for a read-only view."""

    def __init__(self, path: str | Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self._migrated = False

    def _open(self, read_only: bool, min_memory_mb: float = 0) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.005
        configured = memory_limit()
        limit = literal(configured if megabytes(configured) >= min_memory_mb else f"{int(min_memory_mb)}MiB")
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=read_only)
                con.execute(f"SET memory_limit = {limit}")
                # DuckDB's allocator keeps freed memory for reuse up to 128 MB by default; a store opened for
                # many short transactions then holds that much for nothing between them.
                con.execute("SET allocator_flush_threshold = '8MB'")
                return con
            except duckdb.Error as exc:
                if not _is_lock_error(exc) or time.monotonic() > deadline:
                    if _is_lock_error(exc):
                        raise StoreError(f"{self.path} stayed locked by another process for "
                                         f"{self.lock_timeout:.0f}s: {exc}") from exc
                    raise StoreError(f"cannot open {self.path}: {exc}") from exc
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.25)

    @contextmanager
    def write(self, checkpoint: bool = False, min_memory_mb: float = 0) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction on a fresh connection; committed on success, rolled back on any error.

        With ``checkpoint``, the write-ahead log is folded into the file right after the commit, on the same
        connection (what ``checkpoint()`` does, without opening the file once more). ``min_memory_mb`` raises
        DuckDB's budget for this one transaction. Running out of memory raises ``StoreMemoryError``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = self._open(read_only=False, min_memory_mb=min_memory_mb)
        try:
            # Checkpointing rewrites the file; doing it on every short transaction's close cost seconds per
            # index run. The WAL is folded in by ``checkpoint()`` at the end of a run (or by DuckDB past 64 MB).
            con.execute("SET enable_progress_bar = false")
            con.execute("PRAGMA disable_checkpoint_on_shutdown")
            con.execute("SET checkpoint_threshold = '64MB'")
            # Writers insert in bulk and never rely on the order rows come back in without ORDER BY.
            con.execute("SET preserve_insertion_order = false")
            con.execute("SET threads = 1")  # short transactions of bulk inserts; a thread each would keep arenas
            if not self._migrated:
                self._migrate(con)
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
                con.execute("COMMIT")
            except duckdb.OutOfMemoryException as exc:
                _rollback(con)
                limit = max(megabytes(memory_limit()), min_memory_mb)
                raise StoreMemoryError(MEMORY_HINT.format(limit=f"{limit:.0f} MiB", error=exc)) from exc
            except BaseException:
                _rollback(con)
                raise
            if checkpoint:
                con.execute("CHECKPOINT")
        finally:
            con.close()

    @contextmanager
    def read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection (retrying while a writer holds the file)."""
        if not self.path.exists():
            raise StoreError(f"no index at {self.path}: run `right-rag index` first")
        con = self._open(read_only=True)
        try:
            con.execute("SET enable_progress_bar = false")
            version = self._version(con)
            if version != SCHEMA_VERSION:
                raise SchemaVersionError(f"{self.path} is at schema version {version}, this right-rag expects "
                                 f"{SCHEMA_VERSION}: run `right-rag index` to migrate it")
            yield con
        finally:
            con.close()

    def checkpoint(self, min_wal_bytes: int = 0) -> None:
        """Fold the write-ahead log into the database file (end of an index run), so readers open it fast.

        With ``min_wal_bytes``, a smaller log is left alone: replaying it costs readers less than the
        checkpoint's rewrite of the file costs this run. (A log holding HNSW changes never waits for this:
        ``build_search_index`` checkpoints it on its own connection, with ``vss`` loaded.)"""
        if not self.path.exists() or self.wal_bytes() < max(min_wal_bytes, 1):
            return
        con = self._open(read_only=False)
        try:
            con.execute("CHECKPOINT")
        finally:
            con.close()

    def compact(self, min_free_share: float = COMPACT_FREE_SHARE, min_bytes: int = COMPACT_MIN_BYTES
                ) -> tuple[int, int] | None:
        """Copy the store into a fresh file and swap it in when more than ``min_free_share`` of its blocks are
        free (DuckDB reuses free blocks but never returns them: a large re-index leaves the file mostly empty).
        The old file stays locked for writing until the swap; readers that have it open keep reading it.
        Returns (bytes before, bytes after), or None when there was nothing worth reclaiming."""
        if not self.exists() or self.path.stat().st_size < min_bytes:
            return None
        fresh = self.path.with_name(self.path.name + ".compacting")
        con = self._open(read_only=False, min_memory_mb=COMPACT_MEMORY_MB)
        try:
            return self._copy_and_swap(con, fresh, min_free_share)
        except duckdb.Error as exc:  # only space is lost: the store as it was stays in place
            logger.warning(f"store not compacted ({type(exc).__name__}: {str(exc).splitlines()[0]}); its free blocks "
                           "are reused by later writes. Raise RIGHT_RAG_DUCKDB_MEMORY_LIMIT to let it compact.")
            with contextlib.suppress(duckdb.Error):
                con.execute("DETACH DATABASE IF EXISTS compacted")
            fresh.unlink(missing_ok=True)
            return None
        finally:
            con.close()

    def _copy_and_swap(self, con: duckdb.DuckDBPyConnection, fresh: Path, min_free_share: float
                       ) -> tuple[int, int] | None:
        con.execute("SET enable_progress_bar = false")
        con.execute("SET threads = 1")  # one row group in memory at a time
        con.execute("CHECKPOINT")
        name, _, block_size, total, _, free = con.execute("PRAGMA database_size").fetchone()[:6]
        if total == 0 or free < min_free_share * total:
            return None
        before = self.path.stat().st_size
        fresh.unlink(missing_ok=True)
        if con.execute("SELECT count(*) FROM duckdb_indexes() WHERE sql ILIKE '%USING HNSW%'").fetchone()[0]:
            from .extensions import load_extension

            load_extension(con, "vss")
            con.execute("SET hnsw_enable_experimental_persistence = true")
        con.execute(f"ATTACH {literal(str(fresh))} AS compacted")
        con.execute(f"COPY FROM DATABASE {name} TO compacted")
        con.execute("DETACH compacted")
        os.replace(fresh, self.path)
        return before, self.path.stat().st_size

    def wal_bytes(self) -> int:
        """Size of the write-ahead log (0 when there is none)."""
        try:
            return self.path.with_name(self.path.name + ".wal").stat().st_size
        except FileNotFoundError:
            return 0

    def exists(self) -> bool:
        return self.path.exists()

    def ensure(self) -> None:
        """Create the file and apply pending migrations."""
        with self.write():
            pass

    @staticmethod
    def _version(con: duckdb.DuckDBPyConnection) -> int:
        found = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
        ).fetchone()
        if not found or not found[0]:
            return 0
        row = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self, con: duckdb.DuckDBPyConnection) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)")
        current = self._version(con)
        if current > SCHEMA_VERSION:
            raise StoreError(f"{self.path} is at schema version {current}, newer than this right-rag "
                             f"({SCHEMA_VERSION}); upgrade right-rag-dagster")
        for migration in load_migrations():
            if migration.version <= current:
                continue
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute(migration.sql)
                execute(con, "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                        [migration.version, migration.name, utcnow()])
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        self._migrated = True
