"""Coverage math: merged spans of every unit in the tree, over the document's characters."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage, merge_ranges
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.units import build_units

DOC = Document(id="d.txt", text="x" * 200)


def unit(key: str, start: int | None, end: int | None, *subunits: ParsedUnit) -> ParsedUnit:
    return ParsedUnit(topic=key, fulltext="t", source_start=start, source_end=end, subunits=list(subunits))


def test_merge_ranges_joins_overlapping_touching_and_nested_ranges_and_drops_empty_ones():
    assert merge_ranges([(50, 60), (0, 10), (5, 20), (20, 30), (55, 58), (70, 70), (80, 79)]) == [
        (0, 30), (50, 60)]
    assert merge_ranges([]) == []


def test_nested_and_overlapping_spans_are_counted_once():
    tree = [
        unit("Chapter 1", 10, 110, unit("Section 1", 10, 60), unit("Section 2", 50, 110, unit("Clause", 70, 80))),
        unit("Chapter 2", 100, 150),
        unit("Annex", 180, 190),
        unit("Note", None, None),
    ]
    coverage = compute_coverage(len(DOC.text), build_units(DOC, tree, "p"))
    assert coverage.source_ranges == [{"start": 10, "end": 150}, {"start": 180, "end": 190}]
    assert (coverage.document_chars, coverage.covered_chars, coverage.uncovered_chars) == (200, 150, 50)
    assert coverage.coverage_percent == 75.0
    assert (coverage.units_total, coverage.units_with_source_span) == (7, 6)


def test_percent_is_rounded_and_reported_with_right_rag_field_names():
    coverage = compute_coverage(3, build_units(Document(id="d", text="abc"), [unit("a", 0, 1)], "p"))
    assert coverage.coverage_percent == 33.33
    assert coverage.as_dict() == {
        "document_chars": 3, "covered_chars": 1, "uncovered_chars": 2, "coverage_percent": 33.33,
        "units_total": 1, "units_with_source_span": 1, "source_ranges": [{"start": 0, "end": 1}],
    }


def test_no_units_and_empty_documents_give_zero_without_dividing_by_zero():
    assert compute_coverage(100, []).as_dict()["coverage_percent"] == 0.0
    empty = compute_coverage(0, [])
    assert (empty.covered_chars, empty.uncovered_chars, empty.coverage_percent) == (0, 0, 0.0)


def test_full_cover_is_exactly_one_hundred():
    coverage = compute_coverage(200, build_units(DOC, [unit("a", 0, 120), unit("b", 100, 200)], "p"))
    assert (coverage.covered_chars, coverage.coverage_percent) == (200, 100.0)
