"""Values inlined as SQL literals: every type the store writes round-trips through DuckDB, placeholders inside
quotes are left alone, and what text cannot carry falls back to bound parameters."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import duckdb
import pytest

from right_rag_dagster.store.batch import insert_rows
from right_rag_dagster.store.sql import NotInlinable, execute, inline, literal


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (s VARCHAR, i INTEGER, f DOUBLE, b BOOLEAN, ts TIMESTAMP, ints INTEGER[], "
                "labels VARCHAR[], meta JSON)")
    yield con
    con.close()


def test_every_stored_type_round_trips(con) -> None:
    stamp = dt.datetime(2026, 11, 30, 23, 59, 1, 123456)
    rows = [["it's \"quoted\" ? and ; -- not a comment\nไทย", 7, 0.1, True, stamp, [0, 120, 4711], ["i", "ii"],
             '{"k": [1, 2]}'],
            [None, None, float("inf"), False, None, [], [], None]]
    insert_rows(con, "t", rows)
    assert con.execute("SELECT * FROM t ORDER BY i NULLS LAST").fetchall() == [
        tuple(rows[0]), (None, None, float("inf"), False, None, [], [], None)]


def test_floats_datetimes_and_numpy_values_come_back_exactly(con) -> None:
    import random

    import numpy as np

    values = [random.Random(7).random() for _ in range(300)] + [1e300, -0.0, 5e-324, float(np.float64(0.1))]
    execute(con, "INSERT INTO t (f) SELECT unnest(?::DOUBLE[])", [values])
    assert [row[0] for row in con.execute("SELECT f FROM t WHERE f IS NOT NULL").fetchall()] == values
    assert literal(np.float64(0.5)) == "'0.5'::DOUBLE"
    aware = dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    insert_rows(con, "t", [["tz", 1, None, None, aware, None, None, None]])
    assert con.execute("SELECT ts FROM t WHERE s = 'tz'").fetchone()[0] == dt.datetime(2024, 1, 1, 10, 0)


def test_statements_the_scanner_cannot_read_surely_are_bound(con) -> None:
    con.execute("INSERT INTO t (s, i) VALUES ('x', 1), ('y', 2)")
    for sql, params in [("SELECT ?2 + ?1", [1, 20]), ("SELECT ? -- what is ?\n", [21]),
                        ("SELECT $1 + 1", [20]), ("SELECT /* ? */ ?", [21])]:
        with pytest.raises(NotInlinable):
            inline(sql, params)
        assert execute(con, sql, params).fetchone()[0] == 21
    with pytest.raises(NotInlinable):
        literal([1, "a"])
    assert execute(con, "SELECT count(*) FROM t WHERE s = $name", {"name": "x"}).fetchone()[0] == 1


def test_placeholders_inside_quotes_are_not_replaced() -> None:
    sql = inline("SELECT '?' AS a, \"odd?name\" FROM t WHERE s = ? AND i IN (SELECT unnest(?::INTEGER[]))",
                 ["x'y", [1, 2]])
    assert sql == ("SELECT '?' AS a, \"odd?name\" FROM t WHERE s = 'x''y' "
                   "AND i IN (SELECT unnest([1, 2]::INTEGER[]))")
    with pytest.raises(ValueError, match="more placeholders"):
        inline("SELECT ?, ?", [1])
    with pytest.raises(ValueError, match="fewer placeholders"):
        inline("SELECT ?", [1, 2])


def test_what_text_cannot_carry_is_bound_instead(con) -> None:
    with pytest.raises(NotInlinable):
        literal("a\x00b")
    execute(con, "INSERT INTO t (s, i) VALUES (?, ?)", ["a\x00b", 1])
    assert con.execute("SELECT s FROM t WHERE i = 1").fetchone()[0] == "a\x00b"
    insert_rows(con, "t", [["c\x00d", 2, None, None, None, None, None, None]])
    assert con.execute("SELECT s FROM t WHERE i = 2").fetchone()[0] == "c\x00d"


def test_small_statements_never_import_pandas() -> None:
    code = ("import sys, duckdb\n"
            "from right_rag_dagster.store.batch import insert_rows\n"
            "from right_rag_dagster.store.sql import execute\n"
            "con = duckdb.connect()\n"
            "con.execute('CREATE TABLE t (s VARCHAR, i INTEGER)')\n"
            "insert_rows(con, 't', [['a', 1], ['b', 2]])\n"
            "assert execute(con, 'SELECT count(*) FROM t WHERE s = ? OR i = ?', ['a', 2]).fetchone()[0] == 2\n"
            "print('pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_chunk_rows_text_hash_is_the_same_in_python_and_in_sql() -> None:
    from right_rag_dagster.store.content import CHUNK_TEXT_HASH_SQL, chunk_text_hash

    con = duckdb.connect()
    con.execute("CREATE TABLE chunks (section_path JSON, fulltext VARCHAR)")
    path = '["Chapter 1", "มาตรา ๒ \\"quoted\\""]'
    insert_rows(con, "chunks", [[path, "Body, with ' quotes\nand lines."]])
    assert con.execute(f"SELECT {CHUNK_TEXT_HASH_SQL} FROM chunks").fetchone()[0] == \
        chunk_text_hash(path, "Body, with ' quotes\nand lines.")
