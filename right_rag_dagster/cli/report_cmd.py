"""``right-rag report``: the parser audit report (documents per parser, rejections, counts, coverage)."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report", help="print the parser audit report of the last index",
        description="Print the parser coverage report: documents handled by each parser, documents rejected with "
                    "the reason, unit and chunk counts by type, coverage per document (documents of the fallback unit parser labelled as such), smoke-test parser use.")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..pipeline.audit import build_audit_report  # here, not at the top: every command imports this module
    from ..project import Project
    from ..store import Store
    from ..terminal import safe_text

    project = Project.load(args.project)
    with Store.for_project(project).read() as con:
        report = build_audit_report(con, project.pipeline.fallback_unit_parser_name)
    print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) if args.json else safe_text(report.to_text()))
    return 0
