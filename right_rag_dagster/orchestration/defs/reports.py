"""The unpartitioned audit report asset and its data-quality checks."""


import dagster as dg

from ...pipeline.audit import AuditReport, build_audit_report
from ...project import Project
from ..names import AUDIT_REPORT_KEY, COVERAGE_KEY
from ..resources import RightRagProject


def build_report_assets(project: Project, unit_keys: list[dg.AssetKey],
                        chunk_keys: list[dg.AssetKey]) -> tuple[list[dg.AssetsDefinition], list]:
    """The audit report asset and four checks on it (coverage, rejections, default parser, spans)."""

    @dg.asset(
        key=AUDIT_REPORT_KEY,
        deps=[COVERAGE_KEY, *unit_keys, *chunk_keys],
        group_name="reports",
        kinds={"duckdb"},
        description="Parser audit: documents per parser, rejections with reasons, unit and chunk counts by type, "
                    "coverage per document, whether the smoke-test default parser was used.",
    )
    def audit_report(right_rag: RightRagProject) -> dg.MaterializeResult:
        report = read_report(right_rag)
        return dg.MaterializeResult(metadata={
            "documents": report.documents_total,
            "documents_by_parser": dg.MetadataValue.json(report.documents_by_parser),
            "rejected": len(report.rejected),
            "units_by_type": dg.MetadataValue.json(report.units_by_type),
            "chunks_by_type": dg.MetadataValue.json(report.chunks_by_type),
            "fallback_parser_used": report.fallback_parser_used,
            "min_coverage_percent": min((r["coverage_percent"] for r in report.coverage), default=0.0),
            "report": dg.MetadataValue.md(report.to_markdown()),
        })

    threshold = project.min_coverage_percent

    @dg.asset_check(asset=audit_report, description=f"Every parsed document has coverage >= {threshold}% "
                    "(set [right-rag.checks] min_coverage_percent).")
    def coverage_above_threshold(right_rag: RightRagProject) -> dg.AssetCheckResult:
        report = read_report(right_rag)
        low = {r["document_id"]: r["coverage_percent"] for r in report.coverage
               if r["coverage_percent"] < right_rag.get_project().min_coverage_percent}
        return dg.AssetCheckResult(passed=not low, severity=dg.AssetCheckSeverity.WARN,
                                   metadata={"below_threshold": dg.MetadataValue.json(low), "count": len(low)})

    @dg.asset_check(asset=audit_report, description="No document was rejected (unsupported, ambiguous, failed).")
    def no_rejected_documents(right_rag: RightRagProject) -> dg.AssetCheckResult:
        report = read_report(right_rag)
        reasons = {r["document_id"]: f"[{r['status']}] {r['reason']}" for r in report.rejected}
        return dg.AssetCheckResult(passed=not reasons, severity=dg.AssetCheckSeverity.WARN,
                                   metadata={"rejected": dg.MetadataValue.json(reasons), "count": len(reasons)})

    @dg.asset_check(asset=audit_report, description="The smoke-test default parsers are not used outside a smoke "
                    "test ([right-rag.checks] smoke_test = true allows them).")
    def default_parser_not_in_production(right_rag: RightRagProject) -> dg.AssetCheckResult:
        report = read_report(right_rag)
        allowed = right_rag.get_project().smoke_test
        return dg.AssetCheckResult(passed=allowed or not report.fallback_parser_used,
                                   metadata={"documents_parsed_by_default": dg.MetadataValue.json(
                                       report.default_parser_documents), "smoke_test": allowed})

    @dg.asset_check(asset=audit_report, description="Every unit has a source span, so every chunk can be cited.")
    def units_have_source_spans(right_rag: RightRagProject) -> dg.AssetCheckResult:
        report = read_report(right_rag)
        return dg.AssetCheckResult(passed=report.units_without_span == 0,
                                   metadata={"units_without_span": report.units_without_span})

    return [audit_report], [coverage_above_threshold, no_rejected_documents, default_parser_not_in_production,
                            units_have_source_spans]


def read_report(right_rag: RightRagProject) -> AuditReport:
    store = right_rag.get_store()
    if not store.exists():
        store.ensure()
    with store.read() as con:
        return build_audit_report(con)
