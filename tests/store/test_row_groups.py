"""Every open attaches the store file with ``ROW_GROUP_ROWS`` (DuckDB keeps no row group size in the file), so a
fold rewrites at most that many rows of a table, however large the store."""

from __future__ import annotations

import duckdb

from right_rag_dagster.store import db
from right_rag_dagster.store.db import Store


def _row_groups(con: duckdb.DuckDBPyConnection, table: str) -> list[int]:
    return [count for (count,) in con.execute(
        f"SELECT max(count) FROM pragma_storage_info('{table}') GROUP BY row_group_id ORDER BY row_group_id"
    ).fetchall()]


def test_writes_fill_row_groups_of_row_group_rows_only(tmp_path):
    store = Store(tmp_path / "right_rag.duckdb")
    with store.write() as con:
        con.execute("CREATE TABLE notes (i BIGINT, text VARCHAR)")
    for start in range(0, 40_000, 10_000):  # batches, each folded: the last row group is appended to each time
        with store.write(checkpoint=True) as con:
            con.execute(f"INSERT INTO notes SELECT i, 'note ' || i FROM range({start}, {start + 10_000}) r(i)")
    with store.read() as con:
        groups = _row_groups(con, "notes")
        assert con.execute("SELECT current_database()").fetchone() == ("right_rag",)  # as duckdb.connect names it
    assert sum(groups) == 40_000 and max(groups) <= db.ROW_GROUP_ROWS and len(groups) >= 3


def test_the_file_is_let_go_when_the_last_connection_closes(tmp_path):
    """Connections of one process share the attached file, as ``duckdb.connect(path)`` shares its instance; once
    they are all closed another DuckDB instance (another process) can open it."""
    path = tmp_path / "store.duckdb"
    first = db.connect_file(path)
    first.execute("CREATE TABLE t AS SELECT 1 AS x")
    second = db.connect_file(path)
    assert second.execute("SELECT x FROM t").fetchone() == (1,)
    first.close()
    second.close()
    other = duckdb.connect(str(path))  # fails with a lock error while either is open
    assert other.execute("SELECT x FROM t").fetchone() == (1,)
    other.close()
