"""Search over the chunk store: BM25 (DuckDB fts), dense vectors and hybrid fusion, with metadata filters.

Never imports Dagster. ``build_search_index`` keeps a chunker's indexes in line with its ``chunks`` rows;
``search`` returns ranked ``Hit`` rows; retrievers are plugins (``spec/retrievers/*.py``).
"""

from .build import build_search_index
from .embedders import (Embedder, FunctionEmbedder, HashingEmbedder, LocalModelEmbedder, OllamaEmbedder,
                        OpenAIEmbedder, make_embedder)
from .errors import EmbedderMismatchError, IndexMissingError, ServiceError
from .hits import Hit
from .retrievers import RetrievalRequest, Retriever
from .search import search
from .settings import RetrievalSettings, embedder_for_project

__all__ = [
    "Embedder", "EmbedderMismatchError", "FunctionEmbedder", "HashingEmbedder", "Hit", "IndexMissingError",
    "LocalModelEmbedder", "OllamaEmbedder", "OpenAIEmbedder", "RetrievalRequest", "RetrievalSettings", "Retriever",
    "ServiceError", "build_search_index", "embedder_for_project", "make_embedder", "search",
]
