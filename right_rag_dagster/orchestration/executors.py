"""Which Dagster executor runs the index jobs' steps, chosen by configuration, not code.

``RIGHT_RAG_DAGSTER_EXECUTOR`` in the environment of the code location (and of its run workers):

* ``in_process`` (default): the step runs in the run's process. The document step is one step that parses in
  its own worker processes, so a step subprocess would only add a start-up per run.
* ``multiprocess``: Dagster's multiprocess executor (each step in a subprocess).
* ``celery``: ``dagster_celery.celery_executor``, steps sent to Celery workers (broker and backend in the run
  config: ``deploy/celery/run_config.yaml``).
* ``k8s``: ``dagster_k8s.k8s_job_executor``, each step a Kubernetes Job (``deploy/k8s/run_config.yaml``).

The last two need the ``executors`` extra (dagster-celery and dagster-k8s 0.29.27, matching dagster 1.13.27).
Parallel indexing comes from several runs, one per writer (``writers.py``), whatever the executor: a run's
writing step is one step.
"""

from __future__ import annotations

import os

import dagster as dg

from ..errors import ConfigError

EXECUTOR_ENV = "RIGHT_RAG_DAGSTER_EXECUTOR"
EXECUTORS = ("in_process", "multiprocess", "celery", "k8s")


def executor_named(name: str) -> dg.ExecutorDefinition:
    if name == "in_process":
        return dg.in_process_executor
    if name == "multiprocess":
        return dg.multiprocess_executor
    try:
        if name == "celery":
            from dagster_celery import celery_executor

            return celery_executor
        if name == "k8s":
            from dagster_k8s import k8s_job_executor

            return k8s_job_executor
    except ImportError as exc:
        raise ConfigError(f"{EXECUTOR_ENV}={name} needs the executors extra: pip install -e \".[executors]\" "
                          f"({exc})") from exc
    raise ConfigError(f"{EXECUTOR_ENV}={name!r}: use one of {', '.join(EXECUTORS)}")


def configured_executor() -> dg.ExecutorDefinition:
    """The executor named by ``RIGHT_RAG_DAGSTER_EXECUTOR`` (in_process when unset)."""
    return executor_named(os.environ.get(EXECUTOR_ENV, "").strip() or "in_process")
