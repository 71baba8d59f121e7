"""Several writers as Dagster runs on a DuckLake, with Dagster's storage in a real local PostgreSQL.

``right-rag index --writers 2`` runs ``index_documents`` over contiguous partition ranges in its own process and in
one writer process it starts, each taking the next range when done (on the instance of DAGSTER_HOME), and then
one ``refresh_indexes`` run; the documents-folder sensor, ticked by the real sensor daemon on an instance whose store pool allows 2,
requests two writer runs, and the ``refresh_indexes_after_documents`` sensor asks for one refresh once the last of
them succeeded. Both give the query results of the embedded default."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.scheduler.instigation import TickStatus

from right_rag_dagster.cli import main
from right_rag_dagster.orchestration import writers as writers_module
from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.names import DOCUMENT_JOB, REFRESH_JOB
from right_rag_dagster.orchestration.postgres_home import (
    URL_ENV,
    write_postgres_dagster_home,
)
from right_rag_dagster.orchestration.recovery import PID_TAG
from right_rag_dagster.orchestration.writers import (
    GROUP_TAG,
    RANGE_TAG,
    WRITER_TAG,
    pool_writers,
)
from right_rag_dagster.pipeline.plan import refresh_pending
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store

from ..store.test_backends import lake_section
from .conftest import make_project
from .test_backfill_ui import workspace
from .test_postgres_storage import postgres_instance  # noqa: F401,F811  (a fixture: the documented dagster.yaml, 2 writers)
from .test_refresh import refresh_tick
from .test_sensor_daemon import Daemon

pytestmark = pytest.mark.slow
QUERY = "Corresponding Source conveying object code"
_databases = itertools.count()


def hits(project_dir: Path) -> list[tuple[str, float]]:
    clear_cache()
    store = Store.for_project(Project.load(project_dir))
    return [(h.chunk_id, round(h.score, 6)) for h in search(store, QUERY, chunker="default", k=5)]


def embedded_hits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    project = make_project(tmp_path / "embedded")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "embedded-home"))
    assert main(["--project", str(project), "index", "--quiet", "--allow-rejections"]) == 0
    monkeypatch.delenv("DAGSTER_HOME")
    return hits(project)


@pytest.fixture
def lake_project(tmp_path: Path, local_postgres) -> Path:
    project = make_project(tmp_path / "project")
    with open(project / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    return project


def test_index_with_two_writers_is_dagster_runs_over_shared_ranges_then_one_refresh(
        lake_project: Path, local_postgres, tmp_path: Path, monkeypatch) -> None:
    """Three ranges of one document each for two writers, the command and one writer process: a writer that is
    done takes the range left."""
    expected = embedded_hits(tmp_path, monkeypatch)
    monkeypatch.setattr(writers_module, "MIN_RANGE_DOCUMENTS", 1)
    name = f"dagster_writers_{next(_databases)}"
    local_postgres.create_database(name)
    home = tmp_path / "dagster-home"
    write_postgres_dagster_home(home, writers=2)
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv(URL_ENV, local_postgres.url(name))
    assert main(["--project", str(lake_project), "index", "--quiet", "--allow-rejections", "--writers", "2"]) == 0
    with dg.DagsterInstance.get() as instance:
        assert pool_writers(instance) == 2
        runs = instance.get_runs()
        writers = [r for r in runs if r.job_name == DOCUMENT_JOB]
        (refresh,) = [r for r in runs if r.job_name == REFRESH_JOB]
        assert len(runs) == 4 and all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
        assert sorted(r.tags[RANGE_TAG] for r in writers) == ["0/3", "1/3", "2/3"]
        assert {r.tags[WRITER_TAG] for r in writers} == {"0/2", "1/2"} and len(writers) == 3
        # writer 0 is the command's own process (here, the test's), writer 1 the one writer process it started
        pids = {r.tags[WRITER_TAG]: {w.tags[PID_TAG] for w in writers if w.tags[WRITER_TAG] == r.tags[WRITER_TAG]}
                for r in writers}
        assert pids["0/2"] == {str(os.getpid())} and len(pids["1/2"]) == 1 and pids["1/2"] != pids["0/2"]
        assert refresh.tags[PID_TAG] == str(os.getpid())
        assert {r.tags[GROUP_TAG] for r in runs} == {refresh.tags[GROUP_TAG]}
        ranges = [(r.tags["dagster/asset_partition_range_start"], r.tags["dagster/asset_partition_range_end"])
                  for r in writers]
        assert all(start == end for start, end in ranges) and len({start for start, _ in ranges}) == 3
        records = {r.dagster_run.run_id: r for r in instance.get_run_records()}
        assert records[refresh.run_id].start_time >= max(records[r.run_id].end_time for r in writers)
        materialized = {r.partition_key for r in instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("raw_text")), limit=100).records}
        assert materialized == {"GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt"}
    assert not refresh_pending(Store.for_project(Project.load(lake_project)))
    assert hits(lake_project) == expected


def test_several_writers_are_refused_on_the_embedded_file(tmp_path: Path, monkeypatch) -> None:
    project = make_project(tmp_path / "embedded")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    assert main(["--project", str(project), "index", "--quiet", "--writers", "2"]) == 2


def test_the_sensor_daemon_requests_one_run_per_writer_and_one_refresh_after_the_last(
        lake_project: Path, postgres_instance, tmp_path: Path, monkeypatch) -> None:
    expected = embedded_hits(tmp_path, monkeypatch)
    instance = postgres_instance
    with workspace(lake_project, instance) as context:
        tick = Daemon(context).tick()
        assert tick.status == TickStatus.SUCCESS, tick.error
    writers = instance.get_runs()
    assert len(writers) == 2 and all(r.job_name == DOCUMENT_JOB and r.status == dg.DagsterRunStatus.SUCCESS
                                     for r in writers)
    assert sorted(r.tags[WRITER_TAG] for r in writers) == ["0/2", "1/2"]
    assert all(dg.AssetKey(["search_index", "default_index"]) not in (r.asset_selection or set()) for r in writers)
    store = Store.for_project(Project.load(lake_project))
    assert refresh_pending(store)  # the writers leave the search index to the refresh
    requests = [refresh_tick(instance, r.run_id, lake_project) for r in writers]
    assert all(isinstance(r, dg.RunRequest) for r in requests)
    assert len({r.run_key for r in requests}) == 1  # one refresh for the group, whichever writer asks
    refresh = build_definitions(Project.load(lake_project)).resolve_job_def(REFRESH_JOB).execute_in_process(
        instance=instance)
    assert refresh.success and not refresh_pending(store)
    assert hits(lake_project) == expected


def test_a_writer_finishing_while_another_writes_does_not_request_the_refresh(
        lake_project: Path, postgres_instance) -> None:
    instance = postgres_instance
    with workspace(lake_project, instance) as context:
        Daemon(context).tick()
    first, second = instance.get_runs()
    instance.run_storage.handle_run_event(second.run_id, dg.DagsterEvent(
        event_type_value="PIPELINE_START", job_name=DOCUMENT_JOB, message="started again (test)"))
    assert not instance.get_run_by_id(second.run_id).is_finished
    assert isinstance(refresh_tick(instance, first.run_id, lake_project), dg.SkipReason)
