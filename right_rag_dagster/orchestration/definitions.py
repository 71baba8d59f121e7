"""The Dagster ``Definitions`` of a right-rag project: the one place where the defs modules are merged.

``workspace.yaml`` loads ``right_rag_dagster.orchestration.definitions`` with the project as working directory.
"""

from __future__ import annotations

import dagster as dg

from ..project import Project
from .defs.automation import documents_folder_sensor, refresh_indexes_after_documents, rescan_documents_schedule
from .defs.documents import build_document_assets, plugin_specs
from .defs.evaluation import build_evaluation_assets
from .defs.jobs import index_documents_job, refresh_indexes_job
from .resources import RightRagProject


def build_definitions(project: Project | None = None) -> dg.Definitions:
    """Definitions for the project in ``project`` (default: RIGHT_RAG_PROJECT or the working directory)."""
    project = project or Project.load()
    _, chunkers, _ = plugin_specs(project)
    document_assets = build_document_assets(project)
    evaluation_assets = build_evaluation_assets(project, [c.name for c in chunkers])
    return dg.Definitions(
        assets=[document_assets, *evaluation_assets],
        jobs=[index_documents_job, refresh_indexes_job],
        sensors=[documents_folder_sensor, refresh_indexes_after_documents],
        schedules=[rescan_documents_schedule],
        resources={"right_rag": RightRagProject(project_dir=str(project.root))},
    )


defs = build_definitions()
