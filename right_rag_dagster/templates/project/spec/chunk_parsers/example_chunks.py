"""Example chunk parser: a unit's own text cut at paragraph breaks into chunks of at most ``MAX_CHARS``.

What it does
    Called on every unit (parents before children). It chunks only the unit's own text, from its start to where
    its first subunit starts, so a section's chunks never repeat its subsections. Paragraphs (runs of non-blank
    lines) are packed together up to ``MAX_CHARS``; a longer paragraph is cut between lines, never mid-line.
    Each chunk keeps the exact source span, so answers cite file, page and section; the section path is added
    to the indexed text by the retrieval layer, so ``fulltext`` stays the document's own words.

Adapt it
    Copy this file, rename the class and ``parser_name``, and choose boundaries that keep a rule, a definition
    or a procedure step whole. Put what retrieval may filter on (unit type, number, role) in ``attributes``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from right_rag_dagster.core.ids import chunk_id_for
from right_rag_dagster.core.units import own_span
from right_rag_dagster.interfaces import ChunkParser
from right_rag_dagster.model import Chunk, Unit

MAX_CHARS = 1200
PARAGRAPH = re.compile(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*")  # a run of non-blank lines
LINE = re.compile(r"[^\n]*\S[^\n]*")


def pieces(text: str, limit: int) -> Iterator[tuple[int, int]]:
    """Paragraph spans of ``text``; a paragraph longer than ``limit`` gives its lines instead."""
    for paragraph in PARAGRAPH.finditer(text):
        if paragraph.end() - paragraph.start() <= limit:
            yield paragraph.span()
        else:
            for line in LINE.finditer(text, paragraph.start(), paragraph.end()):
                yield line.span()


def packed(text: str, limit: int) -> Iterator[tuple[int, int]]:
    """(start, end) offsets in ``text`` of consecutive pieces packed together up to ``limit`` characters."""
    start = end = None
    for first, last in pieces(text, limit):
        if start is not None and last - start > limit:
            yield start, end
            start = None
        start = first if start is None else start
        end = last
    if start is not None:
        yield start, end


class ExampleChunkParser(ChunkParser):
    """Paragraph-packed chunks of each unit's own text, with exact source spans."""

    @property
    def parser_name(self) -> str:
        return "example-chunks"

    def parse_unit(self, unit: Unit) -> Iterable[Chunk]:
        start, end = own_span(unit)  # offsets in the document text; None when the unit has no span
        if start is None or end is None:
            return
        own_text = unit.raw_text[start - unit.source_start:end - unit.source_start]
        for ordinal, (first, last) in enumerate(packed(own_text, MAX_CHARS), start=1):
            yield Chunk(
                id=chunk_id_for(unit.id, self.parser_name, ordinal),  # stable across re-runs
                document_id=unit.document_id,
                unit_id=unit.id,
                topic=unit.topic,
                fulltext=own_text[first:last],
                attributes={"parser_name": self.parser_name, "unit_type": unit.attributes.get("unit_type"),
                            "number": unit.attributes.get("number")},
                source_start=start + first,
                source_end=start + last,
            )
