"""The plugins a project's pipeline uses, resolved once, with their versions and a combined fingerprint."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from ..core.hashing import stable_hash
from ..project import Project

if TYPE_CHECKING:
    from ..store import Store
    from .indexer import Indexer


@dataclass(frozen=True)
class Selected:
    """One selected plugin: its name, version (source hash) and instance, made when first used (a run with nothing
    to index plans by names and versions and never imports a spec file, ``core.registry``)."""

    name: str
    version: str
    make: Callable[[], Any] = field(repr=False, compare=False)

    @cached_property
    def plugin(self) -> Any:
        return self.make()


@dataclass(frozen=True)
class PluginSet:
    """Selected loaders, unit parsers, chunk parsers and savers of a project."""

    loaders: tuple[Selected, ...]
    unit_parsers: tuple[Selected, ...]
    chunkers: tuple[Selected, ...]
    unit_savers: tuple[Selected, ...]
    chunk_savers: tuple[Selected, ...]
    fallback: Selected | None = None
    """The unit parser for documents no unit parser accepts (``fallback_unit_parser``), if the project enables one."""

    @classmethod
    def for_project(cls, project: Project) -> PluginSet:
        registry = project.registry

        def one(kind: str, name: str) -> Selected:
            return Selected(name, registry.version(kind, name), partial(registry.create, kind, name))

        def pick(kind: str) -> tuple[Selected, ...]:
            return tuple(one(kind, name) for name in project.selected(kind))

        fallback = project.fallback_unit_parser()
        return cls(pick("document_loaders"), pick("unit_parsers"), pick("chunk_parsers"),
                   pick("unit_savers"), pick("chunk_savers"), one("unit_parsers", fallback) if fallback else None)

    def make_all(self) -> None:
        """Make every selected plugin now (a worker, before its first document: a spec file that fails to import
        then breaks the worker once, reported as such, instead of failing each document)."""
        for group in (self.loaders, self.unit_parsers, self.chunkers, self.unit_savers, self.chunk_savers):
            for selected in group:
                selected.plugin  # noqa: B018 - made and kept
        if self.fallback is not None:
            self.fallback.plugin  # noqa: B018

    @cached_property
    def fingerprint(self) -> str:
        """Changes when any selected plugin is added, removed or edited: documents must then be re-checked (computed
        once: planning asks it for every file)."""
        groups = (self.loaders, self.unit_parsers, self.chunkers) + (((self.fallback,),) if self.fallback else ())
        return stable_hash([[(s.name, s.version) for s in group] for group in groups])[:16]

    def unit_parser(self, name: str) -> Selected:
        found = self.find_unit_parser(name)
        if found is None:
            raise KeyError(name)
        return found

    def find_unit_parser(self, name: str | None) -> Selected | None:
        """The selected unit parser (or the fallback) named ``name``, if there is one."""
        return next((s for s in (*self.unit_parsers, self.fallback) if s is not None and s.name == name), None)

    def routed_as(self, parser_name: str) -> str:
        """``fallback`` for the fallback unit parser (it owns only documents no unit parser accepts), else ``domain``."""
        return "fallback" if self.fallback is not None and self.fallback.name == parser_name else "domain"

    def loader(self, name: str) -> Selected:
        return next(s for s in self.loaders if s.name == name)


def record_plugin_errors(indexer: Indexer, store: Store) -> list[str]:
    """Store the spec files that failed to import (when that changed), so `report` and `query` name them;
    returns them as messages."""
    from ..store import content

    errors = sorted((e.kind, e.file, e.message) for e in indexer.project.registry.errors)
    if store.exists():
        with store.read() as con:
            if content.read_plugin_errors(con) == errors:
                return [f"{file}: {message}" for _, file, message in errors]
    if errors or store.exists():
        with store.write() as con:
            content.replace_plugin_errors(con, errors)
    return [f"{file}: {message}" for _, file, message in errors]
