"""Incremental indexing, in two halves around the workers: plan each document's job from what the store holds,
and apply each outcome to the store.

Each step compares an explicit cache key (input version + step + plugin version) with the one stored in
``step_state`` and does nothing when they match. A document's version is replaced only by a complete new
version: when loading, routing, parsing, chunking or validation fails, or a worker is stopped, the last good
version keeps serving and the document is reported *stale* with the reason. Only a removed file removes data.
The result is a list of ``StepEvent`` that the Dagster assets turn into materializations and the CLI into a
summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import duckdb

from ..core.changes import merge_unit_changes
from ..core.hashing import stable_hash
from ..core.model import Chunk, Document, Unit
from ..core.steps import (
    COVERAGE,
    COVERAGE_VERSION,
    DOCUMENT,
    RAW_TEXT,
    STALE,
    UNITS,
    WARNING,
    StepEvent,
    chunks_asset,
    units_asset,
)
from ..core.units import unit_paths, walk_units
from ..project import Project
from ..store import content, lineage
from ..store.batch import WriteBatch
from ..store.db import utcnow
from .plugins import PluginSet
from .scan import DocumentFile
from .steps import units_by_type
from .work import (
    DocumentJob,
    DocumentOutcome,
    chunks_step,
    failed,
    needs_units,
    raw_key,
    units_key,
)

__all__ = ["COVERAGE", "COVERAGE_VERSION", "DOCUMENT", "RAW_TEXT", "STALE", "WARNING", "Indexer", "StepEvent",
           "chunks_asset", "units_asset"]


class Indexer:
    """Plans documents' jobs from the store and applies their outcomes into a ``WriteBatch``."""

    def __init__(self, project: Project, plugins: PluginSet | None = None) -> None:
        self.project = project
        self.plugins = plugins or PluginSet.for_project(project)
        self.limits = project.limits

    def document_done_key(self, file: DocumentFile) -> str:
        return stable_hash([file.content_hash, self.plugins.fingerprint])[:16]

    def is_current(self, file: DocumentFile, done: tuple[str, str | None, str | None] | None) -> bool:
        """Whether the document's stored outcome is current: same content and plugins, and, for a document
        stopped by a limit, the same limits (raising one retries it); a failed write is always retried."""
        if done is None or done[0] != self.document_done_key(file):
            return False
        return done[1] is None or done[1] == self._limits_mark()

    def _limits_mark(self) -> str:
        return "limits:" + stable_hash([self.limits.document_seconds, self.limits.document_memory_mb,
                                        self.limits.file_mb])[:12]

    def done_mark(self, outcome: DocumentOutcome) -> str | None:
        """What the "done" state records besides its key: the limits a stopped document ran under, or that a
        failed write must be retried."""
        stage = outcome.failure.stage if outcome.failure is not None else None
        if stage in ("limit", "size"):
            return self._limits_mark()
        return "retry" if stage == "store" else None

    def plugin_errors(self, kind: str = "unit_parsers") -> list[str]:
        """Spec files of ``kind`` that failed to import, with the exception: documents they owned are held."""
        return [str(error) for error in self.project.registry.errors if error.kind == kind]

    # -- planning (read-only) --------------------------------------------------------------------------------

    def plan(self, con: duckdb.DuckDBPyConnection, files: Sequence[DocumentFile]
             ) -> list[tuple[DocumentJob, DocumentOutcome | None]]:
        """A job per document that is not current, with its outcome already when it must not reach a worker
        (over the size limit, or owned by a parser whose file no longer imports)."""
        states = content.step_states(con, [f.document_id for f in files])
        by_document: dict[str, dict[str, tuple[str, str | None, str | None]]] = {}
        for (step, document_id), state in states.items():
            by_document.setdefault(document_id, {})[step] = state
        planned: list[tuple[DocumentJob, DocumentOutcome | None]] = []
        raw_current: list[str] = []
        for file in files:
            stored = by_document.get(file.document_id, {})
            if self.is_current(file, stored.get(DOCUMENT)):
                continue
            job = DocumentJob(file, stored)
            held = self._held(job)
            if held is not None:
                planned.append((job, held))
                continue
            if file.size > self.limits.file_mb * 2**20:
                planned.append((job, failed(file, "size", "rejected",
                                            f"file is {file.size / 2**20:.1f} MB, over the limit of "
                                            f"{self.limits.file_mb:g} MB (raise [right-rag.limits] file_mb in "
                                            "right_rag.toml to index it)")))
                continue
            raw = stored.get(RAW_TEXT)
            if raw is not None and raw[0] == raw_key(file, self.plugins) and raw[1]:
                raw_current.append(file.document_id)
            planned.append((job, None))
        documents = content.read_documents(con, raw_current) if raw_current else {}
        reused = [job.file.document_id for job, outcome in planned
                  if outcome is None and self._reuses_units(job, documents)]
        units = content.read_units_of(con, reused, active_only=True,
                                      texts={d: documents[d].text for d in reused}) if reused else {}
        return [(self._with_stored(job, documents, units), None) if outcome is None else (job, outcome)
                for job, outcome in planned]

    def _held(self, job: DocumentJob) -> DocumentOutcome | None:
        """The outcome of a document whose owner parser is gone because its spec file failed to import: it is
        kept as it is (stale), never re-routed to the parsers that happen to be left."""
        owner = job.states.get(UNITS, (None, None, None))[2]
        errors = self.plugin_errors()
        if owner is None or not errors or self.plugins.find_unit_parser(owner) is not None:
            return None
        return failed(job.file, "hold", "failed", f"its unit parser {owner!r} is not available: "
                                                  f"{'; '.join(errors)}", (owner,))

    def _reuses_units(self, job: DocumentJob, documents: dict[str, Document]) -> bool:
        """Whether the stored units of a document whose stored text is current may be reused (only its chunks or
        coverage are to be made again)."""
        document = documents.get(job.file.document_id)
        raw_version = job.states[RAW_TEXT][1] if document is not None else None
        stored = job.states.get(UNITS)
        if not (raw_version and stored is not None and stored[1] and stored[2]):
            return False
        owner = self.plugins.find_unit_parser(stored[2])
        return (owner is not None and stored[0] == units_key(raw_version, owner)
                and needs_units(job.states, stored[1], len(document.text), self.plugins))

    def _with_stored(self, job: DocumentJob, documents: dict[str, Document],
                     units: dict[str, list[Unit]]) -> DocumentJob:
        """Attach the stored text when it is current, and the stored units when they may be reused (both read
        for the whole plan by ``plan``)."""
        document = documents.get(job.file.document_id)
        if document is None:
            return job
        reused = units.get(document.id)
        return DocumentJob(job.file, job.states, document, tuple(reused) if reused is not None else None)

    # -- applying (inside the caller's write transaction) ----------------------------------------------------

    def previous_units(self, con: duckdb.DuckDBPyConnection,
                       items: Sequence[tuple[DocumentJob, DocumentOutcome]]) -> dict[str, list[Unit]]:
        """The stored units that the new units of these outcomes are merged with (their histories), read for
        the whole batch at once (see ``content.read_units_of``)."""
        return content.read_units_of(con, [job.file.document_id for job, outcome in items if job.had_content
                                           and outcome.failure is None and outcome.units is not None
                                           and outcome.units.fresh])

    def apply(self, con: duckdb.DuckDBPyConnection, batch: WriteBatch, job: DocumentJob,
              outcome: DocumentOutcome, run_id: str, previous: dict[str, list[Unit]] | None = None) -> list[StepEvent]:
        """Plan the writes of one document's outcome into ``batch``; its "done" marker is planned last.
        ``previous``: stored units read ahead (``previous_units``); a document missing there is read now."""
        started = utcnow()
        file = job.file
        batch.replace_rows("files", file.document_id, [content.file_row(file)])
        steps = _Applied(self, con, batch, job, outcome, previous or {})
        events = steps.failure() if outcome.failure is not None else steps.success()
        batch.append("materializations", lineage.event_rows(events, run_id, started))
        batch.set_state(DOCUMENT, file.document_id, content.state_row(
            DOCUMENT, file.document_id, self.document_done_key(file), self.done_mark(outcome)))
        return events

    def remove(self, con: duckdb.DuckDBPyConnection, document_id: str, partition_key: str, run_id: str) -> StepEvent:
        """Delete a document that left the folder from the store and from every saver's output."""
        content.delete_document(con, document_id)
        for saver in (*self.plugins.unit_savers, *self.plugins.chunk_savers):
            saver.plugin.delete_document(document_id, self.project.output_dir)
        event = StepEvent(DOCUMENT, document_id, partition_key, "removed")
        lineage.record_events(con, [event], run_id)
        return event


class _Applied:
    """The writes and events of one outcome, sharing its connection, batch and job."""

    def __init__(self, indexer: Indexer, con: duckdb.DuckDBPyConnection, batch: WriteBatch, job: DocumentJob,
                 outcome: DocumentOutcome, previous: dict[str, list[Unit]]) -> None:
        self.plugins, self.output_dir = indexer.plugins, indexer.project.output_dir
        self.con, self.batch, self.job, self.outcome, self.previous = con, batch, job, outcome, previous
        self.file = job.file
        self.document_id = job.file.document_id
        self.events: list[StepEvent] = []

    def emit(self, asset: str, status: str, data_version: str | None = None, code_version: str | None = None,
             inputs: dict[str, str] | None = None, metadata: dict[str, Any] | None = None) -> None:
        self.events.append(StepEvent(asset, self.document_id, self.file.partition_key, status, data_version,
                                     code_version, inputs or {}, metadata or {}))

    def set_state(self, step: str, key: str, version: str | None, owner: str | None = None) -> None:
        self.batch.set_state(step, self.document_id, content.state_row(step, self.document_id, key, version, owner))

    def success(self) -> list[StepEvent]:
        outcome = self.outcome
        assert outcome.raw is not None and outcome.units is not None
        document = outcome.document if outcome.document is not None else self.job.document
        assert document is not None
        if outcome.raw.fresh:
            self.raw_text(document)
        units = list(outcome.units.units)
        result = outcome.units
        if result.fresh:
            previous = ((self.previous[self.document_id] if self.document_id in self.previous
                         else content.read_units(self.con, self.document_id)) if self.job.had_content else [])
            merged = merge_unit_changes(previous, units)
            previous_ids = {u.id for u in walk_units(previous)}
            fresh_ids = {u.id for u in walk_units(merged) if u.id not in previous_ids}
            self.batch.replace_rows("units", self.document_id,
                                    content.unit_rows(document, merged, result.owner, result.owner_version, fresh_ids))
            for saver in self.plugins.unit_savers:
                self.batch.after_commit(saver.name, self.document_id, saver.plugin.save_units,
                                        self.document_id, merged, self.output_dir)
            self.set_state(UNITS, result.key, result.version, owner=result.owner)
            self.emit(units_asset(result.owner), "materialized", result.version, result.owner_version,
                      {RAW_TEXT: outcome.raw.version},
                      {**_units_metadata(document, units), "routed_as": self.plugins.routed_as(result.owner)})
        for chunk_set in outcome.chunks:
            chunks = list(chunk_set.chunks)
            rows = content.chunk_rows(document, units, chunk_set.chunker, chunk_set.chunker_version, chunks)
            self.batch.replace_chunks(self.document_id, chunk_set.chunker, rows)
            # The chunker's BM25 postings, written with the chunks when its index is live (see runner).
            self.batch.index_rows.setdefault(chunk_set.chunker, {})[self.document_id] = [
                (row[1], row[-1], terms, count) for row, (terms, count) in zip(rows, chunk_set.terms)]
            for saver in self.plugins.chunk_savers:
                self.batch.after_commit(saver.name, self.document_id, saver.plugin.save_chunks,
                                        self.document_id, chunk_set.chunker, chunks, self.output_dir)
            self.set_state(chunks_step(chunk_set.chunker), chunk_set.key, chunk_set.version)
            self.emit(chunks_asset(chunk_set.chunker), "materialized", chunk_set.version, chunk_set.chunker_version,
                      {units_asset(result.owner): result.version}, _chunks_metadata(chunks))
        if outcome.coverage is not None:
            coverage = outcome.coverage
            self.batch.replace_rows("coverage", self.document_id, [content.coverage_row(
                self.document_id, result.owner, result.owner_version, coverage.coverage, coverage.by_type)])
            self.set_state(COVERAGE, coverage.key, coverage.key)
            c = coverage.coverage
            self.emit(COVERAGE, "materialized", coverage.key, COVERAGE_VERSION, {units_asset(result.owner): result.version},
                      {"parser": result.owner, "routed_as": self.plugins.routed_as(result.owner),
                       "coverage_percent": c.coverage_percent, "covered_chars": c.covered_chars,
                       "uncovered_chars": c.uncovered_chars, "units_total": c.units_total,
                       "units_with_source_span": c.units_with_source_span, "units_by_type": coverage.by_type})
        self.batch.clear_rejection(self.document_id)
        return self.events

    def raw_text(self, document: Document | None) -> None:
        """The ``documents`` row of the version just loaded (or of a file that failed to load)."""
        raw, file = self.outcome.raw, self.file
        assert raw is not None
        self.batch.replace_rows("documents", self.document_id, [content.document_row(
            document, document_id=self.document_id, partition_key=file.partition_key, path=str(file.path),
            content_hash=file.content_hash, size_bytes=file.size, mtime=file.mtime, loader=raw.loader,
            loader_version=raw.loader_version, data_version=raw.version)])
        self.batch.replace_rows("document_texts", self.document_id,
                                content.text_rows(self.document_id, document.text if document else None))
        self.set_state(RAW_TEXT, raw.key, raw.version)
        metadata: dict[str, Any] = {"path": str(file.path), "document_id": self.document_id, "size_bytes": file.size,
                                    "content_hash": file.content_hash, "loader": raw.loader or "none"}
        if document is None:
            assert self.outcome.failure is not None
            self.emit(RAW_TEXT, "rejected", raw.version, raw.loader_version,
                      metadata={**metadata, "status": "rejected", "reason": self.outcome.failure.rejection.reason})
        else:
            self.emit(RAW_TEXT, "materialized", raw.version, raw.loader_version,
                      metadata={**metadata, "status": "loaded", "characters": len(document.text),
                                "pages": document.page_count})

    def failure(self) -> list[StepEvent]:
        """A failed version: the last good one keeps serving (stale); a document never indexed is rejected."""
        failure = self.outcome.failure
        assert failure is not None
        rejection = failure.rejection
        if self.job.had_content:
            self.batch.set_rejection(self.document_id, content.rejection_row(
                rejection, failure.stage, stale=True, content_hash=self.file.content_hash))
            self.emit(DOCUMENT, STALE, metadata={"reason": rejection.reason, "stage": failure.stage,
                                                 "status": rejection.status, "parsers": list(rejection.parser_names)})
            return self.events
        raw = self.outcome.raw
        if raw is not None and raw.fresh:
            self.raw_text(self.outcome.document)
        elif raw is None and RAW_TEXT not in self.job.states:
            self.batch.replace_rows("documents", self.document_id, [content.document_row(
                None, document_id=self.document_id, partition_key=self.file.partition_key, path=str(self.file.path),
                content_hash=self.file.content_hash, size_bytes=self.file.size, mtime=self.file.mtime, loader=None,
                loader_version=None, data_version=self.file.content_hash[:16])])
            self.batch.delete_rows("document_texts", self.document_id)
        self.batch.set_rejection(self.document_id, content.rejection_row(
            rejection, failure.stage, content_hash=self.file.content_hash))
        if failure.stage == "parse" and rejection.parser_names:
            self.emit(units_asset(rejection.parser_names[0]), "rejected", metadata={"reason": rejection.reason})
        elif failure.stage != "load":
            self.emit(DOCUMENT, rejection.status, metadata={"reason": rejection.reason, "stage": failure.stage,
                                                            "parsers": list(rejection.parser_names)})
        return self.events


def _units_metadata(document: Document, units: list[Unit]) -> dict[str, Any]:
    paths = unit_paths(units)
    all_units = list(walk_units(units))
    lines = ["| section path | type | span | pages |", "|---|---|---|---|"]
    for unit in all_units[:12]:
        pages = document.page_label(document.page_at(unit.source_start)) or ""
        lines.append(f"| {' > '.join(paths[unit.id])[:120].replace('|', '/')} | "
                     f"{unit.attributes.get('unit_type', '')} | {unit.source_start}-{unit.source_end} | {pages} |")
    return {"units_total": len(all_units), "root_units": len(units), "units_by_type": units_by_type(units),
            "units_without_span": sum(1 for u in all_units if u.source_start is None),
            "preview": {"md": "\n".join(lines)}}


def _chunks_metadata(chunks: list[Chunk]) -> dict[str, Any]:
    sizes = [len(c.fulltext) for c in chunks]
    by_type = Counter(str(c.attributes.get("unit_type") or "untyped") for c in chunks)
    return {"chunks": len(chunks), "mean_chars": round(sum(sizes) / len(sizes), 1) if sizes else 0,
            "max_chars": max(sizes, default=0), "chunks_by_unit_type": dict(sorted(by_type.items()))}
