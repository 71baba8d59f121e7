"""Explicit migrations on a real DuckDB file: a store made by an older schema is brought forward in place."""

from __future__ import annotations

import duckdb
import pytest

from right_rag_dagster.errors import StoreError
from right_rag_dagster.store import Store
from right_rag_dagster.store.content import chunk_text_hash
from right_rag_dagster.store.migrations import SCHEMA_VERSION, load_migrations


def _store_at(path, version: int) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                "applied_at TIMESTAMP NOT NULL)")
    for migration in load_migrations()[:version]:
        con.execute(migration.sql)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [migration.version, migration.name])
    con.close()


def _version_3_store_with_a_chunk(path, text: str, section_path: str) -> None:
    """A store as right-rag-dagster 0.1 left it (schema 3: chunk rows without a text hash), holding one chunk."""
    _store_at(path, 3)
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO chunks (chunker, chunk_id, document_id, unit_id, ordinal, fulltext, section_path) "
                "VALUES ('default', 'c1', 'd.txt', 'u1', 0, ?, ?)", [text, section_path])
    con.close()


def test_version_3_store_gains_chunk_text_hashes_equal_to_what_writers_store(tmp_path) -> None:
    path = tmp_path / "right_rag.duckdb"
    _version_3_store_with_a_chunk(path, "Section 1. Scope", '["Part I", "Section 1"]')
    store = Store(path)
    store.ensure()
    with store.read() as con:
        assert con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION
        stored = con.execute("SELECT text_hash FROM chunks WHERE chunk_id = 'c1'").fetchone()[0]
    assert stored == chunk_text_hash('["Part I", "Section 1"]', "Section 1. Scope")


def test_a_store_from_a_newer_version_is_refused(tmp_path) -> None:
    path = tmp_path / "right_rag.duckdb"
    _store_at(path, SCHEMA_VERSION)
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO schema_migrations VALUES (?, 'from_the_future', now())", [SCHEMA_VERSION + 1])
    con.close()
    with pytest.raises(StoreError, match="newer than this right-rag"):
        Store(path).ensure()


def test_building_a_search_index_migrates_an_older_store_first(tmp_path) -> None:
    from right_rag_dagster.retrieval import build_search_index

    path = tmp_path / "right_rag.duckdb"
    _version_3_store_with_a_chunk(path, "Quokkas are marsupials.", '["Fauna"]')
    stats = build_search_index(Store(path), "default")
    assert stats["chunks_indexed"] == 1 and stats["terms"] >= 2
