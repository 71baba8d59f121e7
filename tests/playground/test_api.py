"""The playground's HTTP API without a browser: catalog, live and recorded runs, metrics, citations, lineage."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from right_rag_dagster.cli import main
from right_rag_dagster.evaluation import run_evaluation
from right_rag_dagster.evaluation.spans import collapse_whitespace
from right_rag_dagster.playground.recordings import PACKAGED, Recording
from right_rag_dagster.project import Project
from right_rag_dagster.rag.flows import FLOWS
from tests.playground.conftest import BASELINE, QUESTIONS, call, make_project

JUPITER = "How many moons does Jupiter have?"


def test_the_catalog_lists_chunkers_baselines_retrievers_flows_generators_and_questions(server_url: str) -> None:
    status, catalog = call(server_url, "/api/catalog")
    assert status == 200
    chunkers = {c["name"]: c for c in catalog["chunkers"]}
    assert chunkers["default"]["kind"] == "project" and chunkers["default"]["chunks"] > 100
    assert chunkers["default"]["indexes"] == ["bm25"]
    assert chunkers[BASELINE]["kind"] == "baseline" and chunkers[BASELINE]["chunks"] > 100
    assert chunkers["baseline:page-4000"]["chunks"] == 0  # not cut in this project's evaluation store
    assert len([c for c in catalog["chunkers"] if c["kind"] == "baseline"]) == 8
    assert catalog["retrievers"] == ["bm25", "dense", "hybrid"]
    assert {f["name"]: f["graph"] for f in catalog["flows"]} == {n: f().graph().to_json() for n, f in FLOWS.items()}
    assert catalog["generators"][0] == {"name": "extractive", "endpoint": None,
                                        "note": "quotes the best sentences; no model"}
    assert [q["id"] for q in catalog["questions"]] == [q["id"] for q in QUESTIONS]
    assert catalog["defaults"]["mode"] == "live" and catalog["defaults"]["chunker"] == "default"
    assert catalog["live"] == {"available": True, "reason": ""}
    assert catalog["recorded"]["available"] and not catalog["recorded"]["of_this_project"]


def test_a_live_run_returns_the_trace_the_chunks_it_names_and_the_evidence(server_url: str) -> None:
    question = QUESTIONS[0]
    status, run = call(server_url, "/api/run", {"mode": "live", "question": question["question"],
                                                "chunker": "default", "flow": "simple", "retriever": "bm25"})
    assert status == 200, run
    assert run["mode"] == "live" and run["settings"]["retriever"] == "bm25" and run["found"]
    assert [s["step"] for s in run["trace"]["steps"]] == ["retrieve", "rerank", "generate"]
    retrieved = run["trace"]["steps"][0]["outputs"]["hits"]
    assert len(retrieved) == 5 and all(hit["chunk_id"] in run["chunks"] for hit in retrieved)
    assert all(run["chunks"][h["chunk_id"]]["text"] and run["chunks"][h["chunk_id"]]["document"] == h["document"]
               for h in retrieved)
    citation = run["citations"][0]
    assert f"[{citation['number']}]" in run["answer"] and citation["chunk_id"] in run["chunks"]
    evidence = run["evidence"]
    assert evidence["question_id"] == question["id"] and evidence["scored"]
    assert evidence["first_hit_rank"] is not None and 1 <= evidence["first_hit_rank"] <= 5
    holding = [h for h in run["hits"] if h["chunk_id"] in evidence["chunks"]]
    assert holding and all(h["document"] == "GPL-3.0.txt" for h in holding)
    assert min(h["rank"] for h in holding) <= evidence["first_hit_rank"]


def test_a_question_outside_the_questions_file_has_no_evidence_and_loops_in_the_adaptive_flow(server_url: str) -> None:
    status, run = call(server_url, "/api/run", {"mode": "live", "question": JUPITER, "chunker": "default",
                                                "flow": "adaptive"})
    assert status == 200, run
    assert "evidence" not in run and not run["found"]
    steps = [s["step"] for s in run["trace"]["steps"]]
    assert steps.count("retrieve") == 3 and steps.count("rewrite") == 2 and steps[-1] == "generate"
    assert run["trace"]["steps"][0]["outputs"]["retriever"] == "bm25"  # no dense index: routed to BM25


def test_a_baseline_runs_from_the_evaluation_store(server_url: str) -> None:
    status, run = call(server_url, "/api/run", {"mode": "live", "question": QUESTIONS[1]["question"],
                                                "chunker": BASELINE, "flow": "simple"})
    assert status == 200, run
    assert run["settings"]["chunker"] == BASELINE
    assert all(chunk["chunker"] == BASELINE for chunk in run["chunks"].values())
    assert all(len(chunk["text"]) <= 500 for chunk in run["chunks"].values())


def test_metrics_equal_what_right_rag_evaluate_reports(server_url: str,
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    status, data = call(server_url, "/api/metrics?mode=live&chunker=default&retriever=bm25")
    assert status == 200 and data["available"]
    other = make_project(tmp_path_factory.mktemp("evaluate") / "project", tmp_path_factory)
    report = run_evaluation(Project.load(other), chunkers=["default"], retrievers=["bm25"])
    for name in ("hit@1", "hit@5", "mrr@10", "ndcg@10", "context_chars@5", "scored"):
        assert data["metrics"][name] == pytest.approx(report.best.metrics[name]), name
    assert data["first_hit_ranks"] == {o.resolved.question.id: o.first_hit_rank for o in report.best.outcomes}


def test_a_citation_opens_its_unit_with_the_quote_marked_and_the_tree(server_url: str) -> None:
    _, run = call(server_url, "/api/run", {"mode": "live", "question": QUESTIONS[1]["question"],
                                           "chunker": "default", "flow": "simple"})
    citation = run["citations"][0]
    query = (f"/api/citation?mode=live&chunker=default&chunk_id={citation['chunk_id']}"
             f"&quote_start={citation['quote_start']}&quote_end={citation['quote_end']}")
    status, context = call(server_url, query)
    assert status == 200, context
    marks = {m["kind"]: context["text"][m["start"]:m["end"]] for m in context["marks"]}
    assert collapse_whitespace(marks["quote"]) == citation["quote"]
    assert collapse_whitespace(marks["quote"]) in collapse_whitespace(marks["chunk"])
    path = [u["topic"] for level in context["tree"] if not level.get("children")
            for u in level["units"] if u["on_path"]]
    assert path and path[-1] == context["unit"]["topic"] and context["document"] == citation["document"]


def test_lineage_is_what_the_cli_prints(server_url: str, project_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, run = call(server_url, "/api/run", {"mode": "live", "question": QUESTIONS[0]["question"],
                                           "chunker": "default", "flow": "simple"})
    chunk_id = run["citations"][0]["chunk_id"]
    status, data = call(server_url, f"/api/lineage?chunker=default&chunk_id={chunk_id}")
    assert status == 200 and data["command"] == f"right-rag lineage {chunk_id}"
    assert main(["--project", str(project_dir), "lineage", chunk_id]) == 0
    assert data["text"] == capsys.readouterr().out.rstrip("\n")
    assert data["lineage"]["chunk"]["chunk_id"] == chunk_id


def test_recorded_runs_replay_the_packaged_recording(server_url: str) -> None:
    recording = Recording.load(PACKAGED)
    choice = next(c for c in recording.data["configs"] if c["flow"] == "adaptive")
    question = recording.data["questions"][0]["question"]
    status, run = call(server_url, "/api/run", {"mode": "recorded", "question": question, **choice})
    assert status == 200, run
    assert run["mode"] == "recorded" and run == {**recording.run(question, **choice), "mode": "recorded"}
    citation = run["citations"][0]
    status, context = call(server_url, f"/api/citation?mode=recorded&chunker={choice['chunker']}"
                                       f"&chunk_id={citation['chunk_id']}&quote_start={citation['quote_start']}"
                                       f"&quote_end={citation['quote_end']}")
    assert status == 200 and any(m["kind"] == "quote" for m in context["marks"])
    status, metrics = call(server_url, f"/api/metrics?mode=recorded&chunker={choice['chunker']}"
                                       f"&retriever={run['settings']['retriever']}")
    assert status == 200 and metrics["available"] and metrics["metrics"]["scored"] > 0


@pytest.mark.parametrize(("path", "body", "status", "message"), [
    ("/api/run", {"mode": "live", "question": "", "chunker": "default"}, 400, "type a question first"),
    ("/api/run", {"mode": "live", "question": "x", "chunker": "nope"}, 400, "no chunker named 'nope'"),
    ("/api/run", {"mode": "live", "question": "x", "chunker": "baseline:page-4000"}, 400,
     "run `right-rag evaluate --compare`"),
    ("/api/run", {"mode": "live", "question": "x", "chunker": "default", "retriever": "nope"}, 400,
     "no retriever named 'nope'"),
    ("/api/run", {"mode": "recorded", "question": JUPITER, "chunker": "domain", "flow": "simple"}, 400,
     "this question was not recorded"),
    ("/api/run", {"mode": "live", "question": "x", "chunker": "default", "generator": "openai:gpt-x"}, 400,
     "generator 'openai:gpt-x' is not offered here"),
    ("/api/citation?chunker=default", None, 400, "needs a 'chunk_id' parameter"),
    ("/api/lineage?chunker=default&chunk_id=0000000000", None, 400, "is not in right_rag.duckdb"),
    ("/api/nothing", None, 404, "no GET /api/nothing"),
])
def test_errors_tell_the_user_what_to_do(server_url: str, path: str, body: dict | None, status: int,
                                         message: str) -> None:
    got, data = call(server_url, path, body)
    assert got == status and message in data["error"], data


def test_a_post_that_is_not_json_is_refused(server_url: str) -> None:
    request = urllib.request.Request(server_url + "api/run", data=b"question=x", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 415


def test_the_page_and_its_files_are_served_and_nothing_else(server_url: str) -> None:
    with urllib.request.urlopen(server_url) as response:
        page = response.read().decode()
    assert response.headers["Content-Type"].startswith("text/html")
    scripts = re.findall(r'src="([^"]+)"', page) + re.findall(r'href="([^":]+\.css)"', page)
    assert scripts == ["app.js", "style.css"]
    for name in ("app.js", "flow.js", "views.js", "dom.js", "style.css"):
        with urllib.request.urlopen(server_url + name) as response:
            assert response.status == 200 and response.read()
    for path in ("/../api.py", "/static/../server.py", "/missing.js"):
        assert call(server_url, path)[0] == 404
