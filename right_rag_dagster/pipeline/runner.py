"""Plan and apply indexing over many documents: batched short transactions, failures isolated per document."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from ..core.routing import Rejection
from ..store import Store, content, lineage
from ..store.batch import WriteBatch
from .indexer import DOCUMENT, Indexer, StepEvent
from .scan import DocumentFile, scan_documents

BATCH_DOCUMENTS = 64
BATCH_SECONDS = 2.0
CHECKPOINT_MIN_WAL_BYTES = 4 * 2**20
"""A run that logged less leaves its WAL for DuckDB to fold in later: replaying a few MB costs readers
milliseconds, while a checkpoint rewrites blocks of a large file (0.15 s after a one-document change)."""
REFRESH = "refresh"

_progress_listeners: list[Callable[[DocumentFile], None]] = []


def add_progress_listener(listener: Callable[[DocumentFile], None]) -> None:
    """Be told of every document processed in this process (the CLI's progress bar listens here)."""
    _progress_listeners.append(listener)


def remove_progress_listener(listener: Callable[[DocumentFile], None]) -> None:
    if listener in _progress_listeners:
        _progress_listeners.remove(listener)


@dataclass(frozen=True)
class IndexPlan:
    """What an index run must do: files new or changed (by content or plugin versions), unchanged, removed."""

    new: tuple[DocumentFile, ...]
    changed: tuple[DocumentFile, ...]
    unchanged: tuple[DocumentFile, ...]
    removed: tuple[tuple[str, str], ...]  # (document_id, partition_key)
    refresh_pending: bool = False  # an earlier run left the search indexes behind the documents

    @property
    def todo(self) -> tuple[DocumentFile, ...]:
        return self.new + self.changed

    @property
    def is_empty(self) -> bool:
        return not self.new and not self.changed and not self.removed


def known_files(store: Store) -> dict[str, tuple[float, int, str]]:
    """(mtime, size, hash) per document id as last indexed, so unchanged files are not re-hashed."""
    if not store.exists():
        return {}
    with store.read() as con:
        return _known_files(con)


def _known_files(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[float, int, str]]:
    rows = con.execute("SELECT document_id, mtime, size_bytes, content_hash FROM documents").fetchall()
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def plan_index(indexer: Indexer, store: Store, files: Sequence[DocumentFile]) -> IndexPlan:
    """Compare the folder with the store without writing anything."""
    if not store.exists():
        return IndexPlan(tuple(files), (), (), ())
    with store.read() as con:
        return _plan(indexer, con, files)


def scan_and_plan(indexer: Indexer, store: Store, documents_dir: Path) -> tuple[list[DocumentFile], IndexPlan]:
    """Scan the folder and plan the work with a single read of the store (each open of a large store costs
    tens of milliseconds, and ``right-rag index`` after a one-file edit has about a second to spare)."""
    if not store.exists():
        files = scan_documents(documents_dir, {})
        return files, IndexPlan(tuple(files), (), (), ())
    with store.read() as con:
        files = scan_documents(documents_dir, _known_files(con))
        return files, _plan(indexer, con, files)


def _plan(indexer: Indexer, con: duckdb.DuckDBPyConnection, files: Sequence[DocumentFile]) -> IndexPlan:
    done = dict(con.execute(f"SELECT document_id, cache_key FROM step_state WHERE step = '{DOCUMENT}'").fetchall())
    stored = dict(con.execute("SELECT document_id, partition_key FROM documents").fetchall())
    present = {f.document_id for f in files}
    new, changed, unchanged = [], [], []
    for file in files:
        if file.document_id not in done:
            new.append(file)
        elif done[file.document_id] != indexer.document_done_key(file):
            changed.append(file)
        else:
            unchanged.append(file)
    removed = tuple(sorted((d, k) for d, k in stored.items() if d not in present))
    return IndexPlan(tuple(new), tuple(changed), tuple(unchanged), removed, _refresh_pending(con))


def process_documents(indexer: Indexer, store: Store, files: Sequence[DocumentFile], run_id: str,
                      on_document: Callable[[DocumentFile], None] | None = None) -> Iterator[list[StepEvent]]:
    """Process files in batches (one short transaction each); yields each batch's events after its commit.

    An unexpected error on one document rolls back only its batch; the batch is redone without it and the
    document is recorded as failed, so one bad file never stops the others.
    """
    pending = list(files)
    while pending:
        candidates = pending[:BATCH_DOCUMENTS]
        batch: list[DocumentFile] = []
        events: list[StepEvent] = []
        failed: tuple[DocumentFile, BaseException] | None = None
        try:
            with store.write() as con:
                writes = WriteBatch()
                writes.load_states(content.step_states(con, [f.document_id for f in candidates]))
                started = time.monotonic()
                for file in candidates:
                    if batch and time.monotonic() - started > BATCH_SECONDS:
                        break
                    batch.append(file)
                    try:
                        events.extend(indexer.process(con, writes, file, run_id))
                    except Exception as exc:
                        failed = (file, exc)
                        raise
                if events:
                    writes.set_state(REFRESH, "*", content.state_row(REFRESH, "*", "pending", None))
                writes.flush(con)
        except Exception:
            if failed is None:
                raise
            bad, exc = failed
            pending = [f for f in pending if f is not bad]
            yield [_record_failure(indexer, store, bad, exc, run_id)]
            continue
        del pending[:len(batch)]
        for file in batch:
            for listener in [*_progress_listeners, *([on_document] if on_document else [])]:
                listener(file)
        yield events
    if files:
        store.checkpoint(min_wal_bytes=CHECKPOINT_MIN_WAL_BYTES)


def _record_failure(indexer: Indexer, store: Store, file: DocumentFile, exc: BaseException, run_id: str) -> StepEvent:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {last.filename}:{last.lineno}" if last else ""
    reason = f"{type(exc).__name__}: {exc}{where}"
    event = StepEvent(DOCUMENT, file.document_id, file.partition_key, "failed", metadata={"reason": reason})
    with store.write() as con:
        content.record_rejection(con, Rejection(file.document_id, "failed", reason), "index")
        lineage.record_events(con, [event], run_id)
    return event


def remove_documents(indexer: Indexer, store: Store, removed: Sequence[tuple[str, str]], run_id: str) -> list[StepEvent]:
    """Delete documents that left the folder, in one transaction."""
    if not removed or not store.exists():
        return []
    with store.write() as con:
        events = [indexer.remove(con, document_id, key, run_id) for document_id, key in removed]
        content.set_step_state(con, REFRESH, "*", "pending", None)
    return events


def mark_refresh(store: Store, pending: bool, unless_marked_since: datetime | None = None) -> None:
    """Record whether the search indexes and audit report lag behind the documents. With
    ``unless_marked_since`` (when the refresh that clears the mark began), a mark set after it, e.g. by the
    sensor removing a document meanwhile, is kept."""
    with store.write() as con:
        if unless_marked_since is not None:
            row = con.execute(f"SELECT updated_at FROM step_state WHERE step = '{REFRESH}' AND document_id = '*'"
                              ).fetchone()
            if row is not None and row[0] > unless_marked_since:
                return
        content.set_step_state(con, REFRESH, "*", "pending" if pending else "done", None)


def refresh_pending(store: Store) -> bool:
    """Whether documents changed since the search indexes and audit report were last refreshed in full."""
    if not store.exists():
        return False
    with store.read() as con:
        return _refresh_pending(con)


def _refresh_pending(con: duckdb.DuckDBPyConnection) -> bool:
    state = content.get_step_state(con, REFRESH, "*")
    return state is not None and state[0] == "pending"
