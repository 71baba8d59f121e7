"""Load DuckDB's ``fts`` and ``vss`` extensions from their PyPI packages, never from the network.

``duckdb_extensions.import_extension`` copies the file into ``~/.duckdb``; loading the packaged file by path
does the same job without writing outside the project. The packages must match duckdb's version exactly.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import duckdb

from ..errors import ConfigError


def extension_path(name: str) -> Path:
    """The ``<name>.duckdb_extension`` file shipped by the ``duckdb-extension-<name>`` package for this duckdb."""
    try:
        module = importlib.import_module(f"duckdb_extension_{name}")
    except ImportError as exc:
        raise ConfigError(f"DuckDB extension {name!r} is not installed: pip install "
                          f"duckdb-extension-{name}=={duckdb.__version__}") from exc
    path = Path(module.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise ConfigError(f"duckdb-extension-{name} has no build for duckdb {duckdb.__version__} ({path}): "
                          f"pin duckdb and duckdb-extension-{name} to the same version")
    return path


def is_loaded(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether extension ``name`` is loaded on ``con``."""
    loaded = con.execute(f"SELECT loaded FROM duckdb_extensions() WHERE extension_name = '{name}'").fetchone()
    return bool(loaded and loaded[0])


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Load extension ``name`` into ``con`` from its package (a no-op when it is already loaded)."""
    if not is_loaded(con, name):
        con.execute(f"LOAD '{extension_path(name)}'")
