"""``right-rag index --writers N`` on a DuckLake: N writers write the documents at once, as Dagster runs over
partition ranges (up to ``RANGES_PER_WRITER`` per writer, handed out as writers become free), then one
``refresh_indexes`` run in this process removes the documents that left the folder and builds the search indexes
and the audit report. This process is the first writer, N - 1 writer processes (``writer_process``) the others:
a writer process of its own would import Dagster and the plugins, open an instance and attach the lake once more,
next to this process, which does all that anyway for the refresh.

Every run is stored in the instance of DAGSTER_HOME (PostgreSQL for a shared deployment), tagged with the group
(``writers.GROUP_TAG``), and its writing step takes a slot of the ``right_rag_store`` pool: with a pool smaller
than N, the extra writers wait for a slot.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import dagster as dg
from dagster._core.utils import make_new_run_id

from ..errors import RightRagError
from ..pipeline.plan import IndexPlan
from ..pipeline.scan import DocumentFile
from ..pipeline.workers import close_prestarted
from ..project import Project
from ..store import Store
from .home import ensure_dagster_home
from .local import (
    DEBUG_LOGS,
    QUIET_LOGS,
    SUBSET_PLANNED_EVENTS,
    LocalRunResult,
    _cause,
    sync_partitions,
)
from .names import DOCUMENTS_PARTITIONS, REFRESH_JOB
from .origin import attribute_to_location
from .project_definitions import build_definitions
from .recovery import SOURCE_TAG, process_tags, recover_dead_runs
from .resources import preload
from .streaming import execute_streaming
from .writer_pool import WriterProcesses
from .writer_process import DONE_PREFIX, describe, run_range
from .writers import GROUP_TAG, prepare_pool, range_count, writer_slices, writer_tags


def run_writers(project: Project, plan: IndexPlan, all_keys: Sequence[str], writers: int,
                notify: Callable[[str], None] | None = None, debug: bool = False,
                processes: WriterProcesses | None = None) -> LocalRunResult:
    """Index the plan's documents with ``writers`` concurrent Dagster runs, then refresh once: this process
    writes too, beside ``writers - 1`` writer processes; ``processes``: those started earlier (``right-rag index``
    starts them before it imports Dagster), else new ones."""
    # One planned event per asset for each writer's partition range, not one per asset and partition: with 355
    # partitions per writer, the per-partition events delayed each run's start by about a minute on PostgreSQL.
    os.environ.setdefault(SUBSET_PLANNED_EVENTS, "1")
    ensure_dagster_home(project.dagster_home)
    writers = max(1, min(writers, len(plan.todo)))
    with dg.DagsterInstance.get() as instance, \
            processes or WriterProcesses(project, writers - 1, debug) as children:
        # The writer processes import Dagster and the plugins (seconds) while this one prepares their work; they
        # open their instances once this one has created Dagster's tables in a new database.
        children.prepare()
        Store.for_project(project).ensure()  # migrations once, here: writers starting together would race
        recovered = recover_dead_runs(instance)
        if notify is not None and recovered.failed_runs:
            notify(f"marked {len(recovered.failed_runs)} run(s) of dead right-rag index processes failed")
        sync_partitions(instance, all_keys)
        prepare_pool(instance)
        order = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
        slices = writer_slices(order, plan.todo, range_count(writers, len(plan.todo)), writers)
        group = f"cli-{uuid.uuid4()}"
        base = {SOURCE_TAG: "cli"}
        parts = [WriterRange(i, make_new_run_id(), list(files)) for i, files in enumerate(slices)]
        defs = build_definitions(project)
        preload(project)
        try:
            failures = write_ranges(children, parts, writers, group, base,
                                    local=lambda run_id, tags: run_range(project, defs, instance, run_id, tags, debug))
            close_prestarted()  # this process's parsing workers: the refresh parses nothing
            if failures:
                raise RightRagError("; ".join(failures))
            refresh_id = make_new_run_id()
            try:
                execute_streaming(defs.resolve_job_def(REFRESH_JOB), instance=instance,
                                  run_config=DEBUG_LOGS if debug else QUIET_LOGS, run_id=refresh_id,
                                  tags={**base, GROUP_TAG: group, **process_tags()})
            except dg.DagsterExecutionStepExecutionError as exc:
                raise _cause(exc) from exc
            finally:
                attribute_to_location(instance, project, refresh_id)
        finally:
            preload(None)
        return LocalRunResult(parts[0].run_id if parts else None, refresh_id, len(plan.removed))


@dataclass(frozen=True)
class WriterRange:
    """One Dagster run's documents: a contiguous partition range, the ``index``-th of the index's ranges."""

    index: int
    run_id: str
    files: list[DocumentFile]


def write_ranges(processes: WriterProcesses, parts: Sequence[WriterRange], writers: int, group: str,
                 base: dict[str, str], local: Callable[[str, dict[str, str]], bool] | None = None) -> list[str]:
    """Run every range with the writer processes (``writer_process``) and, given ``local`` (which runs one range
    in this process, as writer 0, on this thread), with this process: each writer takes the next range when it
    finished its last, so ranges that cost more than their bytes said do not leave a writer idle. Returns one
    message per range that failed or never ran."""
    pending: queue.Queue[WriterRange] = queue.Queue()
    for part in parts:
        pending.put(part)
    failures: list[str] = []
    lock = threading.Lock()
    first = 1 if local is not None else 0  # the writer number of the first process

    def tags_for(part: WriterRange, slot: int) -> dict[str, str]:
        return {**base, **writer_tags(part.files, group, slot, writers, (part.index, len(parts)))}

    def serve(slot: int) -> None:
        child, errors = processes.children[slot - first]
        assert child.stdin is not None and child.stdout is not None
        try:
            while True:
                try:
                    part = pending.get_nowait()
                except queue.Empty:
                    break
                try:
                    child.stdin.write(json.dumps({"run_id": part.run_id, "tags": tags_for(part, slot)}) + "\n")
                    child.stdin.flush()
                    answer = _answer(child.stdout)
                except OSError:  # BrokenPipeError: it died before it was given the range
                    answer = None
                if answer is None:  # the writer died: the ranges left go to the others
                    child.wait()
                    errors.seek(0)
                    with lock:
                        failures.append(f"writer run {part.run_id}: {_last_error(errors.read())}")
                    return
                if not answer["ok"]:
                    with lock:
                        failures.append(f"writer run {part.run_id}: {answer['error'] or 'failed'}")
        finally:  # it exits (its workers stop, its instance closes) while the refresh runs; the pool waits for it
            with contextlib.suppress(BrokenPipeError, OSError):
                child.stdin.close()

    threads = [threading.Thread(target=serve, args=(slot,), name=f"right-rag-writer-{slot}")
               for slot in range(first, first + min(len(processes.children), len(parts)))]
    for thread in threads:
        thread.start()
    while local is not None:
        try:
            part = pending.get_nowait()
        except queue.Empty:
            break
        try:
            ok, error = local(part.run_id, tags_for(part, 0)), None
        except Exception as exc:  # noqa: BLE001 (reported with the run id, as a writer process reports it)
            ok, error = False, describe(exc)
        if not ok:
            with lock:
                failures.append(f"writer run {part.run_id}: {error or 'failed'}")
    for thread in threads:
        thread.join()
    while not pending.empty():
        part = pending.get_nowait()
        failures.append(f"range {part.index + 1} of {len(parts)} ({part.files[0].partition_key} to "
                        f"{part.files[-1].partition_key}) was not written: every writer process ended")
    return failures


def _answer(stdout) -> dict | None:
    """The writer's answer for the range it was given, or None when it ended without one."""
    for line in stdout:
        if line.startswith(DONE_PREFIX):
            return json.loads(line[len(DONE_PREFIX):])
    return None


def _last_error(stderr: str | None) -> str:
    """The error a writer printed last (its ``main`` prints the cause's type and message)."""
    lines = [line for line in (stderr or "").strip().splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line.split(":")[0] or "Exception" in line.split(":")[0]]
    return (errors or lines or ["failed without a message"])[-1]
