"""Folding the write-ahead log into the store file: after a commit that left a long log, and at the end of a run,
under the transaction's own DuckDB budget first; a checkpoint that fails there (fatally, in DuckDB) is tried again
with ``CHECKPOINT_MEMORY_MB`` on a fresh connection, and loses nothing (real DuckDB files)."""

from __future__ import annotations

import logging
from pathlib import Path

import duckdb
import pytest

from right_rag_dagster.store import db
from right_rag_dagster.store.db import Store

ROWS = 200_000


def edited_store(path: Path) -> int:
    """A checkpointed table of clause-like rows, then a seventh of them deleted and 30,000 added, left in the
    log (as a re-index leaves it). Returns the number of rows."""
    con = duckdb.connect(str(path))
    try:
        con.execute("PRAGMA disable_checkpoint_on_shutdown")
        con.execute("SET checkpoint_threshold = '1TB'")
        con.execute(f"CREATE TABLE clauses AS SELECT i, 'clause ' || i || ' of the licence: ' || "
                    f"repeat('the work may be conveyed ', 8) AS text FROM range({ROWS}) r(i)")
        con.execute("CHECKPOINT")
        con.execute("DELETE FROM clauses WHERE i % 7 = 0")
        con.execute(f"INSERT INTO clauses SELECT i, 'clause ' || i || ' edited' FROM range({ROWS}, {ROWS + 30_000}) r(i)")
        return con.execute("SELECT count(*) FROM clauses").fetchone()[0]
    finally:
        con.close()


def wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def test_a_checkpoint_that_fails_under_the_budget_is_tried_again_with_more(tmp_path, monkeypatch, caplog):
    path = tmp_path / "store.duckdb"
    rows = edited_store(path)
    assert wal(path).stat().st_size > 2**20
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "2MB")  # too little for this checkpoint: it fails fatally
    with caplog.at_level(logging.WARNING, logger="right_rag_dagster"):
        Store(path).checkpoint()
    assert not wal(path).exists()
    [warning] = [r.getMessage() for r in caplog.records if "write-ahead log" in r.getMessage()]
    assert str(path) in warning and f"trying again with {db.CHECKPOINT_MEMORY_MB} MiB" in warning
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT count(*), count(*) FILTER (WHERE i % 7 = 0 AND i < ?) FROM clauses",
                           [ROWS]).fetchone() == (rows, 0)
    finally:
        con.close()


def test_a_checkpoint_within_the_budget_is_not_tried_twice(tmp_path, caplog):
    path = tmp_path / "store.duckdb"
    edited_store(path)
    with caplog.at_level(logging.WARNING, logger="right_rag_dagster"):
        Store(path).checkpoint()  # the default 128 MB
    assert not wal(path).exists() and not caplog.records


@pytest.mark.parametrize(("threshold", "folded"), [(2**30, False), (2**20, True)])
def test_a_write_folds_the_log_after_its_commit_past_the_threshold(tmp_path, monkeypatch, threshold, folded):
    path = tmp_path / "store.duckdb"
    store = Store(path)
    with store.write() as con:
        con.execute("CREATE TABLE notes (text VARCHAR)")
    monkeypatch.setattr(db, "CHECKPOINT_WAL_BYTES", threshold)
    # ~4 MB of log: DuckDB's own threshold (16 MB by default) is off in writes; fewer rows than a row group, which
    # DuckDB would write to the file directly instead of logging them (ROW_GROUP_ROWS)
    with store.write() as con:
        con.execute("INSERT INTO notes SELECT 'note ' || i || repeat(' text', 50) FROM range(15000) r(i)")
    assert wal(path).exists() != folded
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM notes").fetchone() == (15_000,)


class WatchedStore(Store):
    """A store that records, at each fold, the temporary tables its connection sees (a transaction's own)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.folds: list[int] = []

    def _fold_log(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        self.folds.append(con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchone()[0])
        return super()._fold_log(con)


@pytest.mark.parametrize(("checkpoint", "temporary"), [(False, 0), (True, 1)])
def test_a_fold_past_the_threshold_runs_on_a_fresh_connection(tmp_path, monkeypatch, checkpoint, temporary):
    """The transaction's connection holds the blocks its scans cached; the fold it did not ask for runs on a fresh
    one (an explicit ``checkpoint=True`` keeps the transaction's connection, with the extensions it loaded)."""
    path = tmp_path / "store.duckdb"
    store = WatchedStore(path)
    with store.write() as con:
        con.execute("CREATE TABLE notes (text VARCHAR)")
    monkeypatch.setattr(db, "CHECKPOINT_WAL_BYTES", 2**20)
    with store.write(checkpoint=checkpoint) as con:
        con.execute("CREATE TEMP TABLE scratch AS SELECT 1 AS x")
        con.execute("INSERT INTO notes SELECT 'note ' || i || repeat(' text', 50) FROM range(15000) r(i)")
    assert store.folds == [temporary] and not wal(path).exists()
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM notes").fetchone() == (15_000,)


def test_a_write_that_does_not_fold_leaves_the_log_to_its_caller(tmp_path, monkeypatch):
    """The indexer folds between batches, once it let go of the batch's rows: its writes leave the log as it is."""
    path = tmp_path / "store.duckdb"
    store = Store(path)
    with store.write() as con:
        con.execute("CREATE TABLE notes (text VARCHAR)")
    monkeypatch.setattr(db, "CHECKPOINT_WAL_BYTES", 2**20)
    with store.write(fold=False) as con:
        con.execute("INSERT INTO notes SELECT 'note ' || i || repeat(' text', 50) FROM range(15000) r(i)")
    assert wal(path).stat().st_size > db.CHECKPOINT_WAL_BYTES
    store.checkpoint(min_wal_bytes=db.CHECKPOINT_WAL_BYTES)
    assert not wal(path).exists()


def test_a_budget_duckdb_cannot_lower_leaves_the_fold_on_its_connection(tmp_path, monkeypatch, caplog):
    """A transaction's temporary table holds more than the fold's budget: DuckDB keeps the budget it has and the fold
    runs on the same connection (it used to be taken for a failed fold, warned about and run again on a fresh one)."""
    path = tmp_path / "store.duckdb"
    store = Store(path)
    with store.write() as con:
        con.execute("CREATE TABLE notes (text VARCHAR)")
    monkeypatch.setattr(db, "FOLD_MEMORY_MB", 1)
    with caplog.at_level(logging.WARNING, logger="right_rag_dagster"):
        with store.write(checkpoint=True) as con:
            con.execute("CREATE TEMP TABLE scratch AS SELECT 'x' || i || repeat('y', 200) AS t FROM range(100000) r(i)")
            con.execute("INSERT INTO notes SELECT 'note ' || i || repeat(' text', 50) FROM range(15000) r(i)")
    assert not caplog.records and not wal(path).exists()
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM notes").fetchone() == (15_000,)
