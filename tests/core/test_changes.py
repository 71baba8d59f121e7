"""Replayable unit history, with right-rag 0.2.5's semantics for merge, delete, restore and subunit mirrors."""

from __future__ import annotations

import copy
import importlib.util
import sys
import time
from pathlib import Path

import right_rag_dagster.model as compat_model
from right_rag_dagster.core.changes import (
    is_active_unit,
    merge_unit_changes,
    recreate_unit_from_changes,
    unit_stage_data,
)
from right_rag_dagster.core.hashing import to_jsonable
from right_rag_dagster.core.model import Document, ParsedUnit, Unit, UnitChange
from right_rag_dagster.core.units import build_units, walk_units

DOC = Document(id="act.txt", text="Section 1 The first rule.\nSection 2 The second rule.\n")


def parse(*parsed: ParsedUnit) -> list[Unit]:
    return build_units(DOC, list(parsed), "test-parser")


def section(number: int, text: str, subunits=(), **attributes) -> ParsedUnit:
    return ParsedUnit(topic=f"Section {number}", fulltext=text, attributes=attributes, subunits=list(subunits))


def clause(number: int, text: str) -> ParsedUnit:
    return ParsedUnit(topic=f"Clause {number}", fulltext=text)


def by_topic(units: list[Unit]) -> dict[str, Unit]:
    return {unit.topic: unit for unit in walk_units(units)}


def own_changes(unit: Unit) -> list[tuple[str, str, dict]]:
    """The unit's changes that are not mirrors of subunit changes: (type, name, data)."""
    return [(c.change_type, c.name, c.data) for c in unit.changes if c.metadata.get("source") != "subunit"]


def test_first_parse_has_one_add_unit_per_unit_and_merge_without_previous_keeps_it():
    units = parse(section(1, "one", kind="rule"))
    merged = merge_unit_changes([], units)
    assert merged == units
    assert [c.change_type for c in merged[0].changes] == ["AddUnit"]
    assert merged[0].changes[0].data == unit_stage_data(units[0])


def test_reparse_without_changes_adds_no_history():
    previous = parse(section(1, "one", [clause(1, "a")], kind="rule"))
    merged = merge_unit_changes(previous, parse(section(1, "one", [clause(1, "a")], kind="rule")))
    assert [c.change_type for c in merged[0].changes] == ["AddUnit", "AddSubUnit"]
    assert [c.change_type for c in merged[0].subunits[0].changes] == ["AddUnit"]


def test_edit_records_only_the_changed_fields_and_replays_to_the_current_unit():
    previous = parse(section(1, "old text"))
    current = parse(ParsedUnit(topic="Section 1", temporal_topic="Act 2024 Section 1", fulltext="new text",
                               metadata={"page": 3}))
    [merged] = merge_unit_changes(previous, current)
    assert own_changes(merged) == [
        ("AddUnit", "Section 1", unit_stage_data(previous[0])),
        ("EditUnit", "Act 2024 Section 1",
         {"temporal_topic": "Act 2024 Section 1", "fulltext": "new text", "metadata": {"page": 3}}),
    ]
    replayed = recreate_unit_from_changes(merged.changes)
    assert unit_stage_data(replayed) == unit_stage_data(current[0])


def test_span_edits_carry_the_new_raw_text():
    previous = parse(ParsedUnit(topic="Section 1", fulltext="first", source_start=0, source_end=9))
    current = parse(ParsedUnit(topic="Section 1", fulltext="first", source_start=0, source_end=25))
    [merged] = merge_unit_changes(previous, current)
    assert own_changes(merged)[-1] == ("EditUnit", "Section 1",
                                       {"source_end": 25, "raw_text": "Section 1 The first rule."})


def test_attribute_changes_follow_right_rag_order_adds_and_edits_then_removals():
    previous = parse(section(1, "t", role="rule", unit_type="section", old="x"))
    current = parse(section(1, "t", unit_type="article", role="rule", page=4))
    [merged] = merge_unit_changes(previous, current)
    assert [(t, n, d) for t, n, d in own_changes(merged)[1:]] == [
        ("EditAttribute", "unit_type", {"value": "article"}),
        ("AddAttribute", "page", {"value": 4}),
        ("RemoveAttribute", "old", {}),
    ]
    assert recreate_unit_from_changes(merged.changes).attributes == {"unit_type": "article", "role": "rule", "page": 4}


def test_delete_then_restore_keeps_the_whole_history():
    v1 = parse(section(1, "one"), section(2, "two"))
    v2 = merge_unit_changes(v1, parse(section(1, "one")))
    deleted = by_topic(v2)["Section 2"]
    assert [u.topic for u in v2] == ["Section 1", "Section 2"]  # the vanished unit comes last, marked deleted
    assert [c.change_type for c in deleted.changes] == ["AddUnit", "DeleteUnit"]
    assert not is_active_unit(deleted)
    assert recreate_unit_from_changes(deleted.changes) is None
    assert is_active_unit(by_topic(v2)["Section 1"])

    v3 = merge_unit_changes(v2, parse(section(1, "one"), section(2, "two again")))
    restored = by_topic(v3)["Section 2"]
    assert [c.change_type for c in restored.changes] == ["AddUnit", "DeleteUnit", "AddUnit"]
    assert restored.changes[-1].data["fulltext"] == "two again"
    assert recreate_unit_from_changes(restored.changes).fulltext == "two again"
    assert len(v3) == 2


def test_a_deleted_unit_is_not_deleted_twice_and_leaves_the_next_version():
    v2 = merge_unit_changes(parse(section(1, "one"), section(2, "two")), parse(section(1, "one")))
    v3 = merge_unit_changes(v2, parse(section(1, "one")))
    assert [u.topic for u in v3] == ["Section 1"]  # right-rag drops a unit already deleted


def test_subunit_changes_are_mirrored_on_the_parent_and_replay_rebuilds_the_subtree():
    v1 = parse(section(1, "s", [clause(1, "a"), clause(3, "c")]))
    current = parse(section(1, "s", [clause(1, "a changed"), clause(2, "b")]))
    [merged] = merge_unit_changes(v1, current)

    mirrors = [(c.change_type, c.name, c.metadata["source_change_type"]) for c in merged.changes
               if c.metadata.get("source") == "subunit"]
    assert mirrors == [
        ("AddSubUnit", "Section 1 Clause 1", "AddUnit"),  # from the first parse
        ("AddSubUnit", "Section 1 Clause 3", "AddUnit"),
        ("EditSubUnit", "Section 1 Clause 1", "EditUnit"),
        ("AddSubUnit", "Section 1 Clause 2", "AddUnit"),
        ("DeleteSubUnit", "Section 1 Clause 3", "DeleteUnit"),
    ]
    assert [u.topic for u in merged.subunits] == ["Clause 1", "Clause 2", "Clause 3"]
    assert not is_active_unit(merged.subunits[2])

    replayed = recreate_unit_from_changes(merged.changes)
    rebuilt = {sub.id: unit_stage_data(sub) for sub in replayed.subunits}
    expected = {sub.id: unit_stage_data(sub) for sub in current[0].subunits}
    assert rebuilt == expected  # the deleted clause is gone, the edit and the addition are there


def test_grandchild_changes_propagate_to_the_root():
    v1 = parse(section(1, "s", [ParsedUnit(topic="Clause 1", fulltext="c", subunits=[clause(9, "deep")])]))
    current = parse(section(1, "s", [ParsedUnit(topic="Clause 1", fulltext="c", subunits=[clause(9, "deeper")])]))
    [merged] = merge_unit_changes(v1, current)
    assert own_changes(merged) == own_changes(v1[0])  # the section itself did not change
    last = merged.changes[-1]
    assert (last.change_type, last.metadata["source_change_type"]) == ("EditSubUnit", "EditSubUnit")
    replayed = recreate_unit_from_changes(merged.changes)
    assert replayed.subunits[0].subunits[0].fulltext == "deeper"


def test_mirrored_state_is_the_subunit_after_that_change():
    v1 = parse(section(1, "s", [clause(1, "a")]))
    current = parse(section(1, "s", [ParsedUnit(topic="Clause 1", fulltext="b", attributes={"n": 1})]))
    [merged] = merge_unit_changes(v1, current)
    sub = merged.subunits[0]
    for change in merged.changes:
        if change.metadata.get("source") == "subunit":
            index = change.metadata["source_change_index"]
            state = recreate_unit_from_changes(sub.changes[: index + 1])
            assert change.data["subunit"] == unit_stage_data(state)


def test_replay_does_not_modify_the_stored_history():
    v1 = parse(section(1, "s", [clause(1, "a")], kind="x"))
    [merged] = merge_unit_changes(v1, parse(section(1, "s", [clause(1, "b"), clause(2, "c")], kind="y", n=1)))
    before = to_jsonable(copy.deepcopy(merged.changes))
    recreate_unit_from_changes(merged.changes)
    recreate_unit_from_changes(merged.changes)
    assert to_jsonable(merged.changes) == before


def test_replay_defaults_and_errors_match_right_rag():
    add = UnitChange("AddUnit", "Act 2024 Section 1", {"id": "u", "document_id": "d", "fulltext": "t"})
    unit = recreate_unit_from_changes([add, UnitChange("AddAttribute", "flag", {"other": 1})])
    assert (unit.topic, unit.temporal_topic, unit.key) == ("Act 2024 Section 1", "Act 2024 Section 1",
                                                          "Act 2024 Section 1")
    assert unit.attributes == {"flag": {"other": 1}}  # right-rag stores the data itself when it has no "value"
    try:
        recreate_unit_from_changes([UnitChange("EditUnit", "x", {"fulltext": "y"})])
    except ValueError as exc:
        assert "Cannot apply EditUnit before AddUnit" in str(exc)
    else:
        raise AssertionError("an edit before AddUnit must fail")


def test_deep_trees_build_and_merge_quickly():
    def tree(shape: tuple[int, ...], prefix: str = "") -> list[ParsedUnit]:
        if not shape:
            return []
        return [ParsedUnit(topic=f"{prefix}{i}", fulltext=f"t{prefix}{i}", subunits=tree(shape[1:], f"{prefix}{i}."))
                for i in range(shape[0])]

    shape = (1, 2, 2, 2, 2, 2, 2)  # 7 levels, 127 units: replaying every mirror from scratch took minutes
    started = time.perf_counter()
    units = parse(*tree(shape))
    merged = merge_unit_changes(units, parse(*tree(shape)))
    assert time.perf_counter() - started < 5
    assert sum(1 for _ in walk_units(merged)) == 127
    assert merged[0].changes == units[0].changes  # nothing changed, nothing recorded


# --- Differential check against right-rag 0.2.5's own model.py (MIT, kept unchanged in tests/fixtures) ----------

RIGHT_RAG_MODEL = Path(__file__).parents[1] / "fixtures" / "right_rag_reference" / "model.py"

VERSIONS = [  # (topic, fulltext, attributes, subunits) trees of three successive parses of one document
    [("Section 1", "one", {"role": "rule"}, [("Clause 1", "a", {}, []), ("Clause 2", "b", {"x": 1}, [])]),
     ("Section 2", "two", {}, [("Clause 1", "c", {}, [("Item 1", "i", {}, [])])])],
    [("Section 1", "one!", {"role": "duty", "page": 2}, [("Clause 1", "a", {}, []), ("Clause 3", "new", {}, [])]),
     ("Section 2", "two", {}, [("Clause 1", "c", {}, [("Item 1", "i2", {"k": "v"}, [])])]),
     ("Section 3", "three", {}, [])],
    [("Section 1", "one!", {"page": 2}, [("Clause 1", "a", {}, []), ("Clause 2", "b back", {}, [])]),
     ("Section 3", "three", {}, [])],
]


def _load_right_rag_model():
    spec = importlib.util.spec_from_file_location("right_rag_reference_model", RIGHT_RAG_MODEL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _history(model, build, versions) -> list:
    merged: list = []
    for version in versions:
        def to_parsed(node):
            topic, text, attributes, subunits = node
            return model.ParsedUnit(topic=topic, fulltext=text, attributes=dict(attributes),
                                    subunits=[to_parsed(sub) for sub in subunits])
        merged = model.merge_unit_changes(merged, build([to_parsed(node) for node in version]))
    return merged


def _comparable(model, units) -> list:
    """Per unit: every change without its stored snapshot (AddUnit data, mirror snapshots), and the replayed state.

    Snapshots differ on purpose: right-rag's replay edits the ``AddUnit`` data in place (an attribute added later
    shows up in it; see ``test_replay_does_not_modify_the_stored_history``), and its mirrors store the subunit's
    latest state, where this package stores the state right after the mirrored change.
    """
    rows = []
    for unit in model.walk_units(units):
        changes = []
        for change in unit.changes:
            mirror = change.metadata.get("source") == "subunit"
            data = None if change.change_type == "AddUnit" else {
                key: value for key, value in change.data.items() if not (mirror and key == "subunit")}
            changes.append((change.change_type, change.name, data, change.metadata))
        replayed = model.recreate_unit_from_changes(unit.changes)
        rows.append((unit.id, unit.topic, changes, replayed and to_jsonable(model.unit_stage_data(replayed))))
    return rows


def test_merge_history_matches_right_rag_0_2_5():
    reference = _load_right_rag_model()
    document = reference.Document(id=DOC.id, text=DOC.text)
    theirs = _history(reference, lambda parsed: reference.units_from_parsed_units(document, parsed), VERSIONS)
    ours = _history(compat_model, lambda parsed: compat_model.build_units(DOC, parsed, "p"), VERSIONS)
    assert _comparable(compat_model, ours) == _comparable(reference, theirs)
