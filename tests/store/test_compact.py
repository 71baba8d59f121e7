"""Compaction reclaims free blocks by copy-and-swap, and a compaction that fails loses nothing."""

from __future__ import annotations

import logging

from right_rag_dagster.store import Store
from right_rag_dagster.store import db as store_db


def _store_with_free_blocks(tmp_path) -> Store:
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        con.execute("CREATE TABLE bulk AS SELECT i, repeat(md5(i::VARCHAR), 64) AS text FROM range(4000) t(i)")
        con.execute("CREATE TABLE earlier AS SELECT i, repeat(md5(i::VARCHAR), 64) AS text FROM range(40000) t(i)")
    store.checkpoint()
    with store.write() as con:  # an earlier version's rows, gone: their blocks stay in the file, free
        con.execute("DROP TABLE earlier")
    store.checkpoint()
    return store


def _rows(store: Store) -> list[tuple]:
    with store.read() as con:
        return con.execute("SELECT count(*), sum(i), min(text), max(text) FROM bulk").fetchall()


def test_a_store_mostly_free_is_copied_into_a_smaller_file(tmp_path):
    store = _store_with_free_blocks(tmp_path)
    before_rows = _rows(store)
    before, after = store.compact(min_bytes=0)
    assert after < before / 2
    assert _rows(store) == before_rows and before_rows[0][0] == 4000
    assert not (tmp_path / "store.duckdb.compacting").exists()
    assert store.compact(min_bytes=0) is None  # nothing left to reclaim


def test_a_compaction_that_runs_out_of_memory_leaves_the_store_as_it_was(tmp_path, monkeypatch, caplog):
    """It runs at the end of an index run whose documents are committed: failing it must not fail the run."""
    store = _store_with_free_blocks(tmp_path)
    before_rows, size = _rows(store), store.path.stat().st_size
    monkeypatch.setattr(store_db, "COMPACT_MEMORY_MB", 0)
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "1MB")
    with caplog.at_level(logging.WARNING, logger="right_rag_dagster"):
        assert store.compact(min_bytes=0) is None
    assert "store not compacted" in caplog.text and "RIGHT_RAG_DUCKDB_MEMORY_LIMIT" in caplog.text
    assert not (tmp_path / "store.duckdb.compacting").exists()
    assert store.path.stat().st_size == size
    monkeypatch.delenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT")
    assert _rows(store) == before_rows
