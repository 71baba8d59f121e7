"""Plugin discovery at right-rag's import path: ``build_registry`` finds a project's spec plugins beside the
built-ins, which it passes to the core's ``discover`` explicitly."""

from __future__ import annotations

from pathlib import Path

from .builtins import builtin_plugins
from .core.registry import (
    PluginInfo,
    PluginLoadError,
    Registry,
    discover,
    register_plugin_kind,
)

__all__ = ["PluginInfo", "PluginLoadError", "Registry", "build_registry", "register_plugin_kind"]


def build_registry(spec_dir: str | Path | None = "spec", include_builtins: bool = True) -> Registry:
    """The built-in plugins (unless ``include_builtins`` is false) and those under ``spec_dir``."""
    return discover(spec_dir, builtin_plugins() if include_builtins else {})
