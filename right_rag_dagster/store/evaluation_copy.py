"""Bring the evaluation store's copy of the project's content up to date, copying only what changed.

Each part of a document the evaluation reads (its ``documents`` row, its active ``units``, its chunks of one
project chunker) is signed in the project's store by a hash of its rows, computed in DuckDB (no text leaves it).
The evaluation store keeps the signature it copied in its own ``step_state`` (step ``copy:<part>``), written in
the transaction that copies the rows, so the next evaluation re-copies only the parts whose rows changed and
deletes the documents that left the project, with every row cut from them (baseline chunks included).

Units are copied only for context expansion (``expand`` in ``[right-rag.retrieval]``, their only reader in a
search) and for playground recordings (citations in their unit), as they are now, without their history:
they are about two fifths of the copy, and the history of every edit grew it by half after three edits of a
tenth of the documents.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import StoreError
from .db import Store, utcnow
from .sql import execute

COPY_STEP = "copy:"
"""Prefix of the evaluation store's ``step_state`` steps that hold the signatures of copied parts."""
SOURCE = "src"
ROWS = {
    "documents": "SELECT * FROM {db}.documents",
    "document_texts": "SELECT * FROM {db}.document_texts",
    "units": "SELECT * EXCLUDE (changes) FROM {db}.units WHERE active",
    "chunks": "SELECT * FROM {db}.chunks",
}
"""What the evaluation copies of each table the searches and the judge read (the rest are left out)."""

_SIGNATURES = f"""
CREATE OR REPLACE TEMP TABLE copy_wanted AS
SELECT 'documents' AS part, document_id, count(*) || ':' || bit_xor(hash(r)) AS signature
  FROM ({ROWS["documents"].format(db=SOURCE)}) AS r GROUP BY document_id
UNION ALL
SELECT 'document_texts', document_id, count(*) || ':' || bit_xor(hash(r))
  FROM ({ROWS["document_texts"].format(db=SOURCE)}) AS r GROUP BY document_id
UNION ALL
SELECT 'units', document_id, count(*) || ':' || bit_xor(hash(r))
  FROM ({ROWS["units"].format(db=SOURCE)}) AS r WHERE ? GROUP BY document_id
UNION ALL
SELECT 'chunks:' || chunker, document_id, count(*) || ':' || bit_xor(hash(r))
  FROM ({ROWS["chunks"].format(db=SOURCE)}) AS r WHERE list_contains(?::VARCHAR[], chunker) GROUP BY chunker, document_id
"""
_HELD = f"""
CREATE OR REPLACE TEMP TABLE copy_held AS
SELECT substr(step, {len(COPY_STEP) + 1}) AS part, document_id, cache_key AS signature FROM step_state
 WHERE starts_with(step, '{COPY_STEP}') AND list_contains(?::VARCHAR[], substr(step, {len(COPY_STEP) + 1}))
"""


@dataclass(frozen=True)
class CopyCounts:
    """Documents whose rows were (re)copied, in all and per part, and documents deleted because they left the
    project."""

    documents: int
    parts: dict[str, int]
    removed: int


def copy_changes(store: Store, source: Path, chunkers: Sequence[str], units: bool = True) -> CopyCounts:
    """Make the evaluation store's documents, ``chunkers``' chunks and (with ``units``, else none) units equal
    the project's, in one transaction; chunks of other chunkers are left as they are (baselines are cut by
    ``baseline_cache``)."""
    parts = ["documents", "document_texts", *(["units"] if units else []), *(f"chunks:{c}" for c in chunkers)]
    with store.write() as con:
        if not units:
            con.execute(f"DELETE FROM units; DELETE FROM step_state WHERE step = '{COPY_STEP}units'")
        attach_source(con, source)  # detached when this connection closes (not allowed inside the transaction)
        execute(con, _SIGNATURES, [units, list(chunkers)])
        execute(con, _HELD, [parts])
        # (part, document) to delete: changed or gone from the project; to insert: changed or new.
        con.execute("CREATE OR REPLACE TEMP TABLE copy_stale AS SELECT part, document_id FROM "
                    "(SELECT * FROM copy_wanted EXCEPT SELECT * FROM copy_held)")
        con.execute("CREATE OR REPLACE TEMP TABLE copy_redo AS SELECT part, document_id FROM copy_stale UNION "
                    "SELECT part, document_id FROM (SELECT part, document_id FROM copy_held EXCEPT "
                    "SELECT part, document_id FROM copy_wanted)")
        removed = _remove_gone(con)
        copied = {part: _recopy(con, part) for part in parts}
        documents = con.execute("SELECT count(DISTINCT document_id) FROM copy_stale").fetchone()[0]
        con.execute("DELETE FROM step_state WHERE step || chr(31) || document_id IN "
                    f"(SELECT '{COPY_STEP}' || part || chr(31) || document_id FROM copy_redo)")
        execute(con, f"INSERT INTO step_state SELECT '{COPY_STEP}' || w.part, w.document_id, w.signature, NULL, "
                     "NULL, ? FROM copy_wanted AS w SEMI JOIN copy_stale AS s USING (part, document_id)", [utcnow()])
    return CopyCounts(documents, {part: n for part, n in copied.items() if n}, removed)


def _remove_gone(con: duckdb.DuckDBPyConnection) -> int:
    """Delete every row (any chunker, any step) of the documents the project no longer has."""
    con.execute("CREATE OR REPLACE TEMP TABLE copy_gone AS "
                "SELECT document_id FROM documents UNION SELECT document_id FROM units "
                f"UNION SELECT document_id FROM chunks EXCEPT SELECT document_id FROM {SOURCE}.documents")
    for table in (*ROWS, "step_state"):
        con.execute(f"DELETE FROM {table} WHERE document_id IN (SELECT document_id FROM copy_gone)")
    return con.execute("SELECT count(*) FROM copy_gone").fetchone()[0]


def _recopy(con: duckdb.DuckDBPyConnection, part: str) -> int:
    """Replace one part's rows of the documents whose signature changed; how many documents it re-copied."""
    table, _, chunker = part.partition(":")
    only_chunker = " AND chunker = ?" if chunker else ""
    params = [part, *([chunker] if chunker else [])]
    execute(con, f"DELETE FROM {table} WHERE document_id IN "
                 f"(SELECT document_id FROM copy_redo WHERE part = ?){only_chunker}", params)
    execute(con, f"INSERT INTO {table} BY NAME SELECT * FROM ({ROWS[table].format(db=SOURCE)}) WHERE document_id IN "
                 f"(SELECT document_id FROM copy_stale WHERE part = ?){only_chunker}", params)
    return execute(con, "SELECT count(*) FROM copy_stale WHERE part = ?", [part]).fetchone()[0]


def attach_source(con: duckdb.DuckDBPyConnection, path: Path, timeout: float = 60.0) -> None:
    """Attach the project's store read-only as ``src``, waiting while an indexing run holds its lock."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            con.execute(f"ATTACH '{_sql_string(path)}' AS {SOURCE} (READ_ONLY)")
            return
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise StoreError(f"cannot read {path} for evaluation: {exc}") from exc
            time.sleep(0.1)


def _sql_string(path: Path) -> str:
    return str(path).replace("'", "''")
