"""The manual parser on the real Debian Policy (193 pages) and FHS 3.0 PDFs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import walk_units
from right_rag_dagster.errors import DocumentRejected

from .conftest import REPO_ROOT
from .invariants import check_tree, content_chars, find_unit, own_texts

DOCUMENTS = REPO_ROOT / "data" / "documents"
POLICY = DOCUMENTS / "debian-policy.pdf"
FHS = DOCUMENTS / "fhs-3.0.pdf"
SECTION_TYPES = {"chapter", "section", "subsection", "subsubsection"}


@pytest.mark.parametrize("path", [POLICY, FHS], ids=["debian-policy", "fhs"])
def test_tree_is_faithful_and_covers_the_text(parse, path) -> None:
    document, units = parse("manual", path)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    navigation = sum(u.source_end - u.source_start for u in units if u.attributes.get("role") == "navigation")
    furniture = sum(u.attributes.get("furniture_chars", 0) for u in walk_units(units))
    # Everything the spans cover is content, the contents/index (navigation) or counted page furniture.
    assert content_chars(units) + navigation + furniture >= 0.95 * len(document.text)


def test_policy_4_9_1_sits_under_4_9_under_chapter_4_on_page_26(parse) -> None:
    document, units = parse("manual", POLICY)
    unit = find_unit(units, "4", "4.9", "4.9.1")
    assert unit.topic == "4.9.1 debian/rules and DEB_BUILD_OPTIONS"
    assert unit.attributes["page_start"] == "26" and unit.attributes["page_index_start"] == 36
    assert unit.attributes["hierarchy"][:3] == ["4 Source packages", "4.9 Main building script: debian/rules",
                                                "4.9.1 debian/rules and DEB_BUILD_OPTIONS"]
    assert unit.raw_text.startswith("4.9.1 debian/rules and DEB_BUILD_OPTIONS")
    assert "This tag says to not run any build-time test suite" in unit.fulltext
    assert unit.attributes["document_title"] == "Debian Policy Manual"


def test_policy_every_contents_entry_is_a_unit(parse) -> None:
    document, units = parse("manual", POLICY)
    contents = find_unit(units, "contents")
    toc_numbers = re.findall(r"(?m)^(\d+(?:\.\d+)*) \S", contents.raw_text)
    numbered = [u.attributes["numbering"] for u in walk_units(units) if u.attributes["unit_type"] in SECTION_TYPES]
    assert numbered == toc_numbers and len(numbered) == 338
    assert [u.key for u in units if u.attributes["unit_type"] == "chapter"] == [str(n) for n in range(1, 24)]
    assert contents.attributes["role"] == "navigation" and units[-1].attributes["unit_type"] == "index"


@pytest.mark.parametrize("path", [POLICY, FHS], ids=["debian-policy", "fhs"])
def test_no_running_header_footer_or_page_number_in_own_text(parse, path) -> None:
    document, units = parse("manual", path)
    header = "Debian Policy Manual, Release 4.6.2.0"
    running_titles = {"The Root Filesystem", "The /usr Hierarchy", "The /var Hierarchy",
                      "Operating System Specific Annex"}
    checked = 0
    for unit, text in own_texts(document, units):
        if unit.attributes.get("role") == "navigation" or not text.strip():
            continue
        assert header not in text, unit.topic
        assert "(continued from previous page)" not in text and "(continues on next page)" not in text
        first = unit.source_start + len(text) - len(text.lstrip())
        last = unit.source_start + len(text.rstrip()) - len(text.strip().splitlines()[-1])
        for offset in {first, last}:  # page furniture sits where a page starts or ends
            page = document.page_at(offset)
            edges = _page_edge_lines(document, page)
            if offset not in edges:
                continue
            line = edges[offset]
            label = document.page_label(page)
            footer = re.fullmatch(rf"{label} ?Chapter \d+\. .*|\d+(\.\d+)*\. .* {label}|{label}", line)
            assert not footer and line not in running_titles, (unit.topic, line)
            checked += 1
    assert checked > 50
    # The furniture is still in the document, between units' own texts: the check above is not vacuous.
    assert document.text.count(header) > 100 if path == POLICY else "The Root Filesystem\n5\n" in document.text


def _page_edge_lines(document: Document, page: int) -> dict[int, str]:
    """Offset -> text of the first two and last two non-blank lines of a page."""
    starts = list(document.page_starts) + [len(document.text)]
    lines, position = [], starts[page - 1]
    for raw in document.text[starts[page - 1]:starts[page]].split("\n"):
        if raw.strip():
            lines.append((position + len(raw) - len(raw.lstrip()), raw.strip()))
        position += len(raw) + 1
    return dict(lines[:2] + lines[-2:])


def test_policy_footnotes_and_page_passages(parse) -> None:
    _, units = parse("manual", POLICY)
    section = find_unit(units, "4", "4.9", "4.9.1")
    kinds = [(u.attributes["unit_type"], u.key) for u in section.subunits]
    assert kinds == [("passage", "page 26"), ("footnote", "footnote 14"), ("footnote", "footnote 15"),
                     ("passage", "page 27")]
    note = section.subunits[1]
    assert note.raw_text.startswith("14 Some packages support any delimiter") and note.attributes["role"] == "note"
    assert section.subunits[0].attributes["hierarchy"] == section.attributes["hierarchy"]


def test_fhs_structure_purpose_requirements_and_pages(parse) -> None:
    _, units = parse("manual", FHS)
    assert [u.key for u in units if u.attributes["unit_type"] == "chapter"] == [str(n) for n in range(1, 8)]
    srv = find_unit(units, "3", "3.17")
    assert srv.topic == "3.17 /srv : Data for services provided by this system"
    purpose = find_unit(units, "3", "3.17", "3.17.1")
    assert purpose.attributes["role"] == "purpose" and purpose.attributes["page_start"] == "16"
    assert find_unit(units, "3", "3.4", "3.4.2").attributes["role"] == "duty"
    assert find_unit(units, "3", "3.4").topic.endswith("(for use by all users)")  # heading wrapped over two lines
    assert units[0].attributes["document_label"] == "Filesystem Hierarchy Standard, Version 3.0"


def test_rejects_paged_text_without_locatable_headings(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "manual")
    pages = ["A letter\nDear reader,\nthis is not a manual.\n1", "It has no numbered headings.\n2"]
    text = "\n".join(pages)
    letter = Document("letter.pdf", text, page_starts=(0, len(pages[0]) + 1), page_labels=("1", "2"))
    assert not parser.parser_can_handle_document(letter)
    assert not parser.parser_can_handle_document(Document("plain.txt", "1 Introduction\n1.1 Scope\n"))
    toc = "Contents\n" + "".join(f"{n} Chapter {n} . . . . {n}\n" for n in range(1, 7))
    broken = Document("broken.pdf", toc + "Nothing here matches.\n", page_starts=(0,), page_labels=("i",))
    assert parser.parser_can_handle_document(broken)
    with pytest.raises(DocumentRejected, match="table-of-contents headings"):
        list(parser.parse_document(broken))


OTHER_MANUALS = [Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
                 Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")]


@pytest.mark.parametrize("path", OTHER_MANUALS, ids=lambda p: p.name)
def test_generalizes_to_other_numbered_manuals(parse, path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"needs {path} (a Debian documentation package)")
    document, units = parse("manual", path)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    chapters = [u for u in units if u.attributes["unit_type"] == "chapter"]
    assert len(chapters) >= 3 and all(u.attributes.get("numbering") for u in chapters)
