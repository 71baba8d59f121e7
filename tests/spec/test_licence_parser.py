"""The licence parser on the real GPL, LGPL, Apache and MPL texts (and other licences when the system has them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.routing import route_document
from right_rag_dagster.core.units import build_units, walk_units
from right_rag_dagster.errors import DocumentRejected

from .conftest import REPO_ROOT
from .invariants import check_tree, find_unit

DOCUMENTS = REPO_ROOT / "data" / "documents"
LICENCES = ["GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt", "MPL-2.0.txt"]
COMMON_LICENSES = Path("/usr/share/common-licenses")


@pytest.mark.parametrize("name", LICENCES)
def test_tree_is_faithful_and_covers_the_text(parse, name: str) -> None:
    document, units = parse("licence", DOCUMENTS / name)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95


def test_gpl3_has_sections_0_to_17_inside_the_terms(parse) -> None:
    document, units = parse("licence", DOCUMENTS / "GPL-3.0.txt")
    terms = find_unit(units, "terms")
    assert [u.key for u in terms.subunits] == [str(n) for n in range(18)]
    printed = re.findall(r"(?m)^  (\d+)\. [A-Z]", document.text)  # the section lines, as printed
    assert printed == [str(n) for n in range(18)]
    assert find_unit(units, "terms", "6").topic == "6. Conveying Non-Source Forms"
    assert [u.key for u in find_unit(units, "terms", "6").subunits if u.attributes["unit_type"] == "clause"] == [
        "(a)", "(b)", "(c)", "(d)", "(e)"]
    assert [u.key for u in units] == ["title", "preamble", "terms", "How to Apply These Terms to Your New Programs"]


def test_gpl3_roles_and_definitions(parse) -> None:
    _, units = parse("licence", DOCUMENTS / "GPL-3.0.txt")
    terms = {u.attributes.get("defined_term"): u for u in walk_units(units) if u.attributes.get("defined_term")}
    expected = {"This License", "covered work", "propagate", "convey", "User Product", "Installation Information"}
    assert expected <= set(terms)
    assert terms["User Product"].attributes["role"] == "definition"
    assert terms["Installation Information"].raw_text.startswith('"Installation Information" for a User Product means')
    assert find_unit(units, "terms", "8").attributes["role"] == "termination"
    assert find_unit(units, "terms", "15").attributes["role"] == "disclaimer"
    assert find_unit(units, "preamble").attributes["role"] == "rationale"
    offer = find_unit(units, "terms", "6", "(b)")
    assert "valid for at least three years" in offer.raw_text
    assert offer.attributes["hierarchy"] == ["TERMS AND CONDITIONS", "6. Conveying Non-Source Forms", "6(b)"]
    assert offer.attributes["lead_in"].endswith("in one of these ways:")


def test_lgpl3_nests_clauses_by_indentation(parse) -> None:
    _, units = parse("licence", DOCUMENTS / "LGPL-3.0.txt")
    assert [u.key for u in units if u.attributes["unit_type"] == "section"] == [str(n) for n in range(7)]
    either = find_unit(units, "4", "(d)")
    assert [u.key for u in either.subunits] == ["(0)", "(1)"]
    assert find_unit(units, "4", "(e)").attributes["numbering"] == "4(e)"


def test_apache_definitions_and_appendix(parse) -> None:
    _, units = parse("licence", DOCUMENTS / "Apache-2.0.txt")
    definitions = find_unit(units, "terms", "1")
    terms = [u.attributes.get("defined_term") for u in definitions.subunits]
    assert terms[:3] == ["License", "Licensor", "Legal Entity"] and "Derivative Works" in terms and len(terms) == 10
    assert find_unit(units, "terms", "2").topic == "2. Grant of Copyright License"
    assert find_unit(units, "terms", "7").attributes["role"] == "disclaimer"
    assert units[-1].attributes["unit_type"] == "appendix" and units[-1].attributes["role"] == "procedure"


def test_mpl2_numbered_definitions_and_boxed_sections(parse) -> None:
    _, units = parse("licence", DOCUMENTS / "MPL-2.0.txt")
    assert [u.key for u in units if u.attributes["unit_type"] == "section"] == [str(n) for n in range(1, 11)]
    definitions = find_unit(units, "1").subunits
    assert [u.key for u in definitions] == [f"1.{n}" for n in range(1, 15)]
    assert find_unit(units, "1", "1.7").attributes["defined_term"] == "Larger Work"
    disclaimer = find_unit(units, "6")
    assert disclaimer.topic == "6. Disclaimer of Warranty" and disclaimer.attributes["role"] == "disclaimer"
    assert not disclaimer.raw_text.startswith("*****")
    assert [u.attributes["unit_type"] for u in units[-2:]] == ["appendix", "appendix"]


def test_declines_a_licence_without_numbered_sections(spec_registry) -> None:
    """Declining (not accepting, then rejecting) lets a project's fallback parser take a short licence (MIT, BSD, a
    project's own LICENCE file): of 258 distinct licence files on the development machine, 74 were lost that way."""
    parser = spec_registry.create("unit_parsers", "licence")
    mit = Document("MIT.txt", "MIT License\n\nCopyright (c) 2024 Someone\n\nPermission is hereby granted, free of "
                              "charge, to any person obtaining a copy of this software.\n", metadata={"format": "text"})
    assert not parser.parser_can_handle_document(mit)
    with pytest.raises(DocumentRejected, match="numbered sections"):
        list(parser.parse_document(mit))
    routed = route_document(mit, spec_registry.resolve("unit_parsers", None),
                            fallback=spec_registry.create("unit_parsers", "generic"))
    assert (routed.parser.parser_name, routed.fallback) == ("generic", True)


def test_does_not_accept_copyright_files_or_pdfs(spec_registry, load_document) -> None:
    parser = spec_registry.create("unit_parsers", "licence")
    assert not parser.parser_can_handle_document(Document("pkg.copyright", "GNU GENERAL PUBLIC LICENSE\n"))
    assert not parser.parser_can_handle_document(load_document(DOCUMENTS / "fhs-3.0.pdf"))


@pytest.mark.skipif(not COMMON_LICENSES.is_dir(), reason="needs /usr/share/common-licenses (Debian base-files)")
@pytest.mark.parametrize("name", ["GPL-2", "LGPL-2.1", "GFDL-1.3", "Artistic", "CC0-1.0", "MPL-1.1"])
def test_generalizes_to_other_licences(spec_registry, name: str) -> None:
    path = COMMON_LICENSES / name
    document = Document(name, path.read_text(encoding="utf-8"), metadata={"format": "text"})
    parser = spec_registry.create("unit_parsers", "licence")
    assert parser.parser_can_handle_document(document)
    from right_rag_dagster.core.units import build_units

    units = build_units(document, parser.parse_document(document), "licence")
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    numbered = [u for u in walk_units(units) if u.attributes["unit_type"] in ("section", "definition")
                and "." not in u.key and u.key.isdigit()]
    assert len(numbered) >= 4


def test_a_paragraph_that_opens_with_a_condition_uses_a_term_and_does_not_define_it(parse) -> None:
    _, units = parse("licence", REPO_ROOT / "tests" / "fixtures" / "heldout" / "documents" / "LGPL-2.1.txt")
    terms = [u.attributes.get("defined_term") for u in walk_units(units) if u.attributes.get("unit_type") == "definition"]
    assert terms.count("work that uses the Library") == 1     # section 5 defines it; "When a ... uses" does not
    assert {"library", "Source code"} <= set(terms)


def test_a_licence_web_page_with_bold_numbered_headings_is_a_licence(spec_registry) -> None:
    """A Word-exported licence page (EPL-1.0) converts to Markdown without ``#`` headings: its sections are bold
    lines, ``**1. DEFINITIONS**``. With ``#`` headings the markdown-spec parser takes the page instead."""
    parser = spec_registry.create("unit_parsers", "licence")
    body = "".join(f"**{n}. {title}**\n\nText of section {n}.\n\n" for n, title in
                   enumerate(["DEFINITIONS", "GRANT OF RIGHTS", "REQUIREMENTS"], start=1))
    page = Document("EPL-1.0.html", "**Eclipse Public License - v 1.0**\n\nTHE ACCOMPANYING PROGRAM.\n\n" + body,
                    metadata={"format": "html", "converted_by": "docling-markdown"})
    assert parser.parser_can_handle_document(page)
    units = build_units(page, parser.parse_document(page), "licence")
    assert [u.topic for u in units if u.attributes["unit_type"] == "section"][:3] == [
        "1. DEFINITIONS", "2. GRANT OF RIGHTS", "3. REQUIREMENTS"]
    headed = Document("spec.html", "# A License Policy\n\n" + body, metadata=page.metadata)
    assert not parser.parser_can_handle_document(headed)


def test_a_capitalised_exception_after_the_terms_is_its_own_appendix(parse) -> None:
    """OpenJDK's GPL-2 is followed by '"CLASSPATH" EXCEPTION TO THE GPL', a block of its own."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "heldout3" / "documents" / "openjdk-LICENSE.txt"
    _, units = parse("licence", path)
    appendices = [u for u in units if u.attributes["unit_type"] == "appendix"]
    assert [u.topic for u in appendices] == ["How to Apply These Terms to Your New Programs",
                                             '"CLASSPATH" EXCEPTION TO THE GPL']
    assert "you are not obligated to do so" in appendices[1].raw_text


def test_an_underlined_heading_before_the_terms_opens_its_own_unit(parse) -> None:
    """psycopg2's licence (tests/fixtures/heldout20): "Alternative licenses" over a line of ``-``, which grants a
    zlib-style licence for some files, was the tail of a 1,700-character introduction about the LGPL."""
    document, units = parse("licence", REPO_ROOT / "tests" / "fixtures" / "heldout20" / "documents" /
                            "psycopg2-LICENSE.txt")
    check_tree(document, units)
    alternative = next(u for u in units if u.topic == "Alternative licenses")
    assert alternative.raw_text.startswith("Alternative licenses\n----")
    assert "psycopg/adapter*.{h,c}" in alternative.raw_text
    introduction = next(u for u in units if u.topic == "Introduction")
    assert "Alternative licenses" not in introduction.raw_text
