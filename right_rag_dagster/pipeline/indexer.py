"""Incremental indexing of one document at a time: raw text -> units -> chunks -> coverage, into the store.

Each step compares an explicit cache key (input version + step + plugin version) with the one stored in
``step_state`` and does nothing when they match. A document's rows are written in the caller's transaction
and its "done" marker last, so a failure mid-way leaves the previous state intact. The result is a list of
``StepEvent`` that the Dagster assets turn into materializations and the CLI into a summary.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb

from ..core.changes import merge_unit_changes
from ..core.hashing import stable_hash
from ..core.model import Chunk, Document, Unit
from ..core.routing import Rejection, route_document
from ..core.units import unit_paths, walk_units
from ..errors import ParserOutputError
from ..project import Project
from ..store import content, lineage
from ..store.batch import WriteBatch
from ..store.db import utcnow
from .plugins import PluginSet, Selected
from .scan import DocumentFile
from .steps import chunk_units, document_coverage, load_document, parse_with, units_by_type

RAW_TEXT = "raw_text"
COVERAGE = "coverage"
COVERAGE_VERSION = "1"
"""The coverage step's code version (it has no plugin): change it with how coverage is measured."""
DOCUMENT = "document"


def units_asset(parser: str) -> str:
    return f"units/{parser}"


def chunks_asset(chunker: str) -> str:
    return f"chunks/{chunker}"


@dataclass(frozen=True)
class StepEvent:
    """What one step did for one document: materialized, rejected or removed, with versions and metadata."""

    asset: str
    document_id: str
    partition_key: str
    status: str
    data_version: str | None = None
    code_version: str | None = None
    input_versions: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


class Indexer:
    """Plans the pipeline steps of documents into a ``WriteBatch``, reading the store through ``con``."""

    def __init__(self, project: Project, plugins: PluginSet | None = None) -> None:
        self.project = project
        self.plugins = plugins or PluginSet.for_project(project)

    def document_done_key(self, file: DocumentFile) -> str:
        return stable_hash([file.content_hash, self.plugins.fingerprint])[:16]

    def is_current(self, batch: WriteBatch, file: DocumentFile) -> bool:
        state = batch.get_state(DOCUMENT, file.document_id)
        return state is not None and state[0] == self.document_done_key(file)

    def process(self, con: duckdb.DuckDBPyConnection, batch: WriteBatch, file: DocumentFile,
                run_id: str) -> list[StepEvent]:
        """Plan the work that brings one document up to date; returns the events of the steps that did work.

        ``batch`` must hold the document's step state (``WriteBatch.load_states``); nothing is written until
        the caller flushes the batch, and the document's "done" marker is the last thing planned.
        """
        if self.is_current(batch, file):
            return []
        started = utcnow()
        events: list[StepEvent] = []
        batch.clear_rejection(file.document_id, ["index"])  # an earlier run's crash on this document
        step = _Steps(self, con, batch, file, events)
        document, raw_version = step.raw_text()
        if document is not None and raw_version is not None:
            owner = step.route(document)
            if owner is not None:
                units, units_version = step.units(document, owner, raw_version)
                if units_version is not None:
                    for chunker in self.plugins.chunkers:
                        units = step.chunks(document, owner, units, units_version, chunker)
                    step.coverage(document, owner, units, units_version)
        batch.append("materializations", lineage.event_rows(events, run_id, started))
        batch.set_state(DOCUMENT, file.document_id,
                        content.state_row(DOCUMENT, file.document_id, self.document_done_key(file), None))
        return events

    def remove(self, con: duckdb.DuckDBPyConnection, document_id: str, partition_key: str, run_id: str) -> StepEvent:
        """Delete a document that left the folder from the store and from every saver's output."""
        content.delete_document(con, document_id)
        for saver in (*self.plugins.unit_savers, *self.plugins.chunk_savers):
            saver.plugin.delete_document(document_id, self.project.output_dir)
        event = StepEvent(DOCUMENT, document_id, partition_key, "removed")
        lineage.record_events(con, [event], run_id)
        return event


class _Steps:
    """The steps of one document, sharing its connection, batch and event list."""

    def __init__(self, indexer: Indexer, con: duckdb.DuckDBPyConnection, batch: WriteBatch, file: DocumentFile,
                 events: list[StepEvent]) -> None:
        self.plugins = indexer.plugins
        self.output_dir = indexer.project.output_dir
        self.con, self.batch, self.file, self.events = con, batch, file, events
        self.document_id = file.document_id

    def emit(self, asset: str, status: str, data_version: str | None = None, code_version: str | None = None,
             inputs: dict[str, str] | None = None, metadata: dict[str, Any] | None = None) -> None:
        self.events.append(StepEvent(asset, self.document_id, self.file.partition_key, status, data_version,
                                     code_version, inputs or {}, metadata or {}))

    def state(self, step: str) -> tuple[str, str | None, str | None] | None:
        return self.batch.get_state(step, self.document_id)

    def set_state(self, step: str, key: str, version: str | None, owner: str | None = None) -> None:
        self.batch.set_state(step, self.document_id, content.state_row(step, self.document_id, key, version, owner))

    def raw_text(self) -> tuple[Document | None, str | None]:
        file = self.file
        loader_versions = [(s.name, s.version) for s in self.plugins.loaders]
        key = stable_hash([RAW_TEXT, file.content_hash, loader_versions])[:16]
        known = self.state(RAW_TEXT)
        if known and known[0] == key:
            return content.read_document(self.con, self.document_id), known[1]
        outcome = load_document(file.path, self.document_id, [s.plugin for s in self.plugins.loaders])
        loader = self.plugins.loader(outcome.loader) if outcome.loader else None
        loader_version = loader.version if loader else None
        version = stable_hash([file.content_hash, loader_version])[:16]
        self.batch.replace_rows("documents", self.document_id, [content.document_row(
            outcome.document, document_id=self.document_id, partition_key=file.partition_key, path=str(file.path),
            content_hash=file.content_hash, size_bytes=file.size, mtime=file.mtime, loader=outcome.loader,
            loader_version=loader_version, data_version=version)])
        self.set_state(RAW_TEXT, key, version)
        metadata: dict[str, Any] = {"path": str(file.path), "document_id": self.document_id,
                                    "size_bytes": file.size, "content_hash": file.content_hash,
                                    "loader": outcome.loader or "none"}
        if outcome.rejection is not None:
            self.reject(outcome.rejection, "load")
            self.emit(RAW_TEXT, "rejected", version, loader_version,
                      metadata={**metadata, "status": "rejected", "reason": outcome.rejection.reason})
            return None, None
        document = outcome.document
        assert document is not None
        self.batch.clear_rejection(self.document_id, ["load"])
        self.emit(RAW_TEXT, "materialized", version, loader_version,
                  metadata={**metadata, "status": "loaded", "characters": len(document.text),
                            "pages": document.page_count})
        return document, version

    def route(self, document: Document) -> Selected | None:
        fallback = self.plugins.fallback
        route = route_document(document, [s.plugin for s in self.plugins.unit_parsers], fallback and fallback.plugin)
        if route.parser is None:
            assert route.rejection is not None
            self.reject(route.rejection, "route")
            self.emit(DOCUMENT, route.rejection.status, metadata={
                "reason": route.rejection.reason, "parsers": list(route.rejection.parser_names)})
            return None
        return self.plugins.unit_parser(route.parser.parser_name)

    def units(self, document: Document, owner: Selected,
              raw_version: str) -> tuple[list[Unit] | None, str | None]:
        key = stable_hash(["units", raw_version, owner.name, owner.version])[:16]
        known = self.state("units")
        if known and known[0] == key and known[2] == owner.name:
            return None, known[1]  # unchanged; units are read lazily if a chunker needs them
        outcome = parse_with(document, owner.plugin)
        if outcome.rejection is not None:
            self.reject(outcome.rejection, "parse")
            self.emit(units_asset(owner.name), "rejected", code_version=owner.version,
                      metadata={"reason": outcome.rejection.reason})
            return None, None
        previous = content.read_units(self.con, document.id) if known else []
        merged = merge_unit_changes(previous, outcome.units)
        previous_ids = {u.id for u in walk_units(previous)}
        fresh = {u.id for u in walk_units(merged) if u.id not in previous_ids}
        self.batch.replace_rows("units", document.id,
                                content.unit_rows(document, merged, owner.name, owner.version, fresh))
        self.batch.clear_rejection(document.id, ["route", "parse", "chunk"])
        for saver in self.plugins.unit_savers:
            saver.plugin.save_units(document.id, merged, self.output_dir)
        version = content.units_fingerprint(outcome.units)
        self.set_state("units", key, version, owner=owner.name)
        self.emit(units_asset(owner.name), "materialized", version, owner.version, {RAW_TEXT: raw_version},
                  {**_units_metadata(document, outcome.units), "routed_as": self.plugins.routed_as(owner.name)})
        return outcome.units, version

    def active_units(self, units: list[Unit] | None) -> list[Unit]:
        return units if units is not None else content.read_units(self.con, self.document_id, active_only=True)

    def chunks(self, document: Document, owner: Selected, units: list[Unit] | None, units_version: str,
               chunker: Selected) -> list[Unit] | None:
        """Re-chunk when the units or the chunker changed; returns the units if it had to read them."""
        step = f"chunks:{chunker.name}"
        key = stable_hash([step, units_version, chunker.version])[:16]
        known = self.state(step)
        if known and known[0] == key:
            return units
        units = self.active_units(units)
        try:
            chunks = chunk_units(document, units, chunker.plugin)
        except ParserOutputError as exc:
            self.batch.set_rejection(document.id, content.rejection_row(
                Rejection(document.id, "failed", str(exc), (chunker.name,)), "chunk"))
            self.batch.replace_chunks(document.id, chunker.name, [])
            self.batch.set_state(step, document.id, None)
            self.emit(chunks_asset(chunker.name), "rejected", code_version=chunker.version,
                      metadata={"reason": str(exc)})
            return units
        self.batch.replace_chunks(document.id, chunker.name,
                                  content.chunk_rows(document, units, chunker.name, chunker.version, chunks))
        for saver in self.plugins.chunk_savers:
            saver.plugin.save_chunks(document.id, chunker.name, chunks, self.output_dir)
        version = stable_hash([[c.id, c.fulltext, c.source_start, c.source_end] for c in chunks])[:16]
        self.set_state(step, key, version)
        self.emit(chunks_asset(chunker.name), "materialized", version, chunker.version,
                  {units_asset(owner.name): units_version}, _chunks_metadata(chunks))
        return units

    def coverage(self, document: Document, owner: Selected, units: list[Unit] | None, units_version: str) -> None:
        key = stable_hash([COVERAGE, units_version, len(document.text)])[:16]
        known = self.state(COVERAGE)
        if known and known[0] == key:
            return
        units = self.active_units(units)
        coverage = document_coverage(document, units)
        by_type = units_by_type(units)
        self.batch.replace_rows("coverage", document.id,
                                [content.coverage_row(document.id, owner.name, owner.version, coverage, by_type)])
        self.set_state(COVERAGE, key, key)
        self.emit(COVERAGE, "materialized", key, COVERAGE_VERSION, {units_asset(owner.name): units_version}, {
            "parser": owner.name, "routed_as": self.plugins.routed_as(owner.name), "coverage_percent": coverage.coverage_percent,
            "covered_chars": coverage.covered_chars, "uncovered_chars": coverage.uncovered_chars,
            "units_total": coverage.units_total, "units_with_source_span": coverage.units_with_source_span,
            "units_by_type": by_type})

    def reject(self, rejection: Rejection, stage: str) -> None:
        """Record a rejection and remove what the document had downstream, so nothing stale stays searchable."""
        self.batch.set_rejection(rejection.document_id, content.rejection_row(rejection, stage))
        for table in ("units", "chunks", "coverage"):
            self.batch.delete_rows(table, rejection.document_id)
        for step in ("units", COVERAGE, *(f"chunks:{c.name}" for c in self.plugins.chunkers)):
            self.batch.set_state(step, rejection.document_id, None)


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
