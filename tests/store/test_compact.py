"""Compaction reclaims free blocks by copy-and-swap, and a compaction that fails loses nothing."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time

from right_rag_dagster.store import Store, compaction
from tests.conftest import REPO_ROOT


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
    monkeypatch.setattr(compaction, "MEMORY_BUDGETS_MB", (1, 1))
    with caplog.at_level(logging.WARNING, logger="right_rag_dagster"):
        assert store.compact(min_bytes=0) is None
    assert "store not compacted" in caplog.text and "RIGHT_RAG_DUCKDB_MEMORY_LIMIT" in caplog.text
    assert not (tmp_path / "store.duckdb.compacting").exists()
    assert store.path.stat().st_size == size
    assert _rows(store) == before_rows


_CLAUSE = "'clause ' || {x} || ': ' || repeat('the licensee shall keep notice ' || ({x} % 977) || ' intact; ', 48)"
"""Text-like rows. Hex digests (as in ``_store_with_free_blocks``) sit on the edge of DuckDB's FSST compression,
whose sampling leaves about one copy in ten uncompressed and 40% larger: sizes compared across copies need text
that compresses decisively."""


def _rewrite(store: Store, rows: int) -> None:
    """What re-indexing documents does: their rows deleted and written again (DuckDB keeps the deleted ones)."""
    with store.write() as con:
        con.execute(f"DELETE FROM bulk WHERE i < {rows}")
        con.execute(f"INSERT INTO bulk SELECT i, {_CLAUSE.format(x='(i + 1)')} FROM range({rows}) t(i)")
    store.checkpoint()


def test_a_store_is_copied_once_to_learn_its_size_then_when_it_outgrew_it(tmp_path):
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        con.execute(f"CREATE TABLE bulk AS SELECT i, {_CLAUSE.format(x='i')} AS text FROM range(30000) t(i)")
    assert store.compact(min_bytes=0) is not None  # copied once to learn its compact size
    with store.read() as con:
        recorded = int(con.execute("SELECT cache_key FROM step_state WHERE step = ?", [compaction.COMPACT_STEP]
                                   ).fetchone()[0])
    assert abs(recorded - store.path.stat().st_size) <= 4 * 256 * 1024  # (+ the blocks the record was written to)
    assert store.compact(min_bytes=0) is None
    for _ in range(4):  # three rewrites of 12,000 rows left 41-55% of the blocks free, across the 50% line
        _rewrite(store, 6000)  # four of 6,000: 12-17% free, the file 1.30-1.46x its compact size
    before_rows = _rows(store)
    grown = store.path.stat().st_size
    assert compaction.GROWTH_LARGE_RUN * recorded < grown < compaction.GROWTH_SMALL_RUN * recorded
    with store.read() as con:
        total, free = con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size() "
                                  "WHERE database_name = current_database()").fetchone()
    assert free < compaction.MAX_FREE_SHARE * total  # grown by deleted rows kept in place, not by free blocks
    # one changed file: the next runs reuse the free blocks; copying the whole store for it is not worth it
    assert store.compact(rewritten_share=1 / 710, min_bytes=0) is None
    before, after = store.compact(rewritten_share=0.1, min_bytes=0)  # a tenth of the documents re-indexed
    assert before >= grown and after < grown / compaction.GROWTH_LARGE_RUN
    assert _rows(store) == before_rows
    assert store.compact(rewritten_share=0.1, min_bytes=0) is None  # compact again: nothing to do


def test_a_copy_out_of_its_first_budget_is_tried_again_with_the_next_one(tmp_path, monkeypatch):
    store = _store_with_free_blocks(tmp_path)
    budgets = []
    copy = Store.copy_and_swap

    def first_fails(self, memory_mb):
        budgets.append(memory_mb)
        return copy(self, 1 if len(budgets) == 1 else memory_mb)  # 1 MB: DuckDB runs out of memory

    monkeypatch.setattr(Store, "copy_and_swap", first_fails)
    before, after = store.compact(min_bytes=0)
    assert budgets == list(compaction.MEMORY_BUDGETS_MB[:2]) and after < before / 2


def test_a_compaction_killed_mid_copy_leaves_the_store_as_it_was_and_the_next_one_completes(tmp_path):
    """``kill -9`` of a real process while it copies the store into ``.compacting``: the store file is only
    replaced once the copy is whole, so the store still serves every row, and the next compaction starts over."""
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        con.execute(f"CREATE TABLE bulk AS SELECT i, {_CLAUSE.format(x='i')} AS text FROM range(50000) t(i)")
    store.checkpoint()
    before = _rows(store)
    fresh = tmp_path / "store.duckdb.compacting"
    copying = subprocess.Popen([sys.executable, "-c", "import sys\nfrom right_rag_dagster.store import Store\n"
                                "Store(sys.argv[1]).copy_and_swap(64)", str(store.path)], cwd=REPO_ROOT)
    try:
        deadline = time.monotonic() + 120
        while not (fresh.exists() and fresh.stat().st_size > 2**20):
            assert copying.poll() is None, "the copy ended before it could be killed: make the table larger"
            assert time.monotonic() < deadline, "the copy never started"
            time.sleep(0.005)
        copying.send_signal(signal.SIGKILL)
    finally:
        copying.kill()
        copying.wait()
    assert fresh.exists()  # the half-written copy is left behind; the store file was never replaced
    assert _rows(store) == before
    store.copy_and_swap(64)
    assert not fresh.exists() and _rows(store) == before
