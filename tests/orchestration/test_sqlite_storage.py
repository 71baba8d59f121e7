"""The project's Dagster SQLite storage (``orchestration/storage.py``): a new run's database is a copy of an empty one
Dagster made, and holds its events like one Dagster made itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import dagster as dg
import sqlalchemy as db
from dagster._core.storage.event_log import SqliteEventLogStorage

from right_rag_dagster.orchestration.storage import RUN_TEMPLATE_DIR, FastSqliteEventLogStorage, FastSqliteStorage


@dg.asset
def answer() -> int:
    return 42


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
        version = con.execute("SELECT version_num FROM alembic_version").fetchall()
    return [*rows, ("alembic", "version", str(version))]


def test_runs_databases_are_copies_of_one_dagster_made_and_hold_their_events(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    storage = {"custom": {"module": "right_rag_dagster.orchestration.storage", "class": "FastSqliteStorage",
                          "config": {"base_dir": str(home)}}}
    with dg.instance_for_test(temp_dir=str(home), overrides={"storage": storage}) as instance:
        assert isinstance(instance.get_ref().storage, FastSqliteStorage)
        runs = [dg.materialize([answer], instance=instance).run_id for _ in range(2)]
        for run_id in runs:  # every event of each run was written and reads back
            kinds = {e.dagster_event.event_type for e in instance.all_logs(run_id) if e.dagster_event}
            assert {dg.DagsterEventType.RUN_START, dg.DagsterEventType.ASSET_MATERIALIZATION,
                    dg.DagsterEventType.RUN_SUCCESS} <= kinds
        event_log = instance.event_log_storage
        assert isinstance(event_log, FastSqliteEventLogStorage)
        assert sorted(event_log.get_all_run_ids()) == sorted(runs)  # the template is not taken for a run
        folder = Path(event_log._base_dir)
    templates = list((folder / RUN_TEMPLATE_DIR).glob("dagster-*.db"))
    assert len(templates) == 1 and not list((folder / RUN_TEMPLATE_DIR).glob("*.db-wal"))

    made = tmp_path / "made-by-dagster.db"  # the schema Dagster's own setup gives a run's database
    engine = db.create_engine(f"sqlite:///{made}")
    try:
        FastSqliteEventLogStorage(str(tmp_path / "other"))._initdb(engine)
    finally:
        engine.dispose()
    assert _schema(folder / f"{runs[1]}.db") == _schema(made)


def test_an_existing_run_database_is_never_replaced(tmp_path):
    storage = FastSqliteEventLogStorage(str(tmp_path))
    with storage._connect("run-a") as conn:
        conn.execute(db.text("CREATE TABLE kept (x INTEGER)"))
    fresh = FastSqliteEventLogStorage(str(tmp_path))  # another process opening the same run's database
    with fresh._connect("run-a") as conn:
        assert db.inspect(conn).has_table("kept")


@dg.asset(check_specs=[dg.AssetCheckSpec("positive", asset="checked")])
def checked():
    yield dg.MaterializeResult(check_results=[dg.AssetCheckResult(passed=True)])


def test_the_index_is_asked_for_a_table_once_it_has_it(tmp_path, monkeypatch):
    """Dagster asks whether the event index has a table before most event writes, through a new engine each
    time; the storage asks once per table it has."""
    asked: list[str] = []
    has_table = SqliteEventLogStorage.has_table

    def counted(self, table_name: str) -> bool:
        asked.append(table_name)
        return has_table(self, table_name)

    monkeypatch.setattr(SqliteEventLogStorage, "has_table", counted)
    home = tmp_path / "home"
    home.mkdir()
    storage = {"custom": {"module": "right_rag_dagster.orchestration.storage", "class": "FastSqliteStorage",
                          "config": {"base_dir": str(home)}}}
    with dg.instance_for_test(temp_dir=str(home), overrides={"storage": storage}) as instance:
        for _ in range(3):
            assert dg.materialize([checked], instance=instance).success
        assert instance.event_log_storage.has_table("asset_check_executions")
        assert not instance.event_log_storage.has_table("no_such_table")
        assert not instance.event_log_storage.has_table("no_such_table")
        checks = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(dg.AssetKey("checked"), "positive"), limit=10)
    assert len(checks) == 3  # the writes that asked still happened
    found = [name for name in asked if name != "no_such_table"]
    assert len(found) == len(set(found)) and "asset_check_executions" in found
    assert asked.count("no_such_table") == 2  # a table not there is asked about again
