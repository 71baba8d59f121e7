"""The project as a Dagster resource: where it lives, its store, and its indexer."""

from __future__ import annotations

import os

import dagster as dg
from pydantic import PrivateAttr

from ..pipeline.indexer import Indexer
from ..project import Project
from ..store import Store

_preloaded: dict[str, Project] = {}


def preload(project: Project | None) -> None:
    """Let runs in this process use ``project`` as already loaded (``right-rag index`` has read it and imported
    its plugins, for the run it is about to start): the resource then skips loading it again. None forgets it."""
    _preloaded.clear()
    if project is not None:
        _preloaded[str(project.root)] = project


class RightRagProject(dg.ConfigurableResource):
    """A right-rag project folder (default: RIGHT_RAG_PROJECT or the code location's working directory).

    The project (and its plugin registry) is read once when a run (or a sensor tick) sets the resource up, so
    an edited parser's new version is what the run records, and the run's steps share one registry: building
    it imports and hashes every plugin of ``spec/`` (about 50 ms for the sample project).
    """

    project_dir: str = ""
    _project: Project | None = PrivateAttr(default=None)
    _indexer: Indexer | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        self._project = self._load()
        self._indexer = None

    def _load(self) -> Project:
        root = self.project_dir or os.environ.get("RIGHT_RAG_PROJECT") or None
        preloaded = _preloaded.get(str(root))
        return preloaded if preloaded is not None else Project.load(root)

    def get_project(self) -> Project:
        return self._project if self._project is not None else self._load()

    def get_store(self) -> Store:
        return Store.for_project(self.get_project())

    def get_indexer(self) -> Indexer:
        if self._project is None:
            return Indexer(self.get_project())
        if self._indexer is None:
            self._indexer = Indexer(self._project)
        return self._indexer
