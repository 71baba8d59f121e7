"""The project as a Dagster resource: where it lives, its store, and its indexer."""

from __future__ import annotations

import os
from functools import lru_cache

import dagster as dg

from ..pipeline.indexer import Indexer
from ..project import Project
from ..store import Store


@lru_cache(maxsize=8)
def _load(project_dir: str) -> Project:
    return Project.load(project_dir or None)


class RightRagProject(dg.ConfigurableResource):
    """A right-rag project folder (default: RIGHT_RAG_PROJECT or the code location's working directory)."""

    project_dir: str = ""

    def _dir(self) -> str:
        return self.project_dir or os.environ.get("RIGHT_RAG_PROJECT", "")

    def get_project(self) -> Project:
        return _load(self._dir())

    def get_store(self) -> Store:
        return Store(self.get_project().store_path)

    def get_indexer(self) -> Indexer:
        """A fresh indexer per run, so edited plugin files are picked up by the next run's code."""
        return Indexer(self.get_project())
