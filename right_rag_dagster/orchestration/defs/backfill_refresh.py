"""A backfill's partition run that finishes after the same backfill's refresh run brings the refresh up to date.

A "Materialize all" backfill splits the document step into a run over the partitions and a run of the
unpartitioned search indexes and audit report. Dagster usually orders them, but nothing in the step's graph forces
it (the units assets it reports are partitioned by owner, without a partition-level dependency): when the
unpartitioned run goes first, it indexes what the store held before. On the embedded file the partition run
writes postings with its documents; on a DuckLake it cannot (concurrent writers would number terms alike), so
the search index would stay empty until the ``refresh_indexes_after_documents`` sensor (if running) asks for a
refresh. Instead the partition run refreshes them itself, reporting the search indexes and the report as
materializations of this run, whenever a run of its backfill that refreshed them has already finished.
"""

from __future__ import annotations

from collections.abc import Iterator

import dagster as dg
from dagster._core.storage.tags import BACKFILL_ID_TAG

from ...pipeline.plan import refresh_pending
from ...pipeline.runner import mark_refresh
from ...store.db import utcnow
from ..names import AUDIT_REPORT_KEY, SEARCH_INDEX_PREFIX, search_index_key
from ..resources import RightRagProject
from .reports import materialize_audit_report
from .search import materialize_search_indexes


def refreshed_earlier_in_backfill(instance: dg.DagsterInstance, run: dg.DagsterRun) -> bool:
    """Whether another run of ``run``'s backfill, already finished, materialized the search indexes or report."""
    backfill = run.tags.get(BACKFILL_ID_TAG)
    if not backfill:
        return False
    for other in instance.get_runs(filters=dg.RunsFilter(tags={BACKFILL_ID_TAG: backfill})):
        selection = other.asset_selection or set()
        refreshes = AUDIT_REPORT_KEY in selection or any(k.path[0] == SEARCH_INDEX_PREFIX for k in selection)
        if other.run_id != run.run_id and other.is_finished and refreshes:
            return True
    return False


def refresh_after_backfill(context: dg.AssetExecutionContext, right_rag: RightRagProject,
                           chunkers: list[str]) -> Iterator[dg.AssetMaterialization]:
    """After the run's documents: the refresh, when its backfill's refresh run went first and the store lags."""
    store = right_rag.get_store()
    if not refresh_pending(store) or not refreshed_earlier_in_backfill(context.instance, context.run):
        return
    context.log.info("this backfill's search-index and report run finished before its documents: refreshing now")
    started = utcnow()
    indexes = {search_index_key(c) for c in chunkers}
    for result in [*materialize_search_indexes(right_rag, chunkers, indexes),
                   materialize_audit_report(right_rag)]:
        yield dg.AssetMaterialization(asset_key=result.asset_key, metadata=result.metadata,
                                      description="refreshed by the backfill's partition run, which finished last")
    mark_refresh(store, pending=False, unless_marked_since=started)

