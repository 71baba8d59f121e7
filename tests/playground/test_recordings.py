"""The packaged recording: current with the code and sample project it was made from, complete, and replayable;
a changed flow, prompt or chunker makes it stale; ``record`` writes one that replays."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from right_rag_dagster.playground import fingerprint as fp
from right_rag_dagster.playground.record import record
from right_rag_dagster.playground.recordings import (
    PACKAGED,
    Recording,
    metrics_key,
    recording_path,
)
from right_rag_dagster.project import Project
from right_rag_dagster.rag.flows import FLOWS, AdaptiveFlow
from tests.playground.conftest import QUESTIONS, make_project
from tests.rag.test_flows import assert_follows_graph

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recording() -> Recording:
    return Recording.load(PACKAGED)


def test_the_packaged_recording_is_current(recording: Recording) -> None:
    sample = Project.load(REPO_ROOT)
    assert recording_path(sample) == PACKAGED
    changed = fp.changed_parts(recording.fingerprint, fp.fingerprint(sample))
    assert not changed, (f"the playground's recording is stale: {', '.join(changed)} changed since it was made. "
                         "Run `.venv/bin/right-rag index && .venv/bin/right-rag playground --record` at the "
                         "repository root and commit right_rag_dagster/playground/recordings/.")


def test_a_changed_flow_prompt_or_chunker_makes_it_stale(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sample = Project.load(REPO_ROOT)
    before = fp.fingerprint(sample)
    flow = {**AdaptiveFlow.FLOW, "edges": [*AdaptiveFlow.FLOW["edges"], ["route", "generate"]]}
    monkeypatch.setattr(AdaptiveFlow, "FLOW", flow)
    assert fp.changed_parts(before, fp.fingerprint(sample)) == ["flow adaptive"]
    monkeypatch.undo()
    package = tmp_path / "package"
    shutil.copytree(fp.PACKAGE / "rag", package / "rag")
    shutil.copytree(fp.PACKAGE / "retrieval", package / "retrieval")
    shutil.copytree(fp.PACKAGE / "evaluation", package / "evaluation")
    prompts = package / "rag" / "prompts.py"
    prompts.write_text(prompts.read_text() + "\n# a changed prompt\n")
    monkeypatch.setattr(fp, "PACKAGE", package)
    assert fp.changed_parts(before, fp.fingerprint(sample)) == ["code rag/prompts.py"]
    extractive = package / "rag" / "extractive.py"  # the default generator's sentences: a list of files missed it
    extractive.write_text(extractive.read_text() + "\n# a changed sentence picker\n")
    assert fp.changed_parts(before, fp.fingerprint(sample)) == ["code rag/extractive.py", "code rag/prompts.py"]
    monkeypatch.undo()
    project = tmp_path / "project"
    shutil.copytree(REPO_ROOT / "spec", project / "spec")
    (project / "right_rag.toml").write_text((REPO_ROOT / "right_rag.toml").read_text().replace(
        'documents_dir = "data/documents"', f'documents_dir = "{REPO_ROOT / "data" / "documents"}"').replace(
        'questions_file = "eval/questions.jsonl"', f'questions_file = "{REPO_ROOT / "eval" / "questions.jsonl"}"'))
    assert fp.fingerprint(Project.load(project)) == before
    chunker = project / "spec" / "chunk_parsers" / "domain.py"
    chunker.write_text(chunker.read_text().replace("WHOLE_CHARS = 1500", "WHOLE_CHARS = 1400"))
    assert fp.changed_parts(before, fp.fingerprint(Project.load(project))) == ["chunk_parsers domain"]


def test_every_recorded_run_follows_its_flow_and_has_what_the_page_needs(recording: Recording) -> None:
    data = recording.data
    questions = data["questions"]
    assert len(questions) >= 20 and len(data["runs"]) == len(questions) * len(data["configs"])
    for choice in data["configs"]:
        for question in questions:
            run = recording.run(question["question"], **choice)
            assert_follows_graph(run["trace"])
            assert run["trace"]["flow"] == FLOWS[choice["flow"]]().graph().to_json()
            for step in run["trace"]["steps"]:
                assert all(hit["chunk_id"] in run["chunks"] for hit in step["outputs"].get("hits", []))
            for citation in run["citations"]:
                context = recording.citation(choice["chunker"], citation["chunk_id"],
                                             (citation["quote_start"], citation["quote_end"]))
                assert {m["kind"] for m in context["marks"]} == {"chunk", "quote"}
            assert run["evidence"]["question_id"] == question["id"]
            assert recording.metrics(choice["chunker"], run["settings"]["retriever"]) is not None


def test_the_recording_shows_hybrid_details_loops_and_baselines(recording: Recording) -> None:
    runs = recording.data["runs"].values()
    hybrid = [h for run in runs if run["settings"]["retriever"] == "hybrid"
              for step in run["trace"]["steps"] for h in step["outputs"].get("hits", [])]
    assert hybrid and all(set(h["details"]) <= {"bm25", "dense", "named", "defines"} and set(h["details"]) & {"bm25", "dense"}
                          for h in hybrid)
    assert any([s["step"] for s in run["trace"]["steps"]].count("retrieve") > 1 for run in runs)
    assert {c["chunker"] for c in recording.data["configs"]} >= {"domain", "baseline:fixed-chars-500"}
    assert recording.metrics("domain", "hybrid")["metrics"]["mrr@10"] > recording.metrics(
        "baseline:fixed-chars-500", "bm25")["metrics"]["mrr@10"]


def test_record_writes_a_recording_that_replays(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = make_project(tmp_path_factory.mktemp("record") / "project", tmp_path_factory,
                        '\n[right-rag.retrieval]\nembedder = "hashing:64"\n')
    project = Project.load(root)
    target = recording_path(project, for_writing=True)
    assert target == root / "playground-recording.json.gz"
    made = record(project, target, log=io.StringIO())
    loaded = Recording.load(target)
    assert loaded.data == made.data and loaded.fingerprint == fp.fingerprint(project)
    assert recording_path(project) == target
    choices = {(c["chunker"], c["retriever"], c["flow"]) for c in loaded.data["configs"]}
    assert ("default", "hybrid", "simple") in choices and ("baseline:page-4000", "", "adaptive") in choices
    run = loaded.run(QUESTIONS[0]["question"], "default", "hybrid", "simple")
    assert run["settings"]["embedder"].startswith("hashing:") and run["evidence"]["first_hit_rank"] is not None
    assert loaded.metrics("default", "hybrid")["metrics"]["scored"] == len(QUESTIONS)
    assert metrics_key("default", "bm25") in loaded.data["metrics"]
