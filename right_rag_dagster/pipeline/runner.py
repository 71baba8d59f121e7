"""Apply the planned indexing (``plan``) over many documents: batched short transactions, failures isolated
per document."""

from __future__ import annotations

import logging
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

import duckdb

from ..core.steps import DOCUMENT, REFRESH, STALE, WARNING, StepEvent
from ..errors import StoreMemoryError
from ..store import Store, content
from ..store import db as store_db
from ..store.batch import WriteBatch, run_deferred
from ..store.catalog import step_updated_at, stored_documents
from ..store.lake import StoreConflictError
from .faults import FaultCounter
from .heap import trim_heap
from .indexer import Indexer
from .plan import gone_documents
from .scan import DocumentFile
from .work import DocumentJob, DocumentOutcome, failed
from .workers import open_workers

logger = logging.getLogger("right_rag_dagster")

PLAN_GROUP = 256
PLAN_BYTES = 8 * 2**20
"""Documents planned per read of the store (their step states, and stored texts that can be reused): at most this
many, or this many bytes of files. Each read opens the file and replays its log (up to ``CHECKPOINT_WAL_BYTES``):
groups of 32 documents were 23 opens and a tenth of a full index of the scale corpus."""
BATCH_DOCUMENTS = 256
BATCH_SECONDS = 2.0
"""A write batch is committed at ``batch_mb`` of text, this many documents or this many seconds, whichever
comes first: Dagster sees progress at least this often. Each of N concurrent writers on a DuckLake waits N times
as long (``process_documents``' ``batch_seconds``), so together they commit as often as one writer: every lake
commit is a catalog snapshot and new data files, which later commits and reads go through."""
FIRST_WRITE_AFTER = 16
"""Outcomes collected before the first write (unless a batch fills up first), so the circuit breaker
(``faults``) sees a plugin that fails everywhere before anything is replaced."""
WRITE_MEMORY_PER_BYTE = 6
"""DuckDB's budget for a write is at least this many times the bytes it writes (one very large document is
written alone, with the budget it needs, instead of failing and being retried)."""
LARGE_MEMORY_MB = 2048
"""DuckDB's budget for one write of a single very large document that did not fit in the budget it had."""
CHECKPOINT_MIN_WAL_BYTES = 4 * 2**20
"""A run that logged less leaves its WAL for DuckDB to fold in later: replaying a few MB costs readers
milliseconds, while a checkpoint rewrites blocks of a large file (0.15 s after a one-document change)."""

_progress_listeners: list[Callable[[DocumentFile], None]] = []


def add_progress_listener(listener: Callable[[DocumentFile], None]) -> None:
    """Be told of every document processed in this process (the CLI's progress bar listens here)."""
    _progress_listeners.append(listener)


def remove_progress_listener(listener: Callable[[DocumentFile], None]) -> None:
    if listener in _progress_listeners:
        _progress_listeners.remove(listener)


_start_listeners: list[Callable[[DocumentFile], None]] = []


def add_start_listener(listener: Callable[[DocumentFile], None]) -> None:
    """Be told of every document handed to a worker in this process (the CLI shows the one being worked on)."""
    _start_listeners.append(listener)


def process_documents(indexer: Indexer, store: Store, files: Sequence[DocumentFile], run_id: str,
                      on_document: Callable[[DocumentFile], None] | None = None, mark_pending: bool = True,
                      owners: dict[str, str | None] | None = None, batch_seconds: float = BATCH_SECONDS
                      ) -> Iterator[list[StepEvent]]:
    """Bring ``files`` up to date; yields each write batch's events after its commit (at least every
    ``batch_seconds``).

    Jobs are planned from the store a group at a time and computed by the worker processes (``workers``);
    outcomes are written in short transactions of at most ``batch_mb`` of text, so memory does not grow with
    the corpus. A document that fails keeps its last good version (see ``indexer``); one whose outcome cannot
    be written is redone alone and recorded as failed, so one bad file never stops the others. On a DuckLake
    several processes can run this at once on disjoint ``files`` (``shards``); a batch whose commit loses to
    another writer's is written again. Without ``mark_pending`` the batches leave the refresh mark alone (a
    shard writer sets it once: on a DuckLake, replacing that one row in every batch makes concurrent writers'
    commits conflict). ``owners`` is given, in each batch's own transaction, the parser that owns each document
    written (None: rejected or never parsed), so a caller routing partitions needs no read of its own.
    """
    if not files:
        return
    store.ensure()
    live = live_indexes(store, [c.name for c in indexer.plugins.chunkers])
    faults = FaultCounter(indexer.project, indexer.limits)
    limit = max(1, int(indexer.limits.batch_mb * 2**20))
    direct: deque[tuple[DocumentJob, DocumentOutcome]] = deque()
    jobs: dict[str, DocumentJob] = {}

    def planned() -> Iterator[DocumentJob]:
        for group in plan_groups(files):
            with store.read() as con:
                items = indexer.plan(con, group)
            for job, outcome in items:
                if outcome is not None:
                    direct.append((job, outcome))
                else:
                    jobs[job.file.document_id] = job
                    for listener in _start_listeners:
                        listener(job.file)
                    yield job

    pending: list[tuple[DocumentJob, DocumentOutcome]] = []
    size, since, seen = 0, 0.0, 0
    sample = min(len(files), FIRST_WRITE_AFTER)
    held = store.in_session()  # a run of a few documents: plan them all now, then let go while they are parsed
    queued = iter(list(planned())) if held else planned()
    with open_workers(indexer) as workers:
        outcomes = _merged(workers.map(queued), direct)
        while True:
            if held and seen < len(files):
                store.release_session()  # the next commit takes the file again
            outcome = next(outcomes, None)
            if outcome is None:
                break
            job = outcome[0] if isinstance(outcome, tuple) else jobs.pop(outcome.file.document_id)
            outcome = outcome[1] if isinstance(outcome, tuple) else outcome
            faults.add(outcome)
            seen += 1
            if not pending:
                since = time.monotonic()
            pending.append((job, outcome))
            size += outcome.size_bytes
            full = size >= limit or len(pending) >= BATCH_DOCUMENTS
            if full or (seen >= sample and time.monotonic() - since >= batch_seconds):
                faults.check()
                yield _commit(indexer, store, pending, run_id, live, on_document, mark_pending, owners)
                pending, size = [], 0
                trim_heap()  # the batch's outcomes are gone: hand their pages back before the next batch
                store.checkpoint(min_wal_bytes=store_db.CHECKPOINT_WAL_BYTES)  # and fold the log without them
        if pending:
            faults.check()
            yield _commit(indexer, store, pending, run_id, live, on_document, mark_pending, owners)
    store.checkpoint(min_wal_bytes=CHECKPOINT_MIN_WAL_BYTES)


def plan_groups(files: Sequence[DocumentFile]) -> Iterator[Sequence[DocumentFile]]:
    """``files`` in groups of at most ``PLAN_GROUP`` documents and ``PLAN_BYTES`` bytes (at least one each)."""
    start, size = 0, 0
    for end, file in enumerate(files):
        if end > start and (end - start >= PLAN_GROUP or size + file.size > PLAN_BYTES):
            yield files[start:end]
            start, size = end, 0
        size += file.size
    if start < len(files):
        yield files[start:]


def _merged(outcomes: Iterator[DocumentOutcome], direct: deque[tuple[DocumentJob, DocumentOutcome]]
            ) -> Iterator[DocumentOutcome | tuple[DocumentJob, DocumentOutcome]]:
    """The workers' outcomes, with the outcomes decided while planning (held, too large) in between."""
    for outcome in outcomes:
        while direct:
            yield direct.popleft()
        yield outcome
    while direct:
        yield direct.popleft()


def _commit(indexer: Indexer, store: Store, items: list[tuple[DocumentJob, DocumentOutcome]], run_id: str,
            live: frozenset[str], on_document: Callable[[DocumentFile], None] | None, mark_pending: bool = True,
            owners: dict[str, str | None] | None = None) -> list[StepEvent]:
    """Write a batch of outcomes in one transaction, then run the savers and tell the listeners."""
    size = sum(outcome.size_bytes for _, outcome in items)
    events, deferred = _write(indexer, store, items, run_id, live, WRITE_MEMORY_PER_BYTE * size // 2**20,
                              mark_pending, owners)
    keys = {job.file.document_id: job.file.partition_key for job, _ in items}
    for document_id, problem in run_deferred(deferred):
        logger.warning(problem)
        events.append(StepEvent(DOCUMENT, document_id, keys.get(document_id, ""), WARNING, metadata={"reason": problem}))
    for job, _ in items:
        for listener in [*_progress_listeners, *([on_document] if on_document else [])]:
            listener(job.file)
    return events


def _write(indexer: Indexer, store: Store, items: list[tuple[DocumentJob, DocumentOutcome]], run_id: str,
           live: frozenset[str], memory_mb: int = 0, mark: bool = True,
           owners: dict[str, str | None] | None = None) -> tuple[list[StepEvent], list]:
    """One transaction; on DuckDB running out of memory the batch is written again with ``CHECKPOINT_MEMORY_MB``,
    then halved (a single document is retried with ``LARGE_MEMORY_MB``); an error applying one document redoes
    the batch without it, that one failed; a commit that lost to another writer (DuckLake) is written again from
    the start."""
    return store.retry_conflicts(lambda: _write_once(indexer, store, items, run_id, live, memory_mb, mark, owners))


def _write_once(indexer: Indexer, store: Store, items: list[tuple[DocumentJob, DocumentOutcome]], run_id: str,
                live: frozenset[str], memory_mb: int, mark: bool,
                owners: dict[str, str | None] | None) -> tuple[list[StepEvent], list]:
    applying: list[tuple[DocumentJob, DocumentOutcome]] = []
    try:
        with store.write(min_memory_mb=memory_mb, fold=False) as con:  # folded between batches (above)
            batch = WriteBatch()
            events: list[StepEvent] = []
            previous = indexer.previous_units(con, items)
            for item in items:
                applying = [item]
                events.extend(indexer.apply(con, batch, *item, run_id, previous))
            applying = []
            if mark and any(e.status != STALE for e in events):
                batch.set_state(REFRESH, "*", content.state_row(REFRESH, "*", "pending", None))
            _update_postings(con, batch, live, stage=store.lake is not None)
            deferred = batch.flush(con)
            if owners is not None:  # a transaction that fails to commit is run again, and reads them again
                owners.update(content.document_owners(con, [job.file.document_id for job, _ in items]))
            return events, deferred
    except StoreMemoryError:
        if memory_mb < store_db.CHECKPOINT_MEMORY_MB:
            # What a write needs beyond its rows (reading a large store's row groups for the documents it
            # replaces) does not shrink with the batch: give the same batch a larger budget before splitting it.
            return _write(indexer, store, items, run_id, live, memory_mb=store_db.CHECKPOINT_MEMORY_MB, mark=mark,
                          owners=owners)
        if len(items) > 1:
            half = len(items) // 2
            first = _write(indexer, store, items[:half], run_id, live, memory_mb, mark=mark, owners=owners)
            second = _write(indexer, store, items[half:], run_id, live, memory_mb, mark=mark, owners=owners)
            return first[0] + second[0], first[1] + second[1]
        job, outcome = items[0]
        if memory_mb < LARGE_MEMORY_MB:
            return _write(indexer, store, items, run_id, live, memory_mb=LARGE_MEMORY_MB, mark=mark, owners=owners)
        reason = (f"its {outcome.size_bytes / 2**20:.0f} MB of text, units and chunks do not fit in the store's "
                  f"memory ({memory_mb} MB) in one write")
        return _write(indexer, store, [(job, failed(job.file, "store", "failed", reason))], run_id, live, mark=mark,
                      owners=owners)
    except StoreConflictError:
        raise
    except Exception as exc:
        if not applying or (applying[0][1].failure is not None and applying[0][1].failure.stage == "store"):
            raise
        bad_job = applying[0][0]
        rest = [item for item in items if item[0] is not bad_job]
        reason = f"writing it failed: {_internal_error(exc)}"
        return _write(indexer, store, [*rest, (bad_job, failed(bad_job.file, "store", "failed", reason))], run_id,
                      live, mark=mark, owners=owners)


def _update_postings(con: duckdb.DuckDBPyConnection, batch: WriteBatch, live: frozenset[str],
                     stage: bool = False) -> None:
    """Write the BM25 postings the workers tokenized, for chunkers whose index is live, before the batch
    replaces the documents' chunk rows (their old postings are found through the old rows). With ``stage`` (a
    DuckLake, where postings wait for the build after the writers), stem the workers' tokens for that build."""
    from ..retrieval.build.bm25 import stems_table, update_documents
    from ..store.extensions import load_extension
    from ..store.staged_terms import stage_postings

    stored = batch.stored(con) if any(chunker in live for chunker in batch.index_rows) else set()
    for chunker, by_document in batch.index_rows.items():
        rows = [row for rows in by_document.values() for row in rows]
        if chunker in live:  # a document without step state has no chunks, hence no old postings to remove
            update_documents(con, chunker, sorted(set(by_document) & stored), rows)
        elif stage:
            load_extension(con, "fts")  # for stem()
            stage_postings(con, stems_table(chunker), rows)


def live_indexes(store: Store, chunkers: Sequence[str]) -> frozenset[str]:
    """Chunkers whose BM25 index takes postings with each document write (see ``retrieval.build.bm25.prepare_live``).

    None on a DuckLake: postings number terms and chunks by the largest number so far, which concurrent writers
    would each take (the lake has no keys to refuse it); the index build after the writers adds them."""
    from ..retrieval.build.bm25 import needs_rebuild, prepare_live

    if store.lake:
        return frozenset()
    with store.read() as con:
        todo = [chunker for chunker in chunkers if needs_rebuild(con, chunker)]
    if not todo:
        return frozenset(chunkers)
    with store.write() as con:
        return frozenset(chunker for chunker in chunkers if chunker not in todo or prepare_live(con, chunker))


def _internal_error(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {last.filename}:{last.lineno}" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def remove_gone(indexer: Indexer, store: Store, files: Sequence[DocumentFile], run_id: str) -> list[StepEvent]:
    """Remove the documents whose file left the folder: the one place where indexed data is deleted."""
    if not store.exists():
        return []
    with store.read() as con:
        gone = gone_documents(files, stored_documents(con))
    return remove_documents(indexer, store, gone, run_id)


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
            marked = step_updated_at(con, REFRESH, "*")
            if marked is not None and marked > unless_marked_since:
                return
        content.set_step_state(con, REFRESH, "*", "pending" if pending else "done", None)
