"""fts's Porter ``stem`` outside the store: a private in-memory DuckDB with the extension loaded, and a cache.

The same function the index's SQL calls, so a question's terms meet the indexed ones.
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


def stems(tokens: Iterable[str]) -> dict[str, str]:
    """The Porter stem of each distinct token."""
    wanted = dict.fromkeys(tokens)
    with _lock:
        missing = [t for t in wanted if t not in _cache]
        found = dict(zip(missing, _stem(missing))) if missing else {}
        result = {t: found[t] if t in found else _cache[t] for t in wanted}
        if len(_cache) + len(found) > CACHE_SIZE:
            _cache.clear()
        _cache.update(found)
        return result


def _stem(tokens: list[str]) -> list[str]:
    """Stems of ``tokens``, in order. They go in as one string literal split on a separator no token holds: a
    query parameter makes DuckDB's Python client import pandas (+50 MB resident)."""
    if any(SEPARATOR in t for t in tokens):
        raise ValueError(f"a token holds {SEPARATOR!r}")
    joined = literal(SEPARATOR.join(tokens))
    return _connect().execute(f"SELECT list_transform(string_split({joined}, chr(31)), t -> stem(t, 'porter'))"
                              ).fetchone()[0]


SEPARATOR = "\x1f"


def _connect() -> duckdb.DuckDBPyConnection:
    global _connection
    if _connection is None:
        con = duckdb.connect()
        # One thread, and freed memory handed back: a process that answers questions for hours (the playground)
        # must not keep DuckDB's default 128 MB of freed memory for a few stems at a time.
        con.execute("SET threads = 1")
        con.execute("SET allocator_flush_threshold = '4MB'")
        load_extension(con, "fts")
        _connection = con
    return _connection
