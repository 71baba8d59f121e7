"""``right-rag lineage ID``: chunk -> unit path -> document -> file hash -> parser and version -> runs."""

from __future__ import annotations

import argparse
import json

from ..errors import RightRagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lineage", help="show where a chunk, unit or document came from (no Dagster needed)",
        description="Walk the lineage stored in DuckDB: chunk -> unit path -> document -> file hash -> parser "
                    "name and version -> the runs that produced it. ID is a chunk id, a unit id (a prefix of 8+ "
                    "characters is enough), a document id (path relative to the documents folder) or a partition key.")
    parser.add_argument("id", help="chunk id, unit id, document id or partition key")
    parser.add_argument("--json", action="store_true", help="print the lineage as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..lineage_view import format_lineage, with_project_paths  # here: every command imports this module
    from ..project import Project
    from ..store import Store
    from ..store.lineage import walk

    project = Project.load(args.project)
    with Store.for_project(project).read() as con:
        result = walk(con, args.id)
    if "document" not in result and "rejection" not in result:
        raise RightRagError(f"nothing with id {args.id!r} in {project.store_path}; use a chunk id (see "
                            "`right-rag query --json`), a unit id or a document path")
    with_project_paths(project, result)
    print(json.dumps(result, indent=2, ensure_ascii=False, default=str) if args.json else format_lineage(result))
    return 0
