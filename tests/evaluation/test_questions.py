"""Both question formats: evidence-quote JSON Lines and right-rag's cases.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.evaluation.questions import Evidence, load_questions

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_development_questions_load() -> None:
    questions = load_questions(REPO_ROOT / "eval" / "questions.jsonl")
    lines = (REPO_ROOT / "eval" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(questions) == len([line for line in lines if line.strip()])
    fhs = next(q for q in questions if q.id == "fhs-srv")
    assert fhs.evidence == (Evidence("fhs-3.0.pdf", "contains site-specific data which is served by this system"),)
    assert fhs.has_retrieval_targets and not fhs.hit_ids


def test_jsonl_with_blank_lines_and_several_evidence_items(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    rows = [{"id": "a", "question": "Q1?", "evidence": [{"document": "x.txt", "quote": "one"},
                                                         {"document": "y.pdf", "quote": "two"}]},
            {"question": "Q2?", "evidence": [{"document": "x.txt", "quote": "three"}]}]
    path.write_text(json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    first, second = load_questions(path)
    assert [e.document for e in first.evidence] == ["x.txt", "y.pdf"]
    assert second.id == "3"  # line number when the id is missing


def test_right_rag_cases_json(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [
        {"id": "edit-me", "query": "What about X?", "expected": {
            "answer_contains": ["forty"], "hit_contains": ["re:for\\w+"], "hit_ids": ["abc"],
            "must_not_contain": ["I don't know"]}, "tags": ["smoke"]},
        {"query": {"text": "Second?", "data": {}}, "expected": {}},
    ]}), encoding="utf-8")
    first, second = load_questions(path)
    assert (first.id, first.question, first.hit_ids, first.hit_contains) == ("edit-me", "What about X?", ("abc",),
                                                                            ("re:for\\w+",))
    assert first.answer_contains == ("forty",) and first.must_not_contain == ("I don't know",)
    assert first.tags == ("smoke",) and first.evidence == ()
    assert (second.id, second.question, second.has_retrieval_targets) == ("2", "Second?", False)


def test_bare_list_of_cases(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([{"id": "x", "query": "Q?", "expected": {"hit_ids": ["1"]}}]), encoding="utf-8")
    assert load_questions(path)[0].hit_ids == ("1",)


@pytest.mark.parametrize("content, message", [
    ('{"id": "a", "question": "Q?"}\n', "'evidence' must be a non-empty list"),
    ('{"id": "a", "question": "Q?", "evidence": [{"document": "x"}]}\n', "needs a 'document' and a non-empty"),
    ('{"id": "a"\n', "not valid JSON"),
    ('{"id": "a", "question": "Q?", "evidence": [{"document": "x", "quote": "y"}]}\n' * 2, "repeated: ['a']"),
    ("\n", "holds no questions"),
    ('{"cases": [{"id": "a", "expected": {}}]}', "'query' must be a string"),
])
def test_bad_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_questions(path)


def test_missing_file_tells_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pass --questions FILE"):
        load_questions(tmp_path / "nope.jsonl")
