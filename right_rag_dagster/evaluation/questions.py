"""Question files: evidence-quote questions (JSON Lines) and right-rag's ``cases.json``, read into one shape.

``questions.jsonl``: one ``{"id", "question", "evidence": [{"document", "quote"}]}`` a line.
``cases.json``: ``{"cases": [{"id", "query", "expected": {"hit_ids", "hit_contains", "answer_contains",
"must_not_contain"}}]}`` (or a bare list of cases), as right-rag 0.2.5 writes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError


@dataclass(frozen=True)
class Evidence:
    """A quote that answers the question, in the named document (path relative to the documents folder)."""

    document: str
    quote: str


@dataclass(frozen=True)
class Question:
    """One evaluation question with what counts as finding its answer.

    ``evidence`` holds quotes; ``hit_ids`` and ``hit_contains`` come from right-rag cases (a chunk or unit id, a
    text or ``re:`` pattern that some retrieved chunk must hold); ``answer_contains`` / ``must_not_contain`` judge
    a generated answer.
    """

    id: str
    question: str
    evidence: tuple[Evidence, ...] = ()
    hit_ids: tuple[str, ...] = ()
    hit_contains: tuple[str, ...] = ()
    answer_contains: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def has_retrieval_targets(self) -> bool:
        return bool(self.evidence or self.hit_ids or self.hit_contains)


def load_questions(path: str | Path) -> list[Question]:
    """Read a question file; the format is told by its content (a JSON object/array of cases, or JSON Lines)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"cannot read the question file {path}: {exc.strerror or exc}; pass --questions FILE "
                          "or create eval/questions.jsonl") from exc
    stripped = text.lstrip()
    if stripped.startswith("[") or (stripped.startswith("{") and _is_single_json(stripped)):
        questions = _from_cases(path, json.loads(stripped))
    else:
        questions = _from_jsonl(path, text)
    if not questions:
        raise ConfigError(f"{path} holds no questions")
    ids = [q.id for q in questions]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ConfigError(f"{path}: question ids must be unique; repeated: {repeated}")
    return questions


def _is_single_json(text: str) -> bool:
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(payload, dict) and "cases" in payload


def _from_jsonl(path: Path, text: str) -> list[Question]:
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        questions.append(_question_from_row(path, number, row))
    return questions


def _question_from_row(path: Path, number: int, row: Any) -> Question:
    where = f"{path}:{number}"
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected an object with id, question and evidence")
    if "question" not in row and "query" in row:
        return _case(where, number, row)
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ConfigError(f"{where}: 'question' must be a non-empty string")
    evidence = row.get("evidence", [])
    if not isinstance(evidence, list) or not evidence:
        raise ConfigError(f"{where}: 'evidence' must be a non-empty list of {{document, quote}}")
    items = []
    for item in evidence:
        if not (isinstance(item, dict) and isinstance(item.get("document"), str)
                and isinstance(item.get("quote"), str) and item["quote"].strip()):
            raise ConfigError(f"{where}: each evidence item needs a 'document' and a non-empty 'quote' string")
        items.append(Evidence(item["document"], item["quote"]))
    return Question(id=str(row.get("id", number)), question=question, evidence=tuple(items),
                    tags=_strings(row.get("tags")))


def _from_cases(path: Path, payload: Any) -> list[Question]:
    rows = payload.get("cases") if isinstance(payload, dict) else payload
    if not isinstance(rows, list):
        raise ConfigError(f"{path}: expected {{\"cases\": [...]}} or a list of cases")
    return [_case(f"{path}: case {index}", index, row) for index, row in enumerate(rows, start=1)]


def _case(where: str, index: int, row: Any) -> Question:
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: a case must be an object with 'query' and 'expected'")
    query = row.get("query")
    text = query.get("text") if isinstance(query, dict) else query
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"{where}: 'query' must be a string or {{\"text\": ...}}")
    expected = row.get("expected") or {}
    if not isinstance(expected, dict):
        raise ConfigError(f"{where}: 'expected' must be an object")
    evidence = expected.get("evidence") or []
    return Question(
        id=str(row.get("id", index)), question=text,
        evidence=tuple(Evidence(e["document"], e["quote"]) for e in evidence if isinstance(e, dict)),
        hit_ids=_strings(expected.get("hit_ids")), hit_contains=_strings(expected.get("hit_contains")),
        answer_contains=_strings(expected.get("answer_contains")),
        must_not_contain=_strings(expected.get("must_not_contain")), tags=_strings(row.get("tags")),
    )


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()
