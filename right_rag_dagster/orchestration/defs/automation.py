"""The documents-folder sensor (owns the partitions), the refresh-after-index sensor and the rescan schedule.

They only look and ask: the sensor compares the folder with the store's ``files`` table, adds and deletes
partitions, and requests runs; every write to the store (removing a deleted file's rows included) happens in
the run, in ``document_pipeline``. A request whose run failed is asked for again on a later tick (at most
``RETRIES`` times for the same contents), so a crash never leaves a file unindexed until it changes again.
Before asking, they recover the runs of ``right-rag index`` processes that died (``kill -9``, out of memory):
Dagster's run monitoring cannot tell that such a run's process is gone, and its slot in the store's pool would
block every run they request.
"""

from __future__ import annotations

import dagster as dg

from ...core.hashing import stable_hash
from ...pipeline.plan import FolderChanges, folder_changes, refresh_pending
from ...pipeline.scan import Scan, scan_folder
from ...project import Project
from ...store import Store
from ...store.catalog import SeenFile, seen_files
from ..names import (
    AUDIT_REPORT_KEY,
    DOCUMENT_JOB,
    DOCUMENTS_PARTITIONS,
    REFRESH_JOB,
    search_index_key,
)
from ..recovery import recover_dead_runs
from ..resources import RightRagProject
from ..writers import GROUP_TAG, group_refresh_key, is_writer_run
from .jobs import index_documents_job, refresh_indexes_job
from .writer_split import WriterSplit, writer_split

SENSOR_INTERVAL_SECONDS = 2
"""The sensor's minimum interval. Dagster's daemon evaluates sensors once per loop of 5 s at most, so with any
minimum of about 5 s the elapsed time since the last tick is a little under it on every other loop and the folder
is looked at every 10 s (measured: ticks 9-11 s apart, the wait for one 8-10 s); with 2 s it is looked at every
loop. A scan of unchanged files costs a stat each (710 files: ~20 ms)."""
RETRIES = 3
CHANGES_TAG = "right_rag/changes"
DOCUMENT_ASSET_PREFIXES = ("raw_text", "units", "chunks", "coverage")


def indexed_files(store: Store) -> dict[str, SeenFile]:
    """Every file as the last run saw it (read only: the sensor never writes the store)."""
    if not store.exists():
        return {}
    with store.read() as con:
        return seen_files(con)


def detect_changes(instance: dg.DagsterInstance, right_rag: RightRagProject) -> tuple[Scan, FolderChanges]:
    """Scan the folder and compare it with the partitions and the store (read only)."""
    project = right_rag.get_project()
    indexed = indexed_files(right_rag.get_store())
    known = {doc: (f.mtime, f.size_bytes, f.content_hash) for doc, f in indexed.items()}
    scan = scan_folder(project.documents_dir, known, project.allow_outside_links)
    existing = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
    indexed_keys = {doc: (f.partition_key, f.content_hash) for doc, f in indexed.items()}
    return scan, folder_changes(scan.files, existing, indexed_keys)


def refresh_selection(project: Project) -> list[dg.AssetKey]:
    """The unpartitioned assets a run refreshes after removals: each chunker's search index and the report."""
    return [*(search_index_key(c) for c in project.selected("chunk_parsers")), AUDIT_REPORT_KEY]


def recover(instance: dg.DagsterInstance, log) -> None:  # noqa: ANN001 (Dagster's log manager)
    """Mark runs of dead ``right-rag index`` processes failed and free their pool slots (see ``recovery``)."""
    recovered = recover_dead_runs(instance)
    if recovered.failed_runs:
        log.warning(f"marked {len(recovered.failed_runs)} run(s) of dead right-rag index processes failed and "
                    f"freed their slots: {', '.join(recovered.failed_runs)}")


def run_requests(instance: dg.DagsterInstance, changes: FolderChanges,
                 removal: tuple[str, list[dg.AssetKey] | None] = (REFRESH_JOB, None),
                 writers: WriterSplit | None = None) -> list[dg.RunRequest]:
    """One batched run over the partition range that covers every new or changed document (on a DuckLake with
    a store pool of N, N writer runs over contiguous ranges: ``writers``); for removals alone, a ``removal`` run
    (job, asset selection) of the search indexes and the report, which first removes the deleted files' rows."""
    request = None
    if writers is not None and len(writers.slices) > 1:
        return [r for r in (_request(instance, key, DOCUMENT_JOB, tags, writers.selection)
                            for key, tags in writers.requests(changes.run_key)) if r is not None]
    if changes.to_index:
        tags = {"dagster/asset_partition_range_start": changes.range_start,
                "dagster/asset_partition_range_end": changes.range_end,
                "right_rag/documents": str(len(changes.to_index))}
        request = _request(instance, changes.run_key, DOCUMENT_JOB, tags)
    elif changes.delete:
        key = "removed-" + stable_hash(sorted(changes.delete))[:20]
        request = _request(instance, key, removal[0], {}, removal[1])
    return [request] if request is not None else []


def _request(instance: dg.DagsterInstance, changes_key: str, job_name: str, tags: dict[str, str],
             asset_selection: list[dg.AssetKey] | None = None) -> dg.RunRequest | None:
    """A request for these changes, unless a run for them is under way or has already been retried enough."""
    runs = instance.get_runs(filters=dg.RunsFilter(tags={CHANGES_TAG: changes_key}))
    if any(not run.is_finished for run in runs):
        return None
    failures = sum(1 for run in runs if run.status != dg.DagsterRunStatus.SUCCESS)
    if len(runs) > failures or failures > RETRIES:
        return None  # done (the store will agree on the next tick), or given up: the failed runs say why
    return dg.RunRequest(run_key=f"{changes_key}-{failures}" if failures else changes_key, job_name=job_name,
                         tags={**tags, CHANGES_TAG: changes_key}, asset_selection=asset_selection)


def partition_requests(changes: FolderChanges) -> list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest]:
    requests: list[dg.AddDynamicPartitionsRequest | dg.DeleteDynamicPartitionsRequest] = []
    if changes.add_keys:
        requests.append(DOCUMENTS_PARTITIONS.build_add_request(list(changes.add_keys)))
    if changes.delete:
        requests.append(DOCUMENTS_PARTITIONS.build_delete_request(sorted({k for _, k in changes.delete})))
    return requests


@dg.sensor(
    name="documents_folder_sensor",
    jobs=[index_documents_job, refresh_indexes_job],
    minimum_interval_seconds=SENSOR_INTERVAL_SECONDS,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches the documents folder: adds partitions for new files, deletes those of removed files, and "
                "requests one run for new or changed files (or, for removals alone, a run that removes their rows "
                "and refreshes the search indexes). A run that failed is requested again, up to 3 times.",
)
def documents_folder_sensor(context: dg.SensorEvaluationContext, right_rag: RightRagProject):
    recover(context.instance, context.log)
    scan, changes = detect_changes(context.instance, right_rag)
    digest = stable_hash([(f.document_id, f.content_hash) for f in scan.files])[:16]
    split = writer_split(context.instance, right_rag, changes)
    requests = run_requests(context.instance, changes, writers=split)
    for skipped in scan.skipped:
        context.log.warning(f"not indexed: {skipped.document_id}: {skipped.reason}")
    if not requests and not changes.add_keys and not changes.delete:
        return dg.SensorResult(skip_reason=dg.SkipReason("no new, changed or removed documents"), cursor=digest)
    return dg.SensorResult(run_requests=requests, dynamic_partitions_requests=partition_requests(changes),
                           cursor=digest)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    name="refresh_indexes_after_documents",
    request_job=refresh_indexes_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a run that changed documents but left the search indexes or the audit report behind (e.g. "
                "a backfill of one parser's assets), refresh them.",
)
def refresh_indexes_after_documents(context: dg.RunStatusSensorContext, right_rag: RightRagProject):
    run = context.dagster_run
    if run.job_name == REFRESH_JOB:
        return dg.SkipReason("refresh run itself")
    group_key = group_refresh_key(context.instance, run) if is_writer_run(run) else None
    if is_writer_run(run) and group_key is None:
        return dg.SkipReason(f"other writers of group {run.tags[GROUP_TAG]} are still indexing")
    selection = run.asset_selection or set()
    if run.job_name != DOCUMENT_JOB and not any(k.path[0] in DOCUMENT_ASSET_PREFIXES for k in selection):
        return dg.SkipReason(f"run {run.run_id} did not touch documents")
    # The store's mark, not the run's selection, says whether every index and the report caught up: a run may
    # have refreshed only some chunkers' indexes, or removed a document meanwhile.
    if not refresh_pending(right_rag.get_store()):
        return dg.SkipReason(f"the search indexes and the audit report are current after run {run.run_id}")
    return dg.RunRequest(run_key=group_key or f"refresh-after-{run.run_id}")


@dg.schedule(
    name="rescan_documents_schedule",
    cron_schedule="0 * * * *",
    job=index_documents_job,
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Hourly full rescan of the documents folder, for users who turn the sensor off.",
)
def rescan_documents_schedule(context: dg.ScheduleEvaluationContext, right_rag: RightRagProject):
    instance = context.instance
    recover(instance, context.log)
    _, changes = detect_changes(instance, right_rag)
    if changes.add_keys:  # a schedule cannot return partition requests: it adds them itself
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS.name, list(changes.add_keys))
    for key in sorted({k for _, k in changes.delete}):
        instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS.name, key)
    # The schedule targets one job: for removals alone, it runs that job's unpartitioned assets.
    requests = run_requests(instance, changes, (DOCUMENT_JOB, refresh_selection(right_rag.get_project())))
    return requests or dg.SkipReason("nothing new, changed or removed")
