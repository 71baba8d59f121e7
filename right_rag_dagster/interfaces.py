"""right-rag compatible import path for the plugin contracts."""

from .core.interfaces import (
    ChunkParser,
    ChunkSaver,
    DocumentLoader,
    UnitParser,
    UnitSaver,
)

__all__ = ["ChunkParser", "ChunkSaver", "DocumentLoader", "UnitParser", "UnitSaver"]
