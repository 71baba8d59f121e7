"""Documents' texts in pieces (``document_texts``, migration 8): a store made by schema 7 migrates in place and
every reader of a text, a span or a unit's derived text reads back what it read before."""

from __future__ import annotations

import duckdb
import pytest

from right_rag_dagster.core.model import Document
from right_rag_dagster.store import Store
from right_rag_dagster.store.chunk_reads import (
    document_heads,
    document_pages,
    parenthesised_capitals,
    span_texts,
    unit_texts,
)
from right_rag_dagster.store.content import (
    delete_document,
    read_documents,
    read_units,
    upsert_document,
)
from right_rag_dagster.store.evaluation_tables import loaded_documents
from right_rag_dagster.store.migrations import SCHEMA_VERSION, load_migrations
from right_rag_dagster.store.texts import PIECE_CHARS, read_spans, text_rows

# Non-ASCII characters on both sides of piece boundaries (DuckDB and Python both count code points), an acronym
# definition across the first boundary, and a text of exactly two pieces.
LONG = ("Préambule — " + "x" * (PIECE_CHARS - 30) + " Continuous Integration (CI) runs ünïcödé " * 3
        + "Straße 🙂 " * 400)
TEXTS = {"long.txt": LONG, "two.txt": "ab" * PIECE_CHARS, "empty.txt": "", "short.txt": "One short text (OST)."}
SPANS = [(0, 5), (PIECE_CHARS - 20, PIECE_CHARS + 40), (PIECE_CHARS, 2 * PIECE_CHARS), (3000, 3000),
         (len(LONG) - 10, len(LONG)), (5, 3 * PIECE_CHARS + 7)]


OLD_CAPITALS = "SELECT unnest(regexp_extract_all(text, ?)) FROM documents WHERE status = 'loaded'"
OLD_HASHES = ("SELECT document_id, md5(concat_ws(chr(31), text, coalesce(CAST(page_starts AS VARCHAR), ''), "
              "coalesce(CAST(page_labels AS VARCHAR), ''))) FROM documents WHERE status = 'loaded'")
"""What schema 7's readers ran over ``documents.text`` (acronyms; the evaluation's document hashes)."""
PATTERN = r"(?s).{0,40}\([A-Z]{2,6}s?\)"


def _schema_7_store(path) -> dict[str, list]:
    """A store as right-rag-dagster left it before migration 8: texts in ``documents.text``, units whose text is
    exactly their span stored as NULL (read from it), one document that failed to load (NULL text). Returns what
    schema 7's statements read from it."""
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                "applied_at TIMESTAMP NOT NULL)")
    for migration in load_migrations()[:7]:
        con.execute(migration.sql)
        con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [migration.version, migration.name])
    for document_id, text in [*TEXTS.items(), ("broken.pdf", None)]:
        con.execute("INSERT INTO documents (document_id, partition_key, path, content_hash, size_bytes, status, "
                    "text, page_starts, page_labels, loaded_at) VALUES (?, ?, ?, 'h', 0, ?, ?, [0], ['i'], now())",
                    [document_id, document_id, f"/d/{document_id}", "rejected" if text is None else "loaded", text])
    for number, (start, end) in enumerate(SPANS):
        con.execute("INSERT INTO units (unit_id, document_id, parser, parser_version, ordinal, depth, key_path, "
                    "section_path, topic, fulltext, source_start, source_end, page_start, page_end, active) "
                    "VALUES (?, 'long.txt', 'p', '1', ?, 0, ?, '[]', 't', NULL, ?, ?, 1, 1, true)",
                    [f"u{number}", number, f'["u{number}"]', start, end])
    con.execute("INSERT INTO step_state VALUES ('store:compact-bytes', '', '123', NULL, NULL, now())")
    before = {"capitals": [r[0] for r in con.execute(OLD_CAPITALS, [PATTERN]).fetchall()],
              "hashes": con.execute(OLD_HASHES).fetchall()}
    con.close()
    return before


@pytest.fixture()
def migrated(tmp_path) -> tuple[Store, dict[str, list]]:
    path = tmp_path / "right_rag.duckdb"
    before = _schema_7_store(path)
    store = Store(path)
    store.ensure()
    return store, before


def test_migration_8_moves_texts_into_pieces_and_drops_the_column(migrated) -> None:
    with migrated[0].read() as con:
        assert con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == SCHEMA_VERSION == 8
        columns = [row[0] for row in con.execute("SELECT column_name FROM information_schema.columns "
                                                 "WHERE table_name = 'documents'").fetchall()]
        assert "text" not in columns and "page_starts" in columns
        stored = con.execute("SELECT document_id, piece, text FROM document_texts ORDER BY 1, 2").fetchall()
        assert con.execute("SELECT count(*) FROM step_state WHERE step = 'store:compact-bytes'").fetchone()[0] == 0
    expected = sorted(tuple(row) for document_id, text in TEXTS.items() for row in text_rows(document_id, text))
    assert stored == expected  # the migration cuts as the writers do
    assert max(len(text) for _, _, text in stored) == PIECE_CHARS and len(expected) > 2 + len(LONG) // PIECE_CHARS


def test_texts_spans_and_unit_texts_read_back_as_before(migrated) -> None:
    store, before = migrated
    assert len(before["capitals"]) == 4 and len(before["hashes"]) == len(TEXTS)
    with store.read() as con:
        documents = read_documents(con, [*TEXTS, "broken.pdf"])
        assert {d: doc.text for d, doc in documents.items()} == TEXTS
        assert document_pages(con, "long.txt").text == LONG and document_pages(con, "empty.txt").text == ""
        assert read_spans(con, [("long.txt", a, b) for a, b in SPANS]) == [LONG[a:b] for a, b in SPANS]
        assert read_spans(con, [("broken.pdf", 0, 4), ("two.txt", 10, 12)]) == [None, "ab"]
        spans = [("c1", "long.txt", 20, 1500), ("c2", "broken.pdf", 0, 3)]
        assert span_texts(con, spans) == [("c1", LONG[20:1500], 20)]
        units = {row.unit_id: row.text for row in unit_texts(con, [f"u{n}" for n in range(len(SPANS))])}
        assert units == {f"u{n}": LONG[a:b] for n, (a, b) in enumerate(SPANS)}
        assert [u.raw_text for u in read_units(con, "long.txt")] == [LONG[a:b] for a, b in SPANS]
        assert document_heads(con, 1100) == sorted((d, t[:1100], None) for d, t in TEXTS.items())  # no recorded titles
        assert sorted(parenthesised_capitals(con, 40)) == sorted(before["capitals"])
        assert sorted((d.document_id, d.content_hash) for d in loaded_documents(con)) == sorted(before["hashes"])
        assert {d.document_id: d.chars for d in loaded_documents(con)} == {d: len(t) for d, t in TEXTS.items()}




def test_a_written_text_is_stored_in_pieces_replaced_and_removed_with_its_document(tmp_path) -> None:
    """No row holds more than ``PIECE_CHARS`` characters of text: a vector DuckDB scans or a fold rewrites (2,048
    rows) holds ~2 MB of it, where 2,048 whole texts held every text of the corpus."""
    store = Store(tmp_path / "right_rag.duckdb")
    store.ensure()

    def put(document_id: str, text: str | None) -> None:
        with store.write() as con:
            upsert_document(con, None if text is None else Document(id=document_id, text=text),
                            document_id=document_id, partition_key=document_id, path=f"/d/{document_id}",
                            content_hash="h", size_bytes=0, mtime=0.0, loader="text", loader_version="1",
                            data_version="v")

    put("a.txt", LONG)
    put("b.txt", "")
    put("c.pdf", None)
    put("a.txt", "Shorter now.")
    with store.read() as con:
        assert {d: doc.text for d, doc in read_documents(con, ["a.txt", "b.txt", "c.pdf"]).items()} == {
            "a.txt": "Shorter now.", "b.txt": ""}
        longest, pieces = con.execute("SELECT max(length(text)), count(*) FROM document_texts").fetchone()
        assert pieces == 2 and longest == len("Shorter now.")
    put("a.txt", LONG)
    with store.read() as con:
        assert con.execute("SELECT max(length(text)) FROM document_texts").fetchone()[0] == PIECE_CHARS
    with store.write() as con:
        delete_document(con, "a.txt")
        assert con.execute("SELECT DISTINCT document_id FROM document_texts").fetchall() == [("b.txt",)]
