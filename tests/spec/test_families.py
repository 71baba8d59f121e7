"""The sample parsers recognise their families in other renderings (plain text, HTML, PDF), not only the files
of data/documents/: each added document goes to exactly one domain parser, with faithful spans and coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.routing import route_document
from right_rag_dagster.core.units import walk_units

from .conftest import FIXTURES, REPO_ROOT
from .invariants import check_tree

FAMILIES = FIXTURES / "families"
HELD_OUT = REPO_ROOT / "tests" / "fixtures" / "heldout_families"
OWNERS = {
    "policy.txt": "text-manual", "menu-policy.txt": "text-manual", "perl-policy.txt": "text-manual",
    "copyright-format-1.0.txt": "text-manual", "fhs-3.0.txt": "text-manual", "autopkgtest.txt": "text-manual",
    "fhs-3.0.html": "markdown-spec", "menu-policy.html": "markdown-spec", "perl-policy.html": "markdown-spec",
    "autopkgtest.html": "markdown-spec", "bzip2-manual.pdf": "manual",
    "adduser.8.txt": "man-page", "git-rm.1.txt": "man-page", "ls.1.pdf": "man-page",
    "zutty-USAGE.org": "org",
    "vim-fold.txt": "vim-help", "vim-usr_03.txt": "vim-help", "vim-ft_ps1.txt": "vim-help",
}
HELD_OUT_OWNERS = {
    "debconf_specification.txt": "text-manual", "debconf_specification.html": "markdown-spec",
    "policy-ch-sharedlibs.html": "markdown-spec", "developers-reference.pdf": "manual", "libtasn1.pdf": "manual",
    "GPL-1.txt": "licence", "LGPL-2.txt": "licence", "GFDL-1.2.txt": "licence",
}


def _route_and_parse(spec_registry, load_document, parse, path: Path, owner: str):
    document = load_document(path)
    parsers = spec_registry.resolve("unit_parsers", None)
    assert [p.parser_name for p in parsers if p.parser_can_handle_document(document)] == [owner]
    assert route_document(document, parsers).parser.parser_name == owner
    document, units = parse(owner, path)
    check_tree(document, units)
    return document, units


def test_the_fixture_folders_match_the_tables() -> None:
    assert sorted(p.name for p in FAMILIES.iterdir() if p.suffix != ".md") == sorted(
        [*OWNERS, "BSD.txt", "avahi-changelog.Debian.txt"])
    assert sorted(p.name for p in HELD_OUT.iterdir() if p.suffix != ".md") == sorted(HELD_OUT_OWNERS)


@pytest.mark.parametrize("name", sorted(OWNERS))
def test_each_family_rendering_goes_to_its_parser(spec_registry, load_document, parse, name: str) -> None:
    document, units = _route_and_parse(spec_registry, load_document, parse, FAMILIES / name, OWNERS[name])
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    sections = [u for u in walk_units(units) if u.attributes.get("numbering") or u.attributes["unit_type"] in
                ("chapter", "section", "subsection")]
    assert len(sections) >= 3, [u.topic for u in units]


@pytest.mark.parametrize("name", sorted(HELD_OUT_OWNERS))
def test_held_out_documents_are_accepted_and_covered(spec_registry, load_document, parse, name: str) -> None:
    document, units = _route_and_parse(spec_registry, load_document, parse, HELD_OUT / name, HELD_OUT_OWNERS[name])
    assert compute_coverage(len(document.text), units).coverage_percent >= 95


def test_plain_text_policy_nests_sections_by_numbering(parse) -> None:
    _, units = parse("text-manual", FAMILIES / "policy.txt")
    by_numbering = {u.attributes.get("numbering"): u for u in walk_units(units)}
    section = by_numbering["4.9.1"]
    assert section.attributes["unit_type"] == "subsection" and section.topic.startswith("4.9.1. ")
    assert section.attributes["hierarchy"][:2] == ["4. Source packages", '4.9. Main building script: "debian/rules"']
    appendix = next(u for u in units if u.topic == "10. Upgrading checklist")  # appendices restart at 1
    assert "10.2. Version 4.6.2" in [u.topic for u in appendix.subunits]  # the change log stays inside the manual
    contents = [u for u in units if u.attributes["unit_type"] == "title"]
    assert contents and units[0].attributes["document_label"] == "Debian Policy Manual, version 4.6.2.0"


def test_docbook_text_keeps_the_contents_apart_and_finds_chapters(parse) -> None:
    _, units = parse("text-manual", FAMILIES / "menu-policy.txt")
    types = [u.attributes["unit_type"] for u in units]
    assert types[:2] == ["front_matter", "table_of_contents"]
    assert units[1].attributes["role"] == "navigation"
    chapters = [u for u in units if u.attributes["unit_type"] == "chapter"]
    assert [u.attributes["numbering"] for u in chapters] == ["1", "2"]
    assert [c.attributes["numbering"] for c in chapters[1].subunits] == ["2.1"]


def test_the_change_log_and_the_manual_do_not_claim_each_other(spec_registry, load_document) -> None:
    changelog = load_document(REPO_ROOT / "data" / "documents" / "upgrading-checklist.txt")
    manual = load_document(FAMILIES / "policy.txt")
    text_manual = spec_registry.create("unit_parsers", "text-manual")
    policy_changelog = spec_registry.create("unit_parsers", "policy-changelog")
    assert policy_changelog.parser_can_handle_document(changelog) and not text_manual.parser_can_handle_document(
        changelog)
    assert text_manual.parser_can_handle_document(manual) and not policy_changelog.parser_can_handle_document(manual)


def test_a_debian_package_changelog_goes_to_the_change_log_parser(spec_registry, load_document, parse) -> None:
    """A change log of another rendering than the policy's: entries headed ``avahi (0.8-10) unstable; ...``."""
    document, units = _route_and_parse(spec_registry, load_document, parse, FAMILIES / "avahi-changelog.Debian.txt",
                                       "policy-changelog")
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    assert {u.attributes["unit_type"] for u in units} == {"version"}


def test_restructuredtext_headings_underlined_with_any_adornment(parse) -> None:
    """reStructuredText lets a document underline its headings with other marks than ``=`` and ``-``: six's manual
    heads its subsections with ``>>>>`` under its ``----`` sections (heldout37), which were read as one 38 KB
    section."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout37" / "documents" / "six-index.rst")
    contents = next(u for u in units if u.topic == "Package contents")
    sections = [u.topic for u in contents.subunits if u.attributes["unit_type"] != "entry"]  # PY2, PY3 are objects
    assert sections[:3] == ["Constants", "Object model compatibility", "Syntax compatibility"]
