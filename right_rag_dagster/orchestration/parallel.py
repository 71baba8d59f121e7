"""``right-rag index --writers N`` on a DuckLake: N Dagster runs write their partition ranges at once, each in
its own process (``writer_process``), then one ``refresh_indexes`` run in this process removes the documents
that left the folder and builds the search indexes and the audit report.

Every run is stored in the instance of DAGSTER_HOME (PostgreSQL for a shared deployment), tagged with the group
(``writers.GROUP_TAG``), and its writing step takes a slot of the ``right_rag_store`` pool: with a pool smaller
than N, the extra writers wait for a slot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence

import dagster as dg
from dagster._core.utils import make_new_run_id

from ..errors import RightRagError
from ..pipeline.plan import IndexPlan
from ..project import Project
from ..store import Store
from .definitions import build_definitions
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
from .recovery import SOURCE_TAG, process_tags, recover_dead_runs
from .resources import preload
from .writers import GROUP_TAG, prepare_pool, writer_slices, writer_tags


def run_writers(project: Project, plan: IndexPlan, all_keys: Sequence[str], writers: int,
                notify: Callable[[str], None] | None = None, debug: bool = False) -> LocalRunResult:
    """Index the plan's documents with ``writers`` concurrent Dagster runs, then refresh once."""
    # One planned event per asset for each writer's partition range, not one per asset and partition: with 355
    # partitions per writer, the per-partition events delayed each run's start by about a minute on PostgreSQL.
    os.environ.setdefault(SUBSET_PLANNED_EVENTS, "1")
    ensure_dagster_home(project.dagster_home)
    Store.for_project(project).ensure()  # migrations once, here: writers starting together would race to apply them
    with dg.DagsterInstance.get() as instance:
        recovered = recover_dead_runs(instance)
        if notify is not None and recovered.failed_runs:
            notify(f"marked {len(recovered.failed_runs)} run(s) of dead right-rag index processes failed")
        sync_partitions(instance, all_keys)
        prepare_pool(instance)
        order = instance.get_dynamic_partitions(DOCUMENTS_PARTITIONS.name)
        slices = writer_slices(order, plan.todo, writers)
        group = f"cli-{uuid.uuid4()}"
        run_ids = [make_new_run_id() for _ in slices]
        base = {SOURCE_TAG: "cli"}
        children = [subprocess.Popen(
            [sys.executable, "-m", "right_rag_dagster.orchestration.writer_process", str(project.root), run_id,
             json.dumps({**base, **writer_tags(files, group, i, len(slices))}), *(["--debug"] if debug else [])],
            stderr=subprocess.PIPE, text=True, env={**os.environ})
            for i, (run_id, files) in enumerate(zip(run_ids, slices))]
        failures = []
        for run_id, child in zip(run_ids, children):
            _, err = child.communicate()
            if child.returncode != 0:
                failures.append(f"writer run {run_id}: {_last_error(err)}")
        if failures:
            raise RightRagError("; ".join(failures))
        refresh_id = make_new_run_id()
        defs = build_definitions(project)
        preload(project)
        try:
            defs.resolve_job_def(REFRESH_JOB).execute_in_process(
                instance=instance, run_config=DEBUG_LOGS if debug else QUIET_LOGS, run_id=refresh_id,
                tags={**base, GROUP_TAG: group, **process_tags()})
        except dg.DagsterExecutionStepExecutionError as exc:
            raise _cause(exc) from exc
        finally:
            attribute_to_location(instance, project, refresh_id)
            preload(None)
        return LocalRunResult(run_ids[0], refresh_id, len(plan.removed))


def _last_error(stderr: str | None) -> str:
    """The error a writer printed last (its ``main`` prints the cause's type and message)."""
    lines = [line for line in (stderr or "").strip().splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line.split(":")[0] or "Exception" in line.split(":")[0]]
    return (errors or lines or ["failed without a message"])[-1]
