"""The code location: ``workspace.yaml`` loads this module with the project as working directory, and Dagster finds
the project's ``Definitions`` in ``defs``, built when the module is imported (``project_definitions``)."""

from __future__ import annotations

from ..pipeline.heap import limit_arenas
from .project_definitions import build_definitions

__all__ = ["build_definitions", "defs"]

limit_arenas()  # a Dagster process loading the code location (the run worker that indexes, among them)
defs = build_definitions()
