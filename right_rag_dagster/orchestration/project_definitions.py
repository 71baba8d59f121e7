"""The Dagster ``Definitions`` of a right-rag project: the one place where the defs modules are merged.

``orchestration.definitions`` builds them for the code location; ``right-rag index`` builds them for its own
project, without that module (importing it builds the definitions of the working directory's project).
"""

from __future__ import annotations

import logging

import dagster as dg

from ..project import Project
from .defs.automation import (
    documents_folder_sensor,
    refresh_indexes_after_documents,
    rescan_documents_schedule,
)
from .defs.documents import build_document_assets, plugin_specs
from .defs.evaluation import build_evaluation_assets, evaluation_sensors
from .defs.jobs import index_documents_job, refresh_indexes_job
from .defs.parsers import build_parser_checks, parser_versions_sensor
from .executors import configured_executor
from .resources import RightRagProject

logger = logging.getLogger("right_rag_dagster")


def build_definitions(project: Project | None = None) -> dg.Definitions:
    """Definitions for the project in ``project`` (default: RIGHT_RAG_PROJECT or the working directory)."""
    project = project or Project.load()
    for error in project.registry.errors:  # also in the asset descriptions and the spec_plugins_import check
        logger.error("right-rag: a spec plugin failed to import: %s", error)
    _, chunkers, _ = plugin_specs(project)
    document_assets = build_document_assets(project)
    evaluation_assets = build_evaluation_assets(project, [c.name for c in chunkers])
    return dg.Definitions(
        assets=[document_assets, *evaluation_assets],
        asset_checks=build_parser_checks(project),
        jobs=[index_documents_job, refresh_indexes_job],
        sensors=[documents_folder_sensor, refresh_indexes_after_documents, parser_versions_sensor,
                 *evaluation_sensors(evaluation_assets)],
        schedules=[rescan_documents_schedule],
        resources={"right_rag": RightRagProject(project_dir=str(project.root))},
        # One step does all the work and parses in its own worker processes: a step subprocess would only add
        # another start-up (imports, definitions) to every run. RIGHT_RAG_DAGSTER_EXECUTOR picks another.
        executor=configured_executor(),
    )

