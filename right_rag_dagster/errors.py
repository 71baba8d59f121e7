"""One error root for the package, with a few specific kinds users can catch."""

from __future__ import annotations


class RightRagError(Exception):
    """Base of every error right-rag raises on purpose; the CLI prints these as one line."""


class ConfigError(RightRagError):
    """The project configuration names something that does not exist or is malformed."""


class PluginError(RightRagError):
    """A plugin could not be imported, constructed or called; names the plugin and the file."""


class ParserOutputError(PluginError):
    """A unit or chunk parser returned output that breaks the model's rules (e.g. duplicate keys)."""


class DocumentRejected(RightRagError):
    """A document cannot be loaded or parsed; carries the file and the reason."""

    def __init__(self, document: str, reason: str, status: str = "rejected") -> None:
        self.document = document
        self.reason = reason
        self.status = status
        super().__init__(f"{document}: {reason}")


class StoreError(RightRagError):
    """The DuckDB store is missing, locked for too long, or at an unknown schema version."""


class SchemaVersionError(StoreError):
    """The store was made by another version of right-rag: ``Store.ensure()`` migrates an older one."""


class PluginFaultError(PluginError):
    """A plugin failed on, or shared a claim to, more documents than a run allows: the run stopped."""


class StoreDiskFullError(StoreError):
    """The disk holding the store has no room for a write: nothing was committed, what was indexed before stays."""


class StoreMemoryError(StoreError):
    """DuckDB ran out of its memory budget during a write (the runner retries with smaller batches)."""
