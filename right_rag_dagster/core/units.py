"""Build library ``Unit`` trees from what a parser returned, enforcing the model's rules."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator

from ..errors import ParserOutputError
from .hashing import canonical_json, stable_hash
from .ids import unit_id_for_path
from .model import Document, ParsedUnit, Unit


def build_units(document: Document, parsed_units: Iterable[ParsedUnit], parser_name: str = "") -> list[Unit]:
    """Turn a parser's ``ParsedUnit`` trees into ``Unit`` trees with stable ids and raw text.

    Raises ``ParserOutputError`` naming the parser, document and key path on duplicate sibling keys,
    empty keys or spans outside the document.
    """
    roots = list(parsed_units)
    _check_keys(roots, (), document, parser_name)
    return [_build(document, parsed, None, (), "", parser_name) for parsed in roots]


def _key(parsed: ParsedUnit) -> str:
    return (parsed.key or parsed.topic).strip()


def _check_keys(siblings: list[ParsedUnit], parent_path: tuple[str, ...], document: Document, parser: str) -> None:
    keys = [_key(parsed) for parsed in siblings]
    where = json.dumps(list(parent_path), ensure_ascii=False) if parent_path else "the document root"
    if "" in keys:
        raise ParserOutputError(
            f"parser {parser!r} returned a unit with an empty key and topic under {where} in {document.id}"
        )
    duplicates = sorted(key for key, count in Counter(keys).items() if count > 1)  # linear: 10^5 siblings happen
    if duplicates:
        raise ParserOutputError(
            f"parser {parser!r} returned duplicate sibling keys {duplicates} under {where} in {document.id}; "
            "give each ParsedUnit a key that is unique among its siblings (e.g. its numbering)"
        )


def _build(
    document: Document,
    parsed: ParsedUnit,
    parent_id: str | None,
    parent_path: tuple[str, ...],
    parent_temporal: str,
    parser: str,
) -> Unit:
    key = _key(parsed)
    path = (*parent_path, key)
    unit_id = unit_id_for_path(document.id, path)
    temporal = parsed.temporal_topic or (f"{parent_temporal} {parsed.topic}" if parent_temporal else parsed.topic)
    start, end = parsed.source_start, parsed.source_end
    if (start is None) != (end is None) or (
        start is not None and not (0 <= start <= end <= len(document.text))  # type: ignore[operator]
    ):
        raise ParserOutputError(
            f"parser {parser!r} returned unit {list(path)} with span ({start}, {end}) outside "
            f"{document.id} (0..{len(document.text)}); both ends must be set and within the text"
        )
    _check_keys(parsed.subunits, path, document, parser)
    subunits = [_build(document, sub, unit_id, path, temporal, parser) for sub in parsed.subunits]
    return Unit(
        id=unit_id,
        document_id=document.id,
        topic=parsed.topic,
        key=key,
        temporal_topic=temporal,
        fulltext=parsed.fulltext,
        source_start=start,
        source_end=end,
        raw_text=document.text[start:end] if start is not None else "",
        parent_id=parent_id,
        attributes=dict(parsed.attributes),
        metadata=dict(parsed.metadata),
        subunits=subunits,
    )


def walk_units(units: Iterable[Unit]) -> Iterator[Unit]:
    """Every unit of the trees, parents before children, in source order."""
    stack = list(reversed(list(units)))
    while stack:
        unit = stack.pop()
        yield unit
        stack.extend(reversed(unit.subunits))


def unit_paths(units: Iterable[Unit], attribute: str = "topic") -> dict[str, tuple[str, ...]]:
    """Map each unit id to the path of ``attribute`` values from the root: topics give the section path shown
    in citations, ``"key"`` the identity path that unit ids hash.

    A unit whose parser states its section path (a ``hierarchy`` attribute: a non-empty list or tuple of strings)
    has that one in the topics' path: a unit with no heading of its own (the "Paragraph" between a manual section's
    entries, a page's passage of a section) is cited, and headed, by its section, as the parser's chunk headers are.
    An empty ``hierarchy`` (such a unit at the top level) leaves the topic.
    """
    paths: dict[str, tuple[str, ...]] = {}
    stack = [(unit, ()) for unit in reversed(list(units))]
    while stack:
        unit, prefix = stack.pop()
        stated = unit.attributes.get("hierarchy") if attribute == "topic" else None
        if isinstance(stated, (list, tuple)) and stated and all(isinstance(part, str) for part in stated):
            paths[unit.id] = tuple(stated)
        else:
            paths[unit.id] = (*prefix, getattr(unit, attribute))
        stack.extend((sub, paths[unit.id]) for sub in reversed(unit.subunits))
    return paths


def own_span(unit: Unit) -> tuple[int | None, int | None]:
    """The part of a unit's span before its first subunit starts: the text that belongs to it alone.

    Chunkers called on every unit use it so a parent's chunks do not repeat its children's text.
    """
    if unit.source_start is None or unit.source_end is None:
        return None, None
    child_starts = [s.source_start for s in unit.subunits if s.source_start is not None]
    end = min([unit.source_end, *child_starts]) if child_starts else unit.source_end
    return unit.source_start, max(unit.source_start, end)


def units_fingerprint(units: Iterable[Unit]) -> str:
    """Hash of what chunkers see (ids, text, spans, attributes), not of the history: the units' data version."""
    return stable_hash([
        [u.id, u.parent_id, u.topic, u.temporal_topic, u.fulltext, u.source_start, u.source_end,
         canonical_json(u.attributes), canonical_json(u.metadata)]
        for u in walk_units(units)
    ])[:16]
