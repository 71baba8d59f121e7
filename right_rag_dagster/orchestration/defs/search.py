"""Search index assets: one unpartitioned BM25 (and dense) index per chunk parser, refreshed after chunks change.

They are computed at the end of the document step (see ``documents.py``), so a run that changes documents
brings their indexes up to date without a second run.
"""

from collections.abc import Iterator

import dagster as dg

from ...playground.links import playground_url
from ..names import chunks_key, search_index_key
from ..resources import RightRagProject


def search_index_specs(chunkers: list[str]) -> list[dg.AssetSpec]:
    """One search index asset per selected chunk parser (the factory's last layer)."""
    return [dg.AssetSpec(search_index_key(chunker), deps=[chunks_key(chunker)], group_name="search",
                         kinds={"duckdb"}, skippable=True,
                         description=f"BM25 (and, when an embedder is configured, dense) index over the chunks of "
                                     f"`{chunker}`; updated incrementally: only changed chunks are re-tokenized.")
            for chunker in chunkers]


def materialize_search_indexes(right_rag: RightRagProject, chunkers: list[str],
                               selected: set[dg.AssetKey]) -> Iterator[dg.MaterializeResult]:
    """Bring the selected chunkers' indexes in line with their chunks; one result per index."""
    from ...retrieval import build_search_index, embedder_for_project

    project = right_rag.get_project()
    store = right_rag.get_store()
    embedder = embedder_for_project(project)
    for chunker in chunkers:
        if search_index_key(chunker) in selected:
            stats = build_search_index(store, chunker, embedder=embedder)
            metadata = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}
            metadata["playground"] = dg.MetadataValue.url(playground_url(chunker=chunker, mode="live"))
            yield dg.MaterializeResult(asset_key=search_index_key(chunker), metadata=metadata)
