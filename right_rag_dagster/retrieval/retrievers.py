"""The retriever plugin contract, at the path spec plugins import (``searching/retrievers.py`` holds it)."""

from .searching.retrievers import (  # noqa: F401 (re-exports)
    BUILTIN_RETRIEVERS,
    Bm25Retriever,
    DenseRetriever,
    HybridRetriever,
    RetrievalRequest,
    Retriever,
    resolve_retriever,
)
