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

from ..core.hashing import stable_hash
from ..core.model import Chunk, Document, Unit
from ..core.routing import Rejection, route_document
from ..core.units import unit_paths, walk_units
from ..errors import ParserOutputError
from ..project import Project
from ..store import content, lineage
from ..store.db import utcnow
from .plugins import PluginSet, Selected
from .scan import DocumentFile
from .steps import chunk_units, document_coverage, load_document, parse_with, units_by_type

RAW_TEXT = "raw_text"
COVERAGE = "coverage"
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
    """Runs the pipeline steps for documents of one project against an open store connection."""

    def __init__(self, project: Project, plugins: PluginSet | None = None) -> None:
        self.project = project
        self.plugins = plugins or PluginSet.for_project(project)

    def document_done_key(self, file: DocumentFile) -> str:
        return stable_hash([file.content_hash, self.plugins.fingerprint])[:16]

    def is_current(self, con: duckdb.DuckDBPyConnection, file: DocumentFile) -> bool:
        state = content.get_step_state(con, DOCUMENT, file.document_id)
        return state is not None and state[0] == self.document_done_key(file)

    def process(self, con: duckdb.DuckDBPyConnection, file: DocumentFile, run_id: str) -> list[StepEvent]:
        """Bring one document up to date; returns the events of the steps that did work."""
        if self.is_current(con, file):
            return []
        started = utcnow()
        events: list[StepEvent] = []
        document, raw_version = self._raw_text(con, file, events)
        if document is not None and raw_version is not None:
            owner = self._route(con, document, file, events)
            if owner is not None:
                units, units_version = self._units(con, document, file, owner, raw_version, events)
                if units is not None and units_version is not None:
                    for chunker in self.plugins.chunkers:
                        units = self._chunks(con, document, file, owner, units, units_version, chunker, events)
                    self._coverage(con, document, file, owner, units, units_version, events)
        lineage.record_events(con, events, run_id, started)
        content.set_step_state(con, DOCUMENT, file.document_id, self.document_done_key(file), None)
        return events

    def remove(self, con: duckdb.DuckDBPyConnection, document_id: str, partition_key: str, run_id: str) -> StepEvent:
        """Delete a document that left the folder from the store and from every saver's output."""
        content.delete_document(con, document_id)
        for saver in (*self.plugins.unit_savers, *self.plugins.chunk_savers):
            saver.plugin.delete_document(document_id, self.project.output_dir)
        event = StepEvent(DOCUMENT, document_id, partition_key, "removed")
        lineage.record_events(con, [event], run_id)
        return event

    # -- steps ------------------------------------------------------------------------------------------

    def _raw_text(self, con, file: DocumentFile, events: list[StepEvent]) -> tuple[Document | None, str | None]:
        known = content.get_step_state(con, RAW_TEXT, file.document_id)
        loader_versions = [(s.name, s.version) for s in self.plugins.loaders]
        key = stable_hash([RAW_TEXT, file.content_hash, loader_versions])[:16]
        if known and known[0] == key:
            return content.read_document(con, file.document_id), known[1]
        outcome = load_document(file.path, file.document_id, [s.plugin for s in self.plugins.loaders])
        loader = self.plugins.loader(outcome.loader) if outcome.loader else None
        version = stable_hash([file.content_hash, loader.version if loader else None])[:16]
        content.upsert_document(
            con, outcome.document, document_id=file.document_id, partition_key=file.partition_key,
            path=str(file.path), content_hash=file.content_hash, size_bytes=file.size, mtime=file.mtime,
            loader=outcome.loader, loader_version=loader.version if loader else None, data_version=version)
        metadata: dict[str, Any] = {"path": str(file.path), "document_id": file.document_id,
                                    "size_bytes": file.size, "content_hash": file.content_hash,
                                    "loader": outcome.loader or "none"}
        if outcome.rejection is not None:
            self._reject(con, outcome.rejection, "load")
            metadata.update(status="rejected", reason=outcome.rejection.reason)
            events.append(StepEvent(RAW_TEXT, file.document_id, file.partition_key, "rejected", version,
                                    loader.version if loader else None, {}, metadata))
            content.set_step_state(con, RAW_TEXT, file.document_id, key, version)
            return None, None
        document = outcome.document
        assert document is not None
        content.clear_rejection(con, file.document_id, ["load"])
        metadata.update(status="loaded", characters=len(document.text), pages=document.page_count)
        events.append(StepEvent(RAW_TEXT, file.document_id, file.partition_key, "materialized", version,
                                loader.version if loader else None, {}, metadata))
        content.set_step_state(con, RAW_TEXT, file.document_id, key, version)
        return document, version

    def _route(self, con, document: Document, file: DocumentFile, events: list[StepEvent]) -> Selected | None:
        route = route_document(document, [s.plugin for s in self.plugins.unit_parsers])
        if route.parser is None:
            assert route.rejection is not None
            self._reject(con, route.rejection, "route")
            events.append(StepEvent(DOCUMENT, document.id, file.partition_key, route.rejection.status,
                                    metadata={"reason": route.rejection.reason,
                                              "parsers": list(route.rejection.parser_names)}))
            return None
        return self.plugins.unit_parser(route.parser.parser_name)

    def _units(self, con, document: Document, file: DocumentFile, owner: Selected, raw_version: str,
               events: list[StepEvent]) -> tuple[list[Unit] | None, str | None]:
        key = stable_hash(["units", raw_version, owner.name, owner.version])[:16]
        known = content.get_step_state(con, "units", document.id)
        if known and known[0] == key and known[2] == owner.name:
            return None, known[1]  # unchanged; units are read lazily if a chunker needs them
        outcome = parse_with(document, owner.plugin)
        if outcome.rejection is not None:
            self._reject(con, outcome.rejection, "parse")
            events.append(StepEvent(units_asset(owner.name), document.id, file.partition_key, "rejected",
                                    code_version=owner.version, metadata={"reason": outcome.rejection.reason}))
            return None, None
        from ..core.changes import merge_unit_changes

        merged = merge_unit_changes(content.read_units(con, document.id), outcome.units)
        content.replace_units(con, document, merged, owner.name, owner.version)
        content.clear_rejection(con, document.id, ["route", "parse", "chunk"])
        for saver in self.plugins.unit_savers:
            saver.plugin.save_units(document.id, merged, self.project.output_dir)
        version = content.units_fingerprint(outcome.units)
        content.set_step_state(con, "units", document.id, key, version, owner=owner.name)
        events.append(StepEvent(units_asset(owner.name), document.id, file.partition_key, "materialized", version,
                                owner.version, {RAW_TEXT: raw_version}, _units_metadata(document, outcome.units)))
        return outcome.units, version

    def _chunks(self, con, document: Document, file: DocumentFile, owner: Selected, units: list[Unit] | None,
                units_version: str, chunker: Selected, events: list[StepEvent]) -> list[Unit] | None:
        """Re-chunk when the units or the chunker changed; returns the units if it had to read them."""
        step = f"chunks:{chunker.name}"
        key = stable_hash([step, units_version, chunker.version])[:16]
        known = content.get_step_state(con, step, document.id)
        if known and known[0] == key:
            return units
        if units is None:
            units = content.read_units(con, document.id, active_only=True)
        try:
            chunks = chunk_units(document, units, chunker.plugin)
        except ParserOutputError as exc:
            self._reject(con, Rejection(document.id, "failed", str(exc), (chunker.name,)), "chunk")
            con.execute("DELETE FROM chunks WHERE document_id = ? AND chunker = ?", [document.id, chunker.name])
            content.clear_step_state(con, document.id, [step])
            events.append(StepEvent(chunks_asset(chunker.name), document.id, file.partition_key, "rejected",
                                    code_version=chunker.version, metadata={"reason": str(exc)}))
            return units
        content.replace_chunks(con, document, units, chunker.name, chunker.version, chunks)
        for saver in self.plugins.chunk_savers:
            saver.plugin.save_chunks(document.id, chunker.name, chunks, self.project.output_dir)
        version = stable_hash([[c.id, c.fulltext, c.source_start, c.source_end] for c in chunks])[:16]
        content.set_step_state(con, step, document.id, key, version)
        events.append(StepEvent(chunks_asset(chunker.name), document.id, file.partition_key, "materialized",
                                version, chunker.version, {units_asset(owner.name): units_version},
                                _chunks_metadata(chunks)))
        return units

    def _coverage(self, con, document: Document, file: DocumentFile, owner: Selected, units: list[Unit] | None,
                  units_version: str, events: list[StepEvent]) -> None:
        key = stable_hash([COVERAGE, units_version, len(document.text)])[:16]
        known = content.get_step_state(con, COVERAGE, document.id)
        if known and known[0] == key:
            return
        if units is None:
            units = content.read_units(con, document.id, active_only=True)
        coverage = document_coverage(document, units)
        by_type = units_by_type(units)
        content.write_coverage(con, document.id, owner.name, owner.version, coverage, by_type)
        content.set_step_state(con, COVERAGE, document.id, key, key)
        metadata = {"parser": owner.name, "coverage_percent": coverage.coverage_percent,
                    "covered_chars": coverage.covered_chars, "uncovered_chars": coverage.uncovered_chars,
                    "units_total": coverage.units_total, "units_with_source_span": coverage.units_with_source_span,
                    "units_by_type": by_type}
        events.append(StepEvent(COVERAGE, document.id, file.partition_key, "materialized", key, None,
                                {units_asset(owner.name): units_version}, metadata))

    def _reject(self, con, rejection: Rejection, stage: str) -> None:
        """Record a rejection and remove what the document had downstream, so nothing stale stays searchable."""
        content.record_rejection(con, rejection, stage)
        if stage in ("load", "route", "parse"):
            for table in ("units", "chunks", "coverage"):
                con.execute(f"DELETE FROM {table} WHERE document_id = ?", [rejection.document_id])
            steps = ["units", COVERAGE, *(f"chunks:{c.name}" for c in self.plugins.chunkers)]
            content.clear_step_state(con, rejection.document_id, steps)


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
