"""Connections to the store: short write transactions with retry, read-only readers, migrations.

The store is an embedded DuckDB file by default, or a DuckLake (``lake``: catalog in PostgreSQL, data files on
a shared path) chosen in right_rag.toml; the same SQL runs on both (see ``lake``).

DuckDB lets one process write at a time and refuses readers from other processes while it does. Every writer
here holds the file only for one short transaction and every open retries on a lock error with backoff, so
concurrent runs, the multiprocess executor and ``right-rag query`` wait their turn instead of failing. A run's
short successive steps can share one open file (``Store.session``): opening a DuckDB file costs ~35 ms.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import random
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

import duckdb

from ..errors import ConfigError, SchemaVersionError, StoreDiskFullError, StoreError, StoreMemoryError
from . import lake as ducklake
from .creation import ensure_file, interrupted_creation
from .extensions import is_loaded
from .lake import StoreConflictError
from .migrations import SCHEMA_VERSION, load_migrations
from .settings import LakeSettings, mask_secrets
from .sql import execute, literal

logger = logging.getLogger("right_rag_dagster")

DEFAULT_LOCK_TIMEOUT = 120.0
CHECKPOINT_MEMORY_MB = 512
"""DuckDB's budget for a second try at folding the write-ahead log into the file, when the first, under the
transaction's own budget, failed: a checkpoint rewrites the row groups that lost rows, and under 128 MB one failed
fatally after re-indexing 710 of 7,100 files. Given up front, DuckDB filled it with cached blocks: the 10x index
peaked at 2.1x the 1x memory."""
FOLD_MEMORY_MB = 64
"""DuckDB's budget for folding the log into the file between a run's batches (``_fold_log``; the configured budget
when lower). The fold writes the log's rows and the last row groups, a row group at a time, and needs no cache:
under the 128 MB budget, folds set the peak of a 7,100-file index (main process 568 MB, 521 MB at 64 MB; no fold
needed the larger retry budget)."""
ROW_GROUP_ROWS = 16384
"""Rows per row group of every table, instead of DuckDB's 122,880 (``ATTACH ... (ROW_GROUP_SIZE n)``, given at every
open: DuckDB does not keep it in the file). A checkpoint rewrites the last row group of every table a write appended
to, whole: with 122,880 rows, that was up to ~120 MB of chunk text per fold once the store had that many chunks,
so a large store's folds took more memory than a small one's (10x corpus: the main process peaked at 622 MB against
~410 MB at 1x; the file grew by ~100 MB at each fold). At 16,384 rows (~16 MB of text, pieces of 1,024 characters
for documents' text) a fold rewrites at most that, whatever the store's size."""
CHECKPOINT_WAL_BYTES = 16 * 2**20
"""A write that leaves a longer log folds it into the file right after its commit (DuckDB's own
``checkpoint_threshold`` is off: its checkpoint inside the commit cannot be tried again with more memory). Every
open replays the log, at ~3 MB of memory and ~5 ms of CPU per MB of it: on a full index of the scale corpus, 16 MB
spent 2.2 s of CPU opening and folding, 64 MB 4.1 s (opens at 28 MB of log on average)."""
SCAN_MEMORY_MB = 32
"""DuckDB's budget for an index run's scan-only reads (``Store.read(scan=True)``)."""
SESSION_MEMORY_MB = 64
"""DuckDB's budget in a session (``Store.session``: a run of a few documents), unless a write asks for more
(``min_memory_mb``: a batch's budget grows with what it writes) or RIGHT_RAG_DUCKDB_MEMORY_LIMIT is set. What a
run of one changed file reads (its plan, the index refresh's postings and terms) stays cached up to the budget, and
a larger store has more to cache: a one-file run over the 10x corpus peaked at 309-319 MB against 228-230 MB at 1x
(1.37x); at 64 MB, and with the log's fold letting go of the cache first (``_fold_log``), 270 MB against 226-232 MB
(1.18x) (docs/performance.md, twenty-first round)."""
DEFAULT_MEMORY_LIMIT = "128MB"
"""DuckDB's buffer pool; it spills to disk beyond it. Uncapped, DuckDB may take 80% of RAM: the 710-document
index peaked at 741 MB RSS, 615 MB with 256 MB, 490 MB with 128 MB. Raise it with RIGHT_RAG_DUCKDB_MEMORY_LIMIT
for much larger corpora (an out-of-memory error says so)."""
MEMORY_LIMIT_VARIABLE = "RIGHT_RAG_DUCKDB_MEMORY_LIMIT"
MEMORY_HINT = ("DuckDB ran out of its memory budget ({limit}); set RIGHT_RAG_DUCKDB_MEMORY_LIMIT higher "
               "(e.g. RIGHT_RAG_DUCKDB_MEMORY_LIMIT=1GB) to allow it more: {error}")


T = TypeVar("T")

_sessions: dict[Path, duckdb.DuckDBPyConnection | None] = {}
"""Store files this process holds open for a moment (``Store.session``), by resolved path: every ``Store`` of
that file in the process then reads and writes through cursors of it (DuckDB refuses a second, read-only open
of a file the same process has open for writing). None: the session let go of the file
(``Store.release_session``) and takes it again at its next transaction."""
_sessions_lock = threading.Lock()
_session_versions: dict[Path, int] = {}
"""Schema version of each file held in a session, read once: no other process can migrate it meanwhile."""
_lakes: dict[LakeSettings, duckdb.DuckDBPyConnection] = {}
"""The in-memory DuckDB with each lake attached, once per process and shared by every ``Store`` of that lake:
loading the extensions and attaching the catalog cost 0.3-1.5 s, and a run makes a ``Store`` per asset and
check (a writer process of ``--writers 2``, one per range run, attached the lake a few times per range). Each
transaction takes a cursor of it, its own connection."""
_lakes_lock = threading.Lock()
_lakes_current: set[LakeSettings] = set()
"""Lakes this process found, or migrated, at ``SCHEMA_VERSION``: their version is not read again."""


def connect_file(path: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection whose default database is the DuckDB file ``path``, attached with ``ROW_GROUP_ROWS``.

    The file is attached to an in-memory DuckDB named after it (and the mode), which every connection of this
    process to the file shares, as ``duckdb.connect(path)`` shares one instance per file: the file stays open (and
    locked) while any of them is, and is let go when the last one closes. Its catalog is named as
    ``duckdb.connect`` names it, after the file's stem."""
    path = path.resolve()
    mode = "ro" if read_only else "rw"
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:16]
    con = duckdb.connect(f":memory:right_rag_{mode}_{digest}")
    try:
        alias = _catalog_name(path)
        options = f"{'READ_ONLY, ' if read_only else ''}ROW_GROUP_SIZE {ROW_GROUP_ROWS}"
        con.execute(f"ATTACH IF NOT EXISTS {literal(str(path))} AS {alias} ({options})")
        con.execute(f"SET temp_directory = {literal(str(path) + '.tmp')}")  # where a file database spills
        return use_file(con, path)
    except BaseException:
        con.close()
        raise


def use_file(con: duckdb.DuckDBPyConnection, path: Path) -> duckdb.DuckDBPyConnection:
    """``con`` (or a cursor of a ``connect_file`` connection) with the file's catalog as its default."""
    con.execute(f"USE {_catalog_name(path.resolve())}")
    return con


def _catalog_name(path: Path) -> str:
    stem = re.sub(r"\W", "_", path.stem) or "store"
    if stem.lower() in {"memory", "system", "temp", "main"} or stem[0].isdigit():
        stem = f"store_{stem}"
    return f'"{stem}"'


def is_out_of_memory(exc: BaseException) -> bool:
    """DuckDB ran out of its budget: an ``OutOfMemoryException``, or a commit or checkpoint that could not get a
    block (DuckDB raises those as transaction or I/O errors: "Failed to commit: could not allocate block")."""
    text = str(exc)
    return isinstance(exc, duckdb.OutOfMemoryException) or "could not allocate" in text or "failed to pin block" in text


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(s in text for s in ("could not set lock", "conflicting lock", "database is locked",
                                    "being used by another process", "write-write conflict",
                                    "unique file handle conflict"))


def memory_limit() -> str:
    """DuckDB's memory budget: RIGHT_RAG_DUCKDB_MEMORY_LIMIT (e.g. "512MB") or the default; it reaches SQL only
    once checked to be a size."""
    value = os.environ.get(MEMORY_LIMIT_VARIABLE, DEFAULT_MEMORY_LIMIT)
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


def _set_memory_limit(con: duckdb.DuckDBPyConnection, limit: str) -> None:
    """Set DuckDB's budget for what ``con`` does next. Lowering it fails when the instance (shared by the process's
    connections to the file) holds more than the new limit in blocks it cannot let go of, e.g. after a transaction
    that needed ``CHECKPOINT_MEMORY_MB``: the instance then keeps the budget it has."""
    try:
        con.execute(f"SET memory_limit = {limit}")
    except duckdb.Error as exc:
        if not is_out_of_memory(exc):  # "Out of Memory Error: Failed to change memory limit ..."
            raise
        logger.debug("DuckDB keeps its larger memory budget: %s", str(exc).splitlines()[0])


_NO_ROOM = ("No space left on device", "Disk quota exceeded", "File too large")


def disk_full(path: Path, exc: BaseException) -> StoreDiskFullError | None:
    """The error to raise when ``exc`` is the file system refusing to grow the store (ENOSPC, EDQUOT, EFBIG), which
    DuckDB reports as an I/O or transaction error naming the file."""
    if not any(reason in str(exc) for reason in _NO_ROOM):
        return None
    try:
        free = f"{shutil.disk_usage(path.parent).free / 2**20:.1f} MB free there"
    except OSError:
        free = "its disk"
    return StoreDiskFullError(f"no room to write the store {path} ({free}): free some space, or point store_path in "
                              f"right_rag.toml at a larger disk, then run `right-rag index` again; nothing indexed "
                              f"before was lost ({str(exc).splitlines()[0]})")


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Store:
    """The project's store. Use ``write()`` for a transaction and ``read()`` for a read-only view.

    ``path`` is the DuckDB file; with ``lake`` the store is that DuckLake instead, and ``path`` only names
    where the index lock lives (``lock.IndexLock``)."""

    def __init__(self, path: str | Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
                 lake: LakeSettings | None = None) -> None:
        self.path = Path(path)
        self.lock_timeout = lock_timeout
        self.lake = lake
        self.conflicts = 0  # transactions run again after losing their commit to another writer
        current = lake is not None and lake in _lakes_current
        self._migrated = current
        self._lake_checked = current  # the lake's schema version was found current

    @classmethod
    def for_project(cls, project: object) -> Store:
        """The store ``right_rag.toml`` configures: its ``store_path`` file, or its ``[right-rag.store]`` lake."""
        return cls(project.store_path, lake=getattr(project, "lake", None))  # type: ignore[attr-defined]

    def describe(self) -> str:
        """Where the store is, for messages."""
        return f"DuckLake {self.lake.describe()}" if self.lake else str(self.path)

    def _open(self, read_only: bool, min_memory_mb: float = 0, max_memory_mb: float = 0) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.005
        key = self.path.resolve() if _sessions and not self.lake else None
        if key is not None and key in _sessions and MEMORY_LIMIT_VARIABLE not in os.environ:
            max_memory_mb = min(max_memory_mb or SESSION_MEMORY_MB, SESSION_MEMORY_MB)
        configured = memory_limit()
        if max_memory_mb and megabytes(configured) > max_memory_mb:
            configured = f"{int(max_memory_mb)}MiB"
        limit = literal(configured if megabytes(configured) >= min_memory_mb else f"{int(min_memory_mb)}MiB")
        while True:
            try:
                held = self._session_connection(key) if key is not None else None
                if held is not None:
                    con = use_file(held.cursor(), self.path)
                else:
                    con = self._lake_cursor() if self.lake else connect_file(self.path, read_only=read_only)
                _set_memory_limit(con, limit)
                # DuckDB's allocator keeps freed memory for reuse up to 128 MB by default; a store opened for
                # many short transactions then holds that much for nothing between them.
                con.execute("SET allocator_flush_threshold = '8MB'")
                return con
            except duckdb.Error as exc:
                if self.lake:
                    raise StoreError(f"cannot open the store's DuckLake ({self.lake.describe()}): "
                                     f"{mask_secrets(str(exc))}") from None
                if not _is_lock_error(exc) or time.monotonic() > deadline:
                    if _is_lock_error(exc):
                        raise StoreError(f"{self.path} stayed locked by another process for "
                                         f"{self.lock_timeout:.0f}s: {exc}") from exc
                    if "not a valid DuckDB database file" in str(exc):
                        raise StoreError(f"{self.path} is not a DuckDB database (damaged, or another program's "
                                         "file): move it aside, then run `right-rag index` to build the index "
                                         "again from the documents") from exc
                    raise StoreError(f"cannot open {self.path}: {exc}") from exc
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.25)

    @staticmethod
    def _session_connection(key: Path) -> duckdb.DuckDBPyConnection | None:
        """The connection of this process's session of the file, opened again if the session let go of it."""
        with _sessions_lock:
            if key not in _sessions:
                return None
            con = _sessions[key]
            if con is None:
                con = _sessions[key] = connect_file(key)
            return con

    def in_session(self) -> bool:
        """Whether this process holds a session of the file (``session``)."""
        return not self.lake and bool(_sessions) and self.path.resolve() in _sessions

    def release_session(self) -> None:
        """Between transactions of a session, before work that does not touch the store (workers parsing): let
        other processes open the file meanwhile. The session's next transaction opens it again."""
        key = self.path.resolve()
        with _sessions_lock:
            con = _sessions.get(key)
            if con is None:
                return
            _sessions[key] = None
            _session_versions.pop(key, None)  # another process may migrate the file meanwhile
        con.close()

    @contextmanager
    def session(self) -> Iterator[None]:
        """Hold the store file open until the block ends: this process's ``read()``s and ``write()``s (of any
        ``Store`` of the file) take cursors of it instead of opening the file each time. Other processes wait
        meanwhile, so a session spans a run's short steps (planning, the index refresh), never parsing. A
        DuckLake, attached once per process anyway, and a store not created yet are left as they are."""
        key = self.path.resolve()
        if self.lake or not self.exists() or key in _sessions:
            yield
            return
        con = self._open(read_only=False)
        with _sessions_lock:
            _sessions[key] = con
        try:
            yield
        finally:
            with _sessions_lock:
                held = _sessions.pop(key, None)
                _session_versions.pop(key, None)
            if held is not None:
                held.close()

    @contextmanager
    def write(self, checkpoint: bool = False, min_memory_mb: float = 0,
              fold: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction on a fresh connection; committed on success, rolled back on any error.

        With ``checkpoint``, the write-ahead log is folded into the file right after the commit, on the same
        connection (what ``checkpoint()`` does, without opening the file once more). Else a log longer than
        ``CHECKPOINT_WAL_BYTES`` is folded after the commit on a fresh connection, unless ``fold`` is False (the
        caller folds it later with ``checkpoint``, once it let go of what it wrote). ``min_memory_mb`` raises
        DuckDB's budget for this one transaction. Running out of memory raises ``StoreMemoryError``; on a
        DuckLake, losing a commit to another writer raises ``StoreConflictError`` (run the transaction again:
        ``retry_conflicts``)."""
        if not self.lake:
            ensure_file(self.path)
        con = self._open(read_only=False, min_memory_mb=min_memory_mb)
        try:
            # Checkpointing rewrites the file; doing it on every short transaction's close cost seconds per
            # index run. The WAL is folded in by ``checkpoint()`` at the end of a run, and after a commit that
            # leaves it longer than CHECKPOINT_WAL_BYTES (``_fold_log``).
            con.execute("SET enable_progress_bar = false")
            con.execute("PRAGMA disable_checkpoint_on_shutdown")
            con.execute("SET checkpoint_threshold = '1TB'")  # folded after the commit instead (CHECKPOINT_WAL_BYTES)
            # Writers insert in bulk and never rely on the order rows come back in without ORDER BY.
            con.execute("SET preserve_insertion_order = false")
            con.execute("SET threads = 1")  # short transactions of bulk inserts; a thread each would keep arenas
            if not self._migrated:
                self._migrate(con)
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
                con.execute("COMMIT")
            except duckdb.Error as exc:
                _rollback(con)
                if is_out_of_memory(exc):
                    limit = max(megabytes(memory_limit()), min_memory_mb)
                    raise StoreMemoryError(MEMORY_HINT.format(limit=f"{limit:.0f} MiB", error=exc)) from exc
                if (full := disk_full(self.path, exc)) is not None:
                    raise full from exc
                if self.lake and ducklake.is_conflict(exc):
                    raise StoreConflictError(f"another writer changed the same rows first: {exc}") from exc
                raise
            except BaseException:
                _rollback(con)
                raise
            if not self.lake and (checkpoint or (fold and self.wal_bytes() > CHECKPOINT_WAL_BYTES)):
                # A log holding HNSW changes is replayed only with vss loaded: keep that connection.
                if not checkpoint and not self.in_session() and not is_loaded(con, "vss"):
                    con = self._fresh(con)
                try:
                    con = self._fold_log(con)
                except duckdb.Error as exc:  # committed: the log keeps it, and the next open replays it
                    if (full := disk_full(self.path, exc)) is not None:
                        raise full from exc
                    raise
        finally:
            con.close()

    def _fresh(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """Close ``con`` and open the file anew, for a fold that did not ask for the transaction's connection: the
        transaction's scans and inserts left DuckDB's budget full of cached blocks, which the checkpoint then
        worked beside (+100-120 MB at 10x). The open replays the log (~3 MB of memory per MB) and costs ~30 ms."""
        con.close()
        return self._open(read_only=False)

    def _fold_log(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """CHECKPOINT on ``con`` under its budget; if that fails, once more on a fresh connection with
        ``CHECKPOINT_MEMORY_MB``. A failed checkpoint loses nothing: the log holds every committed write, and
        opening the file again replays it. Returns the connection to close.

        In a session the connection is the file's only one and a fatal error would end it: there the checkpoint
        gets ``CHECKPOINT_MEMORY_MB`` at once."""
        if self.in_session():
            # lowered first, DuckDB lets go of the blocks the run's reads cached: the checkpoint works without them
            _set_memory_limit(con, f"'{min(FOLD_MEMORY_MB, megabytes(memory_limit())):.0f}MiB'")
            con.execute(f"SET memory_limit = '{max(CHECKPOINT_MEMORY_MB, megabytes(memory_limit())):.0f}MiB'")
            con.execute("CHECKPOINT")
            return con
        try:
            con.execute("SET threads = 1")  # one row group in memory at a time
            # a budget DuckDB cannot lower (blocks it holds) stays: no cause to give up this connection
            _set_memory_limit(con, f"'{min(FOLD_MEMORY_MB, megabytes(memory_limit())):.0f}MiB'")
            con.execute("CHECKPOINT")
            return con
        except duckdb.Error as exc:
            logger.warning("folding the write-ahead log of %s into the file failed under DuckDB's budget (%s); "
                           "trying again with %d MiB", self.path, str(exc).splitlines()[0], CHECKPOINT_MEMORY_MB)
        with contextlib.suppress(duckdb.Error):
            con.close()  # a fatal error invalidated it: the next open starts a new database instance
        con = self._open(read_only=False, min_memory_mb=CHECKPOINT_MEMORY_MB)
        try:
            con.execute("SET threads = 1")
            con.execute("CHECKPOINT")
        except duckdb.Error as exc:
            with contextlib.suppress(duckdb.Error):
                con.close()
            if is_out_of_memory(exc):
                raise StoreMemoryError(MEMORY_HINT.format(limit=f"{CHECKPOINT_MEMORY_MB} MiB", error=exc)) from exc
            raise
        return con

    def _lake_cursor(self) -> duckdb.DuckDBPyConnection:
        """A new connection to this process's DuckDB with the lake attached (``_lakes``: attached once per
        process), for one transaction."""
        assert self.lake is not None
        with _lakes_lock:
            attached = _lakes.get(self.lake)
            if attached is None:
                try:
                    attached = _lakes[self.lake] = ducklake.connect(self.lake)
                except duckdb.Error as exc:
                    raise StoreError(f"cannot open the store's DuckLake ({self.lake.describe()}): "
                                     f"{mask_secrets(str(exc))}") from None
            cursor = attached.cursor()
        cursor.execute(f"USE {ducklake.LAKE_NAME}")
        return cursor

    def close(self) -> None:
        """Detach the lake from this process, for every ``Store`` of it (the embedded file is never held
        between transactions); the next transaction attaches it again."""
        with _lakes_lock:
            attached = _lakes.pop(self.lake, None) if self.lake is not None else None
        if attached is not None:
            attached.close()

    @contextmanager
    def read(self, scan: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection (retrying while a writer holds the file). ``scan``: the reads only scan and count
        ids, hashes and states (an index run's plans, fingerprints and report; never document or chunk texts), so
        DuckDB's budget is at most ``SCAN_MEMORY_MB``: what it caches of the blocks it reads once is let go (a
        one-file change of a 7,100-file store kept up to DuckDB's whole budget of them)."""
        if not self.exists():
            raise StoreError(f"no index at {self.describe()}: run `right-rag index` first")
        con = self._open(read_only=True, max_memory_mb=SCAN_MEMORY_MB if scan else 0)
        try:
            con.execute("SET enable_progress_bar = false")
            key = self.path.resolve() if _sessions and not self.lake else None
            if self._lake_checked or (key is not None and _session_versions.get(key) == SCHEMA_VERSION):
                version = SCHEMA_VERSION  # checked once per DuckLake, and once per session of a file it holds
            else:
                version = self._version(con)
            self._lake_checked = bool(self.lake) and version == SCHEMA_VERSION
            if self._lake_checked:
                _lakes_current.add(self.lake)
            if key is not None and key in _sessions:
                _session_versions[key] = version
            if version != SCHEMA_VERSION:
                raise SchemaVersionError(f"{self.describe()} is at schema version {version}, this right-rag expects "
                                 f"{SCHEMA_VERSION}: run `right-rag index` to migrate it")
            yield con
        finally:
            con.close()

    def checkpoint(self, min_wal_bytes: int = 0) -> None:
        """Fold the write-ahead log into the database file (end of an index run), so readers open it fast.

        With ``min_wal_bytes``, a smaller log is left alone: replaying it costs readers less than the
        checkpoint's rewrite of the file costs this run. (A log holding HNSW changes never waits for this:
        ``build_search_index`` checkpoints it on its own connection, with ``vss`` loaded.) A DuckLake commits
        straight to its catalog and files: nothing to fold."""
        if self.lake or not self.path.exists() or self.wal_bytes() < max(min_wal_bytes, 1):
            return
        con = self._open(read_only=False)
        try:
            con = self._fold_log(con)
        except duckdb.Error as exc:
            if (full := disk_full(self.path, exc)) is not None:
                raise full from exc
            raise
        finally:
            con.close()

    def compact(self, rewritten_share: float = 1.0, min_bytes: int | None = None) -> tuple[int, int] | None:
        """At the end of an index run: copy the store into a fresh file when it outgrew its live data (policy and
        figures: ``compaction``); ``rewritten_share`` is the share of its documents the run wrote or removed.
        Returns (bytes before, bytes after) when it copied; None otherwise, and always on a DuckLake (whose
        files DuckLake's own maintenance functions merge and expire)."""
        if self.in_session():
            raise StoreError(f"{self.path} cannot be compacted inside a session: compact after it ends")
        from .compaction import MIN_BYTES, compact_store

        space = compact_store(self, rewritten_share, MIN_BYTES if min_bytes is None else min_bytes)
        return (space.bytes_before, space.bytes_after) if space is not None and space.rewritten else None

    def compaction_due(self, rewritten_share: float = 1.0) -> bool:
        """Whether ``compact`` would copy the store now (it folds the log to measure the file). Unlike
        ``compact``, this runs inside a session: a run decides there and copies after the session ends."""
        from .compaction import due

        space = due(self, rewritten_share)
        return space is not None and space.due

    def copy_and_swap(self, memory_mb: int) -> None:
        """Copy every table into a fresh file with a DuckDB budget of ``memory_mb`` (one table in memory at a
        time), then replace the store file with it. The old file stays locked for writing until the swap; readers
        that have it open keep reading it. On an error the store file is left as it was."""
        fresh = self.path.with_name(self.path.name + ".compacting")
        fresh.unlink(missing_ok=True)
        con = self._open(read_only=False)
        try:
            con.execute(f"SET memory_limit = '{int(memory_mb)}MiB'")
            con.execute("SET enable_progress_bar = false")
            con.execute("SET threads = 1")  # one row group in memory at a time
            name = con.execute("SELECT current_database()").fetchone()[0]
            if con.execute("SELECT count(*) FROM duckdb_indexes() WHERE sql ILIKE '%USING HNSW%'").fetchone()[0]:
                from .extensions import load_extension

                load_extension(con, "vss")
                con.execute("SET hnsw_enable_experimental_persistence = true")
            # DuckDB builds a row group in memory: in its default 122,880 rows, the documents' text of a 7,100-file
            # store took 170 MB more than the budget (ROW_GROUP_ROWS).
            con.execute(f"ATTACH {literal(str(fresh))} AS compacted (ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
            con.execute(f"COPY FROM DATABASE {name} TO compacted (SCHEMA)")
            tables = [row[0] for row in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ? "
                                                    "ORDER BY table_name", [name]).fetchall()]
            for table in tables:
                con.execute(f'INSERT INTO compacted."{table}" SELECT * FROM "{name}"."{table}"')
                # one table's new rows in memory at a time; after the last, no log is left behind the swap
                con.execute("CHECKPOINT compacted")
            con.execute("DETACH compacted")
            os.replace(fresh, self.path)
        except duckdb.Error:
            with contextlib.suppress(duckdb.Error):
                con.execute("DETACH DATABASE IF EXISTS compacted")
            fresh.unlink(missing_ok=True)
            raise
        finally:
            con.close()

    def wal_bytes(self) -> int:
        """Size of the write-ahead log (0 when there is none, and on a DuckLake)."""
        if self.lake:
            return 0
        try:
            return self.path.with_name(self.path.name + ".wal").stat().st_size
        except FileNotFoundError:
            return 0

    def cache_key(self) -> str:
        """Names the store in caches of what was read from it (the file, or the lake's catalog)."""
        return f"ducklake:{self.lake.catalog}" if self.lake else str(self.path.resolve())

    def stamp(self) -> tuple:
        """Changes whenever a write is committed: (size, mtime, inode) of the file and of its WAL, or the
        DuckLake's latest snapshot id."""
        if self.lake:
            with self.read() as con:
                return ("snapshot", con.execute(f"SELECT id FROM {ducklake.LAKE_NAME}.current_snapshot()"
                                                ).fetchone()[0])
        return file_stamp(self.path)

    def exists(self) -> bool:
        if not self.lake:
            return self.path.exists() and not interrupted_creation(self.path)
        if self._lake_checked or self._migrated:
            return True
        con = self._lake_cursor()
        try:
            return bool(con.execute("SELECT count(*) FROM information_schema.tables WHERE table_catalog = "
                                    f"{literal(ducklake.LAKE_NAME)} AND table_name = 'schema_migrations'"
                                    ).fetchone()[0])
        finally:
            con.close()

    def retry_conflicts(self, transaction: Callable[[], T], timeout: float | None = None) -> T:
        """``transaction()`` (which opens its own ``write()``), run again while it loses its commit to another
        writer (``StoreConflictError``), with random backoff, for up to ``lock_timeout`` seconds."""
        deadline = time.monotonic() + (self.lock_timeout if timeout is None else timeout)
        delay = 0.02
        while True:
            try:
                return transaction()
            except StoreConflictError:
                self.conflicts += 1
                if time.monotonic() > deadline:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 1.0)

    def ensure(self) -> None:
        """Create the file and apply pending migrations."""
        self.retry_conflicts(self._ensure)

    def _ensure(self) -> None:
        with self.write():
            pass

    @staticmethod
    def _version(con: duckdb.DuckDBPyConnection) -> int:
        """The schema version (0: no migration applied yet). Asked of every read outside a session: one query,
        not a look in ``information_schema`` first (three times its cost)."""
        try:
            row = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        except duckdb.CatalogException:
            return 0
        return int(row[0]) if row else 0

    def _migrate(self, con: duckdb.DuckDBPyConnection) -> None:
        prepare = ducklake.lake_sql if self.lake else (lambda sql: sql)
        con.execute(prepare("CREATE TABLE IF NOT EXISTS schema_migrations "
                            "(version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"))
        current = self._version(con)
        if current > SCHEMA_VERSION:
            raise StoreError(f"{self.describe()} is at schema version {current}, newer than this right-rag "
                             f"({SCHEMA_VERSION}); upgrade right-rag-dagster")
        for migration in load_migrations():
            if migration.version <= current:
                continue
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute(prepare(migration.sql))
                if migration.python:
                    from .migration_steps import run_step

                    run_step(migration.python, con)
                execute(con, "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                        [migration.version, migration.name, utcnow()])
                con.execute("COMMIT")
            except duckdb.Error as exc:
                _rollback(con)
                if self.lake and ducklake.is_conflict(exc):  # another writer migrated at the same moment
                    raise StoreConflictError(f"another writer migrated the store first: {exc}") from exc
                raise
            except BaseException:
                _rollback(con)
                raise
        self._migrated = True
        if self.lake is not None:
            _lakes_current.add(self.lake)


def file_stamp(path: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """(size, mtime, inode) of a database file and of its WAL: changes whenever a write is committed."""
    stamps: list[tuple[int, int, int] | None] = []
    for candidate in (path, path.with_name(path.name + ".wal")):
        try:
            st = os.stat(candidate)
        except FileNotFoundError:
            stamps.append(None)
        else:
            stamps.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(stamps)

