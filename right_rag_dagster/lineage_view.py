"""Lineage as people read it (``right-rag lineage``, the playground): paths relative to the project, one line per
record, shared so the command and the page never disagree."""

from __future__ import annotations

import os
from pathlib import Path

from .project import Project
from .terminal import safe


def with_project_paths(project: Project, result: dict) -> dict:
    """The lineage with the document's path relative to the project folder: right after the folder moves, unlike
    the absolute path the store recorded when it was indexed."""
    if "document" in result:
        folder = os.path.relpath(project.documents_dir, project.root)
        base = project.documents_dir if folder.startswith("..") else Path(folder)
        result["document"]["path"] = (base / result["document"]["document_id"]).as_posix()
    return result


def format_lineage(result: dict) -> str:
    """One line per record; a newline or escape sequence in a file name or topic is shown escaped."""
    lines = []
    if "chunk" in result:
        c = result["chunk"]
        pages = f" pages {c['pages'][0]}-{c['pages'][1]}" if c["pages"][0] is not None else ""
        lines.append(f"chunk     {c['chunk_id']}  ({c['chunker']} {c['chunker_version']}) span {c['span'][0]}-"
                     f"{c['span'][1]}{pages}")
    if "unit" in result:
        u = result["unit"]
        lines.append(f"unit      {u['unit_id']}  {' > '.join(u['section_path'])}")
        lines.append(f"          type {u['unit_type']}, span {u['span'][0]}-{u['span'][1]}, "
                     f"history {' -> '.join(u['history'])}")
        lines.append(f"parser    {u['parser']} version {u['parser_version']}")
    if "document" in result:
        d = result["document"]
        lines.append(f"document  {d['document_id']}  (partition {d['partition_key']}, {d['status']})")
        lines.append(f"file      {d['path']}  sha256 {d['content_hash']}  {d['size_bytes']} bytes, "
                     f"{d['pages'] or 0} pages")
        lines.append(f"loader    {d['loader']} version {d['loader_version']}, loaded {d['loaded_at']}")
    if "rejection" in result:
        r = result["rejection"]
        lines.append(f"rejected  at {r['stage']}: [{r['status']}] {r['reason']}")
    for run in result.get("runs", [])[:10]:
        lines.append(f"run       {run['run_id']}  {run['asset']} {run['status']} code {run['code_version']} "
                     f"data {run['data_version']} at {run['ended_at']}")
    return "\n".join(safe(line) for line in lines)
