"""Lineage: every step's outcome per document and run, and the walk chunk -> unit -> document -> run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import duckdb

from ..core.steps import StepEvent
from .batch import insert_rows
from .db import utcnow
from .sql import execute
from .unit_history import is_compact


def event_rows(events: Sequence[StepEvent], run_id: str, started_at: datetime | None = None) -> list[list[Any]]:
    """One ``materializations`` row per step event of a run (started when the document's work began)."""
    now = utcnow()
    return [[e.asset, e.partition_key, e.document_id, run_id, e.code_version, e.data_version,
             json.dumps(e.input_versions, sort_keys=True), started_at or now, now, e.status,
             str(e.metadata.get("reason", "")) or None] for e in events]


def record_events(con: duckdb.DuckDBPyConnection, events: Sequence[StepEvent], run_id: str) -> None:
    """Append the rows of ``events`` now."""
    insert_rows(con, "materializations", event_rows(events, run_id))


def walk(con: duckdb.DuckDBPyConnection, identifier: str) -> dict[str, Any]:
    """Lineage of a chunk id, unit id, document id or partition key (prefixes of ids of 8+ characters work).

    Returns chunk -> unit path -> document -> file hash -> parser name and version -> runs, as plain data.
    """
    result: dict[str, Any] = {"query": identifier}
    chunk = _one(con, "SELECT chunker, chunk_id, unit_id, document_id, source_start, source_end, page_label_start, "
                      "page_label_end, chunker_version, fulltext FROM chunks WHERE chunk_id = ? OR "
                      "(length(?) >= 8 AND starts_with(chunk_id, ?)) LIMIT 1", [identifier] * 3)
    unit_id = document_id = None
    if chunk:
        result["chunk"] = {"chunker": chunk[0], "chunk_id": chunk[1], "span": [chunk[4], chunk[5]],
                           "pages": [chunk[6], chunk[7]], "chunker_version": chunk[8], "text": chunk[9][:300]}
        unit_id, document_id = chunk[2], chunk[3]
    else:
        unit = _one(con, "SELECT unit_id, document_id FROM units WHERE unit_id = ? OR "
                         "(length(?) >= 8 AND starts_with(unit_id, ?)) LIMIT 1", [identifier] * 3)
        if unit:
            unit_id, document_id = unit
        else:
            doc = _one(con, "SELECT document_id FROM documents WHERE document_id = ? OR partition_key = ?",
                       [identifier, identifier])
            document_id = doc[0] if doc else None
    if unit_id:
        unit = _one(con, "SELECT unit_id, section_path, key_path, unit_type, source_start, source_end, page_start, "
                         "page_end, parser, parser_version, changes FROM units WHERE unit_id = ?", [unit_id])
        if unit:
            result["unit"] = {"unit_id": unit[0], "section_path": json.loads(unit[1]),
                              "key_path": json.loads(unit[2]), "unit_type": unit[3], "span": [unit[4], unit[5]],
                              "pages": [unit[6], unit[7]], "parser": unit[8], "parser_version": unit[9],
                              "history": _history(con, unit_id, document_id, unit[10])}
    if document_id is None:
        return result
    doc = _one(con, "SELECT document_id, partition_key, path, content_hash, size_bytes, page_count, loader, "
                    "loader_version, status, loaded_at FROM documents WHERE document_id = ?", [document_id])
    if doc:
        result["document"] = dict(zip(("document_id", "partition_key", "path", "content_hash", "size_bytes",
                                       "pages", "loader", "loader_version", "status", "loaded_at"), doc))
        result["document"]["loaded_at"] = str(doc[9])
    rejection = _one(con, "SELECT stage, status, reason FROM rejections WHERE document_id = ?", [document_id])
    if rejection:
        result["rejection"] = dict(zip(("stage", "status", "reason"), rejection))
    runs = execute(con,
        "SELECT asset, run_id, code_version, data_version, input_hashes, status, ended_at FROM materializations "
        "WHERE document_id = ? ORDER BY ended_at DESC LIMIT 20", [document_id]).fetchall()
    result["runs"] = [dict(zip(("asset", "run_id", "code_version", "data_version", "input_hashes", "status",
                                "ended_at"), (*r[:4], json.loads(r[4] or "{}"), r[5], str(r[6])))) for r in runs]
    return result


def _history(con: duckdb.DuckDBPyConnection, unit_id: str, document_id: str | None, stored: str | None) -> list[str]:
    """The unit's change types. A unit new in its last parse stores none (NULL), others store only what differs from
    the rows (``unit_history``): the unit is rebuilt with its subunits (their changes are mirrored in its history)."""
    if stored is not None and not is_compact(stored):  # the full entries of a store written before version 7
        return [c["change_type"] for c in json.loads(stored)]
    from .content import read_units

    found = read_units(con, document_id, root_id=unit_id) if document_id else []
    return [c.change_type for c in found[0].changes] if found else []


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> tuple | None:
    return execute(con, sql, params).fetchone()
