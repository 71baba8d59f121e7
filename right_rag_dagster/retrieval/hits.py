"""``Hit``: one search result, a chunk row of the store with its rank, score and citation fields."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk. Spans are offsets in the document text; pages are physical numbers and labels.

    ``details`` says how the score was made (the retriever's components, e.g. each ranking's rank in hybrid).
    """

    rank: int
    chunk_id: str
    chunker: str
    document_id: str
    unit_id: str
    text: str
    score: float
    source_start: int | None
    source_end: int | None
    page_start: int | None
    page_end: int | None
    page_label_start: str | None
    page_label_end: str | None
    section_path: tuple[str, ...]
    attributes: dict[str, Any] = field(default_factory=dict)
    retriever: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    joined: tuple[tuple[str, str, int, int], ...] = ()
    """A hit joined with its neighbours (``searching/neighbours.py``): (chunk id, unit id, source start, source end) of
    each of its chunks, best ranked first; empty for a single chunk."""

    @property
    def spans(self) -> list[tuple[int, int]]:
        return text_spans(self.joined, self.source_start, self.source_end)

    @property
    def pages(self) -> str:
        """Printed page label(s), e.g. ``26`` or ``26-27`` (empty when the document has no pages)."""
        if not self.page_label_start:
            return ""
        if self.page_label_end and self.page_label_end != self.page_label_start:
            return f"{self.page_label_start}-{self.page_label_end}"
        return self.page_label_start

    def reranked(self, rank: int, **details: Any) -> Hit:
        """This hit at ``rank`` after a reranker: ``details`` keep the rank the retriever gave it (``retrieval_rank``)
        beside what the reranker adds."""
        return replace(self, rank=rank, details={**self.details, "retrieval_rank": self.rank, **details})

    def to_json(self) -> dict[str, Any]:
        """Plain JSON value for ``--json`` output: ``document`` for the document id, section path as a list."""
        data = asdict(self)
        data["section_path"] = list(self.section_path)
        data["joined"] = [list(part) for part in self.joined]
        return {"document": data.pop("document_id"), **data}


def text_spans(joined: tuple[tuple[str, str, int, int], ...], start: int | None,
               end: int | None) -> list[tuple[int, int]]:
    """The document spans a hit's text comes from: one per chunk (a joined hit's leave out the gaps between them);
    empty when the chunk has no span. ``Hit.spans`` and the evaluation's ``RetrievedChunk.spans``."""
    if joined:
        return [(part_start, part_end) for _, _, part_start, part_end in joined]
    if start is None or end is None:
        return []
    return [(start, end)]
