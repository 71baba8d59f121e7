"""Documents' texts, stored in ``document_texts`` as pieces of ``PIECE_CHARS`` characters, and read back.

A whole text in one ``documents`` row put every document's text in the row group each write appends to, which
every fold of the log rewrote whole (its memory and CPU grew with the corpus), and a cold read of one text loaded
the whole column. Pieces keep each vector DuckDB scans or rewrites to ~2,048 pieces, and a span reads its pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from .sql import execute, literal

PIECE_CHARS = 1024
"""Characters per piece (the last piece of a text may be shorter). At most 4 KB of UTF-8: DuckDB keeps strings up
to 4 KB inline in its blocks, longer ones in overflow blocks. Migration 8 (``schema.sql``) cuts with the same
number."""

Connection = duckdb.DuckDBPyConnection


def text_rows(document_id: str, text: str | None) -> list[list[Any]]:
    """The ``document_texts`` rows of a text: (document id, piece number, piece); none for a document without
    text (it failed to load), one empty piece for an empty text."""
    if text is None:
        return []
    return [[document_id, number, text[start:start + PIECE_CHARS]]
            for number, start in enumerate(range(0, max(len(text), 1), PIECE_CHARS))]


def _ids(document_ids: Sequence[str]) -> str:
    """An ``IN`` list of ids (a constant list DuckDB filters the scan with, skipping vectors of other texts)."""
    return "(" + ", ".join(literal(document_id) for document_id in sorted(set(document_ids))) + ")"


WHOLE_TEXTS_SQL = ("SELECT document_id, string_agg(text, '' ORDER BY piece) AS text FROM document_texts "
                   "WHERE {where} GROUP BY document_id")
"""(document id, whole text) put together from the pieces, for the documents ``where`` selects."""

GROUP_DOCUMENTS = 200
"""Documents whose whole texts one statement puts together when every loaded text is scanned (``in_groups``)."""


def read_texts(con: Connection, document_ids: Sequence[str]) -> dict[str, str]:
    """Document id -> whole text, for those of ``document_ids`` that have one."""
    if not document_ids:
        return {}
    return dict(con.execute(WHOLE_TEXTS_SQL.format(where=f"document_id IN {_ids(document_ids)}")).fetchall())


def loaded_document_ids(con: Connection) -> tuple[str, ...]:
    """The ids of the documents that loaded (those with a text), in order."""
    return tuple(row[0] for row in con.execute("SELECT document_id FROM documents WHERE status = 'loaded' "
                                               "ORDER BY document_id").fetchall())


def in_groups(document_ids: Sequence[str]) -> list[list[str]]:
    """``document_ids`` cut into groups of ``GROUP_DOCUMENTS``: a statement over every whole text at once held
    them all in memory."""
    return [list(document_ids[first:first + GROUP_DOCUMENTS]) for first in range(0, len(document_ids),
                                                                                   GROUP_DOCUMENTS)]


def metadata_titles(con: Connection) -> dict[str, str]:
    """Document id -> the title its loader recorded apart from the text (an HTML page's ``<title>``), where one did."""
    return dict(con.execute("SELECT document_id, json_extract_string(metadata, '$.title') FROM documents "
                            "WHERE status = 'loaded' AND json_extract_string(metadata, '$.title') IS NOT NULL")
                .fetchall())


def heads(con: Connection, chars: int) -> dict[str, str]:
    """Document id -> its first ``chars`` characters (only the pieces holding them are read)."""
    return dict(execute(con,
        "SELECT document_id, substr(string_agg(text, '' ORDER BY piece), 1, ?) FROM document_texts "
        "WHERE piece < ? GROUP BY document_id", [int(chars), -(-int(chars) // PIECE_CHARS)]).fetchall())


def read_spans(con: Connection, spans: Sequence[tuple[str, int, int]]) -> list[str | None]:
    """The text under each (document id, start, end) span (``text[start:end]``), reading only the pieces under
    it; None where the document has no text."""
    if not spans:
        return []
    firsts = [start // PIECE_CHARS for _, start, _ in spans]
    lasts = [max(start, end - 1) // PIECE_CHARS for _, start, end in spans]
    found = dict(execute(con,
        "SELECT s.i, substr(string_agg(t.text, '' ORDER BY t.piece), any_value(s.a) - any_value(s.f) * ? + 1, "
        "greatest(any_value(s.b) - any_value(s.a), 0)) "
        f"FROM (SELECT unnest(?::INTEGER[]) AS i, unnest(?::VARCHAR[]) AS document_id, unnest(?::BIGINT[]) AS a, "
        "unnest(?::BIGINT[]) AS b, unnest(?::BIGINT[]) AS f, unnest(?::BIGINT[]) AS l) AS s "
        f"JOIN (SELECT * FROM document_texts WHERE document_id IN {_ids([d for d, _, _ in spans])}) AS t "
        "ON t.document_id = s.document_id AND t.piece BETWEEN s.f AND s.l GROUP BY s.i",
        [PIECE_CHARS, list(range(len(spans))), [d for d, _, _ in spans], [a for _, a, _ in spans],
         [b for _, _, b in spans], firsts, lasts]).fetchall())
    return [found.get(i) for i in range(len(spans))]
