"""The Org parser: Emacs Org-mode text becomes one unit per star heading, nested by level, with one unit per
description-list item of a long list; a document must say it is Org before a star at the margin is a heading."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import walk_units

from .conftest import FIXTURES, REPO_ROOT
from .invariants import check_tree

DETAILS = REPO_ROOT / "tests" / "fixtures" / "heldout25" / "documents" / "gnupg-DETAILS.txt"


def test_headings_nest_by_their_stars_and_the_title_is_the_title_line(parse) -> None:
    """GnuPG's DETAILS went to the generic fallback, titled by a comment line of its preamble ("*bold*, and
    _underline_ conventions are recognized.") with every field description flat under it."""
    document, units = parse("org", DETAILS)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent > 99
    assert units[0].attributes["document_title"] == "GnuPG Details"
    by_topic = {u.topic: u for u in walk_units(units)}
    validity = by_topic["Field 2 - Validity"]
    assert validity.attributes["hierarchy"] == ["Format of the colon listings", "Description of the fields",
                                                "Field 2 - Validity"]
    ultimate = next(u for u in validity.subunits if u.topic == "u")
    assert ultimate.attributes["unit_type"] == "entry"
    assert ultimate.raw_text.startswith("- u :: The key is ultimately valid.") and "ultimately valid." in ultimate.raw_text
    assert "- w ::" not in ultimate.raw_text  # an item ends where the next one starts
    assert len({u.key for u in validity.subunits}) == len(validity.subunits)  # two "-" items, two keys


def test_a_user_guide_with_example_lines_and_markup_in_headings(parse) -> None:
    document, units = parse("org", FIXTURES / "families" / "zutty-USAGE.org")
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent > 99
    assert units[0].attributes["document_title"] == "Zutty user guide"
    assert [u.topic for u in units][:3] == ["Preamble", "Installation", "Usage reference"]
    install = units[1]
    assert [u.topic for u in install.subunits][:2] == ["1. Install build dependencies", "2. Obtain the source"]


def test_a_star_at_the_margin_is_a_heading_only_where_the_text_says_it_is_org(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "org")
    body = "* One\n\nText.\n\n* Two\n\n#+begin_example\n* not a heading\n#+end_example\n\n** Three *bold*\n"
    assert not parser.parser_can_handle_document(Document("notes.txt", "A list:\n\n" + body))
    for document in (Document("notes.txt", "# -*- mode: org; coding: utf-8 -*-\n" + body),
                     Document("notes.txt", "#+TITLE: Notes\n\n" + body), Document("notes.org", body)):
        assert parser.parser_can_handle_document(document), document.text[:40]
        units = list(parser.parse_document(document))
        topics = [u.topic for u in walk_units(units)]
        assert "not a heading" not in topics and topics[-1] == "Three bold"
    assert not parser.parser_can_handle_document(Document("one.org", "* Only one heading\n"))
