"""Rows of documents, units, chunks, coverage, rejections and step state, and reading them back.

Row builders are shared by immediate writes (one call, one transaction of the caller) and by ``WriteBatch``,
which applies a whole batch of documents in bulk.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from ..core.coverage import Coverage
from ..core.hashing import to_jsonable
from ..core.model import Chunk, Document, Unit
from ..core.routing import Rejection
from ..core.steps import UNITS
from ..core.units import unit_paths, units_fingerprint, walk_units  # noqa: F401 (re-exported)
from .batch import delete_where_in, insert_rows
from .db import utcnow
from .sql import execute
from .texts import read_texts, text_rows  # noqa: F401 (text_rows re-exported)
from .unit_history import (
    Reference,
    UnitRow,
    change_from_entry,
    decode_history,
    encode_history,
    is_compact,
)

Connection = duckdb.DuckDBPyConnection


def _json(value: Any) -> str:
    return json.dumps(to_jsonable(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


# -- row builders -------------------------------------------------------------------------------------------

def document_row(document: Document | None, *, document_id: str, partition_key: str, path: str, content_hash: str,
                 size_bytes: int, mtime: float, loader: str | None, loader_version: str | None,
                 data_version: str) -> list[Any]:
    """The ``documents`` row of a file (``document`` None records a file that failed to load); its text goes to
    ``document_texts`` (``texts.text_rows``)."""
    return [document_id, partition_key, path, content_hash, size_bytes, mtime, loader, loader_version,
            "loaded" if document else "rejected",
            list(document.page_starts) if document else None, list(document.page_labels) if document else None,
            document.page_count if document else None, _json(document.metadata if document else {}),
            data_version, utcnow()]


def unit_rows(document: Document, units: Sequence[Unit], parser: str, parser_version: str,
              fresh_ids: set[str] | frozenset[str] = frozenset()) -> list[list[Any]]:
    """One ``units`` row per unit of the trees, in pre-order (deleted units keep their history).

    The history of a unit in ``fresh_ids`` (new in this parse) is exactly what ``Unit`` derives from its
    current state, so it is stored as NULL and rebuilt on read: the first index writes half as much. Other
    histories are stored against the rows (``unit_history``): only what the rows do not hold.
    """
    paths = unit_paths(units)
    key_paths = unit_paths(units, "key")
    rows = []
    walked = list(walk_units(units))
    for ordinal, unit in enumerate(walked):
        active = not unit.changes or unit.changes[-1].change_type != "DeleteUnit"
        end = unit.source_end
        rows.append([
            unit.id, document.id, parser, parser_version, unit.parent_id, ordinal, len(key_paths[unit.id]) - 1,
            _json(list(key_paths[unit.id])), _json(list(paths[unit.id])), unit.topic, unit.temporal_topic,
            None if unit.source_start is not None and unit.fulltext == document.text[unit.source_start:end]
            else unit.fulltext, unit.source_start, end, document.page_at(unit.source_start),
            document.page_at(None if end is None else max(unit.source_start or 0, end - 1)),
            _opt_str(unit.attributes.get("unit_type")), _opt_str(unit.attributes.get("role")),
            _json(unit.attributes), _json(unit.metadata), None, active,
        ])
    if any(unit.id not in fresh_ids for unit in walked):
        for row, history in zip(rows, encode_unit_histories(document.id, document.text, walked, fresh_ids)):
            row[20] = history
    return rows


def encode_unit_histories(document_id: str, text: str | None, walked: Sequence[Unit],
                          fresh_ids: set[str] | frozenset[str], ordinals: Sequence[int] | None = None
                          ) -> list[str | None]:
    """The ``changes`` column of a document's units (``walked``: every unit, parents first, at ``ordinals``, by
    default 0, 1, 2...): NULL for those in ``fresh_ids``, the others' histories stored against the rows."""
    ordinals = list(range(len(walked))) if ordinals is None else list(ordinals)
    reference = Reference.build(document_id, [
        UnitRow(unit.id, unit.parent_id, ordinal, unit.key, unit.topic, unit.temporal_topic, unit.fulltext,
                unit.source_start, unit.source_end,
                text[unit.source_start:unit.source_end] if text is not None and unit.source_start is not None else "",
                _json(unit.attributes), _json(unit.metadata))
        for unit, ordinal in zip(walked, ordinals)])
    by_id = {unit.id: unit for unit in walked}
    entries: dict[str, list[dict[str, Any]]] = {}

    def plain(unit_id: str) -> list[dict[str, Any]]:  # the history as it reads back: JSON data
        if unit_id not in entries:
            entries[unit_id] = json.loads(_json(by_id[unit_id].changes))
        return entries[unit_id]

    histories: list[str | None] = []
    for unit, ordinal in zip(walked, ordinals):
        children = {sub.id for sub in unit.subunits}
        histories.append(None if unit.id in fresh_ids else encode_history(
            plain(unit.id), ordinal, reference,
            lambda unit_id, children=children: ([change_from_entry(e) for e in plain(unit_id)]
                                                if unit_id in children else None)))
    return histories


CHUNK_TEXT_HASH_SQL = "md5(concat_ws(chr(31), '1', coalesce(CAST(section_path AS VARCHAR), ''), fulltext))"
"""A chunk row's ``text_hash`` as SQL over its columns; ``chunk_text_hash`` computes the same in Python."""


def chunk_text_hash(section_path_json: str, fulltext: str) -> str:
    """md5 of the rule's version, the section path (as stored) and the text: what indexes compare to find
    the chunks whose indexed text may have changed."""
    return hashlib.md5(f"1\x1f{section_path_json}\x1f{fulltext}".encode("utf-8")).hexdigest()


def chunk_rows(document: Document, units: Sequence[Unit], chunker: str, chunker_version: str,
               chunks: Sequence[Chunk]) -> list[list[Any]]:
    """One ``chunks`` row per chunk, with section path, unit type, role and page labels resolved."""
    paths = unit_paths(units)
    by_id = {u.id: u for u in walk_units(units)}
    rows = []
    for ordinal, chunk in enumerate(chunks):
        unit = by_id.get(chunk.unit_id)
        attrs = chunk.attributes
        unit_attrs = unit.attributes if unit else {}
        section_path = _json(list(paths.get(chunk.unit_id, ())))
        rows.append([
            chunker, chunk.id, document.id, chunk.unit_id, ordinal, chunk.topic, chunk.fulltext,
            chunk.source_start, chunk.source_end, chunk.page_start, chunk.page_end,
            document.page_label(chunk.page_start), document.page_label(chunk.page_end), section_path,
            _opt_str(attrs.get("unit_type", unit_attrs.get("unit_type"))),
            _opt_str(attrs.get("role", unit_attrs.get("role"))),
            _json(attrs), _json(chunk.metadata), chunker_version, chunk_text_hash(section_path, chunk.fulltext),
        ])
    return rows


def coverage_row(document_id: str, parser: str, parser_version: str, coverage: Coverage,
                 units_by_type: dict[str, int]) -> list[Any]:
    return [document_id, parser, parser_version, coverage.document_chars, coverage.covered_chars,
            coverage.uncovered_chars, coverage.coverage_percent, coverage.units_total,
            coverage.units_with_source_span, _json(coverage.source_ranges), _json(units_by_type), utcnow()]


def rejection_row(rejection: Rejection, stage: str, *, stale: bool = False, content_hash: str | None = None
                  ) -> list[Any]:
    """A rejection; ``stale`` when an earlier version of the document still serves, ``content_hash`` the
    version of the file that was rejected."""
    return [rejection.document_id, stage, rejection.status, rejection.reason,
            _json(list(rejection.parser_names)), utcnow(), stale, content_hash]


def file_row(file: Any) -> list[Any]:
    """The ``files`` row of a scanned ``DocumentFile``: what this run saw on disk, whatever came of it."""
    return [file.document_id, file.partition_key, str(file.path), file.content_hash, file.size, file.mtime, utcnow()]


def state_row(step: str, document_id: str, cache_key: str, data_version: str | None,
              owner: str | None = None) -> list[Any]:
    return [step, document_id, cache_key, data_version, owner, utcnow()]


# -- immediate writes (one statement group in the caller's transaction) -------------------------------------

def upsert_document(con: Connection, document: Document | None, **fields: Any) -> None:
    """Insert or replace the row and the text of one document."""
    for table in ("documents", "document_texts"):
        execute(con, f"DELETE FROM {table} WHERE document_id = ?", [fields["document_id"]])
    insert_rows(con, "documents", [document_row(document, **fields)])
    insert_rows(con, "document_texts", text_rows(fields["document_id"], document.text if document else None))


def replace_units(con: Connection, document: Document, units: Sequence[Unit], parser: str,
                  parser_version: str) -> None:
    """Store a document's unit trees (active and deleted), replacing what was there."""
    execute(con, "DELETE FROM units WHERE document_id = ?", [document.id])
    insert_rows(con, "units", unit_rows(document, units, parser, parser_version))


def replace_chunks(con: Connection, document: Document, units: Sequence[Unit], chunker: str,
                   chunker_version: str, chunks: Sequence[Chunk]) -> None:
    """Store a document's chunks for one chunker, replacing what was there."""
    execute(con, "DELETE FROM chunks WHERE document_id = ? AND chunker = ?", [document.id, chunker])
    insert_rows(con, "chunks", chunk_rows(document, units, chunker, chunker_version, chunks))


def record_rejection(con: Connection, rejection: Rejection, stage: str) -> None:
    execute(con, "DELETE FROM rejections WHERE document_id = ?", [rejection.document_id])
    insert_rows(con, "rejections", [rejection_row(rejection, stage)])


def delete_document(con: Connection, document_id: str) -> None:
    """Remove every trace of a document that left the corpus (lineage of past runs is kept)."""
    for table in ("documents", "document_texts", "files", "units", "chunks", "coverage", "rejections", "step_state"):
        delete_where_in(con, table, "document_id", [document_id])


def get_step_state(con: Connection, step: str, document_id: str) -> tuple[str, str | None, str | None] | None:
    """(cache_key, data_version, owner) of the last successful run of ``step`` on the document."""
    row = execute(con, "SELECT cache_key, data_version, owner FROM step_state WHERE step = ? AND document_id = ?",
                  [step, document_id]).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def step_states(con: Connection, document_ids: Sequence[str]) -> dict[tuple[str, str],
                                                                       tuple[str, str | None, str | None]]:
    """(step, document id) -> (cache_key, data_version, owner) for every step of the documents, in one query."""
    rows = execute(con, "SELECT step, document_id, cache_key, data_version, owner FROM step_state "
                        "WHERE list_contains(?::VARCHAR[], document_id)", [list(document_ids)]).fetchall()
    return {(step, document_id): (key, version, owner) for step, document_id, key, version, owner in rows}


def document_owners(con: Connection, document_ids: Sequence[str]) -> dict[str, str | None]:
    """Document id -> the unit parser that owns it (its units step's owner; None: rejected or never parsed)."""
    rows = execute(con, "SELECT document_id, owner FROM step_state WHERE step = ? "
                        "AND list_contains(?::VARCHAR[], document_id)", [UNITS, list(document_ids)]).fetchall()
    found = dict(rows)
    return {document_id: found.get(document_id) for document_id in document_ids}


def set_step_state(con: Connection, step: str, document_id: str, cache_key: str, data_version: str | None,
                   owner: str | None = None) -> None:
    execute(con, "DELETE FROM step_state WHERE step = ? AND document_id = ?", [step, document_id])
    insert_rows(con, "step_state", [state_row(step, document_id, cache_key, data_version, owner)])


def replace_plugin_errors(con: Connection, errors: Sequence[tuple[str, str, str]]) -> None:
    """Record the spec files that failed to import at this index: (kind, file, message)."""
    con.execute("DELETE FROM plugin_errors")
    insert_rows(con, "plugin_errors", [[kind, file, message, utcnow()] for kind, file, message in errors])


def read_plugin_errors(con: Connection) -> list[tuple[str, str, str]]:
    return [tuple(r) for r in con.execute("SELECT kind, file, message FROM plugin_errors ORDER BY file").fetchall()]


# -- reads --------------------------------------------------------------------------------------------------

def read_document(con: Connection, document_id: str) -> Document | None:
    """The loaded document, or None when it is unknown or failed to load."""
    return read_documents(con, [document_id]).get(document_id)


def read_documents(con: Connection, document_ids: Sequence[str]) -> dict[str, Document]:
    """The loaded documents among ``document_ids``, in one query."""
    rows = execute(con,
        "SELECT document_id, path, metadata, page_starts, page_labels FROM documents "
        "WHERE list_contains(?::VARCHAR[], document_id) AND status = 'loaded'", [list(document_ids)]
    ).fetchall()
    texts = read_texts(con, [row[0] for row in rows])
    return {document_id: Document(id=document_id, text=texts.get(document_id, ""), source=path,
                                  metadata=json.loads(metadata or "{}"), page_starts=tuple(page_starts or ()),
                                  page_labels=tuple(page_labels or ()))
            for document_id, path, metadata, page_starts, page_labels in rows}


_SUBTREE = ("unit_id IN (WITH RECURSIVE tree(unit_id) AS (SELECT ? UNION ALL SELECT u.unit_id FROM units AS u "
            "JOIN tree ON u.parent_id = tree.unit_id) SELECT unit_id FROM tree) AND ")


def read_units(con: Connection, document_id: str, active_only: bool = False, root_id: str | None = None
               ) -> list[Unit]:
    """Rebuild a document's unit trees (with their history) from the store, in source order; with ``root_id``,
    only that unit's tree."""
    text = read_texts(con, [document_id]).get(document_id)
    rows = execute(con,
        f"SELECT {_UNIT_COLUMNS} FROM units WHERE {_SUBTREE if root_id else ''}"
        "document_id = ? ORDER BY ordinal", [*([root_id] if root_id else []), document_id]
    ).fetchall()
    return _unit_trees(document_id, text, rows, active_only, root_id)


def read_units_of(con: Connection, document_ids: Sequence[str], active_only: bool = False,
                  texts: Mapping[str, str | None] | None = None) -> dict[str, list[Unit]]:
    """``read_units`` of many documents in two queries (their texts, unless ``texts`` holds them, and their
    units), for a batch: one query per document made re-parsing or re-chunking every document slow."""
    wanted = sorted(set(document_ids))
    if not wanted:
        return {}
    known = dict(texts or {})
    missing = [document_id for document_id in wanted if document_id not in known]
    if missing:
        known.update(read_texts(con, missing))
    by_document: dict[str, list[tuple]] = {document_id: [] for document_id in wanted}
    for row in execute(con, f"SELECT document_id, {_UNIT_COLUMNS} FROM units WHERE list_contains(?::VARCHAR[], "
                            "document_id) ORDER BY document_id, ordinal", [wanted]).fetchall():
        by_document[row[0]].append(row[1:])
    return {document_id: _unit_trees(document_id, known.get(document_id), rows, active_only)
            for document_id, rows in by_document.items()}


_UNIT_COLUMNS = ("unit_id, parent_id, key_path, topic, temporal_topic, fulltext, source_start, source_end, "
                 "attributes, metadata, changes, active, ordinal")


def _unit_trees(document_id: str, text: str | None, rows: list[tuple], active_only: bool = False,
                root_id: str | None = None) -> list[Unit]:
    """Units from their stored rows (``_UNIT_COLUMNS``, in source order) and the document's text."""
    rows = [(*row[:5], row[5] if row[5] is not None or text is None else text[row[6]:row[7]], *row[6:])
            for row in rows]
    children: dict[str | None, list[tuple]] = {}
    for row in rows:
        children.setdefault(row[1], []).append(row)
    reference = _reference(document_id, text, rows) if any(is_compact(row[10]) for row in rows) else None

    def build(row: tuple) -> Unit:
        uid, parent, key_path, topic, temporal, fulltext, start, end, attrs, meta, changes, _active, ordinal = row
        built = [build(child) for child in children.get(uid, [])]  # all of them: mirrors replay their histories
        if is_compact(changes):
            histories = {unit.id: unit.changes for unit in built}
            history = [change_from_entry(e) for e in decode_history(changes, ordinal, reference, histories.get)]
        else:
            history = [change_from_entry(e) for e in json.loads(changes)] if changes else []
        return Unit(
            id=uid, document_id=document_id, topic=topic, key=json.loads(key_path)[-1], temporal_topic=temporal,
            fulltext=fulltext, source_start=start, source_end=end,
            raw_text=text[start:end] if text is not None and start is not None else "",
            parent_id=parent, attributes=json.loads(attrs or "{}"), metadata=json.loads(meta or "{}"),
            changes=history,
            subunits=[unit for unit, child in zip(built, children.get(uid, [])) if child[11] or not active_only],
        )

    roots = [row for row in rows if row[0] == root_id] if root_id else children.get(None, [])
    return [build(row) for row in roots if row[11] or not active_only]


def _reference(document_id: str, text: str | None, rows: list[tuple]) -> Reference:
    """The rows of ``read_units`` as ``unit_history`` reads histories against them."""
    return Reference.build(document_id, [
        UnitRow(uid, parent, ordinal, json.loads(key_path)[-1], topic, temporal, fulltext, start, end,
                text[start:end] if text is not None and start is not None else "", attrs, meta)
        for uid, parent, key_path, topic, temporal, fulltext, start, end, attrs, meta, _c, _a, ordinal in rows])
