"""Units' change histories stored compactly and losslessly: entries keep only what the units' rows do not hold.

A replayable history (``core.changes``) mostly repeats the ``units`` table: every ``AddUnit`` carries the unit's
whole subtree, every subunit change is mirrored on its parent (and that mirror on each ancestor), and the last
edit holds the current values. Stored as JSON it was the largest column of a re-indexed store (12.8-20 MB of
85 MB on the 710-file corpus). Here a history refers to the document's current units by ordinal: a subtree equal
to the current one is its ordinal, another one the fields that differ (a text as common prefix and suffix with
its current version, and the middle), a mirror that replaying the subunit's own history gives back is
(subunit, change index), and anything else is kept as it is. Every encoded entry is decoded once and compared
with the original, so ``decode_history`` always gives back exactly what ``encode_history`` was given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.changes import subunit_mirrors
from ..core.hashing import to_jsonable
from ..core.model import UnitChange, UnitChangeTarget

FORMAT = 2
"""Version of the stored form, ``{"v": 2, "e": [entries]}``; a JSON list is the form before it (entries as dicts)."""
STAGE_FIELDS = ("id", "document_id", "topic", "key", "temporal_topic", "fulltext", "source_start", "source_end",
                "raw_text", "parent_id", "attributes", "metadata")
"""A unit's own fields in a stage (``core.changes.unit_stage_data``), which also holds ``subunits``."""
_NODE_KEYS = frozenset((*STAGE_FIELDS, "subunits"))
_JSON_FIELDS = ("attributes", "metadata")
_ENTRY_DEFAULTS = {"temporal": {}, "metadata": {}, "source_unit_id": None, "targets": []}
_ENTRY_KEYS = frozenset(("change_type", "name", "data", *_ENTRY_DEFAULTS))
_MIN_SHARED_TEXT = 32
"""A text is stored as a change of its current version only when they share at least this many characters."""

Entry = dict[str, Any]
"""One ``UnitChange`` as plain JSON data (``to_jsonable``)."""


def canonical(value: Any) -> str:
    """The JSON text the store writes for ``value`` (``content._json``): equal texts mean equal stored values."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class UnitRow:
    """What the ``units`` table holds of one unit's own state (text resolved from the document's text)."""

    unit_id: str
    parent_id: str | None
    ordinal: int
    key: str
    topic: str
    temporal_topic: str
    fulltext: str
    source_start: int | None
    source_end: int | None
    raw_text: str
    attributes_json: str
    metadata_json: str


@dataclass(frozen=True)
class Reference:
    """A document's current units, by ordinal: what histories are stored against."""

    document_id: str
    rows: Mapping[int, UnitRow]
    ordinal_of: Mapping[str, int]
    children: Mapping[int, list[int]]
    _canonical: dict[tuple[int, str], str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, document_id: str, rows: Sequence[UnitRow]) -> Reference:
        ordinal_of = {row.unit_id: row.ordinal for row in rows}
        children: dict[int, list[int]] = {row.ordinal: [] for row in rows}
        for row in sorted(rows, key=lambda r: r.ordinal):
            parent = ordinal_of.get(row.parent_id) if row.parent_id is not None else None
            if parent is not None:
                children[parent].append(row.ordinal)
        return cls(document_id, {row.ordinal: row for row in rows}, ordinal_of, children)

    def value(self, ordinal: int, name: str) -> Any:
        """A fresh copy of one of the unit's stage fields."""
        row = self.rows[ordinal]
        if name == "id":
            return row.unit_id
        if name == "document_id":
            return self.document_id
        if name in _JSON_FIELDS:
            return json.loads(getattr(row, f"{name}_json") or "{}")
        return getattr(row, name)

    def same(self, ordinal: int, name: str, value: Any) -> bool:
        """Whether ``value`` is the unit's current ``name``, as stored (1 and 1.0, or 1 and True, differ)."""
        if name in _JSON_FIELDS:
            key = (ordinal, name)
            if key not in self._canonical:
                self._canonical[key] = canonical(self.value(ordinal, name))
            return canonical(value) == self._canonical[key]
        current = self.value(ordinal, name)
        return type(value) is type(current) and value == current

    def stage(self, ordinal: int) -> dict[str, Any]:
        """The unit's current stage with its subtree, as ``unit_stage_data`` gives it (fresh containers)."""
        return {**{name: self.value(ordinal, name) for name in STAGE_FIELDS},
                "subunits": [self.stage(child) for child in self.children[ordinal]]}


# -- encoding -------------------------------------------------------------------------------------------------

def encode_history(entries: list[Entry], ordinal: int, reference: Reference,
                   subunit_changes: Callable[[str], list[UnitChange] | None]) -> str:
    """The stored form of one unit's history (``entries``: its changes as plain data). ``subunit_changes`` gives
    the history a subunit reads back with, by id (None for a unit that is not one of its subunits)."""
    mirrors = _Mirrors(ordinal, reference, subunit_changes)
    encoded = []
    for entry in entries:
        compact = _encode_entry(entry, ordinal, reference, mirrors)
        if compact is not entry and canonical(_decode_entry(compact, ordinal, reference, mirrors)) != canonical(entry):
            compact = entry
        encoded.append(compact)
    return canonical({"v": FORMAT, "e": encoded})


def _encode_entry(entry: Entry, ordinal: int, reference: Reference, mirrors: _Mirrors) -> Any:
    if type(entry) is not dict or set(entry) != _ENTRY_KEYS or type(entry["data"]) is not dict:
        return entry
    kind, data = entry["change_type"], entry["data"]
    metadata = entry["metadata"]
    if type(metadata) is dict and metadata.get("source") == "subunit":
        child = reference.ordinal_of.get(metadata.get("source_subunit_id"))  # type: ignore[arg-type]
        index = metadata.get("source_change_index")
        if child in reference.children[ordinal] and type(index) is int and mirrors.has(child, index):
            return [kind, ["m", child, index]]
    payload: Any = data
    if kind == "AddUnit":
        node = _encode_node(data, reference)
        payload = data if type(node) is dict else ["a", node]
    elif kind == "EditUnit" and set(data) <= set(STAGE_FIELDS) - {"id"}:
        payload = ["e", *_diff(data, ordinal, reference, implicit=False)]
    extra = {name: entry[name] for name, default in _ENTRY_DEFAULTS.items() if entry[name] != default}
    return [kind, entry["name"], payload, *([extra] if extra else [])]


def _encode_node(node: Any, reference: Reference) -> Any:
    """A stage as the ordinal of the current unit it equals, [ordinal, literals, texts, subunits] when it differs
    from it, or {"=": stage} when no current unit has its id."""
    if type(node) is not dict or set(node) != _NODE_KEYS or type(node["subunits"]) is not list:
        return {"=": node}
    ordinal = reference.ordinal_of.get(node["id"]) if type(node["id"]) is str else None
    if ordinal is None:
        return {"=": node}
    _, literals, texts = _diff(node, ordinal, reference, implicit=True)
    subunits = [_encode_node(sub, reference) for sub in node["subunits"]]
    if not literals and not texts and subunits == reference.children[ordinal]:
        return ordinal
    return [ordinal, literals, texts, subunits]


def _diff(values: dict[str, Any], ordinal: int, reference: Reference, implicit: bool
          ) -> tuple[list[str], dict[str, Any], dict[str, list]]:
    """(fields equal to the current unit's, fields stored as they are, texts stored as changes of the current
    ones); with ``implicit`` (a whole stage) equal fields are left out instead of listed."""
    equal: list[str] = []
    literals: dict[str, Any] = {}
    texts: dict[str, list] = {}
    for name in STAGE_FIELDS if implicit else sorted(values):
        if name == "subunits":
            continue
        value = values[name]
        if reference.same(ordinal, name, value):
            if not implicit:
                equal.append(name)
            continue
        current = reference.value(ordinal, name)
        delta = text_delta(value, current) if type(value) is str and type(current) is str else None
        if delta is None:
            literals[name] = value
        else:
            texts[name] = delta
    return equal, literals, texts


def text_delta(old: str, current: str) -> list | None:
    """``old`` as [p, s, middle] with ``old == current[:p] + middle + current[len(current) - s:]``, when they share
    enough; None otherwise."""
    limit = min(len(old), len(current))
    low, high = 0, limit  # longest common prefix, by halving (slices compare in C)
    while low < high:
        middle = (low + high + 1) // 2
        if old[:middle] == current[:middle]:
            low = middle
        else:
            high = middle - 1
    prefix = low
    low, high = 0, limit - prefix  # longest common suffix not overlapping the prefix
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle:] == current[len(current) - middle:]:
            low = middle
        else:
            high = middle - 1
    suffix = low
    if prefix + suffix < _MIN_SHARED_TEXT:
        return None
    return [prefix, suffix, old[prefix:len(old) - suffix]]


def apply_text_delta(delta: list, current: str) -> str:
    prefix, suffix, middle = delta
    return current[:prefix] + middle + current[len(current) - suffix:]


# -- decoding -------------------------------------------------------------------------------------------------

def is_compact(stored: str | None) -> bool:
    """Whether a stored history is in this module's form (not NULL, not the list of full entries before it)."""
    return stored is not None and stored.lstrip().startswith("{")


def decode_history(stored: str, ordinal: int, reference: Reference,
                   subunit_changes: Callable[[str], list[UnitChange] | None]) -> list[Entry]:
    """The history entries (plain data) of the unit at ``ordinal``, from either stored form."""
    value = json.loads(stored)
    if type(value) is list:
        return value
    if value.get("v") != FORMAT:
        raise ValueError(f"unit history of format {value.get('v')!r}; this right-rag reads {FORMAT}")
    mirrors = _Mirrors(ordinal, reference, subunit_changes)
    return [_decode_entry(entry, ordinal, reference, mirrors) for entry in value["e"]]


def _decode_entry(entry: Any, ordinal: int, reference: Reference, mirrors: _Mirrors) -> Entry:
    if type(entry) is dict:
        return entry
    if len(entry) == 2:
        _, (_, child, index) = entry
        return mirrors.get(child, index)
    kind, name, payload, *rest = entry
    data = payload
    if type(payload) is list and payload[0] == "a":
        data = _decode_node(payload[1], reference)
    elif type(payload) is list and payload[0] == "e":
        _, equal, literals, texts = payload
        data = {**{n: reference.value(ordinal, n) for n in equal}, **literals,
                **{n: apply_text_delta(d, reference.value(ordinal, n)) for n, d in texts.items()}}
    extra = rest[0] if rest else {}
    return {"change_type": kind, "name": name, "data": data, "temporal": extra.get("temporal", {}),
            "metadata": extra.get("metadata", {}), "source_unit_id": extra.get("source_unit_id"),
            "targets": extra.get("targets", [])}


def _decode_node(node: Any, reference: Reference) -> dict[str, Any]:
    if type(node) is int:
        return reference.stage(node)
    if type(node) is dict:
        return node["="]
    ordinal, literals, texts, subunits = node
    stage = {name: reference.value(ordinal, name) for name in STAGE_FIELDS}
    stage.update(literals)
    for name, delta in texts.items():
        stage[name] = apply_text_delta(delta, reference.value(ordinal, name))
    stage["subunits"] = [_decode_node(sub, reference) for sub in subunits]
    return stage


class _Mirrors:
    """The mirrors of a unit's subunits' changes, as plain data, replayed once per subunit when first asked."""

    def __init__(self, ordinal: int, reference: Reference,
                 subunit_changes: Callable[[str], list[UnitChange] | None]) -> None:
        self.reference, self.subunit_changes = reference, subunit_changes
        self._by_child: dict[int, dict[int, Entry]] = {}

    def _of(self, child: int) -> dict[int, Entry]:
        if child not in self._by_child:
            unit_id = self.reference.rows[child].unit_id
            changes = self.subunit_changes(unit_id)
            self._by_child[child] = ({} if changes is None else
                                     {i: to_jsonable(m) for i, m in subunit_mirrors(unit_id, changes).items()})
        return self._by_child[child]

    def has(self, child: int, index: int) -> bool:
        return index in self._of(child)

    def get(self, child: int, index: int) -> Entry:
        return self._of(child)[index]


def change_from_entry(data: Entry) -> UnitChange:
    """A ``UnitChange`` from its plain data."""
    return UnitChange(
        change_type=data["change_type"], name=data["name"], data=data.get("data", {}),
        temporal=data.get("temporal", {}), metadata=data.get("metadata", {}),
        source_unit_id=data.get("source_unit_id"),
        targets=tuple(UnitChangeTarget(**t) for t in data.get("targets", [])),
    )
