"""``dagster.yaml`` for a shared deployment: Dagster's run, event-log and schedule storage in PostgreSQL, and
the store's writing steps allowed as many at once as there are writers.

The embedded default (``home.py``) keeps Dagster's storage in SQLite files and one writer at a time, because
the DuckDB file takes one writing process. With a DuckLake store (``[right-rag.store] backend = "ducklake"``)
several runs write at once, on one machine or many, and SQLite files on one disk no longer fit: every
process that launches, runs or watches runs reads and writes the same PostgreSQL database instead.

Written by ``write_postgres_dagster_home``; the same text is in docs/deployment.md (a test keeps them equal).
Needs the ``postgres`` extra (dagster-postgres, SQLAlchemy < 2.1, psycopg).
"""

from __future__ import annotations

from pathlib import Path

URL_ENV = "RIGHT_RAG_DAGSTER_POSTGRES_URL"
"""postgresql://user:password@host:port/database of Dagster's storage (kept out of the file: it may hold a
password)."""

POSTGRES_DAGSTER_YAML = """\
# Dagster on PostgreSQL: run, event-log and schedule storage (sensor ticks and cursors, dynamic partitions,
# backfills) in one database that every Dagster process shares (webserver, daemon, run workers). Set
# {url_env}=postgresql://user:password@host:5432/dagster in their environment. It is dagster-postgres' storage
# with pooled connections (dagster-postgres connects once per query; see right_rag_dagster/orchestration/
# postgres_storage.py): each process keeps up to 6 connections open, 2 per storage.
storage:
  custom:
    module: right_rag_dagster.orchestration.postgres_storage
    class: PooledPostgresStorage
    config:
      postgres_url:
        env: {url_env}
# The writing steps of index runs use the "right_rag_store" pool. On a DuckLake store writers of different
# documents commit concurrently, so the pool is sized to the number of writers (one per core or machine that
# indexes); conflicting commits are retried by the store.
concurrency:
  pools:
    default_limit: {writers}
# Sensor-requested runs start at once; the pool above decides how many write at the same time.
run_coordinator:
  module: dagster.core.run_coordinator
  class: DefaultRunCoordinator
# A run whose process died is marked failed and its pool slot freed, so later runs never wait for it.
run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  poll_interval_seconds: 30
  free_slots_after_run_end_seconds: 30
telemetry:
  enabled: false
"""


def postgres_dagster_yaml(writers: int) -> str:
    """The text of dagster.yaml for ``writers`` concurrent writing steps."""
    if writers < 1:
        raise ValueError(f"writers must be at least 1, not {writers}")
    return POSTGRES_DAGSTER_YAML.format(url_env=URL_ENV, writers=writers)


def write_postgres_dagster_home(home: Path, writers: int) -> Path:
    """Write ``home/dagster.yaml`` for PostgreSQL storage (set DAGSTER_HOME=home and the URL variable)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "dagster.yaml"
    path.write_text(postgres_dagster_yaml(writers), encoding="utf-8")
    return path
