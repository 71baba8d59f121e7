"""Plugin discovery at right-rag's import path: ``build_registry`` finds a project's spec plugins beside the
built-ins and the plugin kinds, which it passes to the core's ``discover`` explicitly."""

from __future__ import annotations

from pathlib import Path

from .builtins import builtin_plugins
from .core.interfaces import PLUGIN_KINDS
from .core.registry import (
    KindSpec,
    PluginInfo,
    PluginLoadError,
    Registry,
    discover,
    register_plugin_kind,
)

__all__ = ["PluginInfo", "PluginLoadError", "Registry", "build_registry", "register_plugin_kind"]


RETRIEVER_KIND = ("right_rag_dagster.retrieval.searching.retrievers:Retriever", "retriever_name")
"""``spec/retrievers``: the interface lives above the core, in retrieval/, and is imported only when a project has
retriever plugins."""


def plugin_kinds() -> dict[str, KindSpec]:
    """Every kind of plugin a project's ``spec/`` may hold: the core's (and any a user registered), retrievers."""
    return {**PLUGIN_KINDS, "retrievers": RETRIEVER_KIND}


def build_registry(spec_dir: str | Path | None = "spec", include_builtins: bool = True) -> Registry:
    """The built-in plugins (unless ``include_builtins`` is false) and those under ``spec_dir``, of every kind."""
    return discover(spec_dir, builtin_plugins() if include_builtins else {}, plugin_kinds())
