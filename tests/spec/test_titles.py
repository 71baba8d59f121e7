"""Document titles that every chunk header carries: from the document's own title line, not its first sentence or
its publisher line (heldout2's Python policy and shared MIME-info specification were labelled by those)."""

from __future__ import annotations

from right_rag_dagster.core.units import walk_units

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


HELDOUT21 = REPO_ROOT / "tests" / "fixtures" / "heldout21" / "documents"


def test_a_readme_that_opens_with_a_logo_and_prose_is_titled_by_its_name(parse) -> None:
    """zstd's README has no ``#`` heading: a logo (alt "Zstandard"), a paragraph, then "## Benchmarks", which was
    taken as the title, its section folded into the front matter and every passage headed "Benchmarks"."""
    _, units = parse("markdown-spec", HELDOUT21 / "zstd-README.md")
    assert units[0].attributes["document_title"] == "Zstandard"
    assert [u.topic for u in units[:3]] == ["Front matter", "Benchmarks", "The case for Small Data compression"]


def test_a_restructuredtext_title_over_and_under_lined_is_the_title(parse) -> None:
    """pip's vendoring policy opens with "Vendoring Policy" between two lines of ``=``; it was titled by a list item
    ("The versions of libraries vendored in pip **MUST** be reflected in")."""
    _, units = parse("text-manual", HELDOUT21 / "pip-vendor-README.rst")
    assert units[0].attributes["document_title"] == "Vendoring Policy" and units[0].attributes["unit_type"] == "title"
    assert [u.topic for u in units[1:3]] == ["Rationale", "Modifications"]


def test_a_licence_file_opening_with_a_copyright_notice_is_titled_by_its_file_name(parse) -> None:
    """NumPy's wheel licence: no title line; a list item ("Neither the name of the NumPy Developers nor the names of
    any"), a lead-in ending in a colon and a ``Files:`` field all named NumPy and were taken in turn."""
    _, units = parse("text-manual", HELDOUT21 / "numpy-LICENSE.txt")
    assert units[0].attributes["document_title"] == "numpy LICENSE"


def test_dashed_separators_around_a_line_are_no_title(spec_registry) -> None:
    """A FAQ exported to text puts 72 dashes over and under its chapter lines: they are separators, not a
    reStructuredText title (Valgrind's FAQ stays with the generic parser, which reads its numbered questions)."""
    from right_rag_dagster.core.model import Document

    text = (HELDOUT21.parent.parent / "heldout17" / "documents" / "valgrind-FAQ.txt").read_text(encoding="utf-8")
    parser = spec_registry.create("unit_parsers", "text-manual")
    assert not parser.parser_can_handle_document(Document("valgrind-FAQ.txt", text, metadata={"format": "text"}))


def test_an_overlined_heading_ranks_apart_from_one_underlined_with_the_same_mark(parse) -> None:
    """pkg_resources' guide puts ``-`` over and under "API Reference" and under its sections only: the sections
    nest under it, their subsections under them."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout12" / "documents" / "pkg_resources.rst")
    assert [u.topic for u in units] == ["Package Discovery and Resource Access using pkg_resources", "Overview",
                                        "API Reference"]
    working_set = next(u for u in units[2].subunits if u.topic == "WorkingSet Objects")  # ``literals`` rendered
    assert [u.topic for u in working_set.subunits][:2] == ["Basic WorkingSet Methods",
                                                          "WorkingSet Methods and Attributes"]


HELDOUT22 = REPO_ROOT / "tests" / "fixtures" / "heldout22" / "documents"


def test_a_readme_heading_with_badges_is_titled_by_the_name_before_them(parse) -> None:
    """pkgconf's README opens with "# pkgconf [![test](…/badge.svg)](…)", which Docling renders "pkgconf <!-- image -->
    [test](…)": every passage was headed "pkgconf <!-- image --> test"."""
    _, units = parse("markdown-spec", HELDOUT22 / "pkgconf-README.md")
    assert units[0].attributes["document_title"] == "pkgconf"


def test_a_restructuredtext_title_after_a_licence_comment_is_the_title(parse) -> None:
    """lazr.uri's ``index.rst`` opens with a reStructuredText comment (``..`` over its indented LGPL notice), then
    "lazr.uri" over ``*``: it was titled "lazr.uri is free software: you can redistribute it and/or modify it"."""
    _, units = parse("text-manual", HELDOUT22 / "lazr-uri-index.rst")
    assert units[0].attributes["document_title"] == "lazr.uri" and units[0].attributes["unit_type"] == "title"
    assert [u.topic for u in units[1:]] == ["The URI class", "Finding URIs in Text"]


def test_a_restructuredtext_title_after_fields_is_the_title(parse) -> None:
    """setuptools' "Python 2 Sunset" page opens with the field ``:orphan:`` (keep it out of the table of contents)
    over its title: every passage's header read ":orphan:"."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout10" / "documents"
                     / "setuptools-python2-sunset.rst")
    assert units[0].attributes["document_title"] == "Python 2 Sunset" and units[0].attributes["unit_type"] == "title"


FIXTURES_ROOT = REPO_ROOT / "tests" / "fixtures"


def test_a_text_whose_first_heading_opens_it_is_titled_by_its_file_name(parse) -> None:
    """zlib's algorithm.txt opens with "1. Compression algorithm (deflate)", a section: its title was empty."""
    _, units = parse("text-manual", FIXTURES_ROOT / "heldout25" / "documents" / "zlib-algorithm.txt")
    assert units[0].attributes["document_title"] == "zlib algorithm"


def test_a_man_pages_name_heading_gives_the_line_under_it(parse) -> None:
    _, units = parse("text-manual", FIXTURES_ROOT / "heldout29" / "documents" / "util-linux-parse-date.txt")
    assert units[0].attributes["document_title"] == "parse_date - parses a date string into a timespec struct."


def test_an_html_page_titled_by_a_node_name_or_a_permalink_takes_its_title_tag(parse) -> None:
    """A Texinfo page's "# Top" and a Sphinx page's "# IDLE ¶" yield to the page's <title>; the pilcrow Sphinx
    writes after every heading is no part of a title or a section's topic."""
    _, units = parse("markdown-spec", FIXTURES_ROOT / "heldout4" / "documents" / "bc-manual.html")
    assert units[0].attributes["document_title"] == "bc Command Manual"
    _, units = parse("markdown-spec", FIXTURES_ROOT / "heldout27" / "documents" / "idle-help.html")
    assert units[0].attributes["document_title"] == "IDLE — Python 3.13.0a2 documentation"
    assert not any(unit.topic.endswith("¶") for unit in units)


def test_a_banner_in_angle_brackets_is_no_title(parse) -> None:
    """OpenSSL's certificates HOWTO opens with "<DRAFT!>" over its centred name."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout30" / "documents"
                     / "openssl-HOWTO-certificates.txt")
    assert units[0].attributes["document_title"] == "HOWTO certificates"


def test_a_manual_typeset_with_terminal_bold_is_read_by_its_numbered_headings(parse) -> None:
    """man-db's manual ships as groff's -Tutf8 output: with its ESC[1m sequences it went to the generic fallback,
    titled "\\x1b[1mman-db - ...\\x1b[0m"; read without them (the text loader), it is a numbered text manual."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout3" / "documents" / "man-db-manual.txt")
    assert units[0].attributes["document_title"] == "man-db - the database cached manual pager suite"
    assert "2.2.1. Specifying a section" in {u.topic for u in walk_units(units)}


FIXTURES_ROOT = REPO_ROOT / "tests" / "fixtures"


def test_a_site_banner_over_the_page_heading_is_titled_by_the_page(parse) -> None:
    """Node.js's pages open with the site's one ``#`` heading ("Node.js v20.20.2 documentation") over the page's
    "## Corepack": three pages had one title. The recorded ``<title>`` names the page first."""
    _, units = parse("markdown-spec", FIXTURES_ROOT / "heldout19" / "documents" / "nodejs-corepack.html")
    assert units[0].attributes["document_title"] == "Corepack | Node.js v20.20.2 Documentation"
    _, units = parse("markdown-spec", FIXTURES_ROOT / "heldout25" / "documents" / "libxslt-internals.html")
    assert units[0].attributes["document_title"] == "Library internals — The XSLT C library for GNOME"


def test_restructuredtext_titles_read_as_rendered(parse) -> None:
    for name, title in (("awscli-s3-config.rst", "AWS CLI S3 Configuration"),
                        ("python-email-architecture.rst", "email Package Architecture")):
        _, units = parse("text-manual", FIXTURES_ROOT / "heldout25" / "documents" / name)
        assert units[0].attributes["document_title"] == title


def test_a_man_page_is_titled_by_the_first_paragraph_of_its_name_section(parse) -> None:
    """crypt(5)'s NAME line is hyphenated across a line end by man ("meth‐ ods"); ctags-faq(7) goes on under NAME
    with a paragraph and its contents."""
    _, units = parse("man-page", FIXTURES_ROOT / "heldout9" / "documents" / "crypt.5.txt")
    assert units[0].attributes["document_title"].endswith("available hashing methods")
    _, units = parse("man-page", FIXTURES_ROOT / "heldout28" / "documents" / "ctags-universal-faq.7.txt")
    assert units[0].attributes["document_title"] == "ctags-faq - Universal Ctags FAQ"


def test_the_fallback_titles_by_the_file_name_over_a_field_a_dated_entry_or_a_wrapped_sentence() -> None:
    from right_rag_dagster.builtins.unit_parsers.generic import GenericUnitParser
    from right_rag_dagster.core.model import Document

    for folder, name in (("heldout25", "pam-minipolicy.txt"), ("heldout26", "libarchive-NEWS.txt"),
                         ("heldout25", "python3.11-README.valgrind.txt")):
        path = FIXTURES_ROOT / folder / "documents" / name
        document = Document(name, path.read_text(encoding="utf-8"))
        units = list(GenericUnitParser().parse_document(document))
        assert units[0].attributes["document_title"] == name, units[0].attributes["document_title"]


def test_a_wrapped_sentence_is_no_title(parse) -> None:
    """celery's LICENSE opens with copyright lines, then "Celery is licensed under The BSD License (3 Clause, also
    known as" wrapped onto "the new BSD license). ..."; validate-pyproject's NOTICE with a sentence ending in "using
    the": neither line nor the next one names the file, its name does."""
    for path, title in ((FIXTURES_ROOT / "heldout27" / "documents" / "celery-LICENSE.txt", "celery LICENSE"),
                        (FIXTURES_ROOT / "heldout13" / "documents" / "validate-pyproject-NOTICE.txt",
                         "validate pyproject NOTICE")):
        _, units = parse("text-manual", path)
        assert units[0].attributes["document_title"] == title


def test_a_title_that_names_its_version_is_not_labelled_with_it_again(parse) -> None:
    """Kerberos' release notes open "Kerberos Version 5, Release 1.20": the label every chunk's header carries read
    "Kerberos Version 5, Release 1.20, Release 1.20" (heldout33); a title without its version still gets it."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout33" / "documents" / "krb5-README.txt")
    assert units[0].attributes["document_label"] == "Kerberos Version 5, Release 1.20"
    _, units = parse("manual", REPO_ROOT / "tests" / "spec" / "fixtures" / "families" / "bzip2-manual.pdf")
    assert units[0].attributes["document_label"] == "bzip2 and libbzip2, version 1.0.8"


HELDOUT49 = REPO_ROOT / "tests" / "fixtures" / "heldout49" / "documents"


def test_a_news_file_is_not_titled_by_its_newest_release(parse) -> None:
    """Avahi's NEWS opens with "Avahi 0.8, the 'Dobro Jutro' release" underlined like the 42 older releases under it:
    it was taken as the title, so every passage's header named release 0.8 and that release's text was front
    matter."""
    _, units = parse("text-manual", HELDOUT49 / "avahi-NEWS.txt")
    assert units[0].attributes["document_title"] == "avahi NEWS"
    assert [u.topic for u in units[:2]] == ["Avahi 0.8, the 'Dobro Jutro' release", "Avahi 0.7, the 'Adieu' release"]
    assert {u.attributes["unit_type"] for u in units} == {"chapter"}


def test_a_news_file_whose_releases_are_whole_numbers_is_not_titled_by_its_newest(parse) -> None:
    """kmod's NEWS numbers its releases "kmod 30" ... "kmod 1", all underlined with ``=``: the same series as Avahi's
    with whole numbers (heldout50)."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout50" / "documents" / "kmod-NEWS.txt")
    assert units[0].attributes["document_title"] == "kmod NEWS"
    assert [u.topic for u in units[:2]] == ["kmod 30", "kmod 29"] and len(units) == 30
    assert {u.attributes["unit_type"] for u in units} == {"chapter"}


def test_a_manual_titled_by_its_first_underlined_line_keeps_it_though_its_sections_are_underlined_alike(parse) -> None:
    """Valgrind's README ("Release notes for Valgrind", three sections underlined with the same ``~``) names no
    version in its title line: the title stays."""
    _, units = parse("text-manual", REPO_ROOT / "tests" / "fixtures" / "heldout27" / "documents" / "valgrind-README.txt")
    assert units[0].attributes["document_title"] == "Release notes for Valgrind"


def test_a_manual_whose_sections_name_numbers_keeps_its_title(parse, tmp_path) -> None:
    """The rule above takes a series of releases, each after the same first word ("Avahi 0.7" under "Avahi 0.8"):
    sections that merely hold numbers ("Upgrading from 1.9", an address) leave the title as it is."""
    sections = ["Installing 2.0", "Upgrading from 1.9", "Networking on 10.0.0.1", "Removing it"]
    text = "Frobnicator 2.0 User Guide\n==========================\n\nWhat it is.\n\n" + "".join(
        f"{title}\n{'=' * len(title)}\n\nSome text about it.\n\n" for title in sections)
    path = tmp_path / "frob-guide.txt"
    path.write_text(text, encoding="utf-8")
    _, units = parse("text-manual", path)
    assert units[0].attributes["document_title"] == "Frobnicator 2.0 User Guide"
