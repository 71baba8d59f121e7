"""Runs launched from the forkserver (``orchestration.run_launcher``) through Dagster's own launch path: the
GraphQL mutation the UI's "Materialize" button sends, a real instance configured with the launcher, real worker
processes; and a run stopped as the UI's "Terminate" button stops it."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.remote_origin import InProcessCodeLocationOrigin
from dagster._core.test_utils import InProcessTestWorkspaceLoadTarget, create_test_daemon_workspace_context
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster_graphql.test.utils import materialize_assets

from right_rag_dagster.orchestration.recovery import PID_TAG, pid_alive, recover_dead_runs
from right_rag_dagster.orchestration.run_launcher import ForkedRunLauncher

DEFS = '''
import time
from pathlib import Path

import dagster as dg


@dg.asset
def quick() -> int:
    return 1


@dg.asset
def slow() -> None:
    Path(__file__).with_name("slow-started").touch()
    for _ in range(600):
        time.sleep(0.1)


defs = dg.Definitions(assets=[quick, slow])
'''


@pytest.fixture
def instance() -> Iterator[dg.DagsterInstance]:
    overrides = {"run_launcher": {"module": "right_rag_dagster.orchestration.run_launcher",
                                  "class": "ForkedRunLauncher"},
                 "run_coordinator": {"module": "dagster.core.run_coordinator", "class": "DefaultRunCoordinator"}}
    with dg.instance_for_test(overrides=overrides) as inst:
        yield inst


@contextmanager
def workspace(folder: Path, instance: dg.DagsterInstance) -> Iterator[WorkspaceProcessContext]:
    defs_file = folder / "launcher_defs.py"
    defs_file.write_text(DEFS, encoding="utf-8")
    origin = LoadableTargetOrigin(executable_path=sys.executable, python_file=str(defs_file), attribute="defs",
                                  working_directory=str(folder))
    target = InProcessTestWorkspaceLoadTarget(InProcessCodeLocationOrigin(origin, location_name="launcher_test"))
    with create_test_daemon_workspace_context(target, instance) as context:
        yield context


def launch(context: WorkspaceProcessContext, asset: str) -> str:
    result = materialize_assets(context.create_request_context(), [dg.AssetKey(asset)])
    assert not result.errors, result.errors
    launched = result.data["launchPipelineExecution"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    return launched["run"]["runId"]


def wait(instance: dg.DagsterInstance, run_id: str, until, timeout: float = 60.0) -> dg.DagsterRun:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = instance.get_run_by_id(run_id)
        if until(run):
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} is still {instance.get_run_by_id(run_id).status}")


def test_a_run_starts_in_a_forked_process_and_succeeds(instance: dg.DagsterInstance, tmp_path: Path) -> None:
    assert isinstance(instance.run_launcher, ForkedRunLauncher)
    with workspace(tmp_path, instance) as context:
        run_id = launch(context, "quick")
        run = wait(instance, run_id, lambda r: r.is_finished)
        assert run.status == dg.DagsterRunStatus.SUCCESS
        pid = run.tags[PID_TAG]
        messages = [e.dagster_event.message or "" for e in instance.all_logs(run_id) if e.dagster_event]
        started = [m for m in messages if m.startswith("Started process for run")]
        assert started == [f"Started process for run (pid: {pid})."]
        assert instance.get_latest_materialization_event(dg.AssetKey("quick")).run_id == run_id
        second = wait(instance, launch(context, "quick"), lambda r: r.is_finished)  # the forkserver is reused
        assert second.status == dg.DagsterRunStatus.SUCCESS and second.tags[PID_TAG] != pid


@pytest.mark.parametrize("same_launcher", [True, False], ids=["launching process", "another process"])
def test_a_run_is_terminated(instance: dg.DagsterInstance, tmp_path: Path, same_launcher: bool) -> None:
    """The UI's "Terminate": from the process that launched the run (it sets the worker's stop event), or from
    another one, as the webserver stops a run the daemon launched (it knows the run only by its tags: the pid)."""
    with workspace(tmp_path, instance) as context:
        run_id = launch(context, "slow")
        deadline = time.monotonic() + 60
        while not (tmp_path / "slow-started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        launcher = instance.run_launcher
        if not same_launcher:
            launcher = ForkedRunLauncher()
            launcher.register_instance(instance)
        assert launcher.terminate(run_id)
        run = wait(instance, run_id, lambda r: r.is_finished)
        assert run.status == dg.DagsterRunStatus.CANCELED
        assert not launcher.terminate(run_id)  # finished: nothing to stop


def test_a_worker_killed_with_kill_9_is_recovered_as_right_rag_index_runs_are(
        instance: dg.DagsterInstance, tmp_path: Path) -> None:
    """A killed worker ends no run: it stays "started" and would hold its pool slot for ever. The recovery the
    folder sensor runs on every tick (and right-rag index before it starts) marks it failed."""
    with workspace(tmp_path, instance) as context:
        run_id = launch(context, "slow")
        deadline = time.monotonic() + 60
        while not (tmp_path / "slow-started").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        pid = int(instance.get_run_by_id(run_id).tags[PID_TAG])
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while pid_alive(pid) and time.monotonic() < deadline:  # the forkserver reaps it
            time.sleep(0.1)
        assert not pid_alive(pid)
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.STARTED  # nothing else notices
        assert run_id in recover_dead_runs(instance).failed_runs
        assert instance.get_run_by_id(run_id).status == dg.DagsterRunStatus.FAILURE


def test_without_a_forkserver_the_run_goes_through_dagsters_default_launch(
        instance: dg.DagsterInstance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no forkserver: Dagster's default launch asks the code server (here there is none, so it fails
    as Dagster's own launcher fails with an in-process code location), and no process of ours is started."""
    import multiprocessing

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    with workspace(tmp_path, instance) as context:
        result = materialize_assets(context.create_request_context(), [dg.AssetKey("quick")])
        assert "GRPC server" in str(result.data or result.errors)
        assert all(PID_TAG not in run.tags for run in instance.get_runs())
