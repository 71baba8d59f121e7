"""Document titles that every chunk header carries: from the document's own title line, not its first sentence or
its publisher line (heldout2's Python policy and shared MIME-info specification were labelled by those)."""

from __future__ import annotations

from .conftest import REPO_ROOT

HELDOUT2 = REPO_ROOT / "tests" / "fixtures" / "heldout2" / "documents"


def test_a_pdf_specification_is_titled_by_its_opening_line_though_it_repeats_as_a_running_header(parse) -> None:
    _, units = parse("manual", HELDOUT2 / "shared-mime-info-spec.pdf")
    assert units[0].attributes["document_title"] == "Shared MIME-info Database"


def test_a_sphinx_text_export_is_titled_by_the_line_that_names_it(parse) -> None:
    _, units = parse("text-manual", HELDOUT2 / "python-policy.txt")
    assert units[0].attributes["document_title"] == "Debian Python Policy 0.12.0.0 documentation"


def test_a_text_opening_with_its_title_keeps_it(parse) -> None:
    _, units = parse("text-manual", HELDOUT2 / "dpkg-rootless-builds.txt")
    assert units[0].attributes["document_title"] == "Supporting rootless builds"


HELDOUT3 = REPO_ROOT / "tests" / "fixtures" / "heldout3" / "documents"


def test_a_web_page_is_titled_by_its_own_heading_not_its_sites_chrome(parse) -> None:
    """mdBook pages open with "## Keyboard shortcuts" (a help pop-up) and "# The rustc book" (the site)."""
    _, units = parse("markdown-spec", HELDOUT3 / "target-tier-policy.html")
    assert units[0].attributes["document_title"] == "Target Tier Policy"


HELDOUT20 = REPO_ROOT / "tests" / "fixtures" / "heldout20" / "documents"


def test_a_specification_under_a_status_banner_is_titled_by_its_name(parse) -> None:
    """The X Resource extension's specification opens with "DRAFT FOR REVIEW" over "The X Resource Extension": every
    passage's header said "DRAFT FOR REVIEW, Version 1.2"."""
    _, units = parse("text-manual", HELDOUT20 / "resproto.txt")
    assert units[0].attributes["document_title"] == "The X Resource Extension"
    assert units[0].attributes["document_label"] == "The X Resource Extension, Version 1.2"


def test_a_licence_named_in_a_continued_sentence_is_titled_by_its_opening_line(parse) -> None:
    """psycopg2's licence names the LGPL first in "under the terms of the GNU Lesser General Public License as
    published", the second line of a sentence; its heading "psycopg2 and the LGPL" is the title."""
    _, units = parse("licence", HELDOUT20 / "psycopg2-LICENSE.txt")
    assert units[0].attributes["document_title"] == "psycopg2 and the LGPL"
