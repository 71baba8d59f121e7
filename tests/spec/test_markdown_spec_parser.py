"""The Markdown specification parser on copyright-format-1.0.html as Docling exports it."""

from __future__ import annotations

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import walk_units
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


@pytest.mark.parametrize("mark", ["#", "##"])
def test_a_change_logs_first_release_is_no_title(spec_registry, mark: str) -> None:
    """polkit's NEWS.md opens with "## polkit 122", man-db's (underlined, "#" once Docling renders it) with
    "man-db 2.11.2 (8 January 2023)": a release like the headings after it, so the file names the document and the
    first release is a section like the others."""
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    text = "".join(f"{mark} polkit {v}\n\n### Highlights:\n- change {v}\n\n" for v in ("122", "121", "0.120"))
    units = list(parser.parse_document(Document("polkit-NEWS.md", text)))
    assert units[0].attributes["document_title"] == "polkit NEWS"
    assert [u.topic for u in units if u.attributes["unit_type"] == "section"] == [
        "polkit 122", "polkit 121", "polkit 0.120"]
    guide = Document("guide.md", "# User Guide 2\n\nAbout it.\n\n## Install 3 things\n\nx\n\n## Use 2 tools\n\ny\n\n"
                                 "## Remove 1\n\nz\n")  # no two headings name one thing with numbers
    assert list(parser.parse_document(guide))[0].attributes["document_title"] == "User Guide 2"


def test_two_top_headings_with_one_version_are_no_releases(spec_registry) -> None:
    """"# Foo 2.0 Manual" over "# Foo 2.0 Appendix": a title with a version, not two releases."""
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    text = "# Foo 2.0 Manual\n\nAbout.\n\n## A\n\nx\n\n## B\n\ny\n\n## C\n\nz\n\n# Foo 2.0 Appendix\n\nMore.\n"
    assert list(parser.parse_document(Document("foo.md", text)))[0].attributes["document_title"] == "Foo 2.0 Manual"


UNDERSCORE = REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "underscore-index.html"


def test_paragraphs_that_open_with_bold_terms_are_entries(parse) -> None:
    """Underscore.js's manual names each function in bold at the head of its paragraph, and each release of its change
    log: each is an ``entry`` of its section (they were 11 KB sections, cut where the chunker found room)."""
    document, units = parse("markdown-spec", UNDERSCORE)
    check_tree(document, units)
    by_topic = {u.topic: u for u in units}
    functions = by_topic["Function (uh, ahem) Functions"].subunits
    assert [u.topic for u in functions[:4]] == ["bind", "bindAll", "partial", "memoize"]
    assert {u.attributes["unit_type"] for u in functions} == {"entry"}
    debounce = next(u for u in functions if u.topic == "debounce")
    assert debounce.raw_text.startswith("**debounce** `_.debounce(function, wait, [immediate])`")
    assert debounce.attributes["hierarchy"] == ["Function (uh, ahem) Functions", "debounce"]
    assert by_topic["Change Log"].subunits[0].topic == "1.13.4"
    assert not by_topic["Notes"].subunits  # two bold terms: no list of entries
    # no "#" heading: the page's <title> (recorded by the loader) titles it, not "v1.13.4 Downloads ..."
    assert units[0].attributes["document_title"] == "Underscore.js"


def test_a_recorded_title_counts_only_where_no_hash_heading_titles_the_page(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    body = "## One\n\nText.\n\n## Two\n\nText.\n\n## Three\n\nText.\n\n## Four\n\nText.\n"
    titled = {"title": "Site | Page", "converted_by": "docling-markdown"}
    untitled = list(parser.parse_document(Document("p.html", body, metadata=titled)))
    assert untitled[0].attributes["document_title"] == "Site | Page"
    headed = list(parser.parse_document(Document("p.html", "# The Page\n\n" + body, metadata=titled)))
    assert headed[0].attributes["document_title"] == "The Page"


def test_bold_labels_of_notes_and_repeated_terms_are_no_entries(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    notes = "".join(f"**Note:** caveat {n}.\n\n**Table {n}. Codes**\n\n| a |\n\n" for n in range(4))
    repeated = "".join(f"**xsltproc** does thing {n}.\n\n" for n in range(4))
    for body in (notes, repeated):
        text = f"# Tool\n\n## One\n\n{body}## Two\n\nText.\n\n## Three\n\nText.\n"
        units = list(parser.parse_document(Document("tool.md", text)))
        assert [u.topic for u in units if u.topic == "One"] and not units[1].subunits, body


def test_an_entry_named_like_a_subsection_beside_it_keeps_a_key_of_its_own(spec_registry) -> None:
    from right_rag_dagster.core.units import build_units

    entries = "".join(f"**{name}** `_.{name}()` does {name}.\n\n" for name in ("map", "each", "find"))
    text = f"# Lib\n\n## Functions\n\n{entries}### map\n\nMore on map.\n\n## Two\n\nText.\n\n## Three\n\nText.\n"
    document = Document("lib.md", text)
    units = build_units(document, spec_registry.create("unit_parsers", "markdown-spec").parse_document(document),
                        "markdown-spec")
    check_tree(document, units)
    functions = next(u for u in units if u.topic == "Functions")
    assert [u.topic for u in functions.subunits] == ["map", "each", "find", "map"]


def test_a_hash_line_in_a_code_fence_is_no_heading(parse) -> None:
    """pip's requirements file format shows an example file whose ``# comment`` lines were taken as level-one
    headings: the example became six sections and every section after it sat under the last comment. Docling's
    rendering of bold inline code ("```**" at a line's start) opens no fence (libjpeg-turbo's README)."""
    _, units = parse("markdown-spec", HELDOUT30 / "pip-requirements-file-format.md")
    topics = [u.topic for u in units]
    assert topics[:3] == ["Front matter", "Example", "Structure"] and "Using environment variables" in topics
    assert not [t for t in topics if t.startswith(("This is a comment", "It is possible"))]
    example = next(u for u in units if u.topic == "Example")
    assert "-r other-requirements.txt" in example.raw_text and not example.subunits
    _, units = parse("markdown-spec", REPO_ROOT / "tests" / "fixtures" / "heldout18" / "documents"
                     / "libjpeg-turbo-README.md")
    pitfalls = next(u for u in walk_units(units) if u.topic == "Performance Pitfalls")
    assert pitfalls.attributes["hierarchy"] == ["Performance Pitfalls"]


HELDOUT30 = REPO_ROOT / "tests" / "fixtures" / "heldout30" / "documents"


def test_a_contents_heading_over_the_links_is_front_matter_not_a_parent(parse) -> None:
    """npm's package-lock.json page has "## Table of contents" over its anchor links, then "### Description", "###
    File Format", ...: read by level, every section was a child of the contents, and every chunk's path began
    "Table of contents > ". The contents heading and its links are the page's navigation."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout31" / "documents" / "npm-package-lock-json.html"
    document, units = parse("markdown-spec", path)
    check_tree(document, units)
    assert [(u.topic, u.attributes["unit_type"]) for u in units[:3]] == [
        ("Front matter", "front_matter"), ("Contents", "table_of_contents"), ("Description", "section")]
    version = next(u for u in walk_units(units) if u.topic == "lockfileVersion")
    assert version.attributes["hierarchy"] == ["File Format", "lockfileVersion"]


@pytest.mark.parametrize(("folder", "name", "title", "first"), [
    ("heldout44", "alsa-ucm2-DEBUG.md", "alsa ucm2 DEBUG", "Overview"),
    ("heldout18", "libjpeg-turbo-README.md", "libjpeg turbo README", "Background"),
    ("heldout40", "npm-dependency-selectors.md", "Dependency Selectors", "Description"),
])
def test_a_heading_that_names_a_part_is_no_title(parse, folder: str, name: str, title: str, first: str) -> None:
    """ALSA UCM's DEBUG.md opens with "Overview" over "-----" and has no other title: it was titled "Overview" and its
    first section was "Front matter". A section's name is a section; the title comes from the front matter, the
    opening or the file's name."""
    document, units = parse("markdown-spec", REPO_ROOT / "tests" / "fixtures" / folder / "documents" / name)
    check_tree(document, units)
    assert units[0].attributes["document_title"] == title
    assert first in [u.topic for u in units[:2]]


def test_a_part_s_name_alone_at_its_level_is_the_title(spec_registry) -> None:
    """"# Introduction" over "##" sections (or a Hugo page's "# Installation") names the document: no sibling at its
    level makes it a section."""
    parser = spec_registry.create("unit_parsers", "markdown-spec")
    text = "# Introduction\n\nAbout it.\n\n## Install\n\na\n\n## Use\n\nb\n\n## Licence\n\nc\n"
    units = list(parser.parse_document(Document("README.md", text)))
    assert units[0].attributes["document_title"] == "Introduction"
    assert [u.topic for u in units] == ["Front matter", "Install", "Use", "Licence"]
