"""A session holds the store file open for a run's short steps: every Store of the file in the process shares it,
other processes wait, and the file is released when it ends."""

from __future__ import annotations

import subprocess
import sys

import pytest

from right_rag_dagster.errors import StoreError
from right_rag_dagster.store import Store

READER = """
import sys
from right_rag_dagster.store import Store
from right_rag_dagster.errors import StoreError
try:
    with Store(sys.argv[1], lock_timeout=0.5).read() as con:
        print(con.execute("SELECT count(*) FROM t").fetchone()[0])
except StoreError as exc:
    print("locked" if "stayed locked" in str(exc) else f"error: {exc}")
"""


def _store(tmp_path) -> Store:
    store = Store(tmp_path / "store.duckdb")
    with store.write() as con:
        con.execute("CREATE TABLE t AS SELECT i FROM range(3) t(i)")
    return store


def _read_from_another_process(store: Store) -> str:
    return subprocess.run([sys.executable, "-c", READER, str(store.path)], capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()


def test_every_store_of_the_file_reads_and_writes_through_the_session(tmp_path):
    store = _store(tmp_path)
    other = Store(tmp_path / "store.duckdb")  # as a run's steps do: each asks the resource for a Store
    with store.session():
        with other.write() as con:
            con.execute("INSERT INTO t VALUES (3)")
        with other.read() as con:  # a read-only open of a file this process writes would be refused
            assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 4
        with pytest.raises(RuntimeError), store.write() as con:  # a failed transaction rolls back alone
            con.execute("INSERT INTO t VALUES (4)")
            raise RuntimeError("step failed")
        with store.read() as con:
            assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 4


def test_other_processes_wait_for_the_session_and_read_after_it(tmp_path):
    store = _store(tmp_path)
    with store.session():
        assert _read_from_another_process(store) == "locked"
    assert _read_from_another_process(store) == "3"


def test_a_store_cannot_be_compacted_inside_a_session(tmp_path):
    store = _store(tmp_path)
    with store.session(), pytest.raises(StoreError, match="inside a session"):
        store.compact(min_bytes=0)
    store.compact(min_bytes=0)  # after it: allowed


def test_a_session_lets_go_of_the_file_until_its_next_transaction(tmp_path):
    store = _store(tmp_path)
    with store.session():
        store.release_session()  # what a run of few documents does while its workers parse
        assert store.in_session()
        assert _read_from_another_process(store) == "3"
        with store.write() as con:  # takes the file again, and keeps it
            con.execute("INSERT INTO t VALUES (3)")
        assert _read_from_another_process(store) == "locked"
        with Store(tmp_path / "store.duckdb").read() as con:
            assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 4
        store.release_session()
    assert not store.in_session()
    assert _read_from_another_process(store) == "4"
