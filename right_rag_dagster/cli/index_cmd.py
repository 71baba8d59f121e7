"""``right-rag index``: run the asset graph in-process, incrementally (unchanged documents cost almost nothing).

Exit status: 0 when every document is indexed, 3 when some are rejected or stale (``--allow-rejections``
makes that 0), 2 on errors (a spec file that does not import included), 75 when another index holds the
project and ``--no-wait`` was given."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..terminal import safe

if TYPE_CHECKING:
    from ..pipeline.plan import IndexPlan
    from ..project import Project
    from ..store import Store

EXIT_OK, EXIT_ERROR, EXIT_REJECTED, EXIT_BUSY = 0, 2, 3, 75


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index", help="index the documents folder (incremental; runs the Dagster assets in-process)",
        description="Load, parse, chunk and index every new or changed document of the project, through the same "
                    "Dagster asset graph that `dagster dev` shows, without a server. Unchanged documents are skipped "
                    "before Dagster starts. Exit status: 0 all indexed, 3 documents rejected or stale, 2 errors, "
                    "75 another index is running (with --no-wait).")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    parser.add_argument("--no-wait", action="store_true",
                        help="exit at once (status 75) when another right-rag index is running on this project")
    parser.add_argument("--allow-rejections", action="store_true",
                        help="exit 0 even when documents were rejected or are stale")
    parser.add_argument("--writers", type=int, default=1, metavar="N",
                        help="on a DuckLake store: N Dagster runs write their shares of the documents at once, then "
                             "one run refreshes the search indexes and the report (default 1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..project import Project
    from ..store import Store
    from ..store.lock import IndexLock

    started = time.monotonic()
    project = Project.load(args.project)
    store = Store.for_project(project)
    lock = IndexLock(store.path)

    def waiting(holder: dict) -> None:
        who = f"pid {holder.get('pid', '?')}, started {holder.get('started', '?')}"
        action = "not started (--no-wait)" if args.no_wait else "waiting for it to finish"
        print(f"right-rag: another right-rag index ({who}) is indexing {project.root}; {action}", file=sys.stderr)

    if not lock.acquire(wait=not args.no_wait, on_wait=waiting):
        return EXIT_BUSY
    try:
        return _index(args, project, store, started)
    finally:
        lock.release()


def _index(args: argparse.Namespace, project: Project, store: Store, started: float) -> int:
    # Imported here, not at the top: a run with nothing to do needs none of the run's machinery (workers,
    # Dagster, embedders, the progress bar), and ``right-rag --help`` imports every command module.
    from ..pipeline.indexer import Indexer
    from ..pipeline.plan import scan_and_plan
    from ..pipeline.plugins import record_plugin_errors
    from ..retrieval.formats import outdated_indexes, stored_dense_indexes
    from ..retrieval.settings import RetrievalSettings

    indexer = Indexer(project)
    chunkers = [c.name for c in indexer.plugins.chunkers]
    dense = RetrievalSettings.from_dict(project.retrieval).embedder is not None
    summary = None
    with store.session():  # ends before the run starts: the run's steps open the store themselves
        if store.exists():
            store.ensure()  # apply pending migrations before anything reads the store
        plugin_errors = record_plugin_errors(indexer, store)
        for error in plugin_errors:
            print(f"right-rag: error: a spec plugin failed to import: {safe(error)}", file=sys.stderr)
        files, plan = scan_and_plan(indexer, store, project.documents_dir)
        dense_work = dense or bool(stored_dense_indexes(store, chunkers))  # vectors to build, rebuild or drop
        if not dense_work and plan.is_empty and not plan.refresh_pending and not outdated_indexes(store, chunkers):
            summary = _summary(store, plan, 0, time.monotonic() - started, 0, args.quiet)  # nothing to do
    if summary is None:
        summary = _run(args, project, store, plan, files, chunkers, dense, dense_work, started)
    text, problems = summary
    print(text)
    if plugin_errors:
        return EXIT_ERROR
    return EXIT_REJECTED if problems and not args.allow_rejections else EXIT_OK


def _run(args: argparse.Namespace, project: Project, store: Store, plan: IndexPlan, files: list, chunkers: list[str],
         dense: bool, dense_work: bool, started: float) -> tuple[str, int]:
    """Bring the dense indexes in line with the embedder setting, run the index, and summarize."""
    from ..pipeline.runner import add_progress_listener, add_start_listener
    from ..pipeline.workers import close_prestarted, prestart_workers
    from ..retrieval.formats import outdated_indexes
    from ..startup import bulk_imports
    from .progress import ProgressBar

    if dense_work:
        from ..retrieval.build.lifecycle import sync_dense_indexes
        from ..retrieval.settings import embedder_for_project

        for line in sync_dense_indexes(store, chunkers, embedder_for_project(project),
                                       ProgressBar):  # the embedder setting changed alone: build, rebuild or drop
            print(line)
    work = not plan.is_empty or plan.refresh_pending or outdated_indexes(store, chunkers, dense)
    processed = 0
    removed = 0
    if work:
        writers = _writers(args, store, len(plan.todo))
        if plan.todo:  # they import the plugins while this process imports Dagster; with --writers N, this
            prestart_workers(project, keep=writers > 1)  # process is a writer too, and keeps them for its ranges
        processes = _start_writers(project, writers - 1, args.debug) if plan.todo and writers > 1 else None
        with bulk_imports():  # Dagster is imported only when there is work to do
            from ..orchestration.local import run_local

        bar = ProgressBar(len(plan.todo))
        add_progress_listener(bar.advance)
        add_start_listener(bar.started)
        try:
            if writers > 1:
                from ..orchestration.parallel import run_writers

                result = run_writers(project, plan, [f.partition_key for f in files], writers,
                                     notify=lambda message: print(f"right-rag: {safe(message)}", file=sys.stderr),
                                     debug=args.debug, processes=processes)
            else:
                result = run_local(project, plan, [f.partition_key for f in files], refresh=True,
                                   notify=lambda message: print(f"right-rag: {safe(message)}", file=sys.stderr),
                                   debug=args.debug)
        finally:
            bar.close()
            close_prestarted()
            if processes is not None:
                processes.close()  # ended already, unless the run failed before its writers did
        processed, removed = len(plan.todo), result.removed
    return _summary(store, plan, processed, time.monotonic() - started, removed, args.quiet)


def _start_writers(project: Project, writers: int, debug: bool):
    """The writer processes of ``--writers N`` besides this one (N - 1), started before this process imports
    Dagster: they import it, and start their parsing workers, meanwhile."""
    from ..orchestration.writer_pool import WriterProcesses

    return WriterProcesses(project, writers, debug).start()


def _writers(args: argparse.Namespace, store: Store, documents: int) -> int:
    """The writer runs to start: several only on a DuckLake (the embedded file takes one writing process)."""
    writers = getattr(args, "writers", 1) or 1
    if writers < 1:
        raise ConfigError(f"--writers {writers}: give at least 1")
    if writers > 1 and store.lake is None:
        raise ConfigError("--writers needs a DuckLake store ([right-rag.store] backend = \"ducklake\"): the embedded "
                          "DuckDB file takes one writing process at a time")
    return max(1, min(writers, documents))


def _summary(store: Store, plan: IndexPlan, processed: int, seconds: float, removed: int,
             quiet: bool = False) -> tuple[str, int]:
    """The summary table and lines (``quiet``: only the last line), and the number of documents rejected or
    stale."""
    from ..store.catalog import index_totals

    skipped = [f"  {safe(s.document_id)}: {s.reason}" for s in plan.skipped]
    if not store.exists():
        lines = [f"no documents indexed ({len(plan.unchanged)} unchanged) in {seconds:.1f}s"]
        return "\n".join([*(["skipped:", *skipped, ""] if skipped and not quiet else []), *lines]), 0
    todo = {f.document_id for f in plan.todo}
    with store.read() as con:
        totals = index_totals(con)
    rejected = {r.document_id: f"{r.status}: {r.reason}" for r in totals.rejections if not r.stale}
    stale = {r.document_id: f"{r.status}: {r.reason}" for r in totals.rejections if r.stale}
    indexed = len(todo - set(rejected) - set(stale))
    stale_note = f", stale {len(stale)}" if stale else ""
    last = (f"indexed {indexed}, unchanged {len(plan.unchanged)}, rejected {len(rejected)}{stale_note}, "
            f"removed {removed} in {seconds:.1f}s")
    problems = len(rejected) + len(stale)
    if quiet:  # the table is drawn by rich, which a quiet run need not import
        return last, problems
    from .progress import format_table

    table = [
        ["documents indexed", indexed],
        ["documents unchanged", len(plan.unchanged)],
        ["documents rejected", len(rejected)],
        ["documents stale (last good version serves)", len(stale)],
        ["documents removed", removed],
        ["units", totals.active_units],
        *[[f"chunks ({name})", count] for name, count in totals.chunks_per_chunker],
        ["coverage mean %", round(totals.coverage_mean or 0.0, 2)],
        ["coverage min %", round(totals.coverage_min or 0.0, 2)],
        ["seconds", round(seconds, 2)],
    ]
    lines = [format_table(["", "value"], table)]
    for title, found in (("rejected in this run:", rejected), ("stale after this run (the last good version "
                                                                "keeps serving):", stale)):
        new = [f"  {safe(doc)}: {safe(reason)}" for doc, reason in sorted(found.items()) if doc in todo]
        if new:
            lines += ["", title, *new]
    if skipped:
        lines += ["", "skipped (not indexed):", *skipped]
    if plan.outside:
        lines += ["", "indexed through links that leave the documents folder (allow_outside_links = true):",
                  *[f"  {safe(doc)}" for doc in plan.outside]]
    lines += ["", last]
    return "\n".join(lines), problems
