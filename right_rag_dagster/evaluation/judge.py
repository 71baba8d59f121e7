"""What counts as answering a question: evidence quotes located in documents, and the rank that answers each.

The rule (documented in docs/evaluation.md): an evidence quote is answered at rank r when the union of the
source spans of the chunks ranked 1..r in its document covers at least half of the quote's characters, so a quote
split across two chunks counts once both are retrieved. A right-rag ``hit_ids`` entry is answered by the first
chunk whose chunk id or unit id equals it; a ``hit_contains`` pattern by the first rank at which the joined
text of the chunks so far contains it (``re:`` prefix for a regular expression, else case-insensitive text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..retrieval.hits import text_spans
from .questions import Question
from .spans import CollapsedText, half_covered


@dataclass(frozen=True)
class RetrievedChunk:
    """One retrieved chunk as the evaluation sees it (and writes it to --json)."""

    rank: int
    chunk_id: str
    document: str
    unit_id: str
    source_start: int | None
    source_end: int | None
    page_start: int | None
    page_end: int | None
    score: float
    text: str
    joined: tuple[tuple[str, str, int, int], ...] = ()  # a joined hit's chunks: id, unit, span (``Hit.joined``)

    @property
    def spans(self) -> list[tuple[int, int]]:
        return text_spans(self.joined, self.source_start, self.source_end)

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "chunk_id": self.chunk_id, "document": self.document,
                "source_start": self.source_start, "source_end": self.source_end, "page_start": self.page_start,
                "page_end": self.page_end, "score": self.score, "text": self.text,
                "joined": [list(part) for part in self.joined]}


@dataclass(frozen=True)
class Target:
    """One thing a question needs retrieved: a located quote, an expected id, or an expected text pattern."""

    kind: str  # quote | hit_id | hit_contains
    value: str
    document: str | None = None
    spans: tuple[tuple[int, int], ...] = ()
    error: str | None = None

    def answered_rank(self, hits: Sequence[RetrievedChunk]) -> int | None:
        """The first rank at which the chunks ranked so far answer this target, else None."""
        return None if self.error else _RULES[self.kind](self, hits)

    def to_json(self, answered_rank: int | None) -> dict[str, Any]:
        if self.kind != "quote":
            return {self.kind: self.value, "answered_rank": answered_rank}
        item: dict[str, Any] = {"document": self.document, "quote": self.value}
        if self.error:
            return {**item, "error": self.error}
        return {**item, "source_start": self.spans[0][0], "source_end": self.spans[0][1],
                "answered_rank": answered_rank}


def _quote_rank(target: Target, hits: Sequence[RetrievedChunk]) -> int | None:
    seen: list[tuple[int, int]] = []
    for hit in hits:
        if hit.document == target.document and hit.spans:
            seen.extend(hit.spans)
            if any(half_covered(span, seen) for span in target.spans):
                return hit.rank
    return None


def _id_rank(target: Target, hits: Sequence[RetrievedChunk]) -> int | None:
    return next((hit.rank for hit in hits if target.value in (hit.chunk_id, hit.unit_id)
                 or any(target.value in part[:2] for part in hit.joined)), None)


def _contains_rank(target: Target, hits: Sequence[RetrievedChunk]) -> int | None:
    joined = ""
    for hit in hits:
        joined = f"{joined}\n{hit.text}" if joined else hit.text
        if pattern_matches(target.value, joined):
            return hit.rank
    return None


_RULES: dict[str, Callable[[Target, Sequence[RetrievedChunk]], int | None]] = {
    "quote": _quote_rank, "hit_id": _id_rank, "hit_contains": _contains_rank,
}


def pattern_matches(pattern: str, text: str) -> bool:
    """right-rag's matching: ``re:<regex>`` (case-insensitive, multiline) or a case-insensitive substring."""
    if pattern.startswith("re:"):
        return re.search(pattern[3:], text, re.I | re.M) is not None
    return pattern.casefold() in text.casefold()


@dataclass(frozen=True)
class ResolvedQuestion:
    """A question with its targets located. A target with an ``error`` (quote not found, document not indexed)
    takes the question out of the scores: it is reported, never counted as a hit or a miss."""

    question: Question
    targets: tuple[Target, ...]

    @property
    def errors(self) -> list[str]:
        return [t.error for t in self.targets if t.error]

    @property
    def scored(self) -> bool:
        return bool(self.targets) and not self.errors

    @property
    def quotes_not_found(self) -> int:
        return len(self.errors)

    def answered_ranks(self, hits: Sequence[RetrievedChunk]) -> list[int | None]:
        return [target.answered_rank(hits) for target in self.targets]


def resolve_question(question: Question, texts: Mapping[str, CollapsedText]) -> ResolvedQuestion:
    """Locate each evidence quote in its document (``texts``: document id -> collapsed text)."""
    targets: list[Target] = []
    for item in question.evidence:
        collapsed = texts.get(item.document)
        spans = tuple(collapsed.find_all(item.quote)) if collapsed is not None else ()
        error = None
        if collapsed is None:
            error = f"document {item.document!r} is not in the index"
        elif not spans:
            error = f"quote not found in {item.document}: {item.quote[:80]!r}"
        targets.append(Target("quote", item.quote, item.document, spans, error))
    targets.extend(Target("hit_id", value) for value in question.hit_ids)
    targets.extend(Target("hit_contains", value) for value in question.hit_contains)
    return ResolvedQuestion(question, tuple(targets))
