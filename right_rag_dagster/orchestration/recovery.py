"""Recover from runs whose process died (``kill -9``, an out-of-memory kill) before they could end.

Such a run stays "started" in Dagster's storage and keeps its slot in the ``right_rag_store`` pool, so every
later run that writes waits for it forever. ``right-rag index`` tags its runs with its host and pid; before it
starts, a run of a dead process is marked failed and its slots freed, and so are slots still held by runs
that already ended. Runs that ``dagster dev`` launches from the forkserver (``run_launcher``) carry the same tags
(their worker's pid), so the documents-folder sensor, which recovers on every tick, marks them failed too; other
launchers' runs are left to Dagster's own run monitoring (enabled in the project's dagster.yaml).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

import dagster as dg

PID_TAG = "right_rag/pid"
HOST_TAG = "right_rag/host"
SOURCE_TAG = "right_rag/source"
_LIVE = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.NOT_STARTED,
         dg.DagsterRunStatus.CANCELING]


def process_tags() -> dict[str, str]:
    """Tags that let a later ``right-rag index`` tell whether this run's process is still alive."""
    return {PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class Recovered:
    failed_runs: tuple[str, ...]  # runs of dead processes, now marked failed
    freed_runs: tuple[str, ...]  # runs whose pool slots were freed


def recover_dead_runs(instance: dg.DagsterInstance) -> Recovered:
    """Mark runs whose process on this host died (``right-rag index``'s, the forked run workers') failed, and free
    the pool slots of every run that is no longer running."""
    failed = []
    host = socket.gethostname()
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=_LIVE, tags={HOST_TAG: host})):
        pid = run.tags.get(PID_TAG, "")
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            instance.report_run_failed(run, f"the process that ran it (pid {pid}) died before the run ended; "
                                            "marked failed by right-rag's recovery (the next right-rag index or "
                                            "sensor tick)")
            failed.append(run.run_id)
    freed = []
    storage = instance.event_log_storage
    for run_id in sorted(storage.get_concurrency_run_ids()):
        run = instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            storage.free_concurrency_slots_for_run(run_id)
            freed.append(run_id)
    return Recovered(tuple(failed), tuple(freed))


def pool_holders(instance: dg.DagsterInstance, pool: str) -> list[dg.DagsterRun]:
    """Runs that hold or wait for a slot of ``pool`` (to tell the user what a new run waits for)."""
    info = instance.event_log_storage.get_concurrency_info(pool)
    run_ids = {slot.run_id for slot in info.claimed_slots if slot.run_id}
    runs = [instance.get_run_by_id(run_id) for run_id in sorted(run_ids)]
    return [run for run in runs if run is not None and not run.is_finished]
