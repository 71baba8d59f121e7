"""Dagster's in-process executor without its list of each step's events.

Dagster's ``inner_plan_execution_iterator`` appends every event of a step to a list that lives until the step
ends, for the step's hooks. An index run is one step that reports a materialization per document and asset, so
the list held every materialization of the run with its metadata: at 7,100 documents, 28,402 of them, and the
main process's peak grew with the corpus. Our jobs have no hooks: this executor keeps a step's events only when
the step has hooks, and is otherwise Dagster's ``InProcessExecutor`` (same events, same order, same storage),
except that the run's output is captured by threads instead of processes (``log_capture``).

It copies two Dagster functions (dagster 1.x: ``execute_plan.inner_plan_execution_iterator`` and
``InProcessExecutor.execute``) with that one difference; ``tests/orchestration/test_lean_executor.py`` checks
that they still match Dagster's own code, so an upgrade that changes them is noticed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import dagster as dg
import dagster._check as check
from dagster._core.events import DagsterEvent, EngineEventData
from dagster._core.execution.api import ExecuteRunWithPlanIterable
from dagster._core.execution.compute_logs import create_compute_log_file_key
from dagster._core.execution.context_creation_job import PlanExecutionContextManager
from dagster._core.execution.plan.execute_plan import (
    _handle_compute_log_setup_error,
    _handle_compute_log_teardown_error,
    _trigger_hook,
    dagster_event_sequence_for_step,
)
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from dagster._core.execution.retries import RetryMode
from dagster._core.executor.in_process import InProcessExecutor
from dagster._utils.timing import time_execution_scope
from dagster_shared.utils.timing import format_duration

from .log_capture import capture_logs


class _Unkept(list):
    """A step's event list when the step has no hooks: nothing reads it, so nothing is kept."""

    def append(self, item: Any) -> None:  # noqa: ARG002 - the event is dropped on purpose
        return None


def plan_events(job_context: Any, execution_plan: Any) -> Iterator[DagsterEvent]:
    """``inprocess_execution_iterator``: the plan's steps in this process, under the instance's concurrency pools."""
    with InstanceConcurrencyContext(job_context.instance, job_context.dagster_run) as concurrency:
        yield from _steps(job_context, execution_plan, concurrency)


def _steps(job_context: Any, execution_plan: Any, concurrency: InstanceConcurrencyContext) -> Iterator[DagsterEvent]:
    """Dagster's ``inner_plan_execution_iterator``, with ``_Unkept`` for a step without hooks and the output
    captured by ``log_capture``."""
    compute_log_manager = job_context.instance.compute_log_manager
    step_keys = [step.key for step in execution_plan.get_steps_to_execute_in_topo_order()]
    with execution_plan.start(retry_mode=job_context.retry_mode, instance_concurrency_context=concurrency,
                              step_dependency_config=job_context.step_dependency_config) as active_execution:
        with ExitStack() as capture_stack:
            file_key = create_compute_log_file_key()
            log_key = compute_log_manager.build_log_key_for_run(job_context.run_id, file_key)
            try:
                log_context = capture_stack.enter_context(capture_logs(compute_log_manager, log_key))
                yield DagsterEvent.capture_logs(job_context, step_keys, log_key, log_context)
            except Exception:
                yield from _handle_compute_log_setup_error(job_context, sys.exc_info())
            while not active_execution.is_complete:
                step = active_execution.get_next_step()
                yield from active_execution.concurrency_event_iterator(job_context)
                if not step:
                    active_execution.sleep_til_ready()
                    continue
                step_context = job_context.for_step(step, active_execution.get_known_state())
                hooked = step_context.job_def.get_all_hooks_for_handle(step_context.node_handle)
                step_event_list: list[DagsterEvent] = [] if hooked else _Unkept()
                missing_resources = [key for key in step_context.required_resource_keys
                                     if not hasattr(step_context.resources, key)]
                check.invariant(not missing_resources,
                                f"Expected step context for solid {step_context.op.name} to have all required"
                                f" resources, but missing {missing_resources}.")
                for step_event in check.generator(dagster_event_sequence_for_step(step_context)):
                    dagster_event = check.inst(step_event, DagsterEvent)
                    step_event_list.append(dagster_event)
                    yield dagster_event
                    active_execution.handle_event(dagster_event)
                active_execution.verify_complete(job_context, step.key)
                for event in active_execution.plan_events_iterator(job_context):
                    step_event_list.append(event)
                    yield event
                yield from _trigger_hook(step_context, step_event_list)
            try:
                capture_stack.close()
            except Exception:
                yield from _handle_compute_log_teardown_error(job_context, sys.exc_info())


class LeanInProcessExecutor(InProcessExecutor):
    """``InProcessExecutor`` running ``plan_events``."""

    def execute(self, plan_context: Any, execution_plan: Any) -> Iterator[DagsterEvent]:
        step_keys_to_execute = execution_plan.step_keys_to_execute
        yield DagsterEvent.engine_event(plan_context, f"Executing steps in process (pid: {os.getpid()})",
                                        event_specific_data=EngineEventData.in_process(os.getpid(),
                                                                                       step_keys_to_execute))
        with time_execution_scope() as timer_result:
            yield from iter(ExecuteRunWithPlanIterable(
                execution_plan=plan_context.execution_plan, iterator=plan_events,
                execution_context_manager=PlanExecutionContextManager(
                    job=plan_context.job, retry_mode=plan_context.retry_mode,
                    execution_plan=plan_context.execution_plan, run_config=plan_context.run_config,
                    dagster_run=plan_context.dagster_run, instance=plan_context.instance,
                    raise_on_error=plan_context.raise_on_error, output_capture=plan_context.output_capture,
                    step_dependency_config=self.step_dependency_config)))
        yield DagsterEvent.engine_event(
            plan_context, f"Finished steps in process (pid: {os.getpid()}) in {format_duration(timer_result.millis)}",
            event_specific_data=EngineEventData.in_process(os.getpid(), step_keys_to_execute))


@dg.executor(name="right_rag_in_process")
def lean_in_process_executor(_: Any) -> LeanInProcessExecutor:
    """The executor ``execute_streaming`` runs jobs with (in place of ``execute_in_process``'s), no config."""
    return LeanInProcessExecutor(retries=RetryMode.ENABLED, marker_to_close=None)
