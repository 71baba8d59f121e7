"""The DuckDB store: one embedded file holding content (documents, units, chunks) and lineage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .db import Store

__all__ = ["Store"]


def __getattr__(name: str) -> Any:
    # Lazily, so the worker processes (which use store.files through the default savers) never import DuckDB.
    if name == "Store":
        from .db import Store

        return Store
    raise AttributeError(name)
