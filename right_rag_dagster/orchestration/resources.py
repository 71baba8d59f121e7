"""The project as a Dagster resource: where it lives, its store, and its indexer."""

from __future__ import annotations

import os

import dagster as dg

from ..pipeline.indexer import Indexer
from ..project import Project
from ..store import Store


class RightRagProject(dg.ConfigurableResource):
    """A right-rag project folder (default: RIGHT_RAG_PROJECT or the code location's working directory).

    The project (and its plugin registry) is read afresh for each run, so an edited parser's new version is
    what the run records.
    """

    project_dir: str = ""

    def get_project(self) -> Project:
        return Project.load(self.project_dir or os.environ.get("RIGHT_RAG_PROJECT") or None)

    def get_store(self) -> Store:
        return Store(self.get_project().store_path)

    def get_indexer(self) -> Indexer:
        return Indexer(self.get_project())
