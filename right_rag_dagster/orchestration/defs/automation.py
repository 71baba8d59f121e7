"""The documents-folder sensor (owns the partitions), the refresh-after-index sensor and the rescan schedule."""


import dagster as dg

from ...pipeline.runner import refresh_pending, remove_documents
from ...pipeline.scan import scan_documents
from ...pipeline.watch import FolderChanges, decode_cursor, encode_cursor, folder_changes
from ...store import Store
from ..names import DOCUMENT_JOB, DOCUMENTS_PARTITIONS, REFRESH_JOB
from ..resources import RightRagProject
from .jobs import refresh_indexes_job

SENSOR_INTERVAL_SECONDS = 30
DOCUMENT_ASSET_PREFIXES = ("raw_text", "units", "chunks", "coverage")


def indexed_documents(store: Store) -> dict[str, tuple[str, str]]:
    """document id -> (partition key, content hash) as the store last saw it."""
    if not store.exists():
        return {}
    with store.read() as con:
        return {r[0]: (r[1], r[2]) for r in
                con.execute("SELECT document_id, partition_key, content_hash FROM documents").fetchall()}


def detect_changes(instance: dg.DagsterInstance, right_rag: RightRagProject, cursor: str | None):
    """Scan the folder and compare it with the partitions and the store; also removes deleted documents' data."""
    project = right_rag.get_project()
    store = right_rag.get_store()
    files = scan_documents(project.documents_dir, decode_cursor(cursor))
    existing = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
    changes = folder_changes(files, existing, indexed_documents(store))
    gone = [(doc, key) for doc, key in changes.delete if doc]
    if gone:
        remove_documents(right_rag.get_indexer(), store, gone, run_id="sensor")
    return files, changes


def run_requests(changes: FolderChanges) -> list[dg.RunRequest]:
    """One batched run over the partition range that covers every new or changed document."""
    requests = []
    if changes.to_index:
        requests.append(dg.RunRequest(
            run_key=changes.run_key,
            job_name=DOCUMENT_JOB,
            tags={"dagster/asset_partition_range_start": changes.range_start,
                  "dagster/asset_partition_range_end": changes.range_end,
                  "right_rag/documents": str(len(changes.to_index))},
        ))
    if changes.delete and not changes.to_index:
        requests.append(dg.RunRequest(run_key=f"removed-{changes.run_key}-{len(changes.delete)}",
                                      job_name=REFRESH_JOB))
    return requests


@dg.sensor(
    name="documents_folder_sensor",
    job_name=DOCUMENT_JOB,
    minimum_interval_seconds=SENSOR_INTERVAL_SECONDS,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches the documents folder: adds partitions for new files, deletes those of removed files "
                "(and their units, chunks and index entries), and requests one run for new or changed files.",
)
def documents_folder_sensor(context: dg.SensorEvaluationContext, right_rag: RightRagProject) -> dg.SensorResult:
    files, changes = detect_changes(context.instance, right_rag, context.cursor)
    partition_requests = []
    if changes.add_keys:
        partition_requests.append(DOCUMENTS_PARTITIONS.build_add_request(list(changes.add_keys)))
    if changes.delete:
        partition_requests.append(DOCUMENTS_PARTITIONS.build_delete_request([k for _, k in changes.delete]))
    return dg.SensorResult(run_requests=run_requests(changes), dynamic_partitions_requests=partition_requests,
                           cursor=encode_cursor(files))


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
    selection = run.asset_selection or set()
    if run.job_name != DOCUMENT_JOB and not any(k.path[0] in DOCUMENT_ASSET_PREFIXES for k in selection):
        return dg.SkipReason(f"run {run.run_id} did not touch documents")
    # The store's mark, not the run's selection, says whether every index and the report caught up: a run may
    # have refreshed only some chunkers' indexes, or a sensor tick may have removed a document meanwhile.
    if not refresh_pending(right_rag.get_store()):
        return dg.SkipReason(f"the search indexes and the audit report are current after run {run.run_id}")
    return dg.RunRequest(run_key=f"refresh-after-{run.run_id}")


@dg.schedule(
    name="rescan_documents_schedule",
    cron_schedule="0 * * * *",
    job_name=DOCUMENT_JOB,
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Hourly full rescan of the documents folder, for users who turn the sensor off.",
)
def rescan_documents_schedule(context: dg.ScheduleEvaluationContext, right_rag: RightRagProject):
    instance = context.instance
    files, changes = detect_changes(instance, right_rag, None)
    if changes.add_keys:
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS.name, list(changes.add_keys))
    for _, key in changes.delete:
        instance.delete_dynamic_partition(DOCUMENTS_PARTITIONS.name, key)
    requests = run_requests(changes)
    return requests or dg.SkipReason(f"{len(files)} documents, nothing new or changed")
