"""Checks at the plugin boundary: what a unit or chunk parser returned must fit its document and units.

A violation raises ``ParserOutputError`` naming the plugin, the document and the offending unit or chunk, and
the document is rejected (its last good version keeps serving): a citation must never read "p. -3-99999".
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.model import Chunk, Document, Unit
from ..core.units import unit_paths, walk_units
from ..errors import ParserOutputError


def check_units(document: Document, units: Sequence[Unit], parser: str) -> None:
    """Sibling units must not overlap and a subunit must lie inside its parent's span (spans inside the
    document and unique sibling keys are checked when the units are built)."""
    paths = unit_paths(units)

    def where(unit: Unit) -> str:
        return f"{' > '.join(paths[unit.id])!r} ({unit.source_start}-{unit.source_end})"

    def check(siblings: Sequence[Unit], parent: Unit | None) -> None:
        spanned = sorted((u for u in siblings if u.source_start is not None), key=lambda u: (u.source_start, u.source_end))
        for before, after in zip(spanned, spanned[1:]):
            if after.source_start < before.source_end:  # type: ignore[operator]
                raise ParserOutputError(
                    f"unit parser {parser!r} returned overlapping sibling units {where(before)} and {where(after)} "
                    f"in {document.id}; a unit's text belongs to one unit (nest it as a subunit instead)")
        for unit in siblings:
            if (parent is not None and parent.source_start is not None and unit.source_start is not None
                    and not parent.source_start <= unit.source_start <= unit.source_end <= parent.source_end):  # type: ignore[operator]
                raise ParserOutputError(
                    f"unit parser {parser!r} returned subunit {where(unit)} outside its parent {where(parent)} "
                    f"in {document.id}")
            check(unit.subunits, unit)

    check(units, None)


def check_chunks(document: Document, units: Sequence[Unit], chunks: Sequence[Chunk], chunker: str) -> None:
    """Every chunk has text, belongs to a unit of the document, and its span and pages lie inside both."""
    by_id = {unit.id: unit for unit in walk_units(units)}
    length, pages = len(document.text), document.page_count
    for chunk in chunks:
        def fail(problem: str) -> ParserOutputError:
            return ParserOutputError(f"chunk parser {chunker!r} returned chunk {chunk.id} ({chunk.topic!r}) {problem} "
                                     f"in {document.id}")

        if not chunk.fulltext.strip():
            raise fail("with empty text")
        if chunk.document_id != document.id:
            raise fail(f"of another document ({chunk.document_id!r})")
        unit = by_id.get(chunk.unit_id)
        if unit is None:
            raise fail(f"for unit {chunk.unit_id!r}, which is not a unit of the document")
        start, end = chunk.source_start, chunk.source_end
        if (start is None) != (end is None):
            raise fail(f"with a half-open span ({start}, {end})")
        if start is not None and end is not None:
            if not 0 <= start <= end <= length:
                raise fail(f"with span ({start}, {end}) outside the document (0..{length})")
            if unit.source_start is not None and unit.source_end is not None and not (
                    unit.source_start <= start and end <= unit.source_end):
                raise fail(f"with span ({start}, {end}) outside its unit {unit.topic!r} "
                           f"({unit.source_start}-{unit.source_end})")
        for page in (chunk.page_start, chunk.page_end):
            if page is not None and not 1 <= page <= pages:
                raise fail(f"on page {page}, but the document has {pages} pages" if pages else
                           f"on page {page}, but the document has no pages")
        if chunk.page_start is not None and chunk.page_end is not None and chunk.page_start > chunk.page_end:
            raise fail(f"with pages {chunk.page_start}-{chunk.page_end} in reverse order")
