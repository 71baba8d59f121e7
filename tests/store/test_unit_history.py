"""Unit histories stored against the rows (store/unit_history.py) read back exactly as written, on a real store."""

from __future__ import annotations

import json

import duckdb

from right_rag_dagster.core.changes import merge_unit_changes, recreate_unit_from_changes
from right_rag_dagster.core.model import Document, ParsedUnit, Unit
from right_rag_dagster.core.units import build_units, walk_units
from right_rag_dagster.store import Store
from right_rag_dagster.store.content import _json, insert_rows, read_units, read_units_of, unit_rows
from right_rag_dagster.store.lineage import _history
from right_rag_dagster.store.migrations import load_migrations
from right_rag_dagster.store.texts import text_rows
from right_rag_dagster.store.unit_history import apply_text_delta, is_compact, text_delta
from tests.store.old_schema import undo_document_texts

PREAMBLE = "An act about rules, kept short so that the example stays readable. "


def _document(sections: dict[str, str]) -> tuple[Document, list[ParsedUnit]]:
    """A document of numbered sections, each with one clause per sentence; spans into the text."""
    text, parsed = PREAMBLE, []
    for topic, body in sections.items():
        start = len(text)
        clauses = []
        for number, sentence in enumerate(body.split(". "), 1):
            offset = text.index(sentence, start) if sentence in text[start:] else None
            if offset is None:
                text += sentence + ". "
                offset = len(text) - len(sentence) - 2
            clauses.append(ParsedUnit(topic=f"Clause {number}", fulltext=sentence, source_start=offset,
                                      source_end=offset + len(sentence), attributes={"n": number}))
        parsed.append(ParsedUnit(topic=topic, fulltext=text[start:], source_start=start, source_end=len(text),
                                 attributes={"role": "section", "weight": 1.0}, subunits=clauses))
    root = ParsedUnit(topic="Act", fulltext=text, source_start=0, source_end=len(text), subunits=parsed)
    return Document(id="act.txt", text=text), [root]


def _write(store: Store, document: Document, units: list[Unit], fresh: set[str]) -> None:
    with store.write() as con:
        for table in ("documents", "document_texts", "units"):
            con.execute(f"DELETE FROM {table}")
        con.execute("INSERT INTO documents (document_id, partition_key, path, content_hash, size_bytes, status, "
                    "loaded_at) VALUES (?, ?, ?, '0', 0, 'loaded', now())", [document.id, document.id, document.id])
        insert_rows(con, "document_texts", text_rows(document.id, document.text))
        insert_rows(con, "units", unit_rows(document, units, "test", "1", fresh))


def _reindex(store: Store, sections: dict[str, str]) -> list[Unit]:
    """Parse ``sections`` as the indexer does: merged with what the store holds, new units' histories NULL."""
    document, parsed = _document(sections)
    current = build_units(document, parsed, "test")
    if store.exists():
        with store.read() as con:
            previous = read_units(con, document.id)
    else:
        previous = []
    merged = merge_unit_changes(previous, current)
    known = {u.id for u in walk_units(previous)}
    _write(store, document, merged, {u.id for u in walk_units(merged) if u.id not in known})
    return merged


def _plain(units: list[Unit]) -> str:
    return _json([[u.id, u.changes, u.fulltext, u.attributes, [s.id for s in u.subunits]] for u in walk_units(units)])


def test_histories_read_back_exactly_after_edits_deletions_and_restores(tmp_path) -> None:
    store = Store(tmp_path / "right_rag.duckdb")
    versions = [
        {"Section 1": "The first rule. A second sentence", "Section 2": "The second rule. It has two parts"},
        {"Section 1": "The first rule, amended. A second sentence", "Section 2": "The second rule. It has two parts",
         "Section 3": "A new rule"},
        {"Section 1": "The first rule, amended. A second sentence", "Section 3": "A new rule. With more"},
        {"Section 1": "The first rule. A second sentence", "Section 2": "The second rule. It has two parts",
         "Section 3": "A new rule. With more"},
    ]
    for sections in versions:
        merged = _reindex(store, sections)
        with store.read() as con:
            back = read_units(con, "act.txt")
            batch = read_units_of(con, ["act.txt", "never-indexed.txt"])  # a batch's documents at once
            stored = con.execute("SELECT unit_id, changes FROM units").fetchall()
        assert _plain(back) == _plain(merged) == _plain(batch["act.txt"]) and batch["never-indexed.txt"] == []
        for unit in walk_units(back):  # still replayable to the unit itself
            replayed = recreate_unit_from_changes(unit.changes)
            assert (replayed is None) == (unit.changes[-1].change_type == "DeleteUnit")
            if replayed is not None:
                assert (replayed.fulltext, replayed.attributes) == (unit.fulltext, unit.attributes)
    compact = [changes for _, changes in stored if changes is not None]
    assert compact and all(is_compact(c) for c in compact)
    full = sum(len(_json(u.changes)) for u in walk_units(merged))
    assert sum(len(c) for c in compact) * 5 < full
    edited = {u.topic: [c.change_type for c in u.changes] for u in walk_units(back)}
    assert "EditUnit" in edited["Section 1"] and "DeleteUnit" in edited["Section 2"]
    with store.read() as con:  # lineage's history of one unit rebuilds it from its own tree
        root = next(u for u in walk_units(back) if u.topic == "Act")
        assert _history(con, root.id, "act.txt", dict(stored)[root.id]) == [c.change_type for c in root.changes]


def test_values_that_only_look_equal_are_kept_as_they_were(tmp_path) -> None:
    """1.0 and 1, True and 1 compare equal in Python but are different JSON: the history keeps its own."""
    store = Store(tmp_path / "right_rag.duckdb")
    _reindex(store, {"Section 1": "The first rule. A second sentence"})
    document, parsed = _document({"Section 1": "The first rule. A second sentence"})
    section = parsed[0].subunits[0]
    flipped = ParsedUnit(topic=section.topic, fulltext=section.fulltext, source_start=section.source_start,
                         source_end=section.source_end, attributes={"role": "section", "weight": 1},
                         subunits=[ParsedUnit(topic=c.topic, fulltext=c.fulltext, source_start=c.source_start,
                                              source_end=c.source_end, attributes={"n": c.attributes["n"] == 1})
                                   for c in section.subunits])
    root = ParsedUnit(topic="Act", fulltext=document.text, source_start=0, source_end=len(document.text),
                      subunits=[flipped])
    with store.read() as con:
        previous = read_units(con, "act.txt")
    merged = merge_unit_changes(previous, build_units(document, [root], "test"))
    _write(store, document, merged, set())
    with store.read() as con:
        assert _plain(read_units(con, "act.txt")) == _plain(merged)


def test_text_deltas_rebuild_the_old_text() -> None:
    current = "The first rule, amended. " * 4
    for old in (current[:-10], current + "appended", "prefix " + current, current[:30] + "X" + current[31:]):
        delta = text_delta(old, current)
        assert delta is not None and apply_text_delta(delta, current) == old
    assert text_delta("short", "other") is None


def test_migration_7_re_encodes_stored_histories_and_drops_the_compact_record(tmp_path) -> None:
    """A store at schema 6 holding full histories (the JSON list form) reads back the same after migrating."""
    path = tmp_path / "right_rag.duckdb"
    store = Store(path)
    _reindex(store, {"Section 1": "The first rule. A second sentence", "Section 2": "The second rule"})
    merged = _reindex(store, {"Section 1": "The first rule, amended. A second sentence"})
    con = duckdb.connect(str(path))
    for unit in walk_units(merged):  # back to the form before migration 7, and to schema 6
        con.execute("UPDATE units SET changes = ? WHERE unit_id = ? AND changes IS NOT NULL",
                    [_json(unit.changes), unit.id])
    con.execute("DELETE FROM schema_migrations WHERE version >= 7")
    undo_document_texts(con)
    con.execute("INSERT INTO step_state VALUES ('store:compact-bytes', '', '123', NULL, NULL, now())")
    con.close()
    with duckdb.connect(str(path)) as con:
        legacy = [c for (c,) in con.execute("SELECT changes FROM units WHERE changes IS NOT NULL").fetchall()]
    assert legacy and not any(is_compact(c) for c in legacy) and isinstance(json.loads(legacy[0]), list)

    store = Store(path)
    store.ensure()
    with store.read() as con:
        assert con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == len(load_migrations())
        stored = [c for (c,) in con.execute("SELECT changes FROM units WHERE changes IS NOT NULL").fetchall()]
        assert all(is_compact(c) for c in stored) and sum(map(len, stored)) * 3 < sum(map(len, legacy))
        assert _plain(read_units(con, "act.txt")) == _plain(merged)
        assert con.execute("SELECT count(*) FROM step_state WHERE step = 'store:compact-bytes'").fetchone()[0] == 0
