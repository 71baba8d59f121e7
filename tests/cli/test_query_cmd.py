"""`right-rag query`: help, the answer with numbered citations, --json, --filter, --trace, errors, no Dagster."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from right_rag_dagster.cli import main
from tests.retrieval.store_builder import copy_store, session_store

QUESTION = "What must debian/rules do when DEB_BUILD_OPTIONS contains nostrip?"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose store is a copy of the development store (default chunks of real documents)."""
    folder = tmp_path_factory.mktemp("project")
    store = copy_store(session_store(tmp_path_factory), folder)
    (folder / "right_rag.toml").write_text(f'[right-rag]\nstore_path = "{store.path.name}"\n', encoding="utf-8")
    return folder


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["query", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("question", "--k K", "--retriever RETRIEVER", "--chunker CHUNKER", "--flow FLOW",
                   "--filter KEY=VALUE", "--trace", "--json", "--generator", "--expand"):
        assert option in text, option


def test_prints_the_answer_then_numbered_citations(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "query", QUESTION]) == 0
    out = capsys.readouterr().out
    answer, _, rest = out.partition("\n\nCitations:\n")
    assert "DEB_BUILD_OPTIONS" in answer and re.search(r"\[\d\]$", answer)
    lines = [line for line in rest.splitlines() if line.startswith("  [")]
    assert lines
    pattern = r"  \[(\d+)\] debian-policy\.pdf, p\. [0-9ivx-]+, .+, chars (\d+)-(\d+), score \d+\.\d{3}"
    for line in lines:
        match = re.fullmatch(pattern, line)
        assert match, line
        assert f"[{match.group(1)}]" in answer and int(match.group(2)) < int(match.group(3))
    assert "(default chunks, bm25, k=5, simple flow, extractive)" in rest


def test_json_output(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "query", QUESTION, "--json", "--k", "3",
                 "--filter", "document=debian-policy.pdf"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] and data["found"] is True and len(data["hits"]) == 3
    for hit in data["hits"]:
        assert {"chunk_id", "document", "source_start", "source_end", "page_start", "page_end",
                "page_label_start", "page_label_end", "section_path", "score", "text"} <= set(hit)
        assert hit["document"] == "debian-policy.pdf" and hit["text"]
    assert [step["step"] for step in data["trace"]["steps"]] == ["retrieve", "rerank", "generate"]
    citation = data["citations"][0]
    assert citation["quote"] and 1 <= citation["number"] <= 3 and f"[{citation['number']}]" in data["answer"]
    assert citation["chunk_id"] == data["hits"][citation["number"] - 1]["chunk_id"]


def test_filter_trace_and_adaptive_flow(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "query", "license", "--filter", "document=GPL-3.0.txt",
                 "--flow", "adaptive", "--trace", "--retriever", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "Trace:" in out
    assert [line.split()[0] for line in out.split("Trace:\n", 1)[1].splitlines()] == [
        "route", "retrieve", "check_evidence", "generate"]
    assert "debian-policy.pdf" not in out.split("Trace:")[0]


def test_errors_are_one_line(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "query", "x", "--retriever", "nope"]) == 2
    assert capsys.readouterr().err.strip() == "right-rag: error: no retriever named 'nope'; available: bm25, dense, hybrid"
    assert main(["--project", str(tmp_path), "query", "x"]) == 2
    assert "run `right-rag index` first" in capsys.readouterr().err
    assert main(["--project", str(project), "query", "x", "--filter", "oops"]) == 2
    assert "not key=value" in capsys.readouterr().err
    for blank in ("", "   \n"):  # was "Not found in the documents." with exit status 0
        assert main(["--project", str(project), "query", blank]) == 2
        assert capsys.readouterr().err.startswith("right-rag: error: the question is empty")


def test_a_cold_query_never_imports_dagster(project: Path) -> None:
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "right_rag_dagster", "--project", str(project),
                             "query", QUESTION], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    modules = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time")}
    assert "right_rag_dagster.rag" in modules
    assert not {m for m in modules if m == "dagster" or m.startswith("dagster.")}
    assert "Citations:" in result.stdout


@pytest.mark.parametrize(("coverage", "found"), [(0.2, True), (1.0, False)])
def test_the_answer_gate_is_a_setting(tmp_path_factory: pytest.TempPathFactory, coverage: float, found: bool,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``answer_min_coverage``: the share of the question's terms the extractive answer's passage must hold, else
    "Not found in the documents." (answering nothing rather than something wrong is the user's trade-off)."""
    folder = tmp_path_factory.mktemp("gate")
    store = copy_store(session_store(tmp_path_factory), folder)
    (folder / "right_rag.toml").write_text(f'[right-rag]\nstore_path = "{store.path.name}"\n\n[right-rag.retrieval]\n'
                                           f"answer_min_coverage = {coverage}\n", encoding="utf-8")
    assert main(["--project", str(folder), "query", "Which build options turn off optimisation or say the weather "
                 "in Paris?", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["found"] is found


@pytest.mark.parametrize("value", ["1.5", "-0.1", '"a third"', "true"])
def test_the_answer_gate_must_be_a_share(value: str) -> None:
    import tomllib

    from right_rag_dagster.errors import ConfigError
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    with pytest.raises(ConfigError, match="answer_min_coverage must be a number from 0 to 1"):
        RetrievalSettings.from_dict({"answer_min_coverage": tomllib.loads(f"v = {value}")["v"]})


def test_the_default_retriever_follows_the_embedder_setting() -> None:
    """``DEFAULT_RETRIEVERS``, however the settings are made; a set retriever is kept, and which it was is known."""
    from right_rag_dagster.errors import ConfigError
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    assert (RetrievalSettings().retriever, RetrievalSettings().retriever_defaulted) == ("bm25", True)
    assert RetrievalSettings(embedder="minilm").retriever == "hybrid"
    assert RetrievalSettings.from_dict({"embedder": "hashing:64"}).retriever == "hybrid"
    chosen = RetrievalSettings.from_dict({"embedder": "hashing:64", "retriever": "bm25"})
    assert (chosen.retriever, chosen.retriever_defaulted) == ("bm25", False)
    with pytest.raises(ConfigError, match="unknown keys in \\[right-rag.retrieval\\]: \\['retriever_defaulted'\\]"):
        RetrievalSettings.from_dict({"retriever_defaulted": True})


def test_the_default_reranker_follows_the_embedder_setting() -> None:
    """``DEFAULT_RERANKERS``: ``semantic`` when the embedder is the offline MiniLM (the model it reads meaning with),
    else ``none``; a set reranker is kept, and which it was is known."""
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    assert (RetrievalSettings().reranker, RetrievalSettings().reranker_defaulted) == ("none", True)
    assert RetrievalSettings(embedder="minilm").reranker == "semantic"
    assert RetrievalSettings.from_dict({"embedder": "sentence-transformers/all-MiniLM-L6-v2"}).reranker == "semantic"
    assert RetrievalSettings.from_dict({"embedder": "hashing:64"}).reranker == "none"
    assert RetrievalSettings.from_dict({"embedder": "openai:text-embedding-3-small"}).reranker == "none"
    chosen = RetrievalSettings.from_dict({"embedder": "minilm", "reranker": "none"})
    assert (chosen.reranker, chosen.reranker_defaulted) == ("none", False)
