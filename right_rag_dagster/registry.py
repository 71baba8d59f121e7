"""right-rag compatible import path for plugin discovery."""

from .core.registry import (
    PluginInfo,
    PluginLoadError,
    Registry,
    build_registry,
    register_plugin_kind,
)

__all__ = ["PluginInfo", "PluginLoadError", "Registry", "build_registry", "register_plugin_kind"]
