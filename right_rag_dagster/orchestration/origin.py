"""CLI runs attributed to the code location that ``dagster dev`` loads, so the UI's Overview timeline shows them.

``execute_in_process`` records a run without a code location; the timeline draws only runs that have one (it
groups runs by location and job), so ``right-rag index`` runs were missing from it. After the run, its origin is
set to the location ``workspace.yaml`` names, as Dagster's own ``dagster run migrate-repository`` does.
"""

from __future__ import annotations

import dagster as dg
from dagster._core.definitions.repository_definition import SINGLETON_REPOSITORY_NAME
from dagster._core.remote_origin import (
    ManagedGrpcPythonEnvCodeLocationOrigin,
    RemoteJobOrigin,
    RemoteRepositoryOrigin,
)
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin

from ..project import Project
from .names import LOCATION_NAME

DEFINITIONS_MODULE = "right_rag_dagster.orchestration.definitions"


def job_origin(project: Project, job_name: str) -> RemoteJobOrigin:
    """Where ``dagster dev`` (workspace.yaml, location ``right_rag``) finds ``job_name`` for this project."""
    target = LoadableTargetOrigin(module_name=DEFINITIONS_MODULE, working_directory=str(project.root))
    location = ManagedGrpcPythonEnvCodeLocationOrigin(target, LOCATION_NAME)
    return RemoteJobOrigin(RemoteRepositoryOrigin(location, SINGLETON_REPOSITORY_NAME), job_name)


def attribute_to_location(instance: dg.DagsterInstance, project: Project, run_id: str) -> None:
    """Give an in-process run the code location's origin (and its repository label tag)."""
    run = instance.get_run_by_id(run_id)
    if run is not None and run.remote_job_origin is None:
        instance.run_storage.replace_job_origin(run, job_origin(project, run.job_name))
