"""The default unit parser: blocks of 40 lines. A smoke test of loading and plumbing, never for production."""

from __future__ import annotations

from collections.abc import Iterable

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit

LINES_PER_UNIT = 40


class DefaultUnitParser(UnitParser):
    """Accepts any non-empty document (a catch-all): only selected when no user parser exists or when named."""

    @property
    def parser_name(self) -> str:
        return "default"

    def parser_can_handle_document(self, document: Document) -> bool:
        return bool(document.text.strip())

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        lines = document.text.splitlines(keepends=True)
        start = 0
        for number, first in enumerate(range(0, len(lines), LINES_PER_UNIT), start=1):
            block = lines[first:first + LINES_PER_UNIT]
            raw = "".join(block)
            end = start + len(raw)
            if raw.strip():
                yield ParsedUnit(
                    topic=f"{document.id} unit {number}",
                    key=f"unit {number}",
                    fulltext=raw.strip(),
                    source_start=start,
                    source_end=end,
                    attributes={"unit_type": "line_block", "line_start": first + 1,
                                "line_end": first + len(block)},
                    metadata={"parser": self.parser_name, "smoke_test": True},
                )
            start = end
