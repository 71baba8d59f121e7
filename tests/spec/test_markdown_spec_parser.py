"""The Markdown specification parser on copyright-format-1.0.html as Docling exports it."""

from __future__ import annotations

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.errors import DocumentRejected

from .conftest import REPO_ROOT
from .invariants import check_tree, find_unit

SPEC = REPO_ROOT / "data" / "documents" / "copyright-format-1.0.html"


def test_sections_fields_and_contents(parse) -> None:
    document, units = parse("markdown-spec", SPEC)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    assert [u.key for u in units] == ["front matter", "contents", *[str(n) for n in range(1, 9)]]
    assert find_unit(units, "contents").attributes["role"] == "navigation"
    fields = find_unit(units, "6").subunits
    assert [u.attributes["defined_term"] for u in fields] == ["Format", "Upstream-Name", "Upstream-Contact", "Source",
                                                              "Disclaimer", "Comment", "License", "Copyright", "Files"]
    assert {u.attributes["unit_type"] for u in fields} == {"field_definition"}
    example = find_unit(units, "5", "5.1", "5.1.1")
    assert example.attributes["role"] == "example" and "```" in example.raw_text
    assert example.attributes["hierarchy"] == ["5. Stanzas", "5.1. Header stanza (once)",
                                               "5.1.1. Example header stanza"]
    assert units[0].attributes["document_label"] == "Machine-readable debian/copyright file, Version 1.0"


def test_declines_markdown_with_too_few_headings(spec_registry) -> None:
    """Declining (not accepting, then rejecting) lets a project's fallback parser take a Markdown page with one or
    two headings; 60 of 107 Markdown files under /usr/share/doc and the JDK's legal/ were lost that way."""
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    notes = Document("notes.md", "# Notes\n\n## Shopping\n\nmilk\n\n## Ideas\n\nnone yet\n")
    assert not parser.parser_can_handle_document(notes)
    with pytest.raises(DocumentRejected, match="2 headings after its title"):
        list(parser.parse_document(notes))
    assert not parser.parser_can_handle_document(Document("plain.txt", "## 1. Looks like Markdown\n"))
