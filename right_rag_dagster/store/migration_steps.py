"""Python steps of migrations (``-- python: <name>`` in ``schema.sql``): what plain SQL cannot rewrite.

A step runs after its block's SQL, in the same transaction, with this version's code (``read_units_of``...): it expects
the tables as the last migration leaves them, so a later migration of those tables must keep it working."""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from ..core.units import walk_units
from .sql import execute, literal

UPDATE_ROWS = 500
"""Histories re-written per UPDATE statement (values inlined: ``sql``)."""


def compact_unit_histories(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 7: re-encode every stored unit history (a JSON list of full changes) in ``unit_history``'s form.

    Each document's units are read back as before (``read_units`` reads both forms) and their histories encoded
    as a re-index writes them, so the migrated rows are what writing the same units now would store."""
    from .content import encode_unit_histories, read_units_of

    documents = [row[0] for row in con.execute(
        "SELECT DISTINCT document_id FROM units WHERE changes IS NOT NULL "
        "AND NOT starts_with(ltrim(CAST(changes AS VARCHAR)), '{') ORDER BY 1").fetchall()]
    for document_id in documents:
        found = execute(con, "SELECT text FROM documents WHERE document_id = ?", [document_id]).fetchone()
        rows = execute(con, "SELECT unit_id, ordinal, changes IS NULL FROM units WHERE document_id = ?",
                       [document_id]).fetchall()
        ordinal_of = {unit_id: ordinal for unit_id, ordinal, _ in rows}
        text = found[0] if found else None  # documents.text until migration 8 moves it to document_texts
        walked = list(walk_units(read_units_of(con, [document_id], texts={document_id: text})[document_id]))
        encoded = encode_unit_histories(document_id, text, walked,
                                        {unit_id for unit_id, _, derived in rows if derived},
                                        [ordinal_of[unit.id] for unit in walked])
        updates = [(unit.id, history) for unit, history in zip(walked, encoded) if history is not None]
        for first in range(0, len(updates), UPDATE_ROWS):
            values = ", ".join(f"({literal(unit_id)}, {literal(history)})"
                               for unit_id, history in updates[first:first + UPDATE_ROWS])
            con.execute(f"UPDATE units SET changes = v.changes FROM (VALUES {values}) AS v(unit_id, changes) "
                        f"WHERE units.unit_id = v.unit_id AND units.document_id = {literal(document_id)}")


STEPS: dict[str, Callable[[duckdb.DuckDBPyConnection], None]] = {
    "compact_unit_histories": compact_unit_histories,
}


def run_step(name: str, con: duckdb.DuckDBPyConnection) -> None:
    """Run the migration step ``name`` on ``con`` (inside the migration's transaction)."""
    if name not in STEPS:
        raise KeyError(f"schema.sql names an unknown migration step {name!r}")
    STEPS[name](con)
