"""The Dagster UI links to the playground: the search index and evaluation assets carry a URL in their metadata."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from right_rag_dagster.orchestration.defs.evaluation import build_evaluation_assets
from right_rag_dagster.orchestration.defs.search import materialize_search_indexes
from right_rag_dagster.orchestration.names import EVALUATION_KEY, search_index_key
from right_rag_dagster.orchestration.resources import RightRagProject
from right_rag_dagster.playground import DEFAULT_PORT, playground_url
from right_rag_dagster.project import Project
from tests.playground.conftest import make_project


@pytest.fixture
def project_root(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path / "project", tmp_path_factory)


def test_the_url_carries_the_page_choices() -> None:
    assert playground_url() == f"http://127.0.0.1:{DEFAULT_PORT}/"
    assert playground_url(8000, chunker="baseline:page-4000", retriever="", mode="live") == \
        "http://127.0.0.1:8000/?chunker=baseline%3Apage-4000&mode=live"


def test_the_search_index_asset_links_to_its_chunker(project_root: Path) -> None:
    resource = RightRagProject(project_dir=str(project_root))
    [result] = materialize_search_indexes(resource, ["default"], {search_index_key("default")})
    assert result.metadata["playground"] == dg.MetadataValue.url(playground_url(chunker="default", mode="live"))


def test_the_evaluation_asset_links_to_its_best_run(project_root: Path) -> None:
    assets = build_evaluation_assets(Project.load(project_root), ["default"])
    result = dg.materialize(assets, resources={"right_rag": RightRagProject(project_dir=str(project_root))})
    metadata = result.asset_materializations_for_node(EVALUATION_KEY.path[-1])[0].metadata
    best = (metadata["best_chunker"].value, metadata["best_retriever"].value)
    assert best == ("default", "bm25")
    assert metadata["playground"] == dg.MetadataValue.url(
        playground_url(chunker="default", retriever="bm25", mode="live"))
