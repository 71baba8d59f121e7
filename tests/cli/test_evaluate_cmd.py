"""`right-rag evaluate`: help text, the printed table, the --json file's shape and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from right_rag_dagster.cli import main
from tests.evaluation.conftest import indexed_project  # noqa: F401  (session fixture: a small indexed project)


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--questions FILE", "--k K", "--chunker NAME", "--retriever NAME", "--flow NAME", "--json OUT",
                   "--compare", "baseline:", "at least half"):
        assert option in text, option


def test_evaluate_prints_a_table_and_writes_json(indexed_project: Path, tmp_path: Path,  # noqa: F811
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    code = main(["--project", str(indexed_project), "evaluate", "--k", "5", "--json", str(out)])
    printed = capsys.readouterr()
    assert code == 0
    assert "| chunker" in printed.out and "| default" in printed.out and "recall@5" in printed.out
    assert "evaluation store: " in printed.out and " documents copied, 0 removed, 0 baseline cuts redone" in printed.out
    assert "missing-quote: quote not found in fhs-3.0.pdf" in printed.err
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert set(payload) == {"metrics", "config", "questions"}
    assert {"hit@1", "hit@5", "recall@5", "mrr@10", "ndcg@10", "context_chars@5", "answered_rate",
            "quotes_not_found", "latency_p50_ms", "latency_p95_ms"} <= set(payload["metrics"])
    # the project names an embedder, so its default retriever is hybrid (settings.DEFAULT_RETRIEVERS)
    assert payload["config"]["chunker"] == "default" and payload["config"]["retriever"] == "hybrid"
    assert [q["id"] for q in payload["questions"]][:2] == ["apache-patent-termination", "mpl2-executable-form"]
    question = payload["questions"][0]
    assert {"id", "question", "evidence", "first_hit_rank", "hits"} <= set(question)
    assert set(question["hits"][0]) == {"rank", "chunk_id", "document", "source_start", "source_end",
                                        "page_start", "page_end", "score", "text", "joined"}
    fhs_hit = next(h for q in payload["questions"] for h in q["hits"] if h["document"] == "fhs-3.0.pdf")
    assert fhs_hit["page_start"] >= 1


def test_compare_prints_one_row_per_chunker_and_retriever(indexed_project: Path,  # noqa: F811
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--project", str(indexed_project), "evaluate", "--compare", "--retriever", "bm25",
                 "--json", "-"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = payload["comparison"]
    assert len(rows) == 12  # the project's chunker with each identity variant, then eight baselines
    assert {row["identity"] for row in rows if not row["chunker"].startswith("baseline:")} == {
        "none", "boost", "first", "filter"}
    assert payload["comparison"][0]["chunker"] == payload["config"]["chunker"]


def test_missing_questions_file_is_one_line_error(indexed_project: Path,  # noqa: F811
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--project", str(indexed_project), "evaluate", "--questions", "nope.jsonl"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("right-rag: error: cannot read the question file nope.jsonl") and "\n" not in err


def test_evaluate_in_a_subprocess_scores_and_names_the_projects_reranker(indexed_project: Path,  # noqa: F811
                                                                         tmp_path: Path) -> None:
    """As a user runs it: ``right-rag evaluate`` without ``--flow`` applies the reranker ``[right-rag.retrieval]``
    names, as ``right-rag query`` does, and says so in its table and its JSON."""
    project = tmp_path / "project"
    shutil.copytree(indexed_project, project)
    settings = project / "right_rag.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + 'reranker = "coverage"\n', encoding="utf-8")
    out = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "right_rag_dagster", "--project", str(project), "evaluate",
                             "--retriever", "bm25", "--json", str(out)],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "DAGSTER_HOME": str(project / ".dagster")})
    assert result.returncode == 0, result.stderr[-2000:]
    header = next(line for line in result.stdout.splitlines() if line.startswith("| chunker"))
    row = next(line for line in result.stdout.splitlines() if line.startswith("| default"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert "reranker" in columns
    assert [cell.strip() for cell in row.strip("|").split("|")][columns.index("reranker")] == "coverage"
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert payload["config"]["retriever"] == "bm25" and payload["config"]["reranker"] == "coverage"
