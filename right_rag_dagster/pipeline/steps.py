"""Pipeline steps as plain functions over core types: load -> route and parse units -> chunk -> coverage.

The CLI and the Dagster assets call exactly these; none of them touches Dagster or the store.
Every call into a user plugin is wrapped so a failure names the plugin, the step and the document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.coverage import Coverage, compute_coverage
from ..core.interfaces import ChunkParser, DocumentLoader, UnitParser
from ..core.model import Chunk, Document, Unit
from ..core.routing import FAILED, Rejection, route_document
from ..core.units import build_units, walk_units
from ..errors import DocumentRejected, ParserOutputError


@dataclass(frozen=True)
class LoadOutcome:
    """A loaded document, or the rejection explaining why the file could not be read."""

    document: Document | None
    loader: str | None
    rejection: Rejection | None = None


@dataclass(frozen=True)
class ParseOutcome:
    """The units of the one parser that owns the document, or a rejection (unsupported/ambiguous/failed)."""

    parser: str | None
    units: list[Unit]
    rejection: Rejection | None = None


def load_document(path: Path, document_id: str, loaders: Sequence[DocumentLoader]) -> LoadOutcome:
    """Load ``path`` with the first loader that accepts it; bad input becomes a rejection, never an exception."""
    for loader in loaders:
        name = loader.loader_name
        try:
            if not loader.can_load(path):
                continue
            document = loader.load_document(path, document_id)
            empty = not document.text.strip()
        except DocumentRejected as exc:
            return LoadOutcome(None, name, Rejection(document_id, exc.status, exc.reason, (name,)))
        except Exception as exc:
            reason = f"loader {name!r} failed: {type(exc).__name__}: {exc}"
            return LoadOutcome(None, name, Rejection(document_id, FAILED, reason, (name,)))
        if empty:
            return LoadOutcome(None, name, Rejection(document_id, "rejected", "no text could be extracted", (name,)))
        return LoadOutcome(document, name)
    names = ", ".join(loader.loader_name for loader in loaders) or "none selected"
    reason = f"no document loader accepts files like {path.name!r} (loaders: {names})"
    return LoadOutcome(None, None, Rejection(document_id, "unsupported", reason, ()))


def parse_document(document: Document, parsers: Sequence[UnitParser],
                   fallback: UnitParser | None = None) -> ParseOutcome:
    """Route the document to its one parser (or the fallback, when none accepts it) and build the unit trees;
    any problem becomes a rejection."""
    route = route_document(document, parsers, fallback)
    if route.parser is None:
        return ParseOutcome(None, [], route.rejection)
    return parse_with(document, route.parser)


def parse_with(document: Document, parser: UnitParser) -> ParseOutcome:
    """Run one parser on a document it accepted and build the library ``Unit`` trees."""
    name = parser.parser_name
    try:
        units = build_units(document, parser.parse_document(document), name)
    except ParserOutputError as exc:
        return ParseOutcome(name, [], Rejection(document.id, FAILED, str(exc), (name,)))
    except DocumentRejected as exc:
        return ParseOutcome(name, [], Rejection(document.id, exc.status, exc.reason, (name,)))
    except Exception as exc:
        reason = f"parser {name!r} raised {type(exc).__name__}: {exc}"
        return ParseOutcome(name, [], Rejection(document.id, FAILED, reason, (name,)))
    if not units:
        reason = f"parser {name!r} accepted the document but returned no units"
        return ParseOutcome(name, [], Rejection(document.id, FAILED, reason, (name,)))
    return ParseOutcome(name, units)


def chunk_units(document: Document, units: Sequence[Unit], chunker: ChunkParser) -> list[Chunk]:
    """Run a chunk parser on every unit (pre-order) and fill in each chunk's span and pages.

    Raises ``ParserOutputError`` naming the chunker and unit when it fails or repeats a chunk id.
    """
    name = chunker.parser_name
    chunks: list[Chunk] = []
    for unit in walk_units(units):
        if not unit.fulltext.strip():
            continue
        try:
            produced = list(chunker.parse_unit(unit))
        except Exception as exc:
            raise ParserOutputError(
                f"chunk parser {name!r} failed on unit {unit.topic!r} of {document.id}: {type(exc).__name__}: {exc}"
            ) from exc
        chunks.extend(with_provenance(document, unit, chunk) for chunk in produced)
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id in seen:
            raise ParserOutputError(f"chunk parser {name!r} produced chunk id {chunk.id} twice in {document.id}; "
                                    "derive ids from the unit id, the parser name and an ordinal")
        seen.add(chunk.id)
    return chunks


def with_provenance(document: Document, unit: Unit, chunk: Chunk) -> Chunk:
    """Fill a chunk's missing source span (found in the unit's text, else the unit's span) and its pages."""
    start, end = chunk.source_start, chunk.source_end
    if start is None or end is None:
        start, end = _locate(document, unit, chunk.fulltext)
    return replace(
        chunk,
        source_start=start,
        source_end=end,
        page_start=chunk.page_start if chunk.page_start is not None else document.page_at(start),
        page_end=chunk.page_end if chunk.page_end is not None else document.page_at(None if end is None else max(start or 0, end - 1)),
    )


def _locate(document: Document, unit: Unit, text: str) -> tuple[int | None, int | None]:
    if unit.source_start is None or unit.source_end is None:
        return None, None
    needle = text.strip()
    if needle:
        found = document.text.find(needle, unit.source_start, unit.source_end)
        if found >= 0:
            return found, found + len(needle)
    return unit.source_start, unit.source_end


def document_coverage(document: Document, units: Sequence[Unit]) -> Coverage:
    """Coverage of the document text by the units' merged spans."""
    return compute_coverage(len(document.text), units)


def units_by_type(units: Sequence[Unit]) -> dict[str, int]:
    """Count units per ``unit_type`` attribute (``untyped`` when missing)."""
    counts = Counter(str(u.attributes.get("unit_type") or "untyped") for u in walk_units(units))
    return dict(sorted(counts.items()))
