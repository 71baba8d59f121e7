"""fts's Porter ``stem`` outside the store: a private in-memory DuckDB with the extension loaded, and a cache.

The same function the store's SQL calls, so terms stemmed here (a worker stemming its chunks, a question) equal
terms stemmed there. Loading the extension checks its signature, tens of milliseconds: ``warm`` lets a process
pay that while it waits for something else (a worker waiting for its first document).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import duckdb

from ..store.extensions import load_extension
from ..store.sql import literal

CACHE_SIZE = 200_000
"""Tokens whose stems are kept; the cache is emptied when it grows past this (a long index run's vocabulary)."""

_connection: duckdb.DuckDBPyConnection | None = None
_cache: dict[str, str] = {}
_lock = threading.Lock()


def warm() -> None:
    """Load the extension now, so the first stem costs no more than the others."""
    with _lock:
        _connect()


def stems(tokens: Iterable[str]) -> dict[str, str]:
    """The Porter stem of each distinct token."""
    wanted = dict.fromkeys(tokens)
    with _lock:
        missing = [t for t in wanted if t not in _cache]
        found: dict[str, str] = {}
        if missing:
            found = dict(zip(missing, _connect().execute(
                f"SELECT list(stem(t, 'porter')) FROM unnest({literal(missing)}::VARCHAR[]) AS u(t)").fetchone()[0]))
            if len(_cache) + len(found) > CACHE_SIZE:
                _cache.clear()
            _cache.update(found)
        return {t: found[t] if t in found else _cache[t] for t in wanted}


def _connect() -> duckdb.DuckDBPyConnection:
    global _connection
    if _connection is None:
        con = duckdb.connect()
        load_extension(con, "fts")
        _connection = con
    return _connection
