"""Dagster's SQLite storage, without an fsync and a checkpoint per event.

Dagster's ``SqliteEventLogStorage`` creates an engine, opens a connection, commits and closes it for every event;
a materialization is written to two databases (the run's and the index), so each costs two commits (an fsync
each, in SQLite's default ``synchronous=FULL``) and two closes (the last connection to a WAL database checkpoints
it on close). Profiled on 800 materializations, commits and closes were 32 of 49 seconds. This storage keeps one
engine per database with pooled connections (so no close, hence no checkpoint, per event) and commits with
``synchronous=NORMAL``, which in WAL mode syncs at checkpoints: a crash of the machine (not of a process) can
lose the last events, never corrupt the database. Dagster's check of each database's schema revision reads its
migration scripts once per process instead of once per database, and a new run's database is a copy of one
Dagster made empty (``RUN_TEMPLATE_DIR``). Everything else is Dagster's own code.

Chosen in the project's dagster.yaml (``orchestration/home.py`` writes it)::

    storage:
      custom:
        module: right_rag_dagster.orchestration.storage
        class: FastSqliteStorage
        config:
          base_dir: {env: DAGSTER_HOME}
"""

from __future__ import annotations

import os
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as db
import yaml
from alembic.config import Config
from alembic.script import ScriptDirectory
from dagster._core.event_api import EventHandlerFn
from dagster._core.storage import sql as dagster_sql
from dagster._core.storage.event_log import SqliteEventLogStorage
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SqliteEventLogStorageWatchdog,
)
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import (
    DagsterSqliteStorage,
    _event_logs_directory,
)
from dagster._serdes import ConfigurableClassData
from dagster.version import __version__ as dagster_version
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool
from watchdog.events import FileSystemEvent
from watchdog.observers import Observer

ENGINES_KEPT = 8
"""Databases with an open engine at a time: the index and the runs being written (one per run)."""
RUN_TEMPLATE_DIR = ".right-rag-run-template"
"""Beside the runs' databases: an empty run database per Dagster version, made by Dagster's own schema setup, which
each new run's database is copied from. Creating its tables and indexes statement by statement, each synced to disk,
took a quarter of a second of every run; a copy takes a millisecond. (Not a ``*.db`` file of the runs' folder,
which Dagster would take for a run.)"""


class _ScriptsLoadedOnce:
    """Stands in for alembic's ``ScriptDirectory`` where Dagster checks a database's schema revision
    (``dagster._core.storage.sql.check_alembic_revision``): Dagster loads its ~90 migration scripts from disk for
    every database it opens (the runs, schedules, event index and each run's own: four per ``right-rag index``, a
    tenth of a second each); they are the installed package's files, the same for the whole process."""

    _loaded: dict[str | None, ScriptDirectory] = {}

    @classmethod
    def from_config(cls, config: Config) -> ScriptDirectory:
        location = config.get_main_option("script_location")
        if location not in cls._loaded:
            cls._loaded[location] = ScriptDirectory.from_config(config)
        return cls._loaded[location]


if getattr(dagster_sql, "ScriptDirectory", None) is ScriptDirectory:  # as the Dagster this was written for has it
    dagster_sql.ScriptDirectory = _ScriptsLoadedOnce  # type: ignore[misc]


def _fast_connection(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class _WalWatchdog(SqliteEventLogStorageWatchdog):
    """Dagster's watcher of a run's events (the UI's live log), also woken by the run database's write-ahead log,
    where events stay until a checkpoint now that connections are not closed after each one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._patterns = [self._log_path, self._log_path + "-wal"]

    def on_modified(self, event: FileSystemEvent) -> None:
        self._process_log()


class FastSqliteEventLogStorage(SqliteEventLogStorage):
    """``SqliteEventLogStorage`` with one pooled engine per shard and ``synchronous=NORMAL`` commits."""

    def watch(self, run_id: str, cursor: str | None, callback: EventHandlerFn) -> None:
        if not self._obs:
            self._obs = Observer()
            self._obs.start()
        watchdog = _WalWatchdog(self, run_id, callback, cursor)
        self._watchers[run_id][callback] = (watchdog, self._obs.schedule(watchdog, self._base_dir, recursive=True))

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()
        self._tables_found: set[str] = set()
        super().__init__(base_dir, inst_data)

    def has_table(self, table_name: str) -> bool:
        """Whether the event index has the table: Dagster asks before most event writes, each time through a new
        engine and connection (40 times in a one-document index run); a table once found stays (migrations only
        add tables), so only absent ones are asked again."""
        if table_name in self._tables_found:
            return True
        found = super().has_table(table_name)
        if found:
            self._tables_found.add(table_name)
        return found

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.pop(shard, None)
            if engine is None:
                engine = db.create_engine(
                    self.conn_string_for_shard(shard), poolclass=QueuePool, pool_size=1, max_overflow=4,
                    connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False})
                db.event.listen(engine, "connect", _fast_connection)
            self._engines[shard] = engine
            while len(self._engines) > ENGINES_KEPT:
                _, evicted = self._engines.popitem(last=False)
                evicted.dispose()
            return engine

    def _copy_run_template(self, shard: str) -> None:
        """Create a new run's database as a copy of the empty one made for this Dagster version (made first if
        missing); a database that exists already is left alone. Dagster's check of its schema follows."""
        path = self.path_for_shard(shard)
        if os.path.exists(path):
            return
        template = os.path.join(self._base_dir, RUN_TEMPLATE_DIR, f"dagster-{dagster_version}.db")
        if not os.path.exists(template):
            os.makedirs(os.path.dirname(template), exist_ok=True)
            making = f"{template}.{os.getpid()}.{threading.get_ident()}"
            engine = db.create_engine(f"sqlite:///{making}", connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
            try:
                self._initdb(engine)
            finally:
                engine.dispose()  # the last connection checkpoints: the file holds everything, no -wal beside it
            os.replace(making, template)
        copying = f"{path}.{os.getpid()}.copying"  # renamed into place whole: a reader never sees half a file
        shutil.copyfile(template, copying)
        os.replace(copying, path)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                if shard != INDEX_SHARD_NAME:
                    self._copy_run_template(shard)
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn:
                with conn.begin():
                    yield conn

    def delete_events(self, run_id: str) -> None:
        with self._engines_lock:  # its database file may be removed: let go of it first
            engine = self._engines.pop(run_id, None)
        if engine is not None:
            engine.dispose()
        super().delete_events(run_id)

    def dispose(self) -> None:
        with self._engines_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()
        super().dispose()


class FastSqliteStorage(DagsterSqliteStorage):
    """Dagster's SQLite storage (runs, events, schedules under ``base_dir``) with ``FastSqliteEventLogStorage``."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        super().__init__(base_dir, inst_data)
        self._event_log_storage = FastSqliteEventLogStorage(_event_logs_directory(base_dir))

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData, config_value: Any) -> FastSqliteStorage:  # type: ignore[override]
        os.makedirs(config_value["base_dir"], exist_ok=True)
        return cls(config_value["base_dir"], inst_data=inst_data)

    @property
    def event_storage_data(self) -> ConfigurableClassData | None:
        return ConfigurableClassData(__name__, "FastSqliteEventLogStorage",
                                     yaml.dump({"base_dir": _event_logs_directory(self.base_dir)},
                                               default_flow_style=False))
