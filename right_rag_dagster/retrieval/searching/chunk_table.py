"""The chunks of one chunker held in memory: what hits are made of and what filters look at.

Loaded straight from the ``chunks`` table, so a search can only ever return rows that exist there now.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...store.chunk_reads import chunk_rows
from ...store.search_tables import Connection
from ..hits import Hit

COLUMNS = ("chunk_id", "document_id", "unit_id", "fulltext", "source_start", "source_end", "page_start",
           "page_end", "page_label_start", "page_label_end", "section_path", "unit_type", "role", "attributes")
_ATTRIBUTES = COLUMNS.index("attributes")
_SECTION = COLUMNS.index("section_path")
LOAD_SLICE = 4096


@dataclass(frozen=True)
class Candidate:
    """A retriever's result before it becomes a ``Hit``: a chunk id, its score and how the score was made."""

    chunk_id: str
    score: float
    details: dict[str, Any] = field(default_factory=dict)


def _document_order(row: tuple) -> tuple[str, int]:
    return row[1], row[-1]


class ChunkTable:
    """Rows of ``chunks`` for one chunker, in document order, with an index by chunk id."""

    def __init__(self, chunker: str, rows: list[tuple]) -> None:
        self.chunker = chunker
        self.rows = rows
        self.row_of = {row[0]: i for i, row in enumerate(rows)}
        self._attributes: list[dict[str, Any]] | None = None
        self._documents: dict[str, tuple[int, int]] | None = None
        self._weights: dict[float, np.ndarray] = {}

    @classmethod
    def load(cls, con: Connection, chunker: str) -> ChunkTable:
        """Streamed a slice at a time and sorted here: DuckDB sorting (or keeping in order) the texts of a 100 MB
        document would need more than the connection's memory budget, and the rows end up in Python either way."""
        rows = chunk_rows(con, chunker, [*COLUMNS, "ordinal"], LOAD_SLICE)
        rows.sort(key=_document_order)
        return cls(chunker, [row[:-1] for row in rows])

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        index = COLUMNS.index(name)
        return [row[index] for row in self.rows]

    def attributes(self) -> list[dict[str, Any]]:
        """Every row's attributes, parsed once (only filters on attributes need them all)."""
        if self._attributes is None:
            self._attributes = [json.loads(row[_ATTRIBUTES] or "{}") for row in self.rows]
        return self._attributes

    def document_rows(self, document_id: str) -> tuple[int, int]:
        """The rows ``start:end`` of one document's chunks (rows are in document order)."""
        return self._runs().get(document_id, (0, 0))

    def document_sizes(self) -> np.ndarray:
        """Each row's document's number of chunks."""
        sizes = np.zeros(len(self.rows), dtype=np.float64)
        for start, end in self._runs().values():
            sizes[start:end] = end - start
        return sizes

    def document_numbers(self) -> np.ndarray:
        """Each row's document as a number (0 for the first document, in row order)."""
        numbers = np.zeros(len(self.rows), dtype=np.int64)
        for number, (start, end) in enumerate(self._runs().values()):
            numbers[start:end] = number
        return numbers

    def _runs(self) -> dict[str, tuple[int, int]]:
        """Each document's rows ``start:end``, found once."""
        if self._documents is None:
            self._documents = {}
            for i, row in enumerate(self.rows):
                start, _ = self._documents.get(row[1], (i, i))
                self._documents[row[1]] = (start, i + 1)
        return self._documents

    def size_weights(self, prior: float) -> np.ndarray:
        """Each row's document's number of chunks to the power ``-prior`` (the document-size prior of
        ``bm25.SIZE_PRIOR`` and ``dense.SIZE_PRIOR``), computed once per prior: every query weighs by it."""
        if prior not in self._weights:
            self._weights[prior] = self.document_sizes() ** -prior
        return self._weights[prior]

    def section_paths(self) -> list[tuple[str, ...]]:
        return [tuple(json.loads(row[_SECTION] or "[]")) for row in self.rows]

    def hit(self, candidate: Candidate, rank: int, retriever: str) -> Hit:
        row = self.rows[self.row_of[candidate.chunk_id]]
        return Hit(
            rank=rank, chunk_id=row[0], chunker=self.chunker, document_id=row[1], unit_id=row[2], text=row[3],
            score=float(candidate.score), source_start=row[4], source_end=row[5], page_start=row[6],
            page_end=row[7], page_label_start=row[8], page_label_end=row[9],
            section_path=tuple(json.loads(row[10] or "[]")), attributes=json.loads(row[13] or "{}"),
            retriever=retriever, details=dict(candidate.details),
        )
