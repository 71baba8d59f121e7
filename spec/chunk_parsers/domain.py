"""The domain chunk parser: whole sections when they fit, else a unit's own text cut at clause/paragraph ends.

The pipeline calls ``parse_unit`` on every unit of a tree, parents first. A unit whose whole subtree fits
``WHOLE_CHARS`` becomes one chunk (its descendants are then skipped when their turn comes), so a short section
is never cut in two (nor at a PDF page break) and a definition keeps its surrounding paragraphs. A larger unit
chunks its own text (the text before its first subunit, ``core.units.own_span``), cut at the best boundaries
(blank lines, list items, paragraph ends, sentence ends) into pieces of about ``TARGET`` characters, at most
``MAX_CHARS``; each child is then one whole chunk when it fits, else chunked the same way on its turn. Named
siblings are never packed together (measured: it mixes distinct topics and lowers rank 1), but paragraphs (units
with no heading of their own) that follow each other are packed into pieces the way own text is cut, so a
section's text makes the same chunks whether or not its parser marked its paragraphs. Entries of a list
(``RECORD_TYPES``) always stay apart. Units with the ``navigation`` role (tables of contents, indexes) and
heading-only own text are not chunked.

``fulltext`` = header (document title, section path, temporal topic when it adds something) + a blank line + the
source text, where text between units that belongs to none of them (a PDF's running headers and footers at a
page break) is left out. ``source_start``/``source_end`` span exactly the chunk's first to last character.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from right_rag_dagster.core.ids import chunk_id_for
from right_rag_dagster.core.interfaces import ChunkParser
from right_rag_dagster.core.model import Chunk, Unit
from right_rag_dagster.core.units import own_span, walk_units

TARGET = 800
MAX_CHARS = 1200
WHOLE_CHARS = 1500
MIN_CHARS = 250
MIN_OWN_CHARS = 40
SKIP_ROLES = {"navigation", "furniture"}
"""Units never chunked: a table of contents, a man page's header line (which, 50 characters of the page's name,
outranked its sections for questions naming the page)."""
RECORD_TYPES = {"change", "header_stanza", "files_stanza", "license_stanza"}
"""Unit types that are independent entries of a list (a change log's changes, a copyright file's stanzas): each
is chunked on its own, never merged into its parent's chunk, so one entry's words do not rank its neighbours."""
_NOT_COPIED = {"furniture_chars", "page_start", "page_end", "page_index_start", "page_index_end", "heading"}
MAX_COPIED_CHARS = 256
"""A unit attribute longer than this (as JSON) stays on the unit: a copyright stanza's list of 5,000 file
patterns copied into each of its chunks made the chunks' attributes 16 times the size of their text."""
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


@dataclass(frozen=True)
class _Block:
    """The text of one chunk: a piece of a unit's own text, or a unit with its whole subtree."""

    unit: Unit  # the unit the text belongs to: a whole child, or the unit being chunked for its own pieces
    spans: tuple[tuple[int, int], ...]  # trimmed document offsets, in order
    text: str
    whole: bool
    units: int = 1  # paragraphs packed into it (a piece of own text or a whole unit: 1)
    role: str | None = None  # the packed paragraphs' role (they share one), not their parent's


class DomainChunkParser(ChunkParser):
    """Whole sections when they fit, else own text cut at clause ends; each chunk with a context header."""

    def __init__(self) -> None:
        self._absorbed: set[str] = set()  # descendants already inside a parent's chunk (pre-order calls)

    @property
    def parser_name(self) -> str:
        return "domain"

    def parse_unit(self, unit: Unit) -> Iterable[Chunk]:
        if unit.id in self._absorbed:
            self._absorbed.discard(unit.id)
            return []
        if unit.attributes.get("role") in SKIP_ROLES or unit.source_start is None or unit.source_end is None:
            return []
        whole = _whole_block(unit, unit)
        if whole is not None:
            self._absorb(unit)
            return [self._chunk(whole, 1, 1)]
        blocks = [block for block in self._blocks(unit) if block is not None]
        parts = sum(1 for block in blocks if not block.whole)
        own = iter(range(1, parts + 1))
        return [self._chunk(block, 1, 1) if block.whole else self._chunk(block, next(own), parts) for block in blocks]

    def _blocks(self, unit: Unit) -> Iterator[_Block | None]:
        """Own pieces, then each child whole (when it fits) or ``None`` (a barrier: chunked on its own turn)."""
        start, end = own_span(unit)
        own = unit.raw_text[start - unit.source_start:end - unit.source_start]
        if not _only_heading(own, unit):
            for a, b in split_text(own):
                yield _Block(unit, ((start + a, start + b),), own[a:b], False)
        run: list[_Block] = []
        for child in unit.subunits:
            block = _whole_block(child, unit) if child.attributes.get("role") not in SKIP_ROLES else None
            if block is not None:
                self._absorb(child)
                self._absorbed.add(child.id)
            if block is not None and _paragraph(child):
                if run and _role(run[-1]) != _role(block):  # a duty beside a permission: each keeps its role
                    yield from _packed_runs(run, unit)
                    run = []
                run.append(block)
                continue
            yield from _packed_runs(run, unit)
            run = []
            yield block
        yield from _packed_runs(run, unit)

    def _absorb(self, unit: Unit) -> None:
        self._absorbed.update(u.id for u in walk_units(unit.subunits))

    def _chunk(self, block: _Block, ordinal: int, parts: int) -> Chunk:
        unit, text = block.unit, block.text
        header = chunk_header(unit)
        role = "rationale" if _RATIONALE.match(text) else block.role if block.units > 1 else unit.attributes.get("role")
        attributes = {k: v for k, v in unit.attributes.items() if k not in _NOT_COPIED and _copied(v)}
        return Chunk(
            id=chunk_id_for(unit.id, self.parser_name, ordinal),
            document_id=unit.document_id,
            unit_id=unit.id,
            topic=unit.topic,
            fulltext=f"{header}\n\n{text}",
            attributes={**attributes, "parser_name": self.parser_name,
                        "unit_type": unit.attributes.get("unit_type"),
                        "hierarchy": list(unit.attributes.get("hierarchy") or [unit.topic]), "role": role},
            metadata={"header_chars": len(header) + 2, "part": ordinal, "parts": parts,
                      "units": 1 + sum(1 for _ in walk_units(unit.subunits)) if block.whole else block.units,
                      **({"packed": True} if not block.whole and block.units > 1 else {})},
            source_start=block.spans[0][0],
            source_end=block.spans[-1][1],
        )


def _paragraph(unit: Unit) -> bool:
    """True for a unit with no heading of its own and no subunits (``unit_type`` "paragraph"): it shares its
    parent's header, so it is packed with the paragraphs beside it that have its role (a licence's duty, permission
    or disclaimer: ``role`` is a search filter)."""
    return _unit_type(unit) == "paragraph" and not unit.subunits


def _packed_runs(run: list[_Block], parent: Unit) -> Iterator[_Block]:
    """Consecutive paragraphs of ``parent`` packed into pieces the way its own text is cut (``split_text``): sizes
    near ``TARGET``, at most ``MAX_CHARS`` unless one paragraph alone is longer, cut only between paragraphs."""
    if len(run) < 2:
        yield from run
        return
    # gaps[j]: what _join writes before run[j]; ends[i]: characters of the joined text of run[:i]
    gaps = [0] + [len(_gap(parent, before.spans[-1][1], block.spans[0][0])) for before, block in zip(run, run[1:])]
    ends = [0]
    for gap, block in zip(gaps, run):
        ends.append(ends[-1] + gap + len(block.text))
    totals, previous_of = [0.0] * len(ends), [0] * len(ends)
    for i in range(1, len(ends)):
        best = None
        for j in range(i - 1, -1, -1):
            size = ends[i] - ends[j] - gaps[j]  # run[j:i] joined, without the gap before run[j]
            if size > MAX_CHARS and j < i - 1:
                break
            total = totals[j] + _size_cost(size)
            if best is None or total <= best:
                best, previous_of[i] = total, j
        totals[i] = best
    cuts, i = [], len(ends) - 1
    while i:
        cuts.append((previous_of[i], i))
        i = previous_of[i]
    for a, b in reversed(cuts):
        yield _packed(run[a:b], parent)


def _packed(run: list[_Block], parent: Unit) -> _Block:
    """One block of the paragraphs ``run`` (a single one stays its own whole block), belonging to ``parent``."""
    if len(run) == 1:
        return run[0]
    spans = tuple(span for block in run for span in block.spans)
    return _Block(parent, spans, _join(list(spans), parent), False, len(run), _role(run[0]))


def _role(block: _Block) -> str | None:
    return block.unit.attributes.get("role")


def _copied(value: object) -> bool:
    """True when ``value`` is short enough as JSON (``MAX_COPIED_CHARS``) to be copied into each chunk."""
    return _json_bound(value) <= MAX_COPIED_CHARS or len(json.dumps(value, ensure_ascii=False)) <= MAX_COPIED_CHARS


def _json_bound(value: object) -> int:
    """An upper bound of ``len(json.dumps(value))`` for strings and lists of them, without encoding (a character
    is at most 6 in JSON); anything else is "unknown" (above every limit)."""
    if isinstance(value, str):
        return 6 * len(value) + 2
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return sum(6 * len(item) + 4 for item in value) + 2
    return 1 << 30


def _whole_block(unit: Unit, root: Unit) -> _Block | None:
    """``unit`` with its whole subtree as one block when its text fits ``WHOLE_CHARS`` (None otherwise)."""
    if unit.source_start is None or unit.source_end is None or unit.source_end - unit.source_start > 4 * WHOLE_CHARS:
        return None
    spans = []
    for member in walk_units([unit]):
        if member.attributes.get("role") in SKIP_ROLES or (member is not unit and _unit_type(member) in RECORD_TYPES):
            return None
        start, end = own_span(member)
        if start is None or end is None:
            continue
        a, b = _trim(root.raw_text, start - root.source_start, end - root.source_start)
        if b > a:
            spans.append((root.source_start + a, root.source_start + b))
    text = _join(spans, root) if spans else ""
    if not _DECORATION.sub("", text):
        return None
    return _Block(unit, tuple(spans), text, True) if len(text) <= WHOLE_CHARS else None


def _unit_type(unit: Unit) -> str | None:
    return unit.attributes.get("unit_type")


def _join(spans: list[tuple[int, int]], root: Unit) -> str:
    """The text of ``spans`` (offsets inside ``root``): whitespace between them kept, other text left out."""
    text = root.raw_text
    parts: list[str] = []
    previous = None
    for start, end in spans:
        if previous is not None:
            parts.append(_gap(root, previous, start))
        parts.append(text[start - root.source_start:end - root.source_start])
        previous = end
    return "".join(parts)


def _gap(root: Unit, end: int, start: int) -> str:
    """What a chunk shows between two of its spans (document offsets inside ``root``): the whitespace there, or one
    line break for text that belongs to none of its units (a PDF's running header at a page break)."""
    gap = root.raw_text[end - root.source_start:start - root.source_start]
    return gap if not gap.strip() else "\n"


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
    ordered = [first, *sorted(costs), last]
    # Cheapest split of text[first:ordered[i]] ending in a cut at ordered[i]; ties go to the earlier previous cut.
    totals, previous_of = [0.0] * len(ordered), [0] * len(ordered)
    sizes = _SIZE_COSTS
    for i in range(1, len(ordered)):
        position = ordered[i]
        cut = 0.0 if i == len(ordered) - 1 else costs[position]
        best_total, best_j = 0.0, -1
        for j in range(i - 1, -1, -1):
            size = position - ordered[j]
            if size > MAX_CHARS:
                if best_j >= 0:
                    break
                total = totals[j] + cut + _size_cost(size)
            else:
                total = totals[j] + cut + sizes[size]
            if best_j < 0 or total <= best_total:
                best_total, best_j = total, j
        totals[i], previous_of[i] = best_total, best_j
    cuts, i = [], len(ordered) - 1
    while i != 0:
        cuts.append((ordered[previous_of[i]], ordered[i]))
        i = previous_of[i]
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


_SIZE_COSTS = [_size_cost(size) for size in range(MAX_CHARS + 1)]
"""``_size_cost`` of every size a piece may have, looked up in the split's inner loop (millions of times)."""


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
