"""Which chunks an index must (re)process: found in DuckDB by comparing text hashes, so only those are read.

Each chunk row carries its ``text_hash`` (written with the row), so a one-document change in a 40,000-chunk
store reads that document's chunks, not the whole corpus. A row without a hash counts as changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store.sql import execute
from .indexed_text import indexed_text
from .tables import Connection, literal


@dataclass(frozen=True)
class ChunkText:
    """A chunk as an index sees it: its id, the hash of its indexed text, and that text."""

    chunk_id: str
    text_hash: str
    text: str


@dataclass(frozen=True)
class PendingChunks:
    """The chunks of ``chunker`` (``total`` of them) as the indexes compare them with what they hold."""

    chunker: str
    total: int

    @classmethod
    def for_chunker(cls, con: Connection, chunker: str) -> PendingChunks:
        total = con.execute(f"SELECT count(*) FROM chunks WHERE chunker = {literal(chunker)}").fetchone()[0]
        return cls(chunker, int(total))

    def against(self, con: Connection, table: str | None) -> tuple[list[ChunkText], tuple[str, ...]]:
        """Chunks missing from ``table`` or held there with another text hash (every chunk when ``table`` is
        None), in document order, with their texts; and the chunk ids ``table`` holds that are no longer chunks
        of this chunker."""
        stale, removed = self.stale_ids(con, table)
        return self.texts(con, [chunk_id for chunk_id, _ in stale]), removed

    def stale_ids(self, con: Connection, table: str | None) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """What ``against`` finds, without reading any text: (chunk id, text hash) of the chunks to (re)index,
        and the ids to remove. An index build reads the texts a page at a time (``texts``)."""
        chunker = literal(self.chunker)
        held = "" if table is None else (
            f"ANTI JOIN {table} AS held ON held.chunk_id = c.chunk_id AND held.text_hash = c.text_hash")
        stale = [(chunk_id, digest) for chunk_id, digest in con.execute(f"""
            SELECT c.chunk_id, coalesce(c.text_hash, '') FROM chunks AS c {held}
            WHERE c.chunker = {chunker} ORDER BY c.document_id, c.ordinal""").fetchall()]
        if table is None:
            return stale, ()
        removed = con.execute(f"SELECT chunk_id FROM {table} AS held WHERE NOT EXISTS (SELECT 1 FROM chunks AS c "
                              f"WHERE c.chunker = {chunker} AND c.chunk_id = held.chunk_id)").fetchall()
        return stale, tuple(row[0] for row in removed)

    def texts(self, con: Connection, chunk_ids: list[str]) -> list[ChunkText]:
        """The indexed texts of ``chunk_ids``, in that order."""
        if not chunk_ids:
            return []
        rows = execute(con, "SELECT chunk_id, coalesce(text_hash, ''), section_path, fulltext FROM chunks "
                            "WHERE chunker = ? AND chunk_id IN (SELECT unnest(?::VARCHAR[]))",
                       [self.chunker, chunk_ids]).fetchall()
        by_id = {chunk_id: ChunkText(chunk_id, digest, indexed_text(section_path, fulltext))
                 for chunk_id, digest, section_path, fulltext in rows}
        return [by_id[chunk_id] for chunk_id in chunk_ids if chunk_id in by_id]
