"""The audit report's reads: every figure ``right-rag report`` and the ``audit_report`` asset show, by plain SQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from duckdb import DuckDBPyConnection as Connection

from ..core.coverage import merge_ranges
from .sql import execute


@dataclass(frozen=True)
class AuditRows:
    """The store's figures for the audit, as rows of named fields (the report shapes and labels them)."""

    documents_total: int
    documents_by_parser: dict[str, int]
    rejections: list[dict[str, Any]]  # with ``stale``: a failed new version whose last good one serves
    plugin_errors: list[dict[str, str]]
    units_by_type: dict[str, int]
    chunks_by_type: dict[str, dict[str, int]]
    coverage: list[dict[str, Any]]  # ``units_by_type`` still as JSON text
    excluded_chars: dict[str, tuple[int, int]]  # document -> (furniture, navigation) characters
    default_parser_documents: list[str]
    default_chunks: int
    units_without_span: int


def read_audit_rows(con: Connection) -> AuditRows:
    total = execute(con, "SELECT count(*) FROM documents").fetchone()[0]
    by_parser = dict(execute(con,
        "SELECT parser, count(DISTINCT document_id) FROM units WHERE active GROUP BY parser ORDER BY parser").fetchall())
    rejections = [dict(zip(("document_id", "stage", "status", "reason", "stale"), r)) for r in execute(con,
        "SELECT document_id, stage, status, reason, coalesce(stale, false) FROM rejections ORDER BY document_id"
    ).fetchall()]
    plugin_errors = [dict(zip(("kind", "file", "message"), r)) for r in execute(con,
        "SELECT kind, file, message FROM plugin_errors ORDER BY file").fetchall()]
    units_by_type = dict(execute(con,
        "SELECT coalesce(unit_type, 'untyped') t, count(*) FROM units WHERE active GROUP BY t ORDER BY t").fetchall())
    chunks: dict[str, dict[str, int]] = {}
    for chunker, unit_type, count in execute(con,
            "SELECT chunker, coalesce(unit_type, 'untyped') t, count(*) FROM chunks GROUP BY chunker, t "
            "ORDER BY chunker, t").fetchall():
        chunks.setdefault(chunker, {})[unit_type] = count
    coverage = [dict(zip(("document_id", "parser", "coverage_percent", "covered_chars", "uncovered_chars",
                          "document_chars", "units_total", "units_with_source_span", "units_by_type"), r))
                for r in execute(con,
                    "SELECT document_id, parser, coverage_percent, covered_chars, uncovered_chars, document_chars, "
                    "units_total, units_with_source_span, units_by_type FROM coverage ORDER BY document_id").fetchall()]
    default_docs = [r[0] for r in execute(con,
        "SELECT DISTINCT document_id FROM units WHERE parser = 'default' ORDER BY 1").fetchall()]
    default_chunks = execute(con, "SELECT count(*) FROM chunks WHERE chunker = 'default'").fetchone()[0]
    no_span = execute(con, "SELECT count(*) FROM units WHERE active AND source_start IS NULL").fetchone()[0]
    return AuditRows(total, by_parser, rejections, plugin_errors, units_by_type, chunks, coverage,
                     _excluded_chars(con), default_docs, default_chunks, no_span)


def _excluded_chars(con: Connection) -> dict[str, tuple[int, int]]:
    """Per document: page furniture inside unit spans (parsers report it as the ``furniture_chars`` attribute)
    and characters of navigation units (table of contents, index), which count as covered but are not content."""
    out: dict[str, tuple[int, int]] = {}
    furniture = dict(execute(con,  # the text test first: parsing every unit's JSON was 70% of the report's reads
        "SELECT document_id, sum(coalesce(TRY_CAST(json_extract(attributes, '$.furniture_chars') AS BIGINT), 0)) "
        "FROM units WHERE active AND contains(attributes, 'furniture_chars') GROUP BY document_id").fetchall())
    spans: dict[str, list[tuple[int, int]]] = {}
    for document_id, start, end in execute(con,
            "SELECT document_id, source_start, source_end FROM units WHERE active AND role = 'navigation' "
            "AND source_start IS NOT NULL").fetchall():
        spans.setdefault(document_id, []).append((start, end))
    for document_id in set(furniture) | set(spans):
        navigation = sum(end - start for start, end in merge_ranges(spans.get(document_id, [])))
        out[document_id] = (int(furniture.get(document_id) or 0), navigation)
    return out
