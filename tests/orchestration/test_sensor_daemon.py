"""The documents-folder sensor and the rescan schedule through Dagster's own evaluation, not direct calls.

Ticks go through the sensor daemon's ``execute_sensor_iteration`` over a workspace that loads the project's
Definitions, as ``dagster dev`` does: Dagster validates each run request against the jobs the sensor declares,
applies the partition requests, and launches the runs (synchronously here). The schedule is evaluated with its
Definitions, which validates its requests the same way.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.scheduler.instigation import TickStatus
from dagster._core.test_utils import freeze_time
from dagster._daemon.sensor import MIN_INTERVAL_LOOP_TIME, execute_sensor_iteration

from right_rag_dagster.orchestration.definitions import build_definitions
from right_rag_dagster.orchestration.names import DOCUMENTS_PARTITIONS
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.project import Project
from right_rag_dagster.store import Store

from .test_backfill_ui import workspace

pytestmark = pytest.mark.slow
LOGGER = logging.getLogger("test_sensor_daemon")
SENSOR = "documents_folder_sensor"


@pytest.fixture
def instance():
    with dg.instance_for_test(synchronous_run_coordinator=True, synchronous_run_launcher=True) as inst:
        yield inst


class Daemon:
    """Ticks of the real sensor daemon, each a minute after the last (past the sensor's minimum interval)."""

    def __init__(self, context, now: float | None = None) -> None:
        self.context = context
        self.now = now or time.time()
        location = context.create_request_context().get_code_location("right_rag")
        repository = next(iter(location.get_repositories().values()))
        self.sensor = repository.get_sensor(SENSOR)

    def tick(self, after: float = 60):
        self.now += after
        with freeze_time(self.now):
            list(execute_sensor_iteration(self.context, LOGGER, None, None))
        instance = self.context.instance
        ticks = instance.get_ticks(self.sensor.get_remote_origin_id(), self.sensor.selector_id)
        return ticks[0]


def chunk_count(project_dir: Path, document_id: str) -> int:
    with Store(Project.load(project_dir).store_path).read() as con:
        return con.execute("SELECT count(*) FROM chunks WHERE document_id = ?", [document_id]).fetchone()[0]


def test_first_tick_adds_partitions_and_its_run_indexes_every_file(project_dir, instance):
    with workspace(project_dir, instance) as context:
        tick = Daemon(context).tick()
        assert tick.status == TickStatus.SUCCESS, tick.error
        assert sorted(instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)) == [
            "Apache-2.0.txt", "GPL-3.0.txt", "LGPL-3.0.txt"]
        (run,) = instance.get_runs()
        assert run.job_name == "index_documents" and run.status == dg.DagsterRunStatus.SUCCESS
        assert chunk_count(project_dir, "GPL-3.0.txt") > 0
        assert len(tick.cursor or "") <= 32  # a digest, not one entry per file


def test_a_file_saved_is_seen_on_the_daemons_next_loop(project_dir, instance):
    """The daemon looks at sensors once per loop of ``MIN_INTERVAL_LOOP_TIME`` s, and a tick is recorded a moment
    after its loop starts: a minimum interval of about a loop made every other loop skip the sensor."""
    with workspace(project_dir, instance) as context:
        daemon = Daemon(context)
        daemon.tick()
        (project_dir / "data" / "documents" / "MIT.txt").write_text("MIT License\n\nPermission is hereby granted.\n")
        tick = daemon.tick(after=MIN_INTERVAL_LOOP_TIME - 0.5)  # the next loop, begun a little before 5 s elapsed
        assert tick.status == TickStatus.SUCCESS, tick.error
        assert "MIT.txt" in instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)


def test_a_deletion_alone_removes_the_partition_and_the_run_removes_the_rows(project_dir, instance):
    with workspace(project_dir, instance) as context:
        daemon = Daemon(context)
        daemon.tick()
        (project_dir / "data" / "documents" / "Apache-2.0.txt").unlink()
        assert chunk_count(project_dir, "Apache-2.0.txt") > 0
        tick = daemon.tick()
        assert tick.status == TickStatus.SUCCESS, tick.error
        assert "Apache-2.0.txt" not in instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
        latest = instance.get_runs(limit=1)[0]
        assert latest.job_name == "refresh_indexes" and latest.status == dg.DagsterRunStatus.SUCCESS
        assert chunk_count(project_dir, "Apache-2.0.txt") == 0  # removed by the run, not by the tick
        assert daemon.tick().status == TickStatus.SKIPPED  # and nothing more to do


BROKEN_EVERYWHERE = '''
from right_rag_dagster.interfaces import UnitParser


class Broken(UnitParser):
    @property
    def parser_name(self):
        return "broken"

    def parser_can_handle_document(self, document):
        raise RuntimeError("cannot decide")

    def parse_document(self, document):
        return []
'''


def test_a_failed_run_is_requested_again_on_a_later_tick(project_dir, instance):
    broken = project_dir / "spec" / "unit_parsers" / "broken.py"
    broken.write_text(BROKEN_EVERYWHERE)
    toml = project_dir / "right_rag.toml"
    toml.write_text(toml.read_text().replace('unit_parsers = ["gnu-licence", "apache-licence"]',
                                             'unit_parsers = ["gnu-licence", "apache-licence", "broken"]'))
    with workspace(project_dir, instance) as context:
        daemon = Daemon(context)
        assert daemon.tick().status == TickStatus.SUCCESS
        (failed,) = instance.get_runs()
        assert failed.status == dg.DagsterRunStatus.FAILURE  # the breaker stopped it: every document failed
        toml.write_text(toml.read_text().replace(', "broken"]', "]"))
    with workspace(project_dir, instance) as context:  # the code location reloads the fixed project
        daemon = Daemon(context, daemon.now)
        assert daemon.tick().status == TickStatus.SUCCESS
        latest = instance.get_runs(limit=1)[0]
        assert latest.run_id != failed.run_id and latest.status == dg.DagsterRunStatus.SUCCESS
        assert chunk_count(project_dir, "LGPL-3.0.txt") > 0


def test_a_partition_added_in_the_ui_without_a_file_is_dropped_without_failing(project_dir, instance):
    with workspace(project_dir, instance) as context:
        daemon = Daemon(context)
        daemon.tick()
        instance.add_dynamic_partitions(DOCUMENTS_PARTITIONS.name, ["ghost.txt"])
        tick = daemon.tick()
        assert tick.status == TickStatus.SUCCESS, tick.error
        assert "ghost.txt" not in instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
        assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in instance.get_runs())


def test_the_schedule_requests_runs_of_its_own_job_for_changes_and_for_removals(project_dir, instance):
    defs = build_definitions(Project.load(project_dir))
    schedule = defs.resolve_schedule_def("rescan_documents_schedule")

    def evaluate():
        context = dg.build_schedule_context(instance=instance, repository_def=defs.get_repository_def(), resources={
            "right_rag": RightRagProject(project_dir=str(project_dir))})
        return schedule.evaluate_tick(context)

    first = evaluate()
    assert [r.job_name for r in first.run_requests] == ["index_documents"]
    job = defs.resolve_job_def("index_documents")
    assert job.execute_in_process(instance=instance, tags=first.run_requests[0].tags).success
    (project_dir / "data" / "documents" / "Apache-2.0.txt").unlink()
    removal = evaluate()
    (request,) = removal.run_requests
    assert request.job_name == "index_documents" and request.asset_selection  # unpartitioned assets only
    assert job.execute_in_process(instance=instance, asset_selection=request.asset_selection,
                                  tags=request.tags).success
    assert chunk_count(project_dir, "Apache-2.0.txt") == 0
