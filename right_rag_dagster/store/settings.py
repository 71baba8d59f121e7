"""``[right-rag.store]`` of right_rag.toml: which backend holds the store (read without importing DuckDB, so
the worker processes that load the project never import it)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..errors import ConfigError

BACKENDS = ("duckdb", "ducklake")
CATALOG_ENV = "RIGHT_RAG_STORE_CATALOG"
"""Overrides ``catalog`` of ``[right-rag.store]``: the same right_rag.toml on a laptop and a cluster (and a
catalog with a password stays out of the file)."""
DATA_PATH_ENV = "RIGHT_RAG_STORE_DATA_PATH"
LAKE_NAME = "right_rag_lake"
"""The name the lake is attached under in every connection."""
DATA_INLINING_ROW_LIMIT = 0
"""DuckLake 1.5.5 writes inserts and deletes of at most 10 rows (its default) into tables of the catalog
database instead of Parquet files, and every later read of the table then scans those catalog tables too. The
store writes in batches (hundreds of rows per table and commit), so only its small writes (a batch's
rejections, the refresh mark) were inlined: with inlining off, one writer of the scale-out demo's 204-document
subset used 22.7 CPU seconds instead of 25.8 (2 runs each, interleaved, load 4-7), and with the limit at 1,000
34.3. Set on every ATTACH (DuckLake keeps the option per connection)."""


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class LakeSettings:
    """Where a DuckLake store lives: ``catalog`` as DuckLake takes it (``postgres:dbname=... host=...``, or a
    DuckDB/SQLite file path) and ``data_path``, the folder (or object-store prefix) of its Parquet files."""

    catalog: str
    data_path: str

    def attach_sql(self, read_only: bool = False) -> str:
        options = [f"DATA_PATH {_quote(self.data_path)}", f"DATA_INLINING_ROW_LIMIT {DATA_INLINING_ROW_LIMIT}"]
        if read_only:
            options.append("READ_ONLY")
        return f"ATTACH {_quote('ducklake:' + self.catalog)} AS {LAKE_NAME} ({', '.join(options)})"

    def describe(self) -> str:
        """The catalog without a password (for messages)."""
        return mask_secrets(self.catalog)


def mask_secrets(text: str) -> str:
    """``text`` with libpq passwords replaced by *** (DuckDB's connection errors quote the whole string)."""
    return re.sub(r"password=[^\s\"']+", "password=***", text)


def lake_settings(section: dict, root: str, config_path: str) -> LakeSettings | None:
    """``[right-rag.store]`` as lake settings, or None for the embedded DuckDB file (the default).

    ``catalog`` and ``data_path`` can come from RIGHT_RAG_STORE_CATALOG / RIGHT_RAG_STORE_DATA_PATH instead;
    a relative ``data_path`` is taken from the project folder."""
    unknown = set(section) - {"backend", "catalog", "data_path"}
    if unknown:
        raise ConfigError(f"unknown keys in [right-rag.store] of {config_path}: {sorted(unknown)}; "
                          "known: ['backend', 'catalog', 'data_path']")
    backend = section.get("backend", "duckdb")
    if backend not in BACKENDS:
        raise ConfigError(f"[right-rag.store] backend in {config_path} is {backend!r}; use one of {list(BACKENDS)}")
    if backend == "duckdb":
        return None
    catalog = os.environ.get(CATALOG_ENV) or section.get("catalog")
    data_path = os.environ.get(DATA_PATH_ENV) or section.get("data_path")
    if not catalog or not data_path:
        raise ConfigError(f"backend = \"ducklake\" in {config_path} needs catalog (e.g. \"postgres:dbname=rag "
                          f"host=db port=5432 user=rag\", or {CATALOG_ENV}) and data_path (a folder all writers "
                          f"share, or {DATA_PATH_ENV})")
    data_path = str(data_path)
    if "://" not in data_path:
        data_path = os.path.join(root, data_path).rstrip("/") + "/"
    return LakeSettings(catalog=str(catalog), data_path=data_path)
