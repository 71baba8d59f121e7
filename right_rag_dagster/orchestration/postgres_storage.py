"""Dagster's PostgreSQL storage, keeping its connections open instead of opening one per query.

``dagster-postgres`` builds its run, event-log and schedule storages on SQLAlchemy's ``NullPool``: every storage
call connects to PostgreSQL, which forks a backend for it, and disconnects. An index run writes a few events per
document, each a handful of calls: on the scale-out demo's 204-document subset one writer made 2,748 connections,
and the server's CPU (backend start-ups, not the statements: those took 1.4 s) was 21 s against 32 s for the
whole ``right-rag index``. Two writers made the server the bottleneck of both cores.

This storage is Dagster's own with each of its three engines on a small pool instead (what ``dagster-webserver``
does for itself with ``optimize_for_webserver``, but keeping two connections, not one: writing an asset event
asks whether a table exists on a second connection while the first is held, and with one kept connection that
second one was opened and closed for every event; and without the webserver's 15 s statement timeout). Every
Dagster process that loads dagster.yaml (webserver, daemon, run workers, right-rag's writers) then keeps up to
six idle connections (two per storage): size ``max_connections`` for that. Chosen in dagster.yaml
(``postgres_home.py`` writes it)::

    storage:
      custom:
        module: right_rag_dagster.orchestration.postgres_storage
        class: PooledPostgresStorage
        config:
          postgres_url: {env: RIGHT_RAG_DAGSTER_POSTGRES_URL}
"""

from __future__ import annotations

from typing import Any

from dagster._serdes import ConfigurableClassData
from dagster_postgres import DagsterPostgresStorage
from dagster_postgres.utils import create_pg_engine, get_token_provider_from_config, pg_url_from_config
from sqlalchemy.engine import Engine

POOL_SIZE = 2
"""Connections each storage keeps open: an event write holds one and asks for a second (see above)."""
MAX_OVERFLOW = 8
"""Connections opened beyond those while more threads use a storage at once (closed when given back)."""
POOL_RECYCLE_SECONDS = 3600
"""A kept connection older than this is replaced when next taken (the webserver's setting)."""


def pooled_engine(storage: Any) -> Engine:
    """An engine like the one dagster-postgres gave ``storage`` (same URL, token provider, options and
    autocommit), on a pool of ``POOL_SIZE`` kept connections."""
    kwargs: dict[str, Any] = {"isolation_level": "AUTOCOMMIT", "pool_size": POOL_SIZE, "max_overflow": MAX_OVERFLOW,
                              "pool_recycle": POOL_RECYCLE_SECONDS}
    options = storage._engine.url.query.get("options")  # noqa: SLF001 (as optimize_for_webserver keeps them)
    if options:
        kwargs["connect_args"] = {"options": options}
    return create_pg_engine(storage.postgres_url, storage._token_provider, **kwargs)  # noqa: SLF001


class PooledPostgresStorage(DagsterPostgresStorage):
    """``DagsterPostgresStorage`` whose run, event-log and schedule storages keep pooled connections."""

    def __init__(self, postgres_url: str, should_autocreate_tables: bool = True,
                 inst_data: ConfigurableClassData | None = None, token_provider: Any = None) -> None:
        super().__init__(postgres_url, should_autocreate_tables, inst_data, token_provider)
        for storage in (self._run_storage, self._event_log_storage, self._schedule_storage):
            old, storage._engine = storage._engine, pooled_engine(storage)  # noqa: SLF001
            old.dispose()  # a NullPool: it holds no connection

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData | None,  # type: ignore[override]
                          config_value: Any) -> PooledPostgresStorage:
        return cls(pg_url_from_config(config_value), config_value.get("should_autocreate_tables", True),
                   inst_data, get_token_provider_from_config(config_value))
