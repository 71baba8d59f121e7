"""The domain chunk parser: chunks inside units, each with a short context header and an exact source span.

The pipeline calls ``parse_unit`` on every unit of a tree, so a unit is chunked from its own text only (the text
before its first subunit, ``core.units.own_span``); children are chunked when their turn comes. A unit whose own
text fits the budget is one chunk; a longer one is cut at the best boundaries (blank lines, list items, paragraph
ends, sentence ends) into pieces of about ``TARGET`` characters. Units with the ``navigation`` role (tables of
contents, indexes) and own text that is only the unit's heading are not chunked.

``fulltext`` = header (document title, section path, temporal topic when it adds something) + a blank line + the
source text; ``source_start``/``source_end`` cover exactly the source text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from right_rag_dagster.core.ids import chunk_id_for
from right_rag_dagster.core.interfaces import ChunkParser
from right_rag_dagster.core.model import Chunk, Unit
from right_rag_dagster.core.units import own_span

TARGET = 800
MAX_CHARS = 1200
MIN_CHARS = 250
MIN_OWN_CHARS = 40
SKIP_ROLES = {"navigation"}
_NOT_COPIED = {"furniture_chars", "page_start", "page_end", "page_index_start", "page_index_end", "heading"}
_DECORATION = re.compile(r"[\s*=\-_~#`]+")
_WORD = re.compile(r"\w+")

# Cut positions (offsets where a chunk may start) and their cost: lower is a better boundary.
_BLANK = re.compile(r"\n[ \t]*(?:\.[ \t]*)?\n\s*")  # blank line, or a deb822 " ." paragraph line
_ITEM = re.compile(r"\n(?=[ \t]*(?:[•*\-+]|\(?[a-z0-9]{1,3}[.)])\s)")
_LINE_END = re.compile(r"(?<=[.:;!?])\n")
_LINE = re.compile(r"\n")
_SENTENCE = re.compile(r"(?<=[.!?;])[ \t]+(?=[A-Z(\"“])")
_RATIONALE = re.compile(r"^Rationale\b:?", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_LONG_LINE = re.compile(r"[^\n]{%d,}" % MAX_CHARS)
_SPACE = re.compile(r"\s+")


class DomainChunkParser(ChunkParser):
    """Chunks a unit's own text whole or at clause/paragraph boundaries, with title, path and temporal header."""

    @property
    def parser_name(self) -> str:
        return "domain"

    def parse_unit(self, unit: Unit) -> Iterable[Chunk]:
        if unit.attributes.get("role") in SKIP_ROLES:
            return
        start, end = own_span(unit)
        if start is None or end is None or unit.source_start is None:
            return
        own = unit.raw_text[start - unit.source_start:end - unit.source_start]
        if _only_heading(own, unit):
            return
        header = chunk_header(unit)
        attributes = {k: v for k, v in unit.attributes.items() if k not in _NOT_COPIED}
        pieces = split_text(own)
        for ordinal, (a, b) in enumerate(pieces, start=1):
            text = own[a:b]
            role = "rationale" if _RATIONALE.match(text) else unit.attributes.get("role")
            yield Chunk(
                id=chunk_id_for(unit.id, self.parser_name, ordinal),
                document_id=unit.document_id,
                unit_id=unit.id,
                topic=unit.topic,
                fulltext=f"{header}\n\n{text}",
                attributes={**attributes, "parser_name": self.parser_name,
                            "unit_type": unit.attributes.get("unit_type"),
                            "hierarchy": list(unit.attributes.get("hierarchy") or [unit.topic]), "role": role},
                metadata={"header_chars": len(header) + 2, "part": ordinal, "parts": len(pieces)},
                source_start=start + a,
                source_end=start + b,
            )


def chunk_header(unit: Unit) -> str:
    """Document title, section path, the temporal topic when it adds something, and a clause's lead-in sentence."""
    title = str(unit.attributes.get("document_label") or unit.attributes.get("document_title") or unit.document_id)
    path = " > ".join(str(p) for p in unit.attributes.get("hierarchy") or [unit.topic])
    lines = [title, path]
    known = set(_WORD.findall(f"{title} {path}".lower()))
    if unit.temporal_topic and set(_WORD.findall(unit.temporal_topic.lower())) - known:
        lines.append(unit.temporal_topic)
    if unit.attributes.get("lead_in"):
        lines.append(f"({unit.attributes['lead_in']})")
    return "\n".join(lines)


def _only_heading(own: str, unit: Unit) -> bool:
    """True when the own text is empty, or is just the heading (plus a few characters) of a unit with children."""
    text = _DECORATION.sub("", own)
    if not text:
        return True
    if not unit.subunits:
        return False
    heading = _DECORATION.sub("", str(unit.attributes.get("heading") or unit.topic))
    rest = text[len(heading):] if text.startswith(heading) else text
    return len(rest) < MIN_OWN_CHARS


def split_text(text: str) -> list[tuple[int, int]]:
    """Trimmed ``(start, end)`` pieces of ``text``: one if it fits ``MAX_CHARS``, else cut at the best boundaries."""
    first, last = _trim(text, 0, len(text))
    if last - first <= MAX_CHARS:
        return [(first, last)] if last > first else []
    costs = _cut_costs(text, first, last)
    positions = sorted(costs)
    best: dict[int, tuple[float, int]] = {first: (0.0, -1)}
    ordered = [first] + positions + [last]
    for i, position in enumerate(ordered[1:], start=1):
        cut = 0.0 if position == last else costs[position]
        options = []
        for previous in reversed(ordered[:i]):
            size = position - previous
            if size > MAX_CHARS and options:
                break
            if previous in best:
                options.append((best[previous][0] + cut + _size_cost(size), previous))
        if options:
            best[position] = min(options)
    cuts, position = [], last
    while position != first:
        previous = best[position][1]
        cuts.append((previous, position))
        position = previous
    pieces = [_trim(text, a, b) for a, b in reversed(cuts)]
    return [(a, b) for a, b in pieces if b > a]


def _cut_costs(text: str, first: int, last: int) -> dict[int, float]:
    """Where a new piece may start, and how bad a boundary it is (blank line 0 ... inside a word-run 12)."""
    costs: dict[int, float] = {}

    def offer(position: int, cost: float) -> None:
        if first < position < last and cost < costs.get(position, 99):
            costs[position] = cost

    for pattern, cost in ((_BLANK, 0), (_ITEM, 1), (_LINE_END, 2), (_LINE, 6), (_SENTENCE, 4)):
        for match in pattern.finditer(text, first, last):
            offer(match.end() if pattern is not _ITEM else match.start() + 1, cost)
    for match in _RATIONALE.finditer(text, first, last):
        offer(match.start(), 1)
    for line in _LONG_LINE.finditer(text, first, last):  # a line too long for one piece: cut between words
        for space in _SPACE.finditer(text, line.start(), line.end()):
            offer(space.end(), 12)
    for fence in _FENCE.finditer(text, first, last):
        for position in [p for p in costs if fence.start() < p < fence.end()]:
            costs[position] += 6
    return costs


def _size_cost(size: int) -> float:
    if size > MAX_CHARS:
        return 100.0 + size / 100
    penalty = 3.0 + 4.0 * ((size - TARGET) / TARGET) ** 2
    return penalty + (8.0 if size < MIN_CHARS else 0.0)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
