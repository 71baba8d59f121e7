"""Building library units from parser output: stable ids, raw text, inherited temporal topics, parser errors."""

from __future__ import annotations

import pytest

from right_rag_dagster.core.ids import unit_id_for_path
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.units import build_units, own_span, unit_paths, walk_units
from right_rag_dagster.errors import ParserOutputError, PluginError

TEXT = "Chapter 1 General\nSection 1 Scope. This applies.\nSection 2 Terms. Words mean things.\n"
DOC = Document(id="laws/act.txt", text=TEXT)


def span(text: str) -> tuple[int, int]:
    start = TEXT.index(text)
    return start, start + len(text)


def chapter() -> ParsedUnit:
    s1, s2 = span("Section 1 Scope. This applies.\n"), span("Section 2 Terms. Words mean things.\n")
    return ParsedUnit(
        topic="Chapter 1", temporal_topic="Act 2024 Chapter 1", fulltext=TEXT.strip(),
        source_start=0, source_end=len(TEXT), attributes={"unit_type": "chapter"},
        subunits=[
            ParsedUnit(topic="Section 1", fulltext="This applies.", source_start=s1[0], source_end=s1[1]),
            ParsedUnit(topic="Section 2", fulltext="Words mean things.", source_start=s2[0], source_end=s2[1],
                       subunits=[ParsedUnit(topic="Definition", key="def-words", fulltext="Words mean things.")]),
        ],
    )


def test_units_get_path_ids_parent_links_raw_text_and_inherited_temporal_topics():
    [root] = build_units(DOC, [chapter()], "laws")
    section1, section2 = root.subunits
    definition = section2.subunits[0]
    assert root.id == unit_id_for_path("laws/act.txt", ["Chapter 1"])
    assert section2.id == unit_id_for_path("laws/act.txt", ["Chapter 1", "Section 2"])
    assert definition.id == unit_id_for_path("laws/act.txt", ["Chapter 1", "Section 2", "def-words"])
    assert (root.parent_id, section1.parent_id, definition.parent_id) == (None, root.id, section2.id)
    assert section1.raw_text == "Section 1 Scope. This applies.\n"
    assert definition.raw_text == "" and definition.source_start is None
    assert section1.temporal_topic == "Act 2024 Chapter 1 Section 1"
    assert definition.temporal_topic == "Act 2024 Chapter 1 Section 2 Definition"
    assert definition.key == "def-words" and definition.topic == "Definition"
    assert root.attributes == {"unit_type": "chapter"}


def test_ids_do_not_depend_on_sibling_order():
    first = {u.topic: u.id for u in walk_units(build_units(DOC, [chapter()], "p"))}
    flipped = chapter()
    flipped.subunits.reverse()
    second = {u.topic: u.id for u in walk_units(build_units(DOC, [flipped], "p"))}
    assert first == second


def test_a_key_path_is_not_a_joined_string():
    # ("a/b",) and ("a", "b") would collide if ids came from "/".join(keys).
    assert unit_id_for_path("d", ["a/b"]) != unit_id_for_path("d", ["a", "b"])
    nested = ParsedUnit(topic="a", fulltext="x", subunits=[ParsedUnit(topic="b", fulltext="y")])
    flat = ParsedUnit(topic="a/b", fulltext="z")
    units = list(walk_units(build_units(DOC, [nested, flat], "p")))
    assert len({u.id for u in units}) == 3


@pytest.mark.parametrize("where, tree, path_text", [
    ("root", [ParsedUnit(topic="Section 1", fulltext="a"), ParsedUnit(topic="Section 1", fulltext="b")],
     "the document root"),
    ("nested", [ParsedUnit(topic="Chapter 1", fulltext="c", subunits=[
        ParsedUnit(topic="Clause", key="1", fulltext="a"), ParsedUnit(topic="Other", key=" 1 ", fulltext="b")])],
     '["Chapter 1"]'),
])
def test_duplicate_sibling_keys_name_the_parser_document_and_path(where, tree, path_text):
    with pytest.raises(ParserOutputError) as caught:
        build_units(DOC, tree, "thai-order")
    message = str(caught.value)
    assert "'thai-order'" in message
    assert "laws/act.txt" in message
    assert path_text in message
    assert "duplicate sibling keys" in message
    assert isinstance(caught.value, PluginError)


def test_same_key_under_different_parents_is_fine():
    tree = [ParsedUnit(topic=f"Chapter {n}", fulltext="c", subunits=[ParsedUnit(topic="Section 1", fulltext="s")])
            for n in (1, 2)]
    units = list(walk_units(build_units(DOC, tree, "p")))
    assert len({u.id for u in units}) == 4


@pytest.mark.parametrize("start, end", [(0, len(TEXT) + 1), (-1, 3), (5, 2), (3, None)])
def test_spans_outside_the_text_or_half_set_are_parser_errors(start, end):
    with pytest.raises(ParserOutputError, match=r"'p' returned unit \['Section 9'\] with span"):
        build_units(DOC, [ParsedUnit(topic="Section 9", fulltext="x", source_start=start, source_end=end)], "p")


def test_empty_key_and_topic_is_a_parser_error():
    with pytest.raises(ParserOutputError, match="empty key and topic"):
        build_units(DOC, [ParsedUnit(topic="  ", fulltext="x")], "p")


def test_walk_units_is_pre_order_across_trees_and_unit_paths_give_section_paths():
    units = build_units(DOC, [chapter(), ParsedUnit(topic="Annex", fulltext="x")], "p")
    assert [u.topic for u in walk_units(units)] == ["Chapter 1", "Section 1", "Section 2", "Definition", "Annex"]
    paths = unit_paths(units)
    definition = units[0].subunits[1].subunits[0]
    assert paths[definition.id] == ("Chapter 1", "Section 2", "Definition")
    assert paths[units[1].id] == ("Annex",)


def test_a_stated_hierarchy_is_the_section_path_and_keys_still_identify():
    """A unit whose parser states its ``hierarchy`` (a list, or a tuple: JSON reads back a list either way) is cited
    by it, and its subunits under it; an empty or malformed one leaves the topics' path. Key paths never follow it."""
    s1 = span("Section 1 Scope. This applies.\n")
    root = ParsedUnit(topic="Chapter 1", fulltext=TEXT.strip(), source_start=0, source_end=len(TEXT), subunits=[
        ParsedUnit(topic="Paragraph", key="p1", fulltext=TEXT[s1[0]:s1[1]], source_start=s1[0], source_end=s1[1],
                   attributes={"hierarchy": ("Chapter 1",)},
                   subunits=[ParsedUnit(topic="Note", fulltext="This applies.")]),
        ParsedUnit(topic="Odd", fulltext="x", attributes={"hierarchy": ["Chapter 1", 2]}),
        ParsedUnit(topic="Empty", fulltext="y", attributes={"hierarchy": []}),
    ])
    [chapter_unit] = build_units(DOC, [root], "p")
    paragraph, odd, empty = chapter_unit.subunits
    paths = unit_paths([chapter_unit])
    assert paths[paragraph.id] == ("Chapter 1",) and paths[paragraph.subunits[0].id] == ("Chapter 1", "Note")
    assert paths[odd.id] == ("Chapter 1", "Odd") and paths[empty.id] == ("Chapter 1", "Empty")
    assert unit_paths([chapter_unit], "key")[paragraph.id] == ("Chapter 1", "p1")


def test_own_span_stops_where_the_first_subunit_starts():
    [root] = build_units(DOC, [chapter()], "p")
    assert own_span(root) == (0, TEXT.index("Section 1"))
    assert own_span(root.subunits[0]) == span("Section 1 Scope. This applies.\n")
    section2 = root.subunits[1]  # its only subunit has no span, so all of it is its own
    assert own_span(section2) == (section2.source_start, section2.source_end)
    assert own_span(section2.subunits[0]) == (None, None)
