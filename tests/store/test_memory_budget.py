"""DuckDB's memory budget at the edges a large store reaches: a write that needs more than the default budget is
written again with the larger one (not split into halves that each need as much), and an index refresh likewise.

Measured on a 7,100-file store (docs/performance.md, eighth round): re-indexing 710 of its files failed at a
batch's commit ("Failed to commit: could not allocate block"), and the refresh after it failed pruning terms."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from right_rag_dagster.errors import StoreMemoryError
from right_rag_dagster.pipeline import indexer as indexer_module
from right_rag_dagster.pipeline import pipeline
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval.build import bm25 as bm25_build
from right_rag_dagster.retrieval.build.indexes import build_search_index
from right_rag_dagster.store import Store
from right_rag_dagster.store import db as store_db
from right_rag_dagster.store.search_tables import IndexTables

from ..orchestration.conftest import make_project

HUNGRY = "SELECT list(s ORDER BY s DESC) FROM (SELECT repeat('x', 200) || range AS s FROM range(400000))"
"""A statement that needs ~100 MB of DuckDB's memory: fails under a 16 MB budget, passes under 512 MB."""


def _budget_mb(con: duckdb.DuckDBPyConnection) -> float:
    return store_db.megabytes(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])


def test_out_of_memory_at_commit_time_is_a_memory_error():
    commit = duckdb.TransactionException("TransactionContext Error: Failed to commit: could not allocate block of "
                                         "size 256.0 KiB (122.0 MiB/122.0 MiB used)")
    pinned = duckdb.IOException("Checkpoint failed: failed to pin block of size 256.0 KiB (63.7 MiB/64.0 MiB used)")
    assert store_db.is_out_of_memory(commit) and store_db.is_out_of_memory(pinned)
    assert not store_db.is_out_of_memory(duckdb.CatalogException("Table with name x does not exist!"))


def test_a_batch_that_needs_more_than_the_budget_is_written_again_with_the_larger_one(tmp_path: Path, monkeypatch):
    root = make_project(tmp_path / "p")
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "16MB")
    budgets: list[float] = []
    previous_units = indexer_module.Indexer.previous_units

    def hungry_previous_units(self, con, items):  # noqa: ANN001 (what a large store's reads cost, for real)
        budgets.append(_budget_mb(con))
        con.execute(HUNGRY).fetchall()
        return previous_units(self, con, items)

    monkeypatch.setattr(indexer_module.Indexer, "previous_units", hungry_previous_units)
    counts = pipeline(project_dir=root)
    assert counts.get("document:failed", 0) == 0 and counts["chunks:materialized"] == 3
    store = Store(Project.load(root).store_path)
    with store.read() as con:
        assert con.execute("SELECT count(DISTINCT document_id) FROM chunks").fetchone()[0] == 3
    # the whole batch once under the default budget, then once more with the larger one: never split
    assert budgets[0] < store_db.CHECKPOINT_MEMORY_MB <= budgets[1]
    assert len(budgets) == 2


def test_an_index_refresh_that_needs_more_than_the_budget_gets_the_larger_one(tmp_path: Path, monkeypatch):
    root = make_project(tmp_path / "p")
    pipeline(project_dir=root)
    store = Store(Project.load(root).store_path)
    build_search_index(store, "default")
    (root / "data" / "documents" / "GPL-3.0.txt").write_text("GNU GENERAL PUBLIC LICENSE\n\n0. Definitions.\n\nNone.")
    pipeline(project_dir=root)  # writes the document's postings, leaving terms for the refresh to prune
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "16MB")
    budgets: list[float] = []
    prune_terms = bm25_build.prune_terms

    def hungry_prune(con, tables):  # noqa: ANN001 (reading every posting of a large store, for real)
        budgets.append(_budget_mb(con))
        con.execute(HUNGRY).fetchall()
        prune_terms(con, tables)

    monkeypatch.setattr(bm25_build, "prune_terms", hungry_prune)
    stats = build_search_index(store, "default")
    assert stats["changed"] and budgets[0] < store_db.CHECKPOINT_MEMORY_MB <= budgets[1]
    with store.read() as con:
        terms = {t for (t,) in con.execute(f"SELECT term FROM {IndexTables('default').terms}").fetchall()}
    assert "definit" in terms or "definitions" in terms


def test_a_write_that_cannot_fit_even_the_larger_budget_still_says_which_setting_to_raise(tmp_path: Path,
                                                                                           monkeypatch):
    store = Store(tmp_path / "s.duckdb")
    store.ensure()
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "16MB")
    with pytest.raises(StoreMemoryError, match="RIGHT_RAG_DUCKDB_MEMORY_LIMIT"):
        with store.write() as con:
            con.execute(HUNGRY).fetchall()


def test_scan_only_reads_and_sessions_keep_a_small_budget_and_a_write_gets_what_it_asks_for(tmp_path: Path,
                                                                                              monkeypatch):
    """An index run's plans, fingerprints and report read each block once: under DuckDB's whole budget a one-file
    change of a 7,100-file store kept 35 MB of them cached (docs/performance.md, twentieth round). A session (a run
    of a few documents) keeps ``SESSION_MEMORY_MB``: at 128 MB its cached reads made a one-file run over the 10x
    corpus peak at 1.37x the 1x run's memory."""
    root = make_project(tmp_path / "p")
    assert pipeline(project_dir=root)["chunks:materialized"] == 3
    store = Store(Project.load(root).store_path)
    configured = store_db.megabytes(store_db.memory_limit())
    assert store_db.SESSION_MEMORY_MB < configured
    with store.read() as con:
        assert _budget_mb(con) == pytest.approx(configured, rel=0.01)
    with store.session():  # the run's reads and writes share one DuckDB instance: the budget is set per open
        with store.read(scan=True) as con:
            assert _budget_mb(con) <= store_db.SCAN_MEMORY_MB < configured
            assert con.execute("SELECT count(*) FROM chunks").fetchone()[0] > 0
        with store.read() as con:
            assert _budget_mb(con) == pytest.approx(store_db.SESSION_MEMORY_MB, rel=0.01)
        with store.read(scan=True) as con:
            assert _budget_mb(con) <= store_db.SCAN_MEMORY_MB
        with store.write() as con:  # and a write after it has the session's budget again
            assert _budget_mb(con) == pytest.approx(store_db.SESSION_MEMORY_MB, rel=0.01)
        with store.write(min_memory_mb=200) as con:  # a batch's budget grows with what it writes
            assert _budget_mb(con) == pytest.approx(200, rel=0.01)
    with store.write() as con:  # after the session, the configured budget
        assert _budget_mb(con) == pytest.approx(configured, rel=0.01)
    monkeypatch.setenv("RIGHT_RAG_DUCKDB_MEMORY_LIMIT", "300MB")  # a budget the user sets holds in sessions too
    with store.session(), store.read() as con:
        assert _budget_mb(con) == pytest.approx(store_db.megabytes("300MB"), rel=0.01)
