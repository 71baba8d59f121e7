"""Quotes written with collapsed whitespace map back to exact spans of the original text; coverage arithmetic."""

from __future__ import annotations

from pathlib import Path

from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader
from right_rag_dagster.evaluation.spans import (
    CollapsedText,
    collapse_whitespace,
    covered_chars,
    half_covered,
)


def test_quote_with_collapsed_whitespace_maps_to_original_span() -> None:
    text = "Intro.\n\n  The  quick\n   brown\tfox jumps.\nEnd"
    spans = CollapsedText.of(text).find_all("The quick brown fox")
    assert spans == [(text.index("The"), text.index("fox") + 3)]
    start, end = spans[0]
    assert collapse_whitespace(text[start:end]) == "The quick brown fox"


def test_quote_whitespace_is_collapsed_too_and_every_occurrence_is_found() -> None:
    text = "a b\nc ... a  b c"
    assert CollapsedText.of(text).find_all(" a\n b  c ") == [(0, 5), (10, 16)]
    assert CollapsedText.of(text).find_all("a b d") == []
    assert CollapsedText.of(text).find_all("   ") == []


def test_pdf_quote_with_line_break_found_in_real_pdf_text(sample_documents: Path) -> None:
    document = DefaultDocumentLoader().load_document(sample_documents / "fhs-3.0.pdf", "fhs-3.0.pdf")
    quote = ("Programs must not assume that any files or directories in /tmp are preserved between invocations "
             "of the program.")
    assert quote not in document.text  # the PDF text breaks the line inside the quote
    [(start, end)] = CollapsedText.of(document.text).find_all(quote)
    assert "\n" in document.text[start:end]
    assert collapse_whitespace(document.text[start:end]) == quote
    assert document.page_at(start) == 24


def test_covered_chars_counts_the_union_once() -> None:
    target = (100, 200)
    assert covered_chars(target, [(0, 150)]) == 50
    assert covered_chars(target, [(90, 130), (120, 160)]) == 60  # overlap 120-130 counted once
    assert covered_chars(target, [(300, 400), (0, 100)]) == 0  # touching at the edge is no overlap
    assert covered_chars(target, [(150, 300), (0, 120)]) == 70


def test_half_covered_threshold_is_inclusive() -> None:
    target = (100, 201)  # 101 characters: half is 50.5
    assert not half_covered(target, [(0, 150)])  # 50 characters
    assert half_covered(target, [(0, 151)])  # 51 characters
    assert half_covered((0, 10), [(5, 10)])  # exactly half
    assert not half_covered((0, 0), [(0, 10)])
