"""Coverage of a document by a parser's units: how much of the text the unit spans cover."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .model import Unit
from .units import walk_units


@dataclass(frozen=True)
class Coverage:
    """Coverage figures, in right-rag's field names, for one document and one unit parser."""

    document_chars: int
    covered_chars: int
    uncovered_chars: int
    coverage_percent: float
    units_total: int
    units_with_source_span: int
    source_ranges: list[dict[str, int]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "document_chars": self.document_chars,
            "covered_chars": self.covered_chars,
            "uncovered_chars": self.uncovered_chars,
            "coverage_percent": self.coverage_percent,
            "units_total": self.units_total,
            "units_with_source_span": self.units_with_source_span,
            "source_ranges": list(self.source_ranges),
        }


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping or touching [start, end) ranges; empty ranges are dropped."""
    merged: list[list[int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def compute_coverage(document_chars: int, units: Iterable[Unit]) -> Coverage:
    """Coverage of ``document_chars`` characters by the merged spans of every unit in the trees."""
    all_units = list(walk_units(units))
    spans = [
        (max(0, u.source_start), min(document_chars, u.source_end))
        for u in all_units
        if u.source_start is not None and u.source_end is not None
    ]
    ranges = merge_ranges(spans)
    covered = sum(end - start for start, end in ranges)
    percent = round(100.0 * covered / document_chars, 2) if document_chars else 0.0
    return Coverage(
        document_chars=document_chars,
        covered_chars=covered,
        uncovered_chars=document_chars - covered,
        coverage_percent=percent,
        units_total=len(all_units),
        units_with_source_span=len(spans),
        source_ranges=[{"start": start, "end": end} for start, end in ranges],
    )
