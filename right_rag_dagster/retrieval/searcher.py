"""``search``: one question, one chunker, one retriever -> ranked ``Hit`` rows of the ``chunks`` table."""

from __future__ import annotations

from typing import Any

from ..core.registry import Registry
from ..errors import ConfigError
from ..store import Store
from .cold import cold_bm25
from .embedders import Embedder, make_embedder
from .expand import expand_to_units
from .filters import filter_mask
from .hits import Hit
from .retrievers import Bm25Retriever, RetrievalRequest, Retriever, resolve_retriever
from .snapshot import first_search, open_index


def search(store: Store, query: str, *, chunker: str, retriever: str | Retriever = "bm25", k: int = 10,
           filters: dict[str, Any] | None = None, embedder: Embedder | str | Any = None, expand: bool = False,
           registry: Registry | None = None, options: dict[str, Any] | None = None) -> list[Hit]:
    """The ``k`` best chunks of ``chunker`` for ``query``, ranked from 1.

    ``filters`` restrict the chunks (see ``retrieval.filters``); ``embedder`` is needed by dense and hybrid
    (a local model is recreated from the stored identity when omitted); ``expand`` returns a whole unit
    in place of several of its chunks; ``registry`` finds spec/retrievers plugins; ``options`` go to the
    retriever (``weights``, ``rrf_k``, ``depth``).
    """
    if k < 1:
        raise ConfigError(f"k must be at least 1, got {k}")
    plugin = resolve_retriever(retriever, registry)
    if type(plugin) is Bm25Retriever and not filters and not expand and first_search(store, chunker):
        return cold_bm25(store, query, chunker, k)
    index = open_index(store, chunker)
    if not len(index.chunks):
        return []
    fetch = k * 3 if expand else k  # expansion merges chunks: fetch more so k hits remain
    request = RetrievalRequest(query=query, k=fetch, index=index, allowed=filter_mask(index.chunks, filters),
                               embedder=make_embedder(embedder), options=dict(options or {}))
    candidates = plugin.retrieve(request)
    name = plugin.retriever_name
    live = [c for c in candidates if c.chunk_id in index.chunks.row_of
            and (request.allowed is None or request.allowed[index.chunks.row_of[c.chunk_id]])]
    hits = [index.chunks.hit(c, rank, name) for rank, c in enumerate(live[:fetch], start=1)]
    return expand_to_units(store, hits)[:k] if expand else hits
