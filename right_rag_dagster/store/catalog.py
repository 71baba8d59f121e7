"""What the store knows of the documents folder, and its totals: the reads the planner, the sensor and the
command-line summary share, with named row shapes instead of positional tuples."""

from __future__ import annotations

from dataclasses import dataclass

from duckdb import DuckDBPyConnection as Connection

from ..core.steps import DOCUMENT
from .sql import execute


@dataclass(frozen=True)
class SeenFile:
    """A file as the last run saw it (``files``), or as it was indexed when no run has recorded it yet."""

    document_id: str
    partition_key: str
    content_hash: str
    mtime: float
    size_bytes: int


@dataclass(frozen=True)
class RejectionRow:
    document_id: str
    status: str
    reason: str
    stale: bool  # a failed new version: the last good one keeps serving


@dataclass(frozen=True)
class IndexTotals:
    """The figures ``right-rag index`` prints under its run."""

    rejections: tuple[RejectionRow, ...]
    active_units: int
    chunks_per_chunker: tuple[tuple[str, int], ...]
    coverage_mean: float | None
    coverage_min: float | None


def seen_files(con: Connection) -> dict[str, SeenFile]:
    """Every file the store has seen, by document id (the ``files`` row wins over the ``documents`` row)."""
    rows = execute(con,
        "SELECT document_id, partition_key, content_hash, mtime, size_bytes FROM files UNION ALL "
        "SELECT document_id, partition_key, content_hash, mtime, size_bytes FROM documents "
        "WHERE document_id NOT IN (SELECT document_id FROM files)").fetchall()
    return {row[0]: SeenFile(*row) for row in rows}


def scanned_files(con: Connection) -> dict[str, tuple[float, int, str]]:
    """document id -> (mtime, size, content hash) of the last scan: lets the next scan skip hashing unchanged files."""
    rows = execute(con, "SELECT document_id, mtime, size_bytes, content_hash FROM files").fetchall()
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def stored_documents(con: Connection) -> dict[str, str]:
    """document id -> partition key of every document the store knows (indexed, rejected or only seen)."""
    return dict(execute(con, "SELECT document_id, partition_key FROM documents UNION "
                             "SELECT document_id, partition_key FROM files").fetchall())


def done_marks(con: Connection) -> dict[str, tuple[str, str | None]]:
    """document id -> (cache key, data version) of the last outcome written for it in full."""
    return {row[0]: (row[1], row[2]) for row in execute(
        con, "SELECT document_id, cache_key, data_version FROM step_state WHERE step = ?", [DOCUMENT]).fetchall()}


def step_updated_at(con: Connection, step: str, document_id: str):  # noqa: ANN201 (a datetime or None)
    row = execute(con, "SELECT updated_at FROM step_state WHERE step = ? AND document_id = ?",
                  [step, document_id]).fetchone()
    return row[0] if row else None


def index_totals(con: Connection) -> IndexTotals:
    rejections = tuple(RejectionRow(*row) for row in execute(
        con, "SELECT document_id, status, reason, coalesce(stale, false) FROM rejections").fetchall())
    units = execute(con, "SELECT count(*) FROM units WHERE active").fetchone()[0]
    chunks = tuple(execute(con, "SELECT chunker, count(*) FROM chunks GROUP BY chunker ORDER BY chunker").fetchall())
    mean, low = execute(con, "SELECT avg(coverage_percent), min(coverage_percent) FROM coverage").fetchone()
    return IndexTotals(rejections, units, chunks, mean, low)
