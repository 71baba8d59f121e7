"""The DuckDB store: one embedded file holding content (documents, units, chunks) and lineage."""

from .db import Store

__all__ = ["Store"]
