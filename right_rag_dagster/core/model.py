"""The domain model: frozen dataclasses for documents, parsed units, units, chunks and unit changes.

Field names follow right-rag so that plugins written for it work with only the import prefix changed.
Users build ``Document`` (in loaders), ``ParsedUnit`` (in unit parsers) and ``Chunk`` (in chunk parsers);
``Unit`` is built only by the library (see ``core.units``), which gives it a stable id, its parent, the raw
source text and the replayable change history.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Literal

UnitChangeType = Literal[
    "AddUnit",
    "DeleteUnit",
    "EditUnit",
    "AddAttribute",
    "RemoveAttribute",
    "EditAttribute",
    "AddSubUnit",
    "EditSubUnit",
    "DeleteSubUnit",
]


@dataclass(frozen=True)
class Document:
    """A loaded document: its id (path relative to the documents folder), full text and page map.

    ``page_starts[i]`` is the character offset where physical page ``i + 1`` starts; ``page_labels[i]``
    is the label printed on that page (e.g. "26" or "iv"), when the format defines one.
    """

    id: str
    text: str
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    page_starts: tuple[int, ...] = ()
    page_labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "page_starts", tuple(self.page_starts))
        object.__setattr__(self, "page_labels", tuple(self.page_labels))

    @property
    def page_count(self) -> int:
        return len(self.page_starts)

    def page_at(self, offset: int | None) -> int | None:
        """Physical page number (1-based) holding character ``offset``, or None without a page map."""
        if offset is None or not self.page_starts:
            return None
        return max(1, bisect_right(self.page_starts, offset))

    def page_label(self, page: int | None) -> str | None:
        """The printed label of physical page ``page`` (falls back to the number itself)."""
        if page is None:
            return None
        if 0 < page <= len(self.page_labels) and self.page_labels[page - 1]:
            return self.page_labels[page - 1]
        return str(page)


@dataclass(frozen=True)
class ParsedUnit:
    """What a unit parser returns: one domain unit (section, clause, ...) and its subunits.

    ``key`` identifies the unit among its siblings (defaults to ``topic``); it must be unique there.
    ``source_start``/``source_end`` are character offsets in ``Document.text``.
    """

    topic: str
    fulltext: str
    temporal_topic: str = ""
    source_start: int | None = None
    source_end: int | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    subunits: list[ParsedUnit] = field(default_factory=list)
    key: str = ""


@dataclass(frozen=True)
class UnitChangeTarget:
    """A cross-unit target of a change (kept for right-rag compatibility)."""

    relation: str
    unit_id: str | None = None
    document_id: str | None = None
    selector: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitChange:
    """One step of a unit's history; replaying all steps in order rebuilds the current unit."""

    change_type: UnitChangeType
    name: str
    data: dict[str, Any] = field(default_factory=dict)
    temporal: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    source_unit_id: str | None = None
    targets: tuple[UnitChangeTarget, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", tuple(self.targets))


@dataclass(frozen=True)
class Unit:
    """A normalized unit, built by the library from a ``ParsedUnit``.

    ``raw_text`` is always ``document.text[source_start:source_end]``; ``changes`` is the replayable history
    (an ``AddUnit`` for a new unit, then edits merged on each re-index; see ``core.changes``).
    """

    id: str
    document_id: str
    topic: str
    fulltext: str
    temporal_topic: str = ""
    source_start: int | None = None
    source_end: int | None = None
    raw_text: str = ""
    parent_id: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    changes: list[UnitChange] = field(default_factory=list)
    subunits: list[Unit] = field(default_factory=list)
    key: str = ""

    def __post_init__(self) -> None:
        from .changes import changes_with_subunit_changes, unit_stage_data

        if not self.key:
            object.__setattr__(self, "key", self.topic.strip())
        if not self.key:
            raise ValueError("Unit key cannot be empty")
        if not self.temporal_topic:
            object.__setattr__(self, "temporal_topic", self.topic)
        ids = [subunit.id for subunit in self.subunits]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"Duplicate subunit ids under unit {self.id}: {duplicates}")
        changes = list(self.changes)
        if not changes:
            changes.append(UnitChange("AddUnit", self.temporal_topic, unit_stage_data(self)))
        object.__setattr__(self, "changes", changes_with_subunit_changes(changes, self.subunits))


@dataclass(frozen=True)
class Chunk:
    """A retrieval record cut from a unit, with provenance so it can be cited.

    ``source_start``/``source_end`` are offsets in the document text and ``page_start``/``page_end`` physical
    page numbers. A chunk parser may leave them empty: the pipeline fills them in from the unit.
    """

    id: str
    document_id: str
    unit_id: str
    topic: str
    fulltext: str
    attributes: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    source_start: int | None = None
    source_end: int | None = None
    page_start: int | None = None
    page_end: int | None = None
