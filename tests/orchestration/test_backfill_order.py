"""A "Materialize all" backfill on a DuckLake whose unpartitioned run (search indexes, audit report) finishes
before its partition run: the partition run, finishing last, brings the index and the report up to date itself,
so the index is never left empty waiting for the refresh sensor."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from dagster._core.storage.tags import BACKFILL_ID_TAG

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.local import sync_partitions
from right_rag_dagster.orchestration.names import (
    AUDIT_REPORT_KEY,
    COVERAGE_KEY,
    RAW_TEXT_KEY,
    chunks_key,
    search_index_key,
)
from right_rag_dagster.pipeline.plan import refresh_pending
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store

from ..store.test_backends import lake_section
from .test_backfill_ui import DOCUMENTS

pytestmark = pytest.mark.slow
SEARCH_KEY = search_index_key("default")


def backfill_run(defs: dg.Definitions, instance: dg.DagsterInstance, backfill: str, keys: list[dg.AssetKey],
                 partitions: bool) -> dg.ExecuteInProcessResult:
    """A run as the backfill daemon makes it: the implicit asset job, the backfill's tag, a partition range."""
    tags = {BACKFILL_ID_TAG: backfill}
    if partitions:
        tags |= {"dagster/asset_partition_range_start": DOCUMENTS[0],
                 "dagster/asset_partition_range_end": DOCUMENTS[-1]}
    return defs.resolve_implicit_global_asset_job_def().execute_in_process(
        instance=instance, asset_selection=keys, tags=tags)


def materialized(result: dg.ExecuteInProcessResult) -> set[dg.AssetKey]:
    return {e.event_specific_data.materialization.asset_key for e in result.all_events
            if e.event_type_value == "ASSET_MATERIALIZATION"}


@pytest.mark.parametrize("refresh_first", [True, False])
def test_the_index_is_current_after_a_lake_backfill_in_either_order(project_dir: Path, local_postgres,
                                                                    tmp_path: Path, refresh_first: bool) -> None:
    with open(project_dir / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    project = Project.load(project_dir)
    defs = build_definitions(project)
    with dg.instance_for_test() as instance:
        sync_partitions(instance, DOCUMENTS)
        refresh_keys = [SEARCH_KEY, AUDIT_REPORT_KEY]
        document_keys = [RAW_TEXT_KEY, chunks_key("default"), COVERAGE_KEY]
        order = [(refresh_keys, False), (document_keys, True)]
        results = [backfill_run(defs, instance, "bf-order", keys, partitioned)
                   for keys, partitioned in (order if refresh_first else order[::-1])]
    assert all(r.success for r in results)
    store = Store.for_project(project)
    assert not refresh_pending(store)
    clear_cache()
    hits = search(store, "Corresponding Source conveying object code", chunker="default", k=3)
    assert hits and hits[0].document_id in {"GPL-3.0.txt", "LGPL-3.0.txt"}
    last = materialized(results[-1])
    # The run that finishes last reports the index and the report: the refresh run when it runs after the
    # documents, else the partition run that refreshed them itself.
    assert {SEARCH_KEY, AUDIT_REPORT_KEY} <= last
