"""Search index assets: one unpartitioned BM25 (and dense) index per chunk parser, refreshed after chunks change."""


import dagster as dg

from ...project import Project
from ..names import chunks_key, search_index_key
from ..resources import RightRagProject


def build_search_assets(project: Project, chunkers: list[str]) -> list[dg.AssetsDefinition]:
    """One search index asset per selected chunk parser (the factory's last layer)."""
    return [_search_asset(name) for name in chunkers]


def _search_asset(chunker: str) -> dg.AssetsDefinition:
    @dg.asset(
        key=search_index_key(chunker),
        deps=[chunks_key(chunker)],
        group_name="search",
        kinds={"duckdb"},
        pool="right_rag_store",
        description=f"BM25 (and, when an embedder is configured, dense) index over the chunks of `{chunker}`.",
    )
    def search_index(right_rag: RightRagProject) -> dg.MaterializeResult:
        from ...retrieval import build_search_index, embedder_for_project

        project = right_rag.get_project()
        stats = build_search_index(right_rag.get_store(), chunker, embedder=embedder_for_project(project))
        return dg.MaterializeResult(metadata={k: v for k, v in stats.items() if isinstance(v, (int, float, str))})

    return search_index
