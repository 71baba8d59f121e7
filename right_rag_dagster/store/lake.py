"""The DuckLake backend: the same tables, catalog in PostgreSQL, data files on a path every writer shares.

A DuckLake connection is an in-memory DuckDB with the lake attached and selected (``USE``), so every statement
of the store runs unchanged. Several processes (on several machines) write at once: each transaction commits
to the catalog; two that touch the same rows conflict at commit and the loser retries (``is_conflict``).

DuckLake has no PRIMARY KEY, UNIQUE or indexes, no non-literal column defaults and no fixed-size arrays.
The store's writers never relied on the keys (they delete a document's rows before inserting them, in one
transaction: see migration 3 of schema.sql), so ``lake_sql`` applies each migration without them.
"""

from __future__ import annotations

import re

import duckdb

from ..errors import StoreError
from .settings import LAKE_NAME, LakeSettings  # noqa: F401 (LAKE_NAME re-exported for the store)

EXTENSIONS = ("postgres_scanner", "ducklake")


class StoreConflictError(StoreError):
    """Another writer committed a change to the same rows first; the transaction can be run again."""


def connect(settings: LakeSettings, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached and in use (extensions loaded from their packages)."""
    from .extensions import load_extension

    con = duckdb.connect()
    try:
        con.execute("SET autoinstall_known_extensions = false")
        for name in EXTENSIONS:
            load_extension(con, name)
        con.execute(settings.attach_sql(read_only))
        con.execute(f"USE {LAKE_NAME}")
    except BaseException:
        con.close()
        raise
    return con


_CONFLICT = ("transaction conflict", "conflict", "concurrent", "could not serialize", "deadlock detected")


def is_conflict(exc: BaseException) -> bool:
    """A commit that lost to another writer's (DuckLake reports it as a transaction conflict)."""
    text = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(s in text for s in _CONFLICT)


def lake_sql(sql: str) -> str:
    """A migration as DuckLake can apply it: no key constraints or indexes, no ADD COLUMN defaults (readers
    already coalesce those columns and writers always give them), no DROP NOT NULL (migration 3 recreated the
    tables without NOT NULL, and DuckLake refuses to drop a constraint that is not there)."""
    sql = re.sub(r",\s*PRIMARY KEY\s*\([^)]*\)", "", sql)
    sql = re.sub(r"\b(PRIMARY KEY|UNIQUE)\b", "", sql)
    sql = re.sub(r"^\s*(CREATE|DROP) INDEX[^;]*;", "", sql, flags=re.M)
    sql = re.sub(r"(ADD COLUMN \w+ \w+) DEFAULT [^;]+;", r"\1;", sql)
    return re.sub(r"^\s*ALTER TABLE \w+ ALTER COLUMN \w+ DROP NOT NULL;", "", sql, flags=re.M)
