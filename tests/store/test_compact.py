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


def _store_with_a_quarter_free(tmp_path) -> Store:
    """What one changed file leaves: DuckDB rewrote a table's last row group, its old blocks are free."""
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        con.execute("CREATE TABLE bulk AS SELECT i, repeat(md5(i::VARCHAR), 64) AS text FROM range(30000) t(i)")
        con.execute("CREATE TABLE earlier AS SELECT i, repeat(md5(i::VARCHAR), 64) AS text FROM range(12000) t(i)")
    store.checkpoint()
    with store.write() as con:
        con.execute("DROP TABLE earlier")
    store.checkpoint()
    with store.read() as con:
        _, _, _, total, _, free = con.execute("PRAGMA database_size").fetchone()[:6]
    assert 0.2 < free / total < store_db.COMPACT_SMALL_RUN_FREE_SHARE
    return store


def test_a_small_run_leaves_the_free_blocks_its_next_run_reuses(tmp_path):
    """Copying the whole store after one changed file tripled the time of a one-file index."""
    store = _store_with_a_quarter_free(tmp_path)
    assert store.compact(rewritten_share=1 / 710, min_bytes=0) is None


def test_a_large_run_compacts_the_same_store(tmp_path):
    store = _store_with_a_quarter_free(tmp_path)
    before_rows = _rows(store)
    before, after = store.compact(rewritten_share=0.1, min_bytes=0)
    assert after < before * 0.85
    assert _rows(store) == before_rows
