"""Several index runs writing one DuckLake at once: each a Dagster run of ``index_documents`` over one contiguous
partition range (``pipeline/ranges.py``), selecting only the per-document assets; one refresh after them all.

The runs of one index share ``GROUP_TAG``; each carries ``WRITER_TAG`` ("i/n": which of n writers ran it) and,
from ``right-rag index --writers N``, ``RANGE_TAG`` ("j/m": which of m ranges it wrote). A writer run only writes its own
documents: it neither removes documents that left the folder nor re-syncs every parser's partitions, and it
marks the refresh pending once (on a lake, every batch replacing that one row would make writers conflict).
The refresh run (``refresh_indexes``) does the rest once, requested by ``refresh_indexes_after_documents`` when
the last writer of the group succeeds, or run by ``right-rag index --writers N`` after its writers.

How many writers: the limit of the ``right_rag_store`` pool in ``dagster.yaml`` (``postgres_home.py`` sizes it),
so the pool that lets N writing steps run at once also decides into how many runs the work is split.
"""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg

from ..pipeline.ranges import contiguous_ranges
from ..pipeline.scan import DocumentFile
from ..project import Project
from ..store import Store
from .names import COVERAGE_KEY, RAW_TEXT_KEY, STORE_POOL, chunks_key

GROUP_TAG = "right_rag/writers_group"
WRITER_TAG = "right_rag/writer"
RANGE_TAG = "right_rag/range"
RANGES_PER_WRITER = 4
MIN_RANGE_DOCUMENTS = 16
"""``right-rag index --writers N`` cuts the documents into up to N x ``RANGES_PER_WRITER`` ranges of at least
``MIN_RANGE_DOCUMENTS`` each, of decreasing estimated work (``pipeline/ranges.py``), handed to writers as they
become free: estimated work is not work (on the scale corpus one of two byte-balanced halves took 1.5x the CPU of
the other, and its writer finished 131 s after the first one went idle), and the small last ranges keep the
writers finishing close together. The sensor requests one run per writer: under the default run coordinator
every requested run starts a process at once and waits for a pool slot inside it."""
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def pool_writers(instance: dg.DagsterInstance) -> int:
    """How many writing steps the instance lets run at once: the store pool's own limit, else the default."""
    for limit in instance.event_log_storage.get_pool_limits():
        if limit.name == STORE_POOL:
            return max(1, int(limit.limit))
    return max(1, int(instance.global_op_concurrency_default_limit or 1))


def parallel_writers(store: Store, writers: int, documents: int) -> int:
    """Writers actually used: several only on a DuckLake (the embedded file takes one writing process)."""
    return max(1, min(writers, documents)) if store.lake is not None else 1


def document_selection(project: Project) -> list[dg.AssetKey]:
    """The per-document assets of ``index_documents``, without the search indexes and the report (the job
    reports each parser's units as it goes: they are partitioned by the documents the parser owns)."""
    return [RAW_TEXT_KEY, *(chunks_key(c) for c in project.selected("chunk_parsers")), COVERAGE_KEY]


def writer_slices(order: Sequence[str], todo: Sequence[DocumentFile], ranges: int, writers: int | None = None
                  ) -> list[list[DocumentFile]]:
    """``ranges`` contiguous ranges of about equal work; of decreasing work when fewer ``writers`` take them in
    turn (``contiguous_ranges``' taper)."""
    return contiguous_ranges(order, todo, ranges, taper=writers is not None and ranges > writers)


def range_count(writers: int, documents: int) -> int:
    """How many ranges ``writers`` writer processes share: one each at least, more when there are enough
    documents for every range to hold ``MIN_RANGE_DOCUMENTS``."""
    return max(min(writers, documents), min(writers * RANGES_PER_WRITER, documents // MIN_RANGE_DOCUMENTS), 1)


def writer_tags(files: Sequence[DocumentFile], group: str, index: int, count: int,
                part: tuple[int, int] | None = None) -> dict[str, str]:
    """The range (files in partition order), the writer's place in its group and, when writers share more
    ranges than there are writers, the range's place among them."""
    tags = {RANGE_START: files[0].partition_key, RANGE_END: files[-1].partition_key, GROUP_TAG: group,
            WRITER_TAG: f"{index}/{count}", "right_rag/documents": str(len(files))}
    if part is not None:
        tags[RANGE_TAG] = f"{part[0]}/{part[1]}"
    return tags


def is_writer_run(run: dg.DagsterRun) -> bool:
    return WRITER_TAG in run.tags


def writer_count(run: dg.DagsterRun) -> int:
    """How many writers write at once with this run: n of its ``WRITER_TAG`` "i/n", 1 for any other run."""
    _, _, count = run.tags.get(WRITER_TAG, "").partition("/")
    return max(1, int(count)) if count.isdigit() else 1


def group_refresh_key(instance: dg.DagsterInstance, run: dg.DagsterRun) -> str | None:
    """For the run of a writer group: the refresh's run key once no writer of the group is queued or running
    (the key counts the group's successful runs, so a writer retried after the refresh asks for another), or
    None while some still write."""
    group = run.tags[GROUP_TAG]
    runs = instance.get_runs(filters=dg.RunsFilter(tags={GROUP_TAG: group}))
    if any(not r.is_finished for r in runs if r.run_id != run.run_id):
        return None
    succeeded = sum(1 for r in runs if r.status == dg.DagsterRunStatus.SUCCESS or r.run_id == run.run_id)
    return f"refresh-after-{group}-{succeeded}"


def prepare_pool(instance: dg.DagsterInstance) -> None:
    """Create the store pool's slots before writers start. Dagster creates them when a run's step first asks;
    two runs asking at once on PostgreSQL storage both insert, one fails on the unique key and its following
    UPDATE, in the same aborted transaction, fails the run (``InFailedSqlTransaction``, seen with 2 writers)."""
    storage = instance.event_log_storage
    if STORE_POOL not in storage.get_concurrency_keys():
        storage.initialize_concurrency_limit_to_default(STORE_POOL)
