"""The unpartitioned audit report asset and its data-quality checks, computed from one read of the store.

Computed at the end of the document step (see ``documents.py``), after the search indexes."""

import dagster as dg

from ...pipeline.audit import AuditReport, build_audit_report
from ...project import Project
from ..names import AUDIT_REPORT_KEY, COVERAGE_KEY
from ..resources import RightRagProject

COVERAGE_CHECK = "coverage_above_threshold"
REJECTED_CHECK = "no_rejected_documents"
DEFAULT_PARSER_CHECK = "default_parser_not_in_production"
SPANS_CHECK = "units_have_source_spans"
STALE_CHECK = "no_stale_documents"
PLUGINS_CHECK = "spec_plugins_import"


def audit_report_spec(unit_keys: list[dg.AssetKey], chunk_keys: list[dg.AssetKey]) -> dg.AssetSpec:
    return dg.AssetSpec(
        AUDIT_REPORT_KEY, deps=[COVERAGE_KEY, *unit_keys, *chunk_keys], group_name="reports", kinds={"duckdb"},
        skippable=True,
        description="Parser audit: documents per parser, rejections with reasons, unit and chunk counts by type, "
                    "coverage per document, whether the smoke-test default parser was used.")


def audit_check_specs(project: Project) -> list[dg.AssetCheckSpec]:
    """The audit report's checks (coverage, rejections, default parser, spans, stale documents, spec imports)."""
    threshold = project.min_coverage_percent
    return [
        dg.AssetCheckSpec(COVERAGE_CHECK, asset=AUDIT_REPORT_KEY,
                          description=f"Every parsed document has coverage >= {threshold}% "
                                      "(set [right-rag.checks] min_coverage_percent)."),
        dg.AssetCheckSpec(REJECTED_CHECK, asset=AUDIT_REPORT_KEY,
                          description="No document was rejected (unsupported, ambiguous, failed)."),
        dg.AssetCheckSpec(DEFAULT_PARSER_CHECK, asset=AUDIT_REPORT_KEY,
                          description="The smoke-test default parsers are not used outside a smoke test "
                                      "([right-rag.checks] smoke_test = true allows them)."),
        dg.AssetCheckSpec(SPANS_CHECK, asset=AUDIT_REPORT_KEY,
                          description="Every unit has a source span, so every chunk can be cited."),
        dg.AssetCheckSpec(STALE_CHECK, asset=AUDIT_REPORT_KEY,
                          description="No document is served from an earlier version because its new version "
                                      "failed (loading, parsing, chunking, validation or a limit)."),
        dg.AssetCheckSpec(PLUGINS_CHECK, asset=AUDIT_REPORT_KEY,
                          description="Every file under spec/ imports; documents owned by a parser that does not "
                                      "are held at their last good version."),
    ]


def materialize_audit_report(right_rag: RightRagProject) -> dg.MaterializeResult:
    """The audit report as asset metadata, with the check verdicts."""
    project = right_rag.get_project()
    report = read_report(right_rag)
    return dg.MaterializeResult(
        asset_key=AUDIT_REPORT_KEY,
        metadata={
            "documents": report.documents_total,
            "documents_by_parser": dg.MetadataValue.json(report.documents_by_parser),
            "rejected": len(report.rejected),
            "stale": len(report.stale),
            "plugin_errors": len(report.plugin_errors),
            "units_by_type": dg.MetadataValue.json(report.units_by_type),
            "chunks_by_type": dg.MetadataValue.json(report.chunks_by_type),
            "fallback_parser_used": report.fallback_parser_used,
            "fallback_unit_parser": report.fallback_unit_parser or "none",
            "fallback_documents": dg.MetadataValue.json(report.fallback_documents),
            "min_coverage_percent": min((r["coverage_percent"] for r in report.coverage), default=0.0),
            "report": dg.MetadataValue.md(report.to_markdown()),
        },
        check_results=check_results(report, project.min_coverage_percent, project.smoke_test),
    )


def check_results(report: AuditReport, min_coverage: float, smoke_test: bool) -> list[dg.AssetCheckResult]:
    """The data-quality verdicts on one audit report."""
    low = {r["document_id"]: r["coverage_percent"] for r in report.coverage if r["coverage_percent"] < min_coverage}
    reasons = {r["document_id"]: f"[{r['status']}] {r['reason']}" for r in report.rejected}
    return [
        dg.AssetCheckResult(check_name=COVERAGE_CHECK, passed=not low, severity=dg.AssetCheckSeverity.WARN,
                            metadata={"below_threshold": dg.MetadataValue.json(low), "count": len(low),
                                      "threshold": min_coverage}),
        dg.AssetCheckResult(check_name=REJECTED_CHECK, passed=not reasons, severity=dg.AssetCheckSeverity.WARN,
                            metadata={"rejected": dg.MetadataValue.json(reasons), "count": len(reasons)}),
        dg.AssetCheckResult(check_name=DEFAULT_PARSER_CHECK, passed=smoke_test or not report.fallback_parser_used,
                            metadata={"documents_parsed_by_default": dg.MetadataValue.json(
                                report.default_parser_documents), "smoke_test": smoke_test}),
        dg.AssetCheckResult(check_name=SPANS_CHECK, passed=report.units_without_span == 0,
                            metadata={"units_without_span": report.units_without_span}),
        dg.AssetCheckResult(check_name=STALE_CHECK, passed=not report.stale, severity=dg.AssetCheckSeverity.WARN,
                            metadata={"stale": dg.MetadataValue.json(
                                {r["document_id"]: f"[{r['stage']}] {r['reason']}" for r in report.stale}),
                                "count": len(report.stale)}),
        dg.AssetCheckResult(check_name=PLUGINS_CHECK, passed=not report.plugin_errors,
                            metadata={"errors": dg.MetadataValue.json(
                                {e["file"]: e["message"] for e in report.plugin_errors}),
                                "count": len(report.plugin_errors)}),
    ]


def read_report(right_rag: RightRagProject) -> AuditReport:
    store = right_rag.get_store()
    if not store.exists():
        store.ensure()
    with store.read(scan=True) as con:
        return build_audit_report(con, right_rag.get_project().pipeline.fallback_unit_parser_name)
