"""Which chunks an index must (re)process: found in DuckDB by comparing text hashes, so only those are read.

Each chunk row carries its ``text_hash`` (written with the row), so a one-document change in a 40,000-chunk
store reads that document's chunks, not the whole corpus. A row without a hash counts as changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...store.chunk_reads import (
    chunk_count,
    chunk_texts,
    orphaned_chunk_ids,
    stale_chunks,
)
from ...store.search_tables import Connection
from ..indexed_text import heading_and_text


@dataclass(frozen=True)
class ChunkText:
    """A chunk as an index sees it: its id, the hash of its indexed text, that text, and the heading it sits under
    (which BM25 counts once more: ``indexed_text.bm25_text``)."""

    chunk_id: str
    text_hash: str
    text: str
    heading: str = ""


@dataclass(frozen=True)
class PendingChunks:
    """The chunks of ``chunker`` (``total`` of them) as the indexes compare them with what they hold."""

    chunker: str
    total: int

    @classmethod
    def for_chunker(cls, con: Connection, chunker: str) -> PendingChunks:
        return cls(chunker, chunk_count(con, chunker))

    def against(self, con: Connection, table: str | None) -> tuple[list[ChunkText], tuple[str, ...]]:
        """Chunks missing from ``table`` or held there with another text hash (every chunk when ``table`` is
        None), in document order, with their texts; and the chunk ids ``table`` holds that are no longer chunks
        of this chunker."""
        stale, removed = self.stale_ids(con, table)
        return self.texts(con, [chunk_id for chunk_id, _ in stale]), removed

    def stale_ids(self, con: Connection, table: str | None) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """What ``against`` finds, without reading any text: (chunk id, text hash) of the chunks to (re)index,
        and the ids to remove. An index build reads the texts a page at a time (``texts``)."""
        stale = stale_chunks(con, self.chunker, table)
        return stale, (() if table is None else orphaned_chunk_ids(con, self.chunker, table))

    def texts(self, con: Connection, chunk_ids: list[str]) -> list[ChunkText]:
        """The indexed texts of ``chunk_ids``, in that order."""
        if not chunk_ids:
            return []
        rows = chunk_texts(con, self.chunker, chunk_ids)
        by_id = {}
        for chunk_id, digest, section_path, fulltext in rows:
            heading, text = heading_and_text(section_path, fulltext)
            by_id[chunk_id] = ChunkText(chunk_id, digest, text, heading)
        return [by_id[chunk_id] for chunk_id in chunk_ids if chunk_id in by_id]
