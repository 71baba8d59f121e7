"""Checks every parser's output must pass: faithful spans, nesting, attributes, no page furniture in own text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from right_rag_dagster.core.coverage import merge_ranges
from right_rag_dagster.core.model import Document, Unit
from right_rag_dagster.core.units import own_span, walk_units

REQUIRED_ATTRIBUTES = ("unit_type", "hierarchy", "document_title")


def check_tree(document: Document, units: Sequence[Unit]) -> None:
    """Spans inside the text and slicing back to raw_text; children inside parents, in order, not overlapping."""
    for unit in walk_units(units):
        assert unit.source_start is not None and unit.source_end is not None, unit.topic
        assert 0 <= unit.source_start < unit.source_end <= len(document.text), unit.topic
        assert unit.raw_text == document.text[unit.source_start:unit.source_end]
        assert unit.raw_text == unit.raw_text.strip(), f"span of {unit.topic!r} starts or ends with whitespace"
        for name in REQUIRED_ATTRIBUTES:
            assert unit.attributes.get(name), f"{unit.topic!r} lacks attribute {name}"
        previous_end = unit.source_start
        for child in unit.subunits:
            assert unit.source_start <= child.source_start and child.source_end <= unit.source_end, child.topic
            assert child.source_start >= previous_end, f"{child.topic!r} overlaps its previous sibling"
            previous_end = child.source_end
        if not unit.subunits:
            assert " ".join(unit.fulltext.split()) == " ".join(unit.raw_text.split()), unit.topic


def own_texts(document: Document, units: Iterable[Unit]) -> list[tuple[Unit, str]]:
    """Each unit with the text that belongs to it alone (what a chunker sees)."""
    result = []
    for unit in walk_units(units):
        start, end = own_span(unit)
        result.append((unit, document.text[start:end]))
    return result


def content_chars(units: Iterable[Unit]) -> int:
    """Characters in the own text of units that are not navigation (contents, index)."""
    spans = [own_span(u) for u in walk_units(units) if u.attributes.get("role") != "navigation"]
    return sum(end - start for start, end in merge_ranges(spans))


def find_unit(units: Iterable[Unit], *keys: str) -> Unit:
    """The unit at the key path ``keys`` (from a root)."""
    level: Iterable[Unit] = units
    found = None
    for key in keys:
        found = next((u for u in level if u.key == key), None)
        assert found is not None, f"no unit with key {key!r} among {[u.key for u in level]}"
        level = found.subunits
    assert found is not None
    return found


def lines_matching(text: str, pattern: str) -> list[str]:
    return [line for line in text.splitlines() if re.search(pattern, line)]
