"""Search over the chunk store: BM25 (incremental postings in DuckDB), dense vectors and hybrid fusion, with
metadata filters.

Never imports Dagster. ``build/`` makes the indexes, ``searching/`` reads them; the types both use (hits,
errors, embedders, settings, index formats, the tokenizer and the indexed-text rule) are here.
``build_search_index`` keeps a chunker's indexes in line with its ``chunks`` rows;
``search`` returns ranked ``Hit`` rows; retrievers are plugins (``spec/retrievers/*.py``). Names are imported on
first use, so a command that only checks an index's format does not pay for numpy and the embedders.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "build_search_index": "build.indexes",
    "Embedder": "embedders", "FunctionEmbedder": "embedders", "HashingEmbedder": "embedders",
    "LocalModelEmbedder": "embedders", "OllamaEmbedder": "embedders", "OpenAIEmbedder": "embedders",
    "make_embedder": "embedders",
    "EmbedderMismatchError": "errors", "IndexMissingError": "errors", "ServiceError": "errors",
    "Hit": "hits",
    "RetrievalRequest": "searching.retrievers", "Retriever": "searching.retrievers",
    "search": "searching.searcher",
    "RetrievalSettings": "settings", "embedder_for_project": "settings",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
