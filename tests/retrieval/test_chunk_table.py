"""Loading a chunker's rows for search stays inside a small DuckDB memory budget, whatever the texts weigh."""

from __future__ import annotations

import duckdb

from right_rag_dagster.retrieval.searching.chunk_table import COLUMNS, ChunkTable


def test_rows_far_larger_than_the_memory_budget_load_in_document_order(tmp_path):
    """A 100 MB document's chunks once ran DuckDB out of its budget when it sorted them (``right-rag query``
    failed on any store holding one); 48 MB of text under an 8 MB budget here."""
    con = duckdb.connect(str(tmp_path / "chunks.duckdb"))
    columns = ", ".join(f"{name} VARCHAR" for name in COLUMNS)
    con.execute(f"CREATE TABLE chunks (chunker VARCHAR, ordinal INTEGER, {columns})")
    con.execute("""
        INSERT INTO chunks (chunker, ordinal, chunk_id, document_id, fulltext)
        SELECT 'default', (i * 7919) % 12000, 'c' || i, 'doc-' || (i % 3), repeat('x', 4000)
        FROM range(12000) t(i)""")
    con.execute("CHECKPOINT")  # on disk, as in a store: only what a query reads needs memory
    con.execute("SET memory_limit = '8MB'")
    con.execute("SET threads = 1")
    table = ChunkTable.load(con, "default")
    assert len(table) == 12000
    order = [(row[1], int(row[0][1:])) for row in table.rows]
    keys = [(doc, (i * 7919) % 12000) for doc, i in order]
    assert keys == sorted(keys)
    assert con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0] is True
    assert table.row_of["c5"] == [row[0] for row in table.rows].index("c5")
