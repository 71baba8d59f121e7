"""Dagster on a real local PostgreSQL, configured by the dagster.yaml of docs/deployment.md, with the store on a
DuckLake in the same server: the sensor daemon's tick, the dynamic partitions it adds and the run it launches
all live in PostgreSQL, and the run's rows in the lake."""

from __future__ import annotations

import itertools
from pathlib import Path

import dagster as dg
import pytest
import yaml
from dagster._core.scheduler.instigation import TickStatus

from right_rag_dagster.orchestration.names import DOCUMENTS_PARTITIONS, RAW_TEXT_KEY
from right_rag_dagster.orchestration.postgres_home import URL_ENV, postgres_dagster_yaml
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from ..store.test_backends import lake_section
from .test_backfill_ui import workspace
from .test_sensor_daemon import Daemon

pytestmark = pytest.mark.slow
DOCS = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
_databases = itertools.count()


@pytest.fixture
def postgres_instance(local_postgres, monkeypatch: pytest.MonkeyPatch):
    """An instance from the documented dagster.yaml, on a fresh database; runs launched in this process."""
    name = f"dagster_{next(_databases)}"
    local_postgres.create_database(name)
    monkeypatch.setenv(URL_ENV, local_postgres.url(name))
    config = yaml.safe_load(postgres_dagster_yaml(writers=2))
    with dg.instance_for_test(overrides=config, synchronous_run_coordinator=True,
                              synchronous_run_launcher=True) as instance:
        yield instance


def test_the_documented_dagster_yaml_is_the_one_written() -> None:
    assert postgres_dagster_yaml(writers=2) in DOCS.read_text(encoding="utf-8")


def test_sensor_tick_partitions_and_run_are_stored_in_postgres(project_dir: Path, postgres_instance, local_postgres,
                                                              tmp_path: Path) -> None:
    from dagster_postgres import (
        PostgresEventLogStorage,
        PostgresRunStorage,
        PostgresScheduleStorage,
    )

    instance = postgres_instance
    assert isinstance(instance.run_storage, PostgresRunStorage)
    assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
    assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
    with open(project_dir / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    with workspace(project_dir, instance) as context:
        tick = Daemon(context).tick()
        assert tick.status == TickStatus.SUCCESS, tick.error
    assert sorted(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)) == [
        "Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"]
    # The documented dagster.yaml sizes the store pool to 2 writers: on a lake the sensor requests two runs.
    runs = instance.get_runs()
    assert len(runs) == 2 and all(r.job_name == "index_documents" and r.status == dg.DagsterRunStatus.SUCCESS
                                  for r in runs)
    materialized = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=RAW_TEXT_KEY),
                                                   limit=100).records
    assert sorted(r.partition_key for r in materialized) == ["Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"]
    store = Store.for_project(Project.load(project_dir))
    assert store.lake is not None and not store.path.exists()
    with store.read() as con:
        chunked = con.execute("SELECT count(DISTINCT document_id) FROM chunks").fetchone()[0]
        runs = {r[0] for r in con.execute("SELECT DISTINCT run_id FROM materializations").fetchall()}
    assert chunked == 3 and {r.run_id for r in instance.get_runs()} <= runs


def test_materialize_all_backfill_on_postgres_indexes_into_the_lake(project_dir: Path, postgres_instance,
                                                                    local_postgres, tmp_path: Path) -> None:
    """The UI's "Materialize all" backfill, ticked by the real backfill daemon, with Dagster's storage in
    PostgreSQL and the store a DuckLake: runs succeed, the backfill completes, search index and report included."""
    from dagster._core.execution.backfill import BulkActionStatus

    from right_rag_dagster.orchestration.local import sync_partitions
    from right_rag_dagster.orchestration.names import AUDIT_REPORT_KEY, search_index_key
    from right_rag_dagster.pipeline.plan import refresh_pending
    from right_rag_dagster.retrieval import search

    from .test_backfill_ui import (
        DOCUMENTS,
        launch_backfill,
        materializations,
        run_backfill_daemon,
    )

    instance = postgres_instance
    with open(project_dir / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    sync_partitions(instance, DOCUMENTS)
    with workspace(project_dir, instance) as context:
        all_keys = sorted(context.create_request_context().asset_graph.get_all_asset_keys())
        backfill_id = launch_backfill(context, all_keys, DOCUMENTS)
        backfill, runs = run_backfill_daemon(context, backfill_id)
    assert runs and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs), [(r.run_id, r.status) for r in runs]
    assert backfill.status == BulkActionStatus.COMPLETED_SUCCESS
    new = materializations(instance, [r.run_id for r in runs])
    assert {("raw_text", k) for k in DOCUMENTS} <= new
    assert (search_index_key("default").to_user_string(), None) in new
    assert (AUDIT_REPORT_KEY.to_user_string(), None) in new
    store = Store.for_project(Project.load(project_dir))
    # Whichever of the backfill's runs finished last brought the index up to date (test_backfill_order.py).
    assert not refresh_pending(store)
    hits = search(store, "Corresponding Source conveying object code", chunker="default", k=3)
    assert hits and hits[0].document_id in {"GPL-3.0.txt", "LGPL-3.0.txt"}


def test_the_documented_storage_keeps_its_connections(postgres_instance, monkeypatch: pytest.MonkeyPatch) -> None:
    """dagster-postgres connects (and PostgreSQL forks a backend) for every query; the documented storage
    (``PooledPostgresStorage``) keeps them: after the first, 20 asset events open no connection, and all are stored."""
    import psycopg2

    instance = postgres_instance
    key = dg.AssetKey("pooled")
    instance.report_runless_asset_event(dg.AssetMaterialization(key))  # connections opened here are kept
    connects: list[object] = []
    real = psycopg2.connect
    monkeypatch.setattr(psycopg2, "connect", lambda *args, **kwargs: connects.append(args) or real(*args, **kwargs))
    for _ in range(20):
        instance.report_runless_asset_event(dg.AssetMaterialization(key))
    assert connects == []
    assert len(instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key), limit=50).records) == 21
