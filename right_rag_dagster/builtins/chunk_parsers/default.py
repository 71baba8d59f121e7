"""The default chunk parser: 12 lines of a unit per chunk. A smoke test only, like the default unit parser."""

from __future__ import annotations

from collections.abc import Iterable

from right_rag_dagster.core.ids import chunk_id_for
from right_rag_dagster.core.interfaces import ChunkParser
from right_rag_dagster.core.model import Chunk, Unit
from right_rag_dagster.core.units import own_span

LINES_PER_CHUNK = 12


class DefaultChunkParser(ChunkParser):
    """Cuts the unit's own text (before its first subunit) into blocks of lines, with exact spans."""

    @property
    def parser_name(self) -> str:
        return "default"

    def parse_unit(self, unit: Unit) -> Iterable[Chunk]:
        start, end = own_span(unit)
        if start is None or end is None:
            return
        text = unit.raw_text[start - unit.source_start:end - unit.source_start]
        lines = text.splitlines(keepends=True)
        offset = start
        for number, first in enumerate(range(0, len(lines), LINES_PER_CHUNK), start=1):
            raw = "".join(lines[first:first + LINES_PER_CHUNK])
            stripped = raw.strip()
            if stripped:
                lead = len(raw) - len(raw.lstrip())
                yield Chunk(
                    id=chunk_id_for(unit.id, self.parser_name, number),
                    document_id=unit.document_id,
                    unit_id=unit.id,
                    topic=unit.topic,
                    fulltext=stripped,
                    attributes={"parser_name": self.parser_name, "unit_type": unit.attributes.get("unit_type")},
                    metadata={"smoke_test": True},
                    source_start=offset + lead,
                    source_end=offset + lead + len(stripped),
                )
            offset += len(raw)
