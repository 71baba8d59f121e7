"""Names of the per-chunker index tables and reads/writes of their ``search_indexes`` state rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import duckdb

from ..core.hashing import stable_hash
from ..store.db import utcnow
from ..store.sql import execute, literal

Connection = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class IndexTables:
    """Tables of one chunker's indexes. Names are hashed from the chunker so any chunker name is safe in SQL."""

    chunker: str
    suffix: str = ""  # "_staging": where a full rebuild is written before it replaces the index

    @property
    def slug(self) -> str:
        return stable_hash(["search-index", self.chunker])[:12]

    @property
    def bm25(self) -> str:
        return f"bm25_{self.slug}{self.suffix}"

    @property
    def terms(self) -> str:
        return f"bm25_{self.slug}_terms{self.suffix}"

    @property
    def postings(self) -> str:
        return f"bm25_{self.slug}_postings{self.suffix}"

    def staging(self) -> IndexTables:
        return IndexTables(self.chunker, "_staging")

    @property
    def legacy_fts_schema(self) -> str:
        return f"fts_main_{self.bm25}"

    @property
    def dense(self) -> str:
        return f"dense_{self.slug}"

    @property
    def hnsw(self) -> str:
        return f"dense_{self.slug}_hnsw"


@dataclass(frozen=True)
class IndexState:
    """A row of ``search_indexes``: what was built for one chunker and kind, with which model."""

    chunker: str
    kind: str
    table_name: str
    model: str
    dimensions: int | None
    chunks: int
    tokens: int | None
    build_id: str
    details: dict[str, Any]


def table_exists(con: Connection, name: str, schema: str = "main") -> bool:
    row = con.execute("SELECT count(*) FROM information_schema.tables "
                      f"WHERE table_schema = {literal(schema)} AND table_name = {literal(name)}").fetchone()
    return bool(row and row[0])


def read_state(con: Connection, chunker: str, kind: str) -> IndexState | None:
    row = con.execute("SELECT chunker, kind, table_name, model, dimensions, chunks, tokens, build_id, details "
                      f"FROM search_indexes WHERE chunker = {literal(chunker)} AND kind = {literal(kind)}").fetchone()
    if row is None:
        return None
    return IndexState(*row[:8], details=json.loads(row[8] or "{}"))


def write_state(con: Connection, state: IndexState, seconds: float) -> None:
    execute(con, "DELETE FROM search_indexes WHERE chunker = ? AND kind = ?", [state.chunker, state.kind])
    execute(con, "INSERT INTO search_indexes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [state.chunker, state.kind, state.table_name, state.model, state.dimensions, state.chunks,
                 state.tokens, state.build_id, utcnow(), seconds, json.dumps(state.details, sort_keys=True)])


def delete_state(con: Connection, chunker: str, kind: str) -> None:
    execute(con, "DELETE FROM search_indexes WHERE chunker = ? AND kind = ?", [chunker, kind])
