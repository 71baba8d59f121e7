"""The baseline chunker contract: a name and ``chunk_document(document) -> list[Chunk]`` with exact spans and pages.

Baselines cut whole documents with no domain knowledge, to measure what domain structure adds. They are not
``ChunkParser`` plugins on purpose: the registry never sees them, so no production config can select them; only
the evaluation harness runs them, into its own DuckDB file, under names starting with ``baseline:``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ...core import sources
from ...core.ids import chunk_id_for, unit_id_for_path
from ...core.model import Chunk, Document

PREFIX = "baseline:"

Span = tuple[int, int]


class BaselineChunker(ABC):
    """Cuts a whole document into chunks by size or by plain-text structure (sentences, headings, pages)."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The chunker's name in the evaluation store, e.g. ``baseline:fixed-chars-500``."""

    @abstractmethod
    def spans(self, document: Document) -> list[Span]:
        """Source spans of the chunks in document order (whitespace at their ends is trimmed afterwards)."""

    def chunk_document(self, document: Document) -> list[Chunk]:
        """The document's chunks: text sliced from the document, exact spans and physical pages."""
        return make_chunks(document, self.name, self.spans(document))

    def parameters(self) -> dict[str, Any]:
        """What this instance was built with (sizes, overlaps): part of the key of its cached cuts."""
        return dict(vars(self))


@cache
def code_version() -> str:
    """A hash of the baselines' source files and the package modules they import (``core/ids.py`` names their
    chunks): a change to how any baseline cuts invalidates every cached cut."""
    return sources.code_version(Path(__file__).parent.glob("*.py"))


def baseline_unit_id(document_id: str, chunker: str) -> str:
    """The pseudo unit every baseline chunk of a document hangs from (baselines know no units)."""
    return unit_id_for_path(document_id, (chunker,))


def make_chunks(document: Document, chunker: str, spans: Sequence[Span]) -> list[Chunk]:
    """Build chunks from spans, trimming surrounding whitespace and dropping empty ones."""
    unit_id = baseline_unit_id(document.id, chunker)
    chunks: list[Chunk] = []
    for start, end in spans:
        start, end = trim(document.text, start, end)
        if end <= start:
            continue
        chunks.append(Chunk(
            id=chunk_id_for(unit_id, chunker, len(chunks)), document_id=document.id, unit_id=unit_id,
            topic=document.id, fulltext=document.text[start:end],
            attributes={"parser_name": chunker, "baseline": True},
            source_start=start, source_end=end,
            page_start=document.page_at(start), page_end=document.page_at(end - 1),
        ))
    return chunks


def trim(text: str, start: int, end: int) -> Span:
    """The span without leading and trailing whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
