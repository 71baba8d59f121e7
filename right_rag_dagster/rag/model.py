"""``Answer`` and ``Citation``: what a RAG flow returns, ready for the CLI's text and JSON output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..retrieval.hits import Hit

NOT_FOUND = "Not found in the documents."


@dataclass(frozen=True)
class Citation:
    """Evidence ``[number]`` of an answer: the cited chunk's place in its document, and the quoted text."""

    number: int
    hit: Hit
    quote: str = ""
    quote_start: int | None = None  # the quote's span in the document text, when it was cut from it
    quote_end: int | None = None

    @property
    def chunk_id(self) -> str:
        """The chunk the quote was cut from: of a joined hit's chunks, the one whose span holds it."""
        if self.quote_start is not None:
            for chunk_id, _, start, end in self.hit.joined:
                if start <= self.quote_start < end:
                    return chunk_id
        return self.hit.chunk_id

    def to_json(self) -> dict[str, Any]:
        cited = {k: v for k, v in self.hit.to_json().items() if k not in ("text", "attributes", "details")}
        return {"number": self.number, "quote": self.quote, "quote_start": self.quote_start,
                "quote_end": self.quote_end, **cited, "chunk_id": self.chunk_id}


@dataclass(frozen=True)
class Generated:
    """A generator's output: the answer text, whether the documents held the answer, and its citations."""

    text: str
    found: bool
    citations: tuple[Citation, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """The result of ``rag.query``: answer text with [n] citations, the hits it saw, and the trace."""

    question: str
    text: str
    found: bool
    hits: tuple[Hit, ...]
    citations: tuple[Citation, ...]
    flow: str
    settings: dict[str, Any] = field(default_factory=dict)
    trace: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.text, "found": self.found, "flow": self.flow,
                "settings": self.settings, "citations": [c.to_json() for c in self.citations],
                "hits": [hit.to_json() for hit in self.hits], "trace": self.trace}
