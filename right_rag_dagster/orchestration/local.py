"""Execute the asset graph in this process (``right-rag index``): same assets, same instance as ``dagster dev``."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import dagster as dg
from dagster._core.utils import make_new_run_id

from ..errors import RightRagError
from ..pipeline.plan import IndexPlan
from ..project import Project
from ..startup import bulk_imports
from .defs.documents import STORE_POOL
from .home import ensure_dagster_home
from .names import DOCUMENT_JOB, DOCUMENTS_PARTITIONS, REFRESH_JOB
from .origin import attribute_to_location
from .project_definitions import build_definitions
from .recovery import SOURCE_TAG, pool_holders, process_tags, recover_dead_runs
from .resources import preload
from .streaming import execute_streaming

SUBSET_PLANNED_EVENTS = "DAGSTER_EMIT_PARTITION_SUBSET_IN_PLANNED_EVENTS"
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
"""The CLI prints its own summary and one line per error; Dagster's console log (tracebacks included) is for
``--debug``. Everything is still in the run's event log, for the UI."""
DEBUG_LOGS = {"loggers": {"console": {"config": {"log_level": "DEBUG"}}}}


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
    """The assets partitioned by document: the document job without the refresh (the run reports each parser's
    units too; they are partitioned by the documents the parser owns)."""
    graph = defs.resolve_asset_graph()
    return [key for key in graph.get_all_asset_keys() if graph.get(key).partitions_def == DOCUMENTS_PARTITIONS]


def run_local(project: Project, plan: IndexPlan, all_keys: Sequence[str], refresh: bool,
              instance: dg.DagsterInstance | None = None, notify: Callable[[str], None] | None = None,
              debug: bool = False) -> LocalRunResult:
    """Sync partitions and run the document job over the range covering the plan's work, which also refreshes
    the search indexes and the audit report (without ``refresh``, only the documents' assets); with no
    document to index but a refresh pending, run the refresh job.

    Without ``instance``, uses the project's DAGSTER_HOME (``.dagster/`` by default) and enters the instance
    for the duration, so Dagster's per-instance context is this instance's and is released afterwards. Runs of
    dead ``right-rag index`` processes are recovered first (see ``recovery``); ``notify`` is told what the run
    waits for, if anything. A run that fails raises the error that failed it (a ``RightRagError`` as it is).
    """
    # One ASSET_MATERIALIZATION_PLANNED event per asset for the run's partition subset instead of one per
    # asset and partition: halves Dagster's bookkeeping for a batched run (measured in bench/index_scale.py).
    os.environ.setdefault(SUBSET_PLANNED_EVENTS, "1")
    with ExitStack() as stack:
        if instance is None:
            ensure_dagster_home(project.dagster_home)
            with bulk_imports():  # the instance imports Dagster's storage (SQLAlchemy, Alembic) on first use
                instance = stack.enter_context(dg.DagsterInstance.get())
        recovered = recover_dead_runs(instance)
        if notify is not None and recovered.failed_runs:
            notify(f"marked {len(recovered.failed_runs)} run(s) of dead right-rag index processes failed and freed "
                   f"their slots: {', '.join(recovered.failed_runs)}")
        if notify is not None:
            for run in pool_holders(instance, STORE_POOL):
                notify(f"waiting for run {run.run_id} ({run.job_name}, {run.status.value}) to release the store")
        try:
            return _run(project, plan, all_keys, refresh, instance, debug)
        except dg.DagsterExecutionStepExecutionError as exc:
            raise _cause(exc) from exc
        except dg.DagsterExecutionInterruptedError as exc:  # Ctrl-C: Dagster failed the run and freed its slot
            raise KeyboardInterrupt from exc
        finally:
            preload(None)


def _cause(exc: BaseException) -> BaseException:
    """The user-facing error inside Dagster's step error: ours as it is, anything else wrapped with the run."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, RightRagError):
            return cause
        if not isinstance(cause, dg.DagsterError):
            return RightRagError(f"the index run failed: {type(cause).__name__}: {cause} "
                                 "(run again with --debug for the traceback)")
        cause = cause.__cause__
    return RightRagError(f"the index run failed: {exc}")


def _run(project: Project, plan: IndexPlan, all_keys: Sequence[str], refresh: bool,
         instance: dg.DagsterInstance, debug: bool) -> LocalRunResult:
    defs = build_definitions(project)
    preload(project)
    sync_partitions(instance, all_keys)
    run_config = DEBUG_LOGS if debug else QUIET_LOGS
    tags = {SOURCE_TAG: "cli", **process_tags()}
    run_id = make_new_run_id()
    try:
        if plan.todo:
            order = {k: i for i, k in enumerate(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name))}
            keys = sorted((f.partition_key for f in plan.todo), key=order.__getitem__)
            execute_streaming(
                defs.resolve_job_def(DOCUMENT_JOB), instance=instance, run_config=run_config, run_id=run_id,
                asset_selection=None if refresh else document_asset_keys(defs),
                tags={"dagster/asset_partition_range_start": keys[0],
                      "dagster/asset_partition_range_end": keys[-1], **tags},
            )
            return LocalRunResult(run_id, run_id if refresh else None, len(plan.removed))
        if refresh or plan.removed:  # the run removes the deleted files' rows, then refreshes
            execute_streaming(defs.resolve_job_def(REFRESH_JOB), instance=instance, run_config=run_config,
                              tags=tags, run_id=run_id)
            return LocalRunResult(None, run_id, len(plan.removed))
        return LocalRunResult(None, None, len(plan.removed))
    finally:
        attribute_to_location(instance, project, run_id)  # failed runs too: the Overview shows them
