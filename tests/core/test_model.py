"""The domain model: documents with page maps, units built with an initial history, chunks with provenance."""

from __future__ import annotations

import dataclasses

import pytest

from right_rag_dagster.core.model import Chunk, Document, ParsedUnit, Unit, UnitChange


def test_document_page_map_maps_offsets_to_physical_pages_and_labels():
    document = Document(id="a.pdf", text="one\ntwo\nthree", page_starts=[0, 4, 8], page_labels=["i", "", "1"])
    assert document.page_starts == (0, 4, 8)  # lists become tuples, so documents stay hashable values
    assert document.page_count == 3
    assert [document.page_at(offset) for offset in (0, 3, 4, 7, 8, 12, 500)] == [1, 1, 2, 2, 3, 3, 3]
    assert [document.page_label(page) for page in (1, 2, 3, 4)] == ["i", "2", "1", "4"]
    assert document.page_label(None) is None


def test_document_without_pages_has_no_page_numbers():
    document = Document(id="a.txt", text="plain")
    assert document.page_count == 0
    assert document.page_at(2) is None
    assert document.page_at(None) is None


def test_model_records_are_frozen():
    unit = Unit(id="u", document_id="d", topic="Section 1", fulltext="text")
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.topic = "Section 2"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Document(id="d", text="x").text = "y"  # type: ignore[misc]


def test_unit_defaults_key_and_temporal_topic_and_starts_history_with_add_unit():
    child = Unit(id="c", document_id="d", topic=" Clause 1 ", fulltext="child", parent_id="p")
    parent = Unit(id="p", document_id="d", topic="Section 1", temporal_topic="Act 2024 Section 1",
                  fulltext="parent", attributes={"unit_type": "section"}, subunits=[child])
    assert child.key == "Clause 1"
    assert child.temporal_topic == " Clause 1 "
    assert parent.key == "Section 1"
    add = parent.changes[0]
    assert (add.change_type, add.name) == ("AddUnit", "Act 2024 Section 1")
    assert add.data["attributes"] == {"unit_type": "section"}
    assert [sub["id"] for sub in add.data["subunits"]] == ["c"]
    mirrored = parent.changes[1]
    assert mirrored.change_type == "AddSubUnit"
    assert mirrored.data["subunit_id"] == "c"
    assert mirrored.metadata == {"source": "subunit", "source_subunit_id": "c", "source_change_index": 0,
                                 "source_change_type": "AddUnit"}


def test_unit_rejects_empty_key_and_duplicate_subunit_ids():
    with pytest.raises(ValueError, match="key cannot be empty"):
        Unit(id="u", document_id="d", topic="  ", fulltext="x")
    twin = Unit(id="same", document_id="d", topic="a", fulltext="x")
    with pytest.raises(ValueError, match="Duplicate subunit ids under unit p: \\['same'\\]"):
        Unit(id="p", document_id="d", topic="p", fulltext="x", subunits=[twin, twin])


def test_parsed_unit_and_chunk_defaults():
    parsed = ParsedUnit(topic="Section 1", fulltext="text")
    assert (parsed.key, parsed.temporal_topic, parsed.source_start, parsed.subunits) == ("", "", None, [])
    chunk = Chunk(id="c", document_id="d", unit_id="u", topic="t", fulltext="f")
    assert (chunk.source_start, chunk.source_end, chunk.page_start, chunk.page_end) == (None, None, None, None)


def test_unit_change_targets_become_a_tuple():
    change = UnitChange("EditUnit", "x", targets=[])
    assert change.targets == ()
