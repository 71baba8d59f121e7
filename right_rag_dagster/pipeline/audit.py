"""The parser audit report: documents per parser, rejections with reasons, unit and chunk counts by type."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import duckdb

from ..store.audit import read_audit_rows


@dataclass(frozen=True)
class AuditReport:
    """What the last index left in the store, in the shape of right-rag's "Parser coverage report"."""

    documents_total: int
    documents_by_parser: dict[str, int]
    rejected: list[dict[str, str]]  # documents not indexed, with the reason
    units_by_type: dict[str, int]
    chunks_by_type: dict[str, dict[str, int]]
    coverage: list[dict[str, Any]]
    fallback_parser_used: bool  # right-rag's name: the smoke-test "default" unit or chunk parser was used
    units_without_span: int
    default_parser_documents: list[str] = field(default_factory=list)
    stale: list[dict[str, str]] = field(default_factory=list)  # new version failed; the last good one serves
    plugin_errors: list[dict[str, str]] = field(default_factory=list)  # spec files that failed to import
    fallback_unit_parser: str | None = None
    """The project's fallback unit parser: it owns only documents no domain parser accepts."""
    fallback_documents: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents_total": self.documents_total,
            "documents_by_parser": self.documents_by_parser,
            "rejected": self.rejected,
            "stale": self.stale,
            "plugin_errors": self.plugin_errors,
            "units_by_type": self.units_by_type,
            "chunks_by_type": self.chunks_by_type,
            "coverage": self.coverage,
            "fallback_parser_used": self.fallback_parser_used,
            "units_without_span": self.units_without_span,
            "default_parser_documents": self.default_parser_documents,
            "fallback_unit_parser": self.fallback_unit_parser,
            "fallback_documents": self.fallback_documents,
        }

    def to_text(self) -> str:
        """The report for a terminal: one line per record (control characters in names shown escaped)."""
        lines = ["Parser coverage report", ""]
        if self.plugin_errors:
            lines += ["spec files that failed to import (their documents keep their last good version):"]
            lines += [f"  {e['file']}: {e['message']}" for e in self.plugin_errors] + [""]
        lines += ["documents handled by each parser:"]
        lines += [f"  {name}: {count}{self._fallback_note(name)}" for name, count in self.documents_by_parser.items()]
        lines += [] if self.documents_by_parser else ["  (none)"]
        if self.fallback_unit_parser:
            lines += ["", f"documents taken by the fallback unit parser {self.fallback_unit_parser!r} "
                          "(no domain parser accepts them):"]
            lines += [f"  {r['document_id']}: {r['coverage_percent']:.2f}% coverage, {r['units_total']} units"
                      for r in self.fallback_documents] or ["  (none)"]
        lines += ["", "documents rejected with reason:"]
        lines += [f"  {r['document_id']}: [{r['status']}] {r['reason']}" for r in self.rejected] or ["  (none)"]
        if self.stale:
            lines += ["", "documents whose last good version serves (their new version failed):"]
            lines += [f"  {r['document_id']}: [{r['status']} at {r['stage']}] {r['reason']}" for r in self.stale]
        lines += ["", "unit counts by type:"]
        lines += [f"  {name}: {count}" for name, count in self.units_by_type.items()] or ["  (none)"]
        for chunker, counts in self.chunks_by_type.items():
            lines += ["", f"chunks by unit type ({chunker}):"]
            lines += [f"  {name}: {count}" for name, count in counts.items()]
        lines += ["", "coverage per document:"]
        for row in self.coverage:
            lines.append(f"  {row['document_id']}: {row['coverage_percent']:.2f}% "
                         f"({row['uncovered_chars']} of {row['document_chars']} chars uncovered, "
                         f"{row['units_total']} units, parser {row['parser']}{self._fallback_note(row['parser'])}; "
                         "page furniture "
                         f"{row['furniture_chars']} chars, contents/index {row['navigation_chars']} chars)")
        if not self.coverage:
            lines.append("  (none)")
        # right-rag's last line, said of its smoke-test parsers: "fallback" alone read as the fallback unit
        # parser above, which a report could list as used and then deny.
        lines += ["", f"smoke-test (\"default\") parser used: {'yes' if self.fallback_parser_used else 'no'}"]
        return _lines(lines)

    def _fallback_note(self, parser: str) -> str:
        return " (fallback)" if parser == self.fallback_unit_parser else ""

    def to_markdown(self) -> str:
        out = []
        if self.plugin_errors:
            out += ["| spec file that failed to import | error |", "|---|---|"]
            out += [f"| {e['file']} | {e['message'].replace('|', '/')} |" for e in self.plugin_errors] + [""]
        if self.stale:
            out += ["| stale document (last good version serves) | stage | reason |", "|---|---|---|"]
            out += [f"| {r['document_id']} | {r['stage']} | {r['reason'].replace('|', '/')} |" for r in self.stale]
            out += [""]
        out += ["| parser | documents |", "|---|---|"]
        out += [f"| {n}{self._fallback_note(n)} | {c} |" for n, c in self.documents_by_parser.items()]
        out += ["", "| rejected document | status | reason |", "|---|---|---|"]
        out += [f"| {r['document_id']} | {r['status']} | {r['reason'].replace('|', '/')} |" for r in self.rejected]
        out += ["", "| document | parser | coverage % | units | furniture chars | contents/index chars |",
                "|---|---|---|---|---|---|"]
        out += [f"| {r['document_id']} | {r['parser']}{self._fallback_note(r['parser'])} | "
                f"{r['coverage_percent']:.2f} | {r['units_total']} | "
                f"{r['furniture_chars']} | {r['navigation_chars']} |" for r in self.coverage]
        return _lines(out)


def _lines(lines: list[str]) -> str:
    """Join ``lines``, each kept on one line: a newline or escape sequence in a file name is shown escaped."""
    from ..terminal import safe

    return "\n".join(safe(line) for line in lines)


def build_audit_report(con: duckdb.DuckDBPyConnection, fallback_unit_parser: str | None = None) -> AuditReport:
    """Read the audit figures from the store; documents of ``fallback_unit_parser`` are labelled as fallbacks."""
    rows = read_audit_rows(con)
    rejected = [{k: v for k, v in r.items() if k != "stale"} for r in rows.rejections if not r["stale"]]
    stale = [{k: v for k, v in r.items() if k != "stale"} for r in rows.rejections if r["stale"]]
    coverage = [dict(row) for row in rows.coverage]
    excluded = rows.excluded_chars
    for row in coverage:
        row["units_by_type"] = json.loads(row["units_by_type"] or "{}")
        row["furniture_chars"], row["navigation_chars"] = excluded.get(row["document_id"], (0, 0))
        row["routed_as"] = "fallback" if row["parser"] == fallback_unit_parser else "domain"
    fallback_documents = [{key: row[key] for key in ("document_id", "coverage_percent", "units_total")}
                          for row in coverage if row["routed_as"] == "fallback"]
    return AuditReport(rows.documents_total, rows.documents_by_parser, rejected, rows.units_by_type,
                       rows.chunks_by_type, coverage, bool(rows.default_parser_documents or rows.default_chunks),
                       rows.units_without_span, rows.default_parser_documents, stale, rows.plugin_errors,
                       fallback_unit_parser, fallback_documents)
