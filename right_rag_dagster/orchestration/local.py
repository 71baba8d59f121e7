"""Execute the asset graph in this process (``right-rag index``): same assets, same instance as ``dagster dev``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import dagster as dg

from ..pipeline.runner import IndexPlan, remove_documents
from ..project import Project
from ..store import Store
from .definitions import build_definitions
from .home import ensure_dagster_home
from .names import DOCUMENT_JOB, DOCUMENTS_PARTITIONS, REFRESH_JOB

SUBSET_PLANNED_EVENTS = "DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS"
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass(frozen=True)
class LocalRunResult:
    document_run_id: str | None
    refresh_run_id: str | None
    removed: int


def sync_partitions(instance: dg.DagsterInstance, wanted: Sequence[str]) -> tuple[list[str], list[str]]:
    """Make the dynamic partitions equal the folder's keys; returns (added, deleted)."""
    existing = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
    present = set(existing)
    added = [k for k in wanted if k not in present]
    deleted = [k for k in existing if k not in set(wanted)]
    if added:
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS.name, added)
    for key in deleted:
        instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS.name, key)
    return added, deleted


def document_asset_keys(defs: dg.Definitions) -> list[dg.AssetKey]:
    """The partitioned (per-document) assets of the project: the document job without the refresh."""
    graph = defs.resolve_asset_graph()
    return [key for key in graph.get_all_asset_keys() if graph.get(key).partitions_def is not None]


def run_local(project: Project, plan: IndexPlan, all_keys: Sequence[str], refresh: bool,
              instance: dg.DagsterInstance | None = None) -> LocalRunResult:
    """Sync partitions and run the document job over the range covering the plan's work, which also refreshes
    the search indexes and the audit report (without ``refresh``, only the documents' assets); with no
    document to index but a refresh pending, run the refresh job.

    Without ``instance``, uses the project's DAGSTER_HOME (``.dagster/`` by default) and enters the instance
    for the duration, so Dagster's per-instance context is this instance's and is released afterwards.
    """
    # One ASSET_MATERIALIZATION_PLANNED event per asset for the run's partition subset instead of one per
    # asset and partition: halves Dagster's bookkeeping for a batched run (measured in bench/index_scale.py).
    os.environ.setdefault(SUBSET_PLANNED_EVENTS, "1")
    with ExitStack() as stack:
        if instance is None:
            ensure_dagster_home(project.dagster_home)
            instance = stack.enter_context(dg.DagsterInstance.get())
        return _run(project, plan, all_keys, refresh, instance)


def _run(project: Project, plan: IndexPlan, all_keys: Sequence[str], refresh: bool,
         instance: dg.DagsterInstance) -> LocalRunResult:
    store = Store(project.store_path)
    defs = build_definitions(project)
    sync_partitions(instance, all_keys)
    removed = 0
    if plan.removed:
        from ..pipeline.indexer import Indexer

        removed = len(remove_documents(Indexer(project), store, plan.removed, run_id="right-rag-index"))
    document_run = refresh_run = None
    if plan.todo:
        order = {k: i for i, k in enumerate(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name))}
        keys = sorted((f.partition_key for f in plan.todo), key=order.__getitem__)
        job = defs.resolve_job_def(DOCUMENT_JOB)
        result = job.execute_in_process(
            instance=instance, run_config=QUIET_LOGS,
            asset_selection=None if refresh else document_asset_keys(defs),
            tags={"dagster/asset_partition_range_start": keys[0],
                  "dagster/asset_partition_range_end": keys[-1], "right_rag/source": "cli"},
        )
        document_run = result.run_id
        refresh_run = result.run_id if refresh else None
    elif refresh:
        result = defs.resolve_job_def(REFRESH_JOB).execute_in_process(
            instance=instance, run_config=QUIET_LOGS, tags={"right_rag/source": "cli"})
        refresh_run = result.run_id
    return LocalRunResult(document_run, refresh_run, removed)
