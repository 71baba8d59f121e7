"""One tick of the documents-folder sensor through Dagster's sensor daemon, on a project's own Dagster home (the
one ``right-rag index`` uses), run as its own process so a test can time it out and ``kill -9`` around it.

    python -m tests.reliability.sensor_tick PROJECT

The instance is the project's (its dagster.yaml: one slot in the store's pool), with a synchronous run
coordinator and launcher, so a run the sensor requests executes before the tick returns. Prints
``tick <status> <error>`` and then ``run <id> <job> <status>`` for every run, newest first.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import dagster as dg
from dagster._core.instance.ref import InstanceRef
from dagster._core.test_utils import freeze_time
from dagster._daemon.sensor import execute_sensor_iteration

from tests.orchestration.test_backfill_ui import workspace

SYNCHRONOUS = {
    "run_coordinator": {"module": "dagster._core.run_coordinator.sync_in_memory_run_coordinator",
                        "class": "SyncInMemoryRunCoordinator"},
    "run_launcher": {"module": "dagster._core.launcher.sync_in_memory_run_launcher",
                     "class": "SyncInMemoryRunLauncher"},
}


def main(project: Path) -> None:
    home = project / ".dagster"
    os.environ["DAGSTER_HOME"] = str(home)  # the project's dagster.yaml names its storage folder by it
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(home), overrides=SYNCHRONOUS)) as instance:
        with workspace(project, instance) as context:
            location = context.create_request_context().get_code_location("right_rag")
            sensor = next(iter(location.get_repositories().values())).get_sensor("documents_folder_sensor")
            with freeze_time(time.time() + 3600):  # past the sensor's minimum interval since any earlier tick
                list(execute_sensor_iteration(context, logging.getLogger("sensor_tick"), None, None))
            tick = instance.get_ticks(sensor.get_remote_origin_id(), sensor.selector_id)[0]
            print(f"tick {tick.status.value} {tick.error.message.splitlines()[0] if tick.error else ''}", flush=True)
            for run in instance.get_runs():
                print(f"run {run.run_id} {run.job_name} {run.status.value}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
