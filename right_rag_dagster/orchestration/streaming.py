"""Execute a job in this process as ``JobDefinition.execute_in_process`` does, without keeping its events.

Dagster's ``execute_in_process`` lists every event of the run in memory for its result (and captures every step
output). An index run reports one materialization per document and asset, each with its metadata: 2,842 events
(9.9 MB as stored) at 710 documents, ten times that at 7,100, so the run's peak memory grew with the corpus. Here
the events go to the instance's storage as they happen and nothing else keeps them: not this function, and not
the executor, which is Dagster's in-process one without its list of the step's events (``lean_executor``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import dagster as dg


def execute_streaming(job_def: dg.JobDefinition, *, instance: dg.DagsterInstance, run_config: Mapping[str, object],
                      run_id: str, tags: Mapping[str, str] | None = None,
                      asset_selection: Sequence[dg.AssetKey] | None = None) -> dg.DagsterRun:
    """Run ``job_def`` (optionally a subset of its assets) on ``instance`` and return the finished run; a step's
    error is raised as ``execute_in_process(raise_on_error=True)`` raises it."""
    from dagster._core.definitions.job_base import InMemoryJob
    from dagster._core.execution.api import (
        ExecuteRunWithPlanIterable,
        create_execution_plan,
        job_execution_iterator,
    )
    from dagster._core.execution.context_creation_job import (
        PlanOrchestrationContextManager,
        orchestration_context_event_generator,
    )
    from dagster._core.execution.execute_in_process import merge_run_tags, type_check_and_normalize_args

    from .lean_executor import lean_in_process_executor

    config, _, selection, resource_defs, _, input_values = type_check_and_normalize_args(
        run_config=run_config, asset_selection=asset_selection)
    ephemeral = job_def.as_ephemeral_job(resource_defs=resource_defs, input_values=input_values,
                                         asset_selection=selection).with_executor_def(lean_in_process_executor)
    job = InMemoryJob(job_def=ephemeral)
    plan = create_execution_plan(job, run_config=config,
                                 instance_ref=instance.get_ref() if instance.is_persistent else None)
    run = instance.create_run_for_job(
        job_def=ephemeral, run_config=config, run_id=run_id, asset_selection=frozenset(selection),
        execution_plan=plan, tags={**ephemeral.run_tags, **merge_run_tags(
            job_def=job_def, partition_key=None, tags=tags, asset_selection=selection, instance=instance,
            run_config=config)})
    events = ExecuteRunWithPlanIterable(
        execution_plan=plan, iterator=job_execution_iterator,
        execution_context_manager=PlanOrchestrationContextManager(
            context_event_generator=orchestration_context_event_generator, job=job, execution_plan=plan,
            dagster_run=run, instance=instance, run_config=config, executor_defs=None, output_capture=None,
            raise_on_error=True))
    for _ in events:
        pass
    finished = instance.get_run_by_id(run.run_id)
    assert finished is not None
    return finished
