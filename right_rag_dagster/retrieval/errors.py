"""Errors of search and answering, under the package's one error root (printed as one line by the CLI)."""

from __future__ import annotations

from ..errors import ConfigError, RightRagError, StoreError


class IndexMissingError(StoreError):
    """The search index a query needs has not been built (or the chunker has no chunks)."""


class EmbedderMismatchError(ConfigError):
    """The query's embedder is not the model the stored vectors were made with."""


class ServiceError(RightRagError):
    """An embedding or LLM server did not answer, or answered something unusable; names the URL."""
