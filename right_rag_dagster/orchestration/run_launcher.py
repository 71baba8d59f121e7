"""Runs start in a process forked from one that has already imported Dagster, not in a fresh Python.

Dagster's ``DefaultRunLauncher`` asks the code server to start each run, and the server spawns a fresh interpreter
that imports Dagster and creates the instance before the run's first event: 2.4-2.7 s here, which the daemon waits
for inside its sensor loop (``docs/performance.md``, eleventh round). This launcher runs the same worker function
(``dagster._grpc.impl.start_run_in_subprocess``) in a child of multiprocessing's forkserver, whose server imported
Dagster once. The project's code is still imported by each run (an edit to ``spec/`` needs no restart). A run whose
code location uses another Python, or on a platform without a forkserver (Windows), goes through Dagster's default
path, as does termination of such a run.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any

from dagster._core.errors import DagsterLaunchFailedError
from dagster._core.launcher import DefaultRunLauncher, LaunchRunContext
from dagster._serdes import serialize_value
from dagster._serdes.config_class import ConfigurableClassData

from .recovery import HOST_TAG, PID_TAG

PRELOAD = ("dagster", "dagster._grpc.impl", "dagster._core.execution.api",
           "dagster._core.storage.runs.sqlite.sqlite_run_storage",
           "dagster._core.storage.event_log.sqlite.sqlite_event_log", "sqlalchemy", "alembic", "duckdb", "numpy",
           "right_rag_dagster.orchestration.storage", "right_rag_dagster.orchestration.forkserver_freeze")
"""What the forkserver imports once, for every run it starts: Dagster, its SQLite storage and the libraries runs use
(never the project's Definitions, which each run loads from the project as it is now); then ``gc.freeze()``."""
START_TIMEOUT = 120.0


class ForkedRunLauncher(DefaultRunLauncher):
    """Launches a run in a child of a forkserver that has Dagster imported; Dagster's default launch otherwise."""

    def __init__(self, inst_data: ConfigurableClassData | None = None) -> None:
        super().__init__(inst_data=inst_data)
        self._context: Any = None
        self._processes: dict[str, tuple[Any, Any, Any]] = {}  # run id -> process, stop event, its queue

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]):
        return cls(inst_data=inst_data)

    def launch_run(self, context: LaunchRunContext) -> None:
        run = context.dagster_run
        origin = run.job_code_origin
        if (origin is None or run.remote_job_origin is None or origin.executable_path != sys.executable
                or "forkserver" not in multiprocessing.get_all_start_methods()):  # Windows has no forkserver
            super().launch_run(context)
            return
        from dagster._grpc.impl import start_run_in_subprocess
        from dagster._grpc.types import ExecuteExternalJobArgs
        from dagster._utils.hosted_user_process import recon_job_from_origin

        arguments = serialize_value(ExecuteExternalJobArgs(job_origin=run.remote_job_origin, run_id=run.run_id,
                                                           instance_ref=self._instance.get_ref()))
        forkserver = self._forkserver()
        events, stop = forkserver.Queue(), forkserver.Event()
        process = forkserver.Process(target=start_run_in_subprocess,
                                     args=[arguments, recon_job_from_origin(origin), events, stop])
        process.start()
        # the tags right-rag index's runs carry: a worker killed (kill -9) is then recovered like one of those
        self._instance.add_run_tags(run.run_id, {PID_TAG: str(process.pid), HOST_TAG: socket.gethostname()})
        self._wait_until_started(run.run_id, process, events)
        self._forget_finished()
        self._processes[run.run_id] = (process, stop, events)  # the worker writes to the queue until it ends
        self._run_ids.add(run.run_id)

    def terminate(self, run_id: str) -> bool:
        run = self._instance.get_run_by_id(run_id) if self.has_instance else None
        if run is None or run.is_finished:
            return False
        pid = run.tags.get(PID_TAG)
        if pid is None:
            return super().terminate(run_id)
        self._instance.report_run_canceling(run)
        local = self._processes.get(run_id)
        if local is not None:
            local[1].set()  # the worker's termination thread interrupts the run
            return True
        try:  # launched by another Dagster process (the daemon; terminated from the webserver)
            os.kill(int(pid), signal.SIGINT)
        except (ProcessLookupError, ValueError):
            return False
        return True

    def dispose(self) -> None:
        self._forget_finished()
        super().dispose()

    def _forkserver(self):  # noqa: ANN202 (multiprocessing's context type)
        if self._context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(PRELOAD))
            self._context = context
        return self._context

    def _wait_until_started(self, run_id: str, process: Any, events: Any) -> None:
        """Until the worker has loaded the run (as Dagster's code server waits): a failure to start raises."""
        from dagster._grpc.impl import IPCErrorMessage, StartRunInSubprocessSuccessful

        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                message = events.get(timeout=0.05)
            except queue.Empty:
                if not process.is_alive():
                    raise DagsterLaunchFailedError(f"the process for run {run_id} exited with code "
                                                   f"{process.exitcode} before it started") from None
                continue
            if isinstance(message, StartRunInSubprocessSuccessful):
                return
            if isinstance(message, IPCErrorMessage):
                raise DagsterLaunchFailedError(message.message,
                                               serializable_error_info=message.serializable_error_info)
        process.kill()
        raise DagsterLaunchFailedError(f"the process for run {run_id} did not start within {START_TIMEOUT:.0f} s")

    def _forget_finished(self) -> None:
        for run_id, (process, _, events) in list(self._processes.items()):
            if not process.is_alive():
                process.join(0)
                process.close()
                events.close()
                del self._processes[run_id]
