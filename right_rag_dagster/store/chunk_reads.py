"""Reads of chunks, units and document text that search, answers and the playground make, with named rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from duckdb import DuckDBPyConnection as Connection

from .sql import execute, literal
from .texts import WHOLE_TEXTS_SQL, heads, in_groups, loaded_document_ids, metadata_titles, read_spans, read_texts


class ChunkPlace(NamedTuple):
    document_id: str
    unit_id: str | None
    source_start: int | None
    source_end: int | None
    section_path: str | None


class UnitNode(NamedTuple):
    """An active unit as the document tree shows it."""

    unit_id: str
    parent_id: str | None
    topic: str
    unit_type: str
    source_start: int | None
    source_end: int | None
    ordinal: int


class DocumentPages(NamedTuple):
    text: str
    page_labels: list[str] | None
    page_starts: list[int] | None


class UnitText(NamedTuple):
    """An active unit's text and provenance (page labels looked up in its document)."""

    unit_id: str
    text: str
    source_start: int | None
    source_end: int | None
    page_start: int | None
    page_end: int | None
    page_label_start: str | None
    page_label_end: str | None
    section_path: str | None


def chunk_count(con: Connection, chunker: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM chunks WHERE chunker = {literal(chunker)}").fetchone()[0])


def chunk_counts(con: Connection) -> dict[str, int]:
    """Chunks per chunker."""
    return {name: int(n) for name, n in con.execute("SELECT chunker, count(*) FROM chunks GROUP BY chunker").fetchall()}


def chunker_names(con: Connection) -> list[str]:
    """Chunkers that have chunks, by name."""
    return [row[0] for row in con.execute("SELECT DISTINCT chunker FROM chunks ORDER BY chunker").fetchall()]


def document_chunk_ids(con: Connection, chunker: str, document_ids: Sequence[str]) -> list[str]:
    """Ids of ``chunker``'s chunks of these documents."""
    return [r[0] for r in execute(con, "SELECT chunk_id FROM chunks WHERE chunker = ? AND "
                                       "list_contains(?::VARCHAR[], document_id)", [chunker, list(document_ids)]).fetchall()]


def chunks_fingerprint(con: Connection, chunker: str) -> str:
    """A cheap fingerprint of what would be indexed (computed in DuckDB, no text leaves it): when it matches
    the one stored at the last build, nothing needs to be read, tokenized or embedded."""
    count, digest = con.execute(f"SELECT count(*), bit_xor(hash(chunk_id, text_hash)) FROM chunks "
                                f"WHERE chunker = {literal(chunker)}").fetchone()
    return f"{count}:{digest}"


def chunk_rows(con: Connection, chunker: str, columns: Sequence[str], slice_rows: int) -> list[tuple]:
    """``columns`` of every chunk of ``chunker``, in no order, streamed ``slice_rows`` at a time (DuckDB keeping
    the order of a 100 MB document's texts would need more than the connection's memory budget)."""
    ordered = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]
    con.execute("SET preserve_insertion_order = false")
    try:
        result = con.execute(f"SELECT {', '.join(columns)} FROM chunks WHERE chunker = {literal(chunker)}")
        rows: list[tuple] = []
        while part := result.fetchmany(slice_rows):
            rows.extend(part)
    finally:
        con.execute(f"SET preserve_insertion_order = {'true' if ordered else 'false'}")
    return rows


def chunks_by_id(con: Connection, chunker: str, columns: Sequence[str], chunk_ids: list[str]) -> list[tuple]:
    return con.execute(f"SELECT {', '.join(columns)} FROM chunks WHERE chunker = {literal(chunker)} "
                       f"AND list_contains({literal(chunk_ids)}, chunk_id)").fetchall()


def stale_chunks(con: Connection, chunker: str, table: str | None) -> list[tuple[str, str]]:
    """(chunk id, text hash) of the chunks missing from ``table`` or held there with another text hash (all of
    them when ``table`` is None), in document order."""
    held = "" if table is None else (
        f"ANTI JOIN {table} AS held ON held.chunk_id = c.chunk_id AND held.text_hash = c.text_hash")
    return [(chunk_id, digest) for chunk_id, digest in con.execute(f"""
        SELECT c.chunk_id, coalesce(c.text_hash, '') FROM chunks AS c {held}
        WHERE c.chunker = {literal(chunker)} ORDER BY c.document_id, c.ordinal""").fetchall()]


def orphaned_chunk_ids(con: Connection, chunker: str, table: str) -> tuple[str, ...]:
    """Chunk ids ``table`` holds that are no longer chunks of ``chunker``."""
    rows = con.execute(f"SELECT chunk_id FROM {table} AS held WHERE NOT EXISTS (SELECT 1 FROM chunks AS c "
                       f"WHERE c.chunker = {literal(chunker)} AND c.chunk_id = held.chunk_id)").fetchall()
    return tuple(row[0] for row in rows)


def chunk_texts(con: Connection, chunker: str, chunk_ids: list[str]) -> list[tuple[str, str, str | None, str]]:
    """(chunk id, text hash, section path, full text) of ``chunk_ids``, in no order."""
    return execute(con, "SELECT chunk_id, coalesce(text_hash, ''), section_path, fulltext FROM chunks "
                        "WHERE chunker = ? AND chunk_id IN (SELECT unnest(?::VARCHAR[]))", [chunker, chunk_ids]).fetchall()


def chunk_place(con: Connection, chunker: str, chunk_id: str) -> ChunkPlace | None:
    row = con.execute("SELECT document_id, unit_id, source_start, source_end, section_path FROM chunks "
                      f"WHERE chunker = {literal(chunker)} AND chunk_id = {literal(chunk_id)}").fetchone()
    return ChunkPlace(*row) if row else None


def document_pages(con: Connection, document_id: str) -> DocumentPages:
    labels, starts = con.execute("SELECT page_labels, page_starts FROM documents WHERE document_id = "
                                 f"{literal(document_id)}").fetchone()
    return DocumentPages(read_texts(con, [document_id]).get(document_id), labels, starts)


def unit_tree(con: Connection, document_id: str) -> list[UnitNode]:
    """The document's active units, in document order."""
    return [UnitNode(*row) for row in con.execute(
        "SELECT unit_id, parent_id, topic, unit_type, source_start, source_end, ordinal "
        f"FROM units WHERE document_id = {literal(document_id)} AND active ORDER BY ordinal").fetchall()]


def unit_texts(con: Connection, unit_ids: list[str]) -> list[UnitText]:
    """The active units among ``unit_ids``; a unit stored without text (exactly its span) reads its span."""
    rows = execute(con,
        "SELECT u.unit_id, u.fulltext, u.source_start, u.source_end, u.page_start, u.page_end, "
        "d.page_labels[u.page_start], d.page_labels[u.page_end], u.section_path, u.document_id "
        "FROM units u JOIN documents d USING (document_id) "
        "WHERE u.unit_id IN (SELECT unnest(?::VARCHAR[])) AND u.active", [unit_ids]).fetchall()
    derived = [row for row in rows if row[1] is None and row[2] is not None]
    spans = dict(zip((row[0] for row in derived), read_spans(con, [(row[9], row[2], row[3]) for row in derived])))
    return [UnitText(row[0], row[1] if row[1] is not None else spans.get(row[0]), *row[2:9]) for row in rows]


def document_heads(con: Connection, chars: int) -> list[tuple[str, str | None, str | None]]:
    """(document id, its first ``chars`` characters, the title its loader recorded apart from the text) of every
    loaded document, by id."""
    found, titles = heads(con, chars), metadata_titles(con)
    return [(document_id, found.get(document_id), titles.get(document_id)) for document_id in loaded_document_ids(con)]


def parenthesised_capitals(con: Connection, lookback: int) -> list[str]:
    """Every ``(ABC)`` of the loaded documents' texts with up to ``lookback`` characters before it (where an
    acronym's expansion would be), read by the database a few hundred documents at a time."""
    pattern = f"(?s).{{0,{int(lookback)}}}\\([A-Z]{{2,6}}s?\\)"
    whole = WHOLE_TEXTS_SQL.format(where="list_contains(?::VARCHAR[], document_id)")
    found: list[str] = []
    for group in in_groups(loaded_document_ids(con)):
        found.extend(row[0] for row in execute(
            con, f"SELECT unnest(regexp_extract_all(t.text, ?)) FROM ({whole}) AS t", [pattern, group]).fetchall())
    return found


def span_texts(con: Connection, spans: Sequence[tuple[str, str, int, int]]) -> list[tuple[str, Any, int]]:
    """(chunk id, document text under the span, span start) for (chunk id, document id, start, end) spans whose
    document has text."""
    texts = read_spans(con, [(document_id, start, end) for _, document_id, start, end in spans])
    return [(chunk_id, text, start) for (chunk_id, _, start, _), text in zip(spans, texts) if text is not None]
