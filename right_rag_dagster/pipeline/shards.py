"""Several writers indexing one project at once, each its own share of the documents (a DuckLake store).

A document belongs to shard ``stable_hash(document id) mod shards``, so every writer (a process on any machine,
with the same project and the same lake) computes the same split without talking to the others. A shard only
writes its own documents: it never removes documents that left the folder nor rebuilds the search indexes,
which read every shard's rows; ``finish_shards`` does both once, after the writers.

    python -m right_rag_dagster.pipeline.shards PROJECT SHARD SHARDS    # one writer, e.g. 0 2 and 1 2
    python -m right_rag_dagster.pipeline.shards PROJECT --finish        # once all writers are done
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

from ..errors import ConfigError


def shard_of(document_id: str, shards: int) -> int:
    """The shard a document belongs to (the same in every process: not Python's salted ``hash``)."""
    return int.from_bytes(hashlib.sha256(document_id.encode("utf-8")).digest()[:8], "big") % shards


def index_shard(project_dir: str | Path, shard: int, shards: int) -> dict[str, int]:
    """Index the new and changed documents of shard ``shard`` of ``shards``; returns counts of what happened
    (``conflicts``: commits written again because another writer committed first)."""
    from ..project import Project
    from ..store import Store
    from .indexer import Indexer
    from .plan import scan_and_plan
    from .runner import mark_refresh, process_documents

    if not 0 <= shard < shards:
        raise ConfigError(f"shard {shard} of {shards}: use 0 <= shard < shards")
    project = Project.load(project_dir)
    store = Store.for_project(project)
    if shards > 1 and store.lake is None:
        raise ConfigError("several writers need a DuckLake store ([right-rag.store] backend = \"ducklake\"): "
                          "the embedded DuckDB file takes one writing process at a time")
    indexer = Indexer(project)
    _, plan = scan_and_plan(indexer, store, project.documents_dir)
    mine = [f for f in plan.todo if shard_of(f.document_id, shards) == shard]
    counts: Counter[str] = Counter()
    run_id = f"shard-{shard}-of-{shards}-{uuid.uuid4()}"
    if mine:  # once, not with every batch: concurrent replacements of that one row would conflict
        store.retry_conflicts(lambda: mark_refresh(store, pending=True))
    for events in process_documents(indexer, store, mine, run_id, mark_pending=False):
        counts.update(f"{e.asset.split('/')[0]}:{e.status}" for e in events)
    counts["documents"] = len(mine)
    counts["conflicts"] = store.conflicts
    return dict(counts)


def finish_shards(project_dir: str | Path) -> dict[str, int]:
    """After every writer: remove the documents that left the folder and bring the search indexes up to
    date (one process; the writers leave both alone)."""
    from ..project import Project
    from ..retrieval import build_search_index
    from ..store import Store
    from .indexer import Indexer
    from .plan import scan_and_plan
    from .runner import mark_refresh, remove_gone

    project = Project.load(project_dir)
    store = Store.for_project(project)
    indexer = Indexer(project)
    files, _ = scan_and_plan(indexer, store, project.documents_dir)
    started = time.monotonic()
    removed = remove_gone(indexer, store, files, f"finish-{uuid.uuid4()}")
    chunks = 0
    for chunker in indexer.plugins.chunkers:
        chunks += build_search_index(store, chunker.name)["chunks_indexed"]
    mark_refresh(store, pending=False)
    return {"removed": len(removed), "chunks_indexed": chunks, "seconds": round(time.monotonic() - started, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m right_rag_dagster.pipeline.shards",
                                     description="Index one shard of a project's documents, or finish the shards.")
    parser.add_argument("project", help="the project folder (with right_rag.toml)")
    parser.add_argument("shard", nargs="?", type=int, help="this writer's shard, from 0")
    parser.add_argument("shards", nargs="?", type=int, help="the number of writers")
    parser.add_argument("--finish", action="store_true", help="remove gone documents and build the search indexes")
    args = parser.parse_args(argv)
    if args.finish:
        result = finish_shards(args.project)
    elif args.shard is None or args.shards is None:
        parser.error("give SHARD and SHARDS, or --finish")
    else:
        result = index_shard(args.project, args.shard, args.shards)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
