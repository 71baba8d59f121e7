"""``rag.query`` on a project: defaults from [right-rag.retrieval], chunker fallback, filters, JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.project import Project
from right_rag_dagster.rag import query
from right_rag_dagster.retrieval import build_search_index
from right_rag_dagster.retrieval.settings import default_chunker
from right_rag_dagster.store import Store


def _project(folder: Path, store: Store, retrieval: str = "") -> Project:
    (folder / "right_rag.toml").write_text(
        f'[right-rag]\nstore_path = "{store.path.as_posix()}"\n\n[right-rag.retrieval]\n{retrieval}\n', encoding="utf-8")
    return Project.load(folder)


def test_settings_give_the_defaults(built_store: Store, tmp_path: Path) -> None:
    project = _project(tmp_path, built_store, 'k = 2\nflow = "adaptive"\nretriever = "bm25"\nchunker = "default"')
    answer = query(project, "What must debian/rules do with DEB_BUILD_OPTIONS?", trace=True)
    assert len(answer.hits) == 2 and answer.flow == "adaptive"
    assert answer.settings == {"chunker": "default", "retriever": "bm25", "k": 2, "generator": "extractive",
                               "reranker": "none", "neighbours": True, "embedder": None, "retriever_requested": "bm25",
                               "attempt": 1, "query": "What must debian/rules do with DEB_BUILD_OPTIONS?"}
    overridden = query(project, "What must debian/rules do with DEB_BUILD_OPTIONS?", k=4, flow="simple")
    assert len(overridden.hits) == 4 and overridden.flow == "simple" and overridden.trace is None


def test_unknown_settings_are_rejected(built_store: Store, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown keys in \[right-rag.retrieval\]: \['retreiver'\]"):
        query(_project(tmp_path, built_store, 'retreiver = "bm25"'), "license")


def test_the_chunker_defaults_to_the_first_non_default_one_with_chunks(store_copy: Store) -> None:
    assert default_chunker(store_copy) == "default"
    with store_copy.write() as con:
        con.execute("INSERT INTO chunks SELECT * REPLACE ('zdomain' AS chunker) FROM chunks "
                    "WHERE document_id = 'GPL-3.0.txt'")
    build_search_index(store_copy, "zdomain")
    assert default_chunker(store_copy) == "zdomain"
    answer = query(store_copy, "conveying verbatim copies")
    assert answer.settings["chunker"] == "zdomain" and {h.document_id for h in answer.hits} == {"GPL-3.0.txt"}


def test_filters_and_json_output(built_store: Store) -> None:
    answer = query(built_store, "license", chunker="default", k=3, filters={"document": "upgrading-checklist.txt"},
                   trace=True)
    data = json.loads(json.dumps(answer.to_json()))
    assert {h["document"] for h in data["hits"]} == {"upgrading-checklist.txt"}
    assert set(data["hits"][0]) >= {"chunk_id", "document", "source_start", "source_end", "page_start", "page_end",
                                    "section_path", "score", "text"}
    assert data["trace"]["flow"]["name"] == "simple" and [s["step"] for s in data["trace"]["steps"]] == [
        "retrieve", "rerank", "generate"]
    assert data["trace"]["steps"][0]["inputs"]["filters"] == {"document": "upgrading-checklist.txt"}


def test_coverage_reranker_reorders_by_question_terms(built_store: Store) -> None:
    answer = query(built_store, "written offer three years", chunker="default", k=5, reranker="coverage",
                   trace=True)
    rerank = answer.trace["steps"][1]
    assert rerank["step"] == "rerank" and rerank["scores"] == sorted(rerank["scores"], reverse=True)
    assert [h.rank for h in answer.hits] == [1, 2, 3, 4, 5]
    assert all("retrieval_rank" in h.details for h in answer.hits)
