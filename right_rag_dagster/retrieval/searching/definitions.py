"""Definition questions: "How does the MPL 2.0 define a Larger Work?" ranks the unit that defines it first.

Parsers mark the units that define a term (``unit_type`` ``definition`` or ``field_definition``, with the term in
the ``defined_term`` attribute: licence definitions, specification fields, the generic parser's term lists). A
question *asks for a definition* when it says so (``define``, ``definition``, ``meaning``, "what does ... mean",
"what is meant by", "what is/are") (``ASKS``). Then, among the retriever's candidates, the
definitions whose whole term occurs in the question (as BM25 stems: "Larger Work" in "define a Larger Work") gain
``BOOST`` x the best candidate's score; when several match, only those with the longest term (most stems) do,
so "Larger Work" wins over "Work". A question that only mentions a defined term ("If I distribute Covered Software
in Executable Form, what must I make available?") asks for no definition and is left as it is.

This is a field with its own weight (the defined term), applied only where the question's form asks for it;
the passage text is still ranked by the retriever, which is why it is a bonus and not a filter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .bm25 import query_terms

BOOST = 0.5
"""Share of the best candidate's score a matching definition gains (as ``identity.BOOST``; not tuned)."""

DEFINITION_TYPES = frozenset({"definition", "field_definition"})

ASKS = re.compile(
    r"\b(?:defin(?:e|es|ed|ing|ition|itions)|meaning|meant)\b"
    r"|\bwhat\s+(?:does|do|did)\b.*\bmean\b"
    r"|\bwhat(?:\s+(?:is|are)|['’]s)\b",
    re.IGNORECASE,
)

T = TypeVar("T")


def asks_for_definition(question: str) -> bool:
    """Whether the question's form asks what a term means (see the module docstring)."""
    return bool(ASKS.search(question))


def defined_term(unit_type: str | None, attributes: dict[str, Any]) -> str | None:
    """The term a chunk defines, or None when its unit is not a definition."""
    if unit_type not in DEFINITION_TYPES:
        return None
    term = attributes.get("defined_term")
    return term if isinstance(term, str) and term.strip() else None


def reorder(items: Sequence[T], question: str, term_of: Callable[[T], str | None], score_of: Callable[[T], float],
            rescore: Callable[[T, float, str], T],
            place_of: Callable[[T], tuple[str, int]] | None = None) -> list[T]:
    """``items`` (best first) with the definitions of a term the question asks about moved up by ``BOOST``;
    unchanged when the question asks for no definition or names no defined term. With ``place_of`` (document,
    position), a term defined in several chunks of one document moves only its first definition: a term is
    defined where it is first defined, later paragraphs that open with it only use it."""
    if not items or not asks_for_definition(question):
        return list(items)
    asked = set(query_terms(question))
    matched: dict[int, int] = {}
    for i, item in enumerate(items):
        term = term_of(item)
        if term is None:
            continue
        stems = set(query_terms(term))
        if stems and stems <= asked:
            matched[i] = len(stems)
    if not matched:
        return list(items)
    longest = max(matched.values())
    matched = {i: n for i, n in matched.items() if n == longest}
    if place_of is not None:
        first: dict[tuple[str, str], int] = {}
        for i in sorted(matched, key=lambda i: place_of(items[i])):
            first.setdefault((place_of(items[i])[0], (term_of(items[i]) or "").casefold()), i)
        matched = {i: longest for i in first.values()}
    bonus = BOOST * max(abs(score_of(item)) for item in items)
    scored = [(score_of(item) + (bonus if matched.get(i) == longest else 0.0), i, item) for i, item in enumerate(items)]
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    return [rescore(item, score, term_of(item) or "") if matched.get(i) == longest else item
            for score, i, item in scored]
