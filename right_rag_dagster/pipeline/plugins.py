"""The plugins a project's pipeline uses, resolved once, with their versions and a combined fingerprint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.hashing import stable_hash
from ..project import Project


@dataclass(frozen=True)
class Selected:
    """One selected plugin: its name, version (source hash) and instance."""

    name: str
    version: str
    plugin: Any


@dataclass(frozen=True)
class PluginSet:
    """Selected loaders, unit parsers, chunk parsers and savers of a project."""

    loaders: tuple[Selected, ...]
    unit_parsers: tuple[Selected, ...]
    chunkers: tuple[Selected, ...]
    unit_savers: tuple[Selected, ...]
    chunk_savers: tuple[Selected, ...]

    @classmethod
    def for_project(cls, project: Project) -> PluginSet:
        registry = project.registry

        def pick(kind: str) -> tuple[Selected, ...]:
            return tuple(Selected(n, registry.version(kind, n), registry.create(kind, n)) for n in project.selected(kind))

        return cls(pick("document_loaders"), pick("unit_parsers"), pick("chunk_parsers"),
                   pick("unit_savers"), pick("chunk_savers"))

    @property
    def fingerprint(self) -> str:
        """Changes when any selected plugin is added, removed or edited: documents must then be re-checked."""
        return stable_hash([[(s.name, s.version) for s in group] for group in
                            (self.loaders, self.unit_parsers, self.chunkers)])[:16]

    def unit_parser(self, name: str) -> Selected:
        return next(s for s in self.unit_parsers if s.name == name)

    def loader(self, name: str) -> Selected:
        return next(s for s in self.loaders if s.name == name)
