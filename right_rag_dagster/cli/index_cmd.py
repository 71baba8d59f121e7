"""``right-rag index``: run the asset graph in-process, incrementally (unchanged documents cost almost nothing)."""

from __future__ import annotations

import argparse
import time

from ..pipeline.indexer import Indexer
from ..pipeline.runner import add_progress_listener, scan_and_plan
from ..project import Project
from ..retrieval.formats import outdated_indexes
from ..retrieval.lifecycle import sync_dense_indexes
from ..retrieval.settings import RetrievalSettings, embedder_for_project
from ..store import Store
from .progress import ProgressBar, format_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index", help="index the documents folder (incremental; runs the Dagster assets in-process)",
        description="Load, parse, chunk and index every new or changed document of the project, through the same "
                    "Dagster asset graph that `dagster dev` shows, without a server. Unchanged documents are skipped "
                    "before Dagster starts.")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    project = Project.load(args.project)
    store = Store(project.store_path)
    if store.exists():
        store.ensure()  # apply pending migrations before anything reads the store
    indexer = Indexer(project)
    files, plan = scan_and_plan(indexer, store, project.documents_dir)
    dense = RetrievalSettings.from_dict(project.retrieval).embedder is not None
    for line in sync_dense_indexes(store, [c.name for c in indexer.plugins.chunkers], embedder_for_project(project),
                                   ProgressBar):  # the embedder setting changed alone: build, rebuild or drop
        print(line)
    if plan.is_empty and not plan.refresh_pending and not outdated_indexes(
            store, [c.name for c in indexer.plugins.chunkers], dense):
        summary = _summary(store, plan, 0, time.monotonic() - started, 0)
        print(summary if not args.quiet else summary.splitlines()[-1])
        return 0
    from ..orchestration.local import run_local  # Dagster is imported only when there is work to do

    bar = ProgressBar(len(plan.todo))
    add_progress_listener(bar.advance)
    try:
        result = run_local(project, plan, [f.partition_key for f in files], refresh=True)
    finally:
        bar.close()
    summary = _summary(store, plan, len(plan.todo), time.monotonic() - started, result.removed)
    print(summary if not args.quiet else summary.splitlines()[-1])
    return 0


def _summary(store: Store, plan, processed: int, seconds: float, removed: int) -> str:
    if not store.exists():
        return f"no documents indexed ({len(plan.unchanged)} unchanged) in {seconds:.1f}s"
    todo = {f.document_id for f in plan.todo}
    with store.read() as con:
        rejected = dict(con.execute("SELECT document_id, status || ': ' || reason FROM rejections").fetchall())
        units = con.execute("SELECT count(*) FROM units WHERE active").fetchone()[0]
        chunk_rows = con.execute("SELECT chunker, count(*) FROM chunks GROUP BY chunker ORDER BY chunker").fetchall()
        coverage = con.execute("SELECT avg(coverage_percent), min(coverage_percent) FROM coverage").fetchone()
    rows = [
        ["documents indexed", len(todo - set(rejected))],
        ["documents unchanged", len(plan.unchanged)],
        ["documents rejected", len(rejected)],
        ["documents removed", removed],
        ["units", units],
        *[[f"chunks ({name})", count] for name, count in chunk_rows],
        ["coverage mean %", round(coverage[0] or 0.0, 2)],
        ["coverage min %", round(coverage[1] or 0.0, 2)],
        ["seconds", round(seconds, 2)],
    ]
    lines = [format_table(["", "value"], rows)]
    new_rejections = [f"  {doc}: {reason}" for doc, reason in sorted(rejected.items()) if doc in todo]
    if new_rejections:
        lines += ["", "rejected in this run:", *new_rejections]
    lines += ["", f"indexed {len(todo - set(rejected))}, unchanged {len(plan.unchanged)}, rejected {len(rejected)}, "
                  f"removed {removed} in {seconds:.1f}s"]
    return "\n".join(lines)
