"""Creating the store file so that a crash never leaves a file DuckDB refuses to open.

DuckDB creates a database file, then writes its headers. A process killed in between (``kill -9`` of the first
``right-rag index``, seen in CI) left an empty file that every later open refused ("exists, but it is not a valid
DuckDB database file"), so no index could run again until the user deleted it by hand. Here the new file is
made under a temporary name and linked into place: the store path is either absent or a database.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

import duckdb

logger = logging.getLogger("right_rag_dagster")

HEADER_BYTES = 3 * 4096
"""DuckDB's main header and its two database headers, written when the file is created: a shorter file holds
no data."""


def interrupted_creation(path: Path) -> bool:
    """Whether ``path`` is what a creation killed before DuckDB wrote its headers left behind: shorter than the
    headers and nothing but zeros (what a power loss leaves of unwritten pages). Any other file is kept, even one
    DuckDB cannot open: it may be the user's data."""
    try:
        if path.stat().st_size >= HEADER_BYTES:
            return False
        return not path.read_bytes().strip(b"\0")
    except FileNotFoundError:
        return False


def ensure_file(path: Path) -> bool:
    """Make ``path`` an empty DuckDB database unless one is there, replacing what an interrupted creation left.
    Returns True when this call created it; concurrent callers create it once."""
    if interrupted_creation(path):
        logger.warning("%s is an empty file left by an index run killed while creating the store; creating it "
                       "again", path)
        path.unlink(missing_ok=True)
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(path)
    making = _making(path, os.getpid())
    making.unlink(missing_ok=True)
    try:
        duckdb.connect(str(making)).close()  # headers written and synced; no write-ahead log is left
        try:
            os.link(making, path)  # fails if another process created the store meanwhile
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: rename, with a window between the check and it
            if path.exists():
                return False
            os.replace(making, path)
        return True
    finally:
        making.unlink(missing_ok=True)


def _making(path: Path, pid: int) -> Path:
    return path.with_name(f".{path.name}.{pid}.creating")


def _remove_abandoned(path: Path) -> None:
    """Remove the temporary files of creations whose process died before linking theirs into place."""
    for candidate in path.parent.glob(f".{path.name}.*.creating"):
        pid = candidate.name[len(path.name) + 2:-len(".creating")]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):
                candidate.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
