"""Replayable unit history: merge a re-parsed tree against the previous one, and replay changes.

Semantics follow right-rag (MIT): a new unit starts with ``AddUnit``; on re-index an existing unit gets
``EditUnit`` for changed fields, ``Add/Edit/RemoveAttribute`` for attribute changes; a unit that disappeared
gets ``DeleteUnit``; one that comes back gets a fresh ``AddUnit``. Each subunit change is mirrored on the parent
as ``AddSubUnit``/``EditSubUnit``/``DeleteSubUnit``, so replaying a parent's history rebuilds its subtree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .model import Unit, UnitChange

_EDITABLE_FIELDS = ("topic", "temporal_topic", "fulltext", "source_start", "source_end", "raw_text", "parent_id")


def unit_stage_data(unit: Unit) -> dict[str, Any]:
    """The full state of a unit (and its subtree) as plain data, as stored in ``AddUnit``."""
    return {
        "id": unit.id,
        "document_id": unit.document_id,
        "topic": unit.topic,
        "key": unit.key,
        "temporal_topic": unit.temporal_topic,
        "fulltext": unit.fulltext,
        "source_start": unit.source_start,
        "source_end": unit.source_end,
        "raw_text": unit.raw_text,
        "parent_id": unit.parent_id,
        "attributes": dict(unit.attributes),
        "metadata": dict(unit.metadata),
        "subunits": [unit_stage_data(subunit) for subunit in unit.subunits],
    }


def changes_with_subunit_changes(changes: list[UnitChange], subunits: list[Unit]) -> list[UnitChange]:
    """Append to ``changes`` a parent-level mirror of every subunit change not mirrored yet."""
    seen = {
        (change.metadata.get("source_subunit_id"), change.metadata.get("source_change_index"))
        for change in changes
        if change.metadata.get("source") == "subunit"
    }
    for subunit in subunits:
        if all((subunit.id, index) in seen for index in range(len(subunit.changes))):
            continue
        changes.extend(subunit_mirrors(subunit.id, subunit.changes,
                                       lambda index, sid=subunit.id: (sid, index) not in seen).values())
    return changes


def subunit_mirrors(subunit_id: str, changes: list[UnitChange],
                    wanted: Callable[[int], bool] = lambda index: True) -> dict[int, UnitChange]:
    """The parent-level mirror of each ``wanted`` change of a subunit, by change index, in order (one replay of
    its history gives every intermediate state)."""
    mirrors = {}
    stage: dict[str, Any] | None = None
    for index, subunit_change in enumerate(changes):
        stage = _apply_change(stage, subunit_change)
        if wanted(index):
            mirrors[index] = _subunit_parent_change(subunit_id, subunit_change, index, stage)
    return mirrors


def _subunit_parent_change(subunit_id: str, change: UnitChange, index: int, stage: dict[str, Any] | None
                           ) -> UnitChange:
    kind = {"AddUnit": "AddSubUnit", "DeleteUnit": "DeleteSubUnit"}.get(change.change_type, "EditSubUnit")
    data: dict[str, Any] = {"subunit_id": subunit_id}
    if stage is not None:
        data["subunit"] = _normalized_stage(stage)
    return UnitChange(
        change_type=kind,  # type: ignore[arg-type]
        name=change.name,
        data=data,
        temporal=dict(change.temporal),
        metadata={
            "source": "subunit",
            "source_subunit_id": subunit_id,
            "source_change_index": index,
            "source_change_type": change.change_type,
        },
        source_unit_id=change.source_unit_id,
        targets=change.targets,
    )


def recreate_unit_from_changes(changes: list[UnitChange]) -> Unit | None:
    """Replay a history; returns the unit it describes, or None if its last state is deleted."""
    stage: dict[str, Any] | None = None
    for change in changes:
        stage = _apply_change(stage, change)
    return None if stage is None else _unit_from_stage(stage, changes)


def _apply_change(stage: dict[str, Any] | None, change: UnitChange) -> dict[str, Any] | None:
    """One replay step on plain data. The stage owns its containers, so replaying never alters the history."""
    kind = change.change_type
    if kind == "AddUnit":
        stage = _own_containers(dict(change.data))
        stage.setdefault("topic", change.name)
        stage.setdefault("temporal_topic", change.name)
    elif kind == "DeleteUnit":
        stage = None
    elif stage is None:
        raise ValueError(f"Cannot apply {kind} before AddUnit")
    elif kind == "EditUnit":
        stage.update(change.data)
        _own_containers(stage)
    elif kind in ("AddAttribute", "EditAttribute"):
        stage["attributes"][change.name] = change.data.get("value", change.data)
    elif kind == "RemoveAttribute":
        stage["attributes"].pop(change.name, None)
    elif kind in ("AddSubUnit", "EditSubUnit") and change.data.get("subunit") is not None:
        _upsert_subunit(stage, change.data["subunit"])
    elif kind == "DeleteSubUnit":
        stage["subunits"] = [s for s in stage["subunits"] if s.get("id") != change.data["subunit_id"]]
    return stage


def _own_containers(stage: dict[str, Any]) -> dict[str, Any]:
    """Copy the containers replay mutates (attributes, the subunit list); subunit entries are only replaced."""
    stage["attributes"] = dict(stage.get("attributes", {}))
    stage["subunits"] = list(stage.get("subunits", []))
    return stage


def _normalized_stage(data: dict[str, Any]) -> dict[str, Any]:
    """``unit_stage_data`` of the unit a stage describes, computed on plain data (no ``Unit`` is built)."""
    topic = data["topic"]
    if not (data.get("key") or topic.strip()):
        raise ValueError("Unit key cannot be empty")
    return {
        "id": data["id"],
        "document_id": data["document_id"],
        "topic": topic,
        "key": data.get("key") or topic,
        "temporal_topic": data.get("temporal_topic") or topic,
        "fulltext": data["fulltext"],
        "source_start": data.get("source_start"),
        "source_end": data.get("source_end"),
        "raw_text": data.get("raw_text", ""),
        "parent_id": data.get("parent_id"),
        "attributes": dict(data.get("attributes", {})),
        "metadata": dict(data.get("metadata", {})),
        "subunits": [_normalized_stage(subunit) for subunit in data.get("subunits", [])],
    }


def _upsert_subunit(stage: dict[str, Any], subunit: dict[str, Any]) -> None:
    subunits = stage.setdefault("subunits", [])
    for index, current in enumerate(subunits):
        if current.get("id") == subunit["id"]:
            subunits[index] = subunit
            return
    subunits.append(subunit)


def _unit_from_stage(data: dict[str, Any], changes: list[UnitChange]) -> Unit:
    return Unit(
        id=data["id"],
        document_id=data["document_id"],
        topic=data["topic"],
        key=data.get("key") or data["topic"],
        temporal_topic=data.get("temporal_topic") or data["topic"],
        fulltext=data["fulltext"],
        source_start=data.get("source_start"),
        source_end=data.get("source_end"),
        raw_text=data.get("raw_text", ""),
        parent_id=data.get("parent_id"),
        attributes=dict(data.get("attributes", {})),
        metadata=dict(data.get("metadata", {})),
        changes=changes,
        subunits=[_unit_from_stage(sub, []) for sub in data.get("subunits", [])],
    )


def is_active_unit(unit: Unit) -> bool:
    """True unless the unit's history ends in a deletion."""
    return recreate_unit_from_changes(unit.changes) is not None


def delete_unit(unit: Unit) -> Unit:
    """The unit with a ``DeleteUnit`` appended to its history."""
    return replace(unit, changes=[*unit.changes, UnitChange("DeleteUnit", unit.temporal_topic)])


def merge_unit_changes(previous_units: list[Unit], current_units: list[Unit]) -> list[Unit]:
    """Merge a fresh parse against the previous version: current units carry history, vanished ones a delete."""
    previous_by_id = {unit.id: unit for unit in previous_units}
    current_ids = {unit.id for unit in current_units}
    merged = [merge_unit_change(previous_by_id.get(unit.id), unit) for unit in current_units]
    merged.extend(
        delete_unit(previous)
        for previous in previous_units
        if previous.id not in current_ids and is_active_unit(previous)
    )
    return merged


def merge_unit_change(previous: Unit | None, current: Unit) -> Unit:
    """``current`` with the history of ``previous`` plus the changes that lead from it to ``current``."""
    if previous is None:
        return current
    previous_stage = recreate_unit_from_changes(previous.changes)
    base = [change for change in previous.changes if not change.targets]
    targeted = [change for change in current.changes if change.targets]
    if previous_stage is None:  # deleted before, now restored
        restored = UnitChange("AddUnit", current.temporal_topic, unit_stage_data(current))
        return replace(current, changes=[*base, restored, *targeted])
    changes = base + targeted
    edits = {
        name: getattr(current, name)
        for name in _EDITABLE_FIELDS
        if getattr(previous_stage, name) != getattr(current, name)
    }
    if previous_stage.metadata != current.metadata:
        edits["metadata"] = dict(current.metadata)
    if edits:
        changes.append(UnitChange("EditUnit", current.temporal_topic, edits))
    for name, value in current.attributes.items():
        if name not in previous_stage.attributes:
            changes.append(UnitChange("AddAttribute", name, {"value": value}))
        elif previous_stage.attributes[name] != value:
            changes.append(UnitChange("EditAttribute", name, {"value": value}))
    for name in sorted(previous_stage.attributes.keys() - current.attributes.keys()):
        changes.append(UnitChange("RemoveAttribute", name))
    merged_subunits = merge_unit_changes(previous.subunits, current.subunits)
    return replace(current, changes=changes, subunits=merged_subunits)
