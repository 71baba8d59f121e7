"""Pipeline steps as plain functions, and right-rag's ``PipelineConfig``/``pipeline()`` entry point.

``pipeline()`` indexes a documents folder without Dagster (right-rag compatible); ``right-rag index`` and
``dagster dev`` run the same steps as Dagster assets.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path

from ..config import PipelineConfig

__all__ = ["PipelineConfig", "pipeline"]


def pipeline(config: PipelineConfig | None = None, project_dir: str | Path | None = None) -> dict[str, int]:
    """Index the documents folder incrementally without Dagster; returns counts of what happened."""
    from ..project import Project
    from ..store import Store
    from .indexer import Indexer
    from .plan import scan_and_plan
    from .runner import process_documents, remove_gone

    project = Project.load(project_dir)
    if config is not None:
        root = project.root
        project = replace(
            project,
            spec_dir=(root / config.spec_root_package).resolve(),
            documents_dir=(root / config.document_root_folder).resolve(),
            output_dir=(root / config.output_folder).resolve(),
            pipeline=config,
        )
    store = Store.for_project(project)
    indexer = Indexer(project)
    files, plan = scan_and_plan(indexer, store, project.documents_dir)
    run_id = f"pipeline-{uuid.uuid4()}"
    counts: Counter[str] = Counter()
    for events in process_documents(indexer, store, plan.todo, run_id):
        counts.update(f"{e.asset.split('/')[0]}:{e.status}" for e in events)
    counts["removed"] = len(remove_gone(indexer, store, files, run_id))
    counts["unchanged"] = len(plan.unchanged)
    store.compact(rewritten_share=(len(plan.todo) + counts["removed"]) / max(1, len(files) + counts["removed"]))
    return dict(counts)
