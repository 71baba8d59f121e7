"""Aggregating outcomes into metrics, ordering runs best first, the Markdown table and the JSON shape."""

from __future__ import annotations

import pytest

from right_rag_dagster.evaluation.judge import RetrievedChunk, resolve_question
from right_rag_dagster.evaluation.questions import Evidence, Question
from right_rag_dagster.evaluation.report import (
    EvaluationReport,
    QuestionOutcome,
    RunResult,
)
from right_rag_dagster.evaluation.spans import CollapsedText

TEXT = "alpha beta gamma. " * 5 + "delta epsilon zeta. " * 5
TEXTS = {"d.txt": CollapsedText.of(TEXT)}
QUESTIONS = [
    Question("first", "Q1?", (Evidence("d.txt", "alpha beta gamma. alpha"),)),  # span 0-23
    Question("second", "Q2?", (Evidence("d.txt", "delta epsilon zeta. delta"),)),  # span 90-115
    Question("broken", "Q3?", (Evidence("d.txt", "omega"),)),
]


def hit(rank: int, start: int, end: int) -> RetrievedChunk:
    return RetrievedChunk(rank, f"c{rank}", "d.txt", "u", start, end, None, None, 10.0 - rank, TEXT[start:end])


def outcomes(first_ranks: dict[str, int], latencies=(10.0, 20.0, 30.0)) -> tuple[QuestionOutcome, ...]:
    spans = {"first": (0, 23), "second": (90, 115), "broken": (0, 10)}
    result = []
    for question, latency in zip(QUESTIONS, latencies):
        filler = [hit(r, 40, 60) for r in range(1, 11)]
        rank = first_ranks.get(question.id)
        if rank:
            filler[rank - 1] = hit(rank, *spans[question.id])
        result.append(QuestionOutcome(resolve_question(question, TEXTS), tuple(filler), latency))
    return tuple(result)


def test_aggregate_metrics_leave_errors_out_of_scores() -> None:
    run = RunResult("domain", "bm25", None, 10, outcomes({"first": 1, "second": 4}))
    metrics = run.metrics
    assert metrics["questions"] == 3 and metrics["scored"] == 2
    assert metrics["hit@1"] == 0.5 and metrics["hit@5"] == 1.0 and metrics["recall@10"] == 1.0
    assert metrics["mrr@10"] == pytest.approx((1 + 0.25) / 2)
    assert metrics["ndcg@10"] == pytest.approx((1 + 1 / 2.321928) / 2, rel=1e-5)
    assert metrics["quotes_not_found"] == 1 and metrics["questions_with_errors"] == 1
    assert metrics["context_chars@5"] == pytest.approx((23 + 4 * 20 + 25 + 4 * 20 + 5 * 20) / 3)
    assert metrics["latency_p50_ms"] == 20.0 and metrics["latency_p95_ms"] == pytest.approx(29.0)
    assert metrics["answered_rate"] is None and metrics["answer_checks_passed"] is None


def test_runs_sorted_best_first_with_rows_table_and_json() -> None:
    weak = RunResult("baseline:fixed-chars-500", "bm25", None, 10, outcomes({"first": 3}))
    strong = RunResult("domain", "bm25", None, 10, outcomes({"first": 1, "second": 2}))
    report = EvaluationReport({"k": 10, "questions_file": "q.jsonl"}, tuple(sorted([weak, strong],
                                                                               key=RunResult.sort_key)))
    rows = report.rows()
    assert [r["chunker"] for r in rows] == ["domain", "baseline:fixed-chars-500"]
    assert rows[0]["mrr@10"] == 0.75 and rows[1]["hit@5"] == 0.5
    table = report.markdown().splitlines()
    assert table[0].startswith("| chunker") and "MRR@10" in table[0] and "answered" not in table[0]
    assert table[2].startswith("| domain ") and "0.750" in table[2]
    payload = report.to_json()
    assert set(payload) == {"metrics", "config", "questions", "comparison"}
    assert payload["config"]["chunker"] == "domain"
    first, second, broken = payload["questions"]
    assert set(first) == {"id", "question", "evidence", "first_hit_rank", "hits"}
    assert first["first_hit_rank"] == 1 and second["first_hit_rank"] == 2
    assert first["evidence"] == [{"document": "d.txt", "quote": "alpha beta gamma. alpha", "source_start": 0,
                                  "source_end": 23, "answered_rank": 1}]
    assert set(first["hits"][0]) == {"rank", "chunk_id", "document", "source_start", "source_end", "page_start",
                                     "page_end", "score", "text", "joined"}
    assert broken["first_hit_rank"] is None and broken["errors"][0].startswith("quote not found")
    assert report.errors() == ["broken: quote not found in d.txt: 'omega'"]


def test_answer_checks_from_right_rag_cases() -> None:
    case = Question("c", "Q?", hit_contains=("alpha",), answer_contains=("forty",), must_not_contain=("sorry",))
    resolved = resolve_question(case, TEXTS)
    good = QuestionOutcome(resolved, (hit(1, 0, 23),), 5.0, "It is forty two [1].", True)
    bad = QuestionOutcome(resolved, (hit(1, 95, 110),), 5.0, "sorry, not found", False)
    assert good.answer_failures == [] and bad.answer_failures == ["answer lacks 'forty'", "answer contains 'sorry'"]
    metrics = RunResult("domain", "bm25", "simple", 10, (good, bad)).metrics
    assert metrics["answered_rate"] == 0.5 and metrics["answer_checks_passed"] == 0.5
    assert metrics["hit@1"] == 0.5
    assert good.to_json()["evidence"] == [{"hit_contains": "alpha", "answered_rank": 1}]
