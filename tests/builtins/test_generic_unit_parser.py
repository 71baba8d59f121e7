"""The built-in generic structure parser on real documents: faithful spans, coverage, headings, stanzas."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.builtins.unit_parsers.generic import GenericUnitParser, find_headings
from right_rag_dagster.builtins.unit_parsers.generic import _fences as fences_of
from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.markdown import fenced_spans, inside
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.restructuredtext import only_comments
from right_rag_dagster.core.units import build_units, walk_units

from ..spec.invariants import check_tree

TESTS = Path(__file__).resolve().parents[1]
FAMILIES = TESTS / "spec" / "fixtures" / "families"
SCALE = Path("/work/shared/corpus/scale")


def _parse(path: Path):
    document = Document(path.name, path.read_text(encoding="utf-8"))
    parser = GenericUnitParser()
    assert parser.parser_can_handle_document(document)
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    return units


def test_not_selected_by_default_and_declines_empty_text() -> None:
    assert GenericUnitParser.selected_by_default is False
    assert not GenericUnitParser().parser_can_handle_document(Document("empty.txt", " \n\n"))


def test_underlined_numbered_headings_nest_by_numbering() -> None:
    units = _parse(FAMILIES / "policy.txt")
    by_numbering = {u.attributes.get("numbering"): u for u in walk_units(units) if u.attributes.get("numbering")}
    assert by_numbering["4.9.1"].attributes["hierarchy"][-3:] == [
        "4. Source packages", '4.9. Main building script: "debian/rules"',
        '4.9.1. "debian/rules" and "DEB_BUILD_OPTIONS"']


def test_docbook_numbered_lines_and_paragraphs() -> None:
    units = _parse(FAMILIES / "copyright-format-1.0.txt")
    sections = [u for u in walk_units(units) if u.attributes["unit_type"] == "section"]
    assert any(u.attributes.get("numbering") == "6" for u in sections)
    assert sum(1 for u in walk_units(units) if u.attributes["unit_type"] == "paragraph") > 50


def test_a_licence_without_headings_is_paragraphs() -> None:
    units = _parse(FAMILIES / "BSD.txt")
    assert [u.attributes["unit_type"] for u in units] == ["paragraph"] * 3


@pytest.mark.skipif(not SCALE.is_dir(), reason="needs the shared scale corpus")
def test_stanzas_and_labelled_sections_of_copyright_files() -> None:
    stanzas = _parse(SCALE / "adduser.copyright")
    assert {u.attributes["unit_type"] for u in stanzas} >= {"stanza"}
    assert stanzas[0].topic == "Format" and "defined_term" not in stanzas[0].attributes
    labelled = _parse(SCALE / "krb5-locales.copyright")
    assert [u.topic for u in walk_units(labelled) if u.attributes["unit_type"] == "labelled_section"] == [
        "It was downloaded from", "Upstream Maintainers", "Copyright"]


def test_roman_numbered_chapters_of_a_plain_text_manual() -> None:
    """libpng's manual (tests/fixtures/heldout8): "I. Introduction" ... "XV. Coding style", each alone between blank
    lines, were paragraphs of the front matter; its contents list (indented, lines together) stays front matter, and
    its numbering's slip (XIII, XV, XV) is kept."""
    units = _parse(TESTS / "fixtures" / "heldout8" / "documents" / "libpng-manual.txt")
    chapters = [u.attributes.get("heading") for u in units if u.topic != "Front matter"]
    assert chapters[:3] == ["I. Introduction", "II. Structures", "III. Reading"]
    assert chapters[-3:] == ["XIII. Detecting libpng", "XV. Source code repository", "XV. Coding style"]
    reading = next(u for u in units if u.attributes.get("heading") == "III. Reading")
    assert any("png_sig_cmp()" in u.fulltext for u in walk_units([reading]))
    assert units[0].topic == "Front matter" and "XIII. Detecting libpng" in units[0].fulltext  # the contents list


@pytest.mark.parametrize(("text", "title"), [
    ("==================\n Copying Docutils\n==================\n\n:Author: David Goodger\n\nSome text.\n",
     "Copying Docutils"),
    (":orphan:\n\nPython 2 Sunset\n===============\n\nSince January 2020, Python 2 ...\n", "Python 2 Sunset"),
    ("##\n\n# The environment\n\nVariables are inherited.\n", "The environment"),
    # a reStructuredText comment (a licence header) before the title, as over lazr.restfulclient's index.rst
    ("..\n    This file is part of lazr.restfulclient.\n\n    It is free software.\n\nLAZR restfulclient\n"
     "******************\n\nA client library.\n", "LAZR restfulclient"),
    # a first line that asks is the title, unless it opens a FAQ (two question lines over answers): the file's name
    ("What is Free Software?\n\nAn essay that asks once.\n\nAnd answers in prose.\n", "What is Free Software?"),
    ("Why?\n\nBecause.\n\nHow?\n\nLike this.\n", "doc.rst"),
    # a table of contents opens the text: "CONTENTS" names no document, the file's name does
    ("CONTENTS\n Usage\n Options\n Notes\n\nUsage\n\n\tRun it.\n\nOptions\n\n\tNone.\n\nNotes\n\n\tNone.\n", "doc.rst"),
])
def test_the_title_is_the_first_line_with_words_not_markup(text: str, title: str) -> None:
    document = Document("doc.rst", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    assert units[0].attributes["document_title"] == title


def test_a_licence_that_opens_with_a_copyright_notice_is_titled_by_what_it_is() -> None:
    """python-dateutil's licence (tests/fixtures/heldout19) opens with "Copyright 2017- Paul Ganssle", which every
    passage's header repeated; the line that names the file's subject, standing alone further down, is its title.
    Without one (SymPy's licence), the file's name is."""
    units = _parse(TESTS / "fixtures" / "heldout19" / "documents" / "python-dateutil-LICENSE.txt")
    assert units[0].attributes["document_title"] == "dateutil - Extensions to the standard Python datetime module"
    assert _parse(TESTS / "fixtures" / "heldout11" / "documents" / "sympy-LICENSE.txt")[0].attributes[
        "document_title"] == "sympy-LICENSE.txt"
    document = Document("NOTICE", "Copyright (c) 2020 Someone\n\nPermission is granted.\n")
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    assert units[0].attributes["document_title"] == "NOTICE"


@pytest.mark.parametrize(("name", "text", "title"), [
    # a statement, and a sentence that runs on into the next line, open the prose: the file's name titles it
    ("tqdm-LICENCE", "`tqdm` is a product of collaborative work.\nUnless otherwise stated, all authors retain "
     "copyright.\n", "tqdm-LICENCE"),
    ("lxml-LICENSES.txt", "lxml is copyright Infrae and distributed under the BSD license (see\ndoc/licenses/BSD.txt), "
     "with exceptions.\n", "lxml-LICENSES.txt"),
    ("ncurses-FAQ.txt", "This file is a list of frequently reported problems with ncurses which are\nconsidered bugs "
     "elsewhere.\n", "ncurses-FAQ.txt"),
    # the line naming the file's subject is looked for, but not the lead-in itself, a web address or a list item
    ("musl-LICENSE.txt", "musl as a whole is licensed under the following standard MIT license:\n\n"
     "- https://musl.libc.org/\n\nPermission is hereby granted.\n", "musl-LICENSE.txt"),
    # a short first line stays the title, even over a line that starts in lower case
    ("foo-README", "GNU Foo\nversion 1.2, a tool for bars\n\nText.\n", "GNU Foo"),
    ("foo-README", "The Foo Project\nhttps://example.org/foo\n\nText.\n", "The Foo Project"),
])
def test_a_first_line_that_opens_the_prose_is_no_title(name: str, text: str, title: str) -> None:
    """Copyright files and licences of the held-out sets (tqdm's, lxml's, musl's, ncurses' FAQ) open with a sentence,
    which every passage's header repeated as the document's title."""
    document = Document(name, text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    assert units[0].attributes["document_title"] == title


def test_a_readme_with_short_underlines_and_a_list_for_a_first_line() -> None:
    """D-Bus's README (tests/fixtures/heldout20) opens with "Sections in this file describe:" over a list, which
    every passage's header repeated, and underlines its headings with fewer ``=`` than their text ("Security" over
    "=="), so the whole file was one front matter of paragraphs. The list's lead-in is no title: the first line
    that names the file's subject ("D-Bus", written ``dbus`` in the file's name) is."""
    units = _parse(TESTS / "fixtures" / "heldout20" / "documents" / "dbus-README.txt")
    assert units[0].attributes["document_title"] == (
        "D-Bus is a simple system for interprocess communication and coordination")
    assert [u.topic for u in units][1:5] == ["Introduction", "Security",
                                             "Note: low-level API vs. high-level binding APIs", "Version numbers"]


@pytest.mark.parametrize("text, headings", [
    ("Intro\n\nUsage\n==\n\nRun it.\n\nLimits\n--\n\nNone.\n", ["Usage", "Limits"]),
    # not a title over a short run: a sentence, a lower-case line, text right under the run, a table rule
    ("Intro\n\nIt ends here.\n==\n\nRun it.\n", []),
    ("Intro\n\nusage notes\n==\n\nRun it.\n", []),
    ("Intro\n\nUsage\n==\nRun it.\n", []),
    ("Intro\n\n| a | b |\n|--|--|\n\nRun it.\n", []),
])
def test_a_short_underline_makes_a_heading_only_under_a_short_title(text: str, headings: list[str]) -> None:
    document = Document("notes.txt", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    assert [u.topic for u in walk_units(units) if u.attributes.get("heading")] == headings


def test_a_faq_entry_is_one_unit_from_its_question_to_the_next() -> None:
    """xz-utils' FAQ (tests/fixtures/heldout13): each ``Q:`` block with its ``A:`` block and the answer's further
    paragraphs and indented commands is one ``question`` unit, its topic the question; apart, an answer
    ("A:  Set a default memory usage limit ...") never said what it answered."""
    units = _parse(TESTS / "fixtures" / "heldout13" / "documents" / "xz-faq.txt")
    entries = [u for u in walk_units(units) if u.attributes["unit_type"] == "question"]
    assert len(entries) == 18 and len(list(walk_units(units))) == 19  # the title's section holds them all
    memory = next(u for u in entries if u.topic.startswith('I need to use a script that runs "xz -9".'))
    assert memory.fulltext.startswith("Q:  I need to use a script")
    assert "export XZ_DEFAULTS" in memory.fulltext and "\nQ:" not in memory.fulltext
    assert all(u.fulltext.startswith("Q:") for u in entries)


def test_a_faq_answer_marker_may_end_its_line_or_the_question_block() -> None:
    """libc6's README.Debian (tests/fixtures/heldout43): "Q6: I get this message ..." holds the message and a bare
    "A6:", its answer in the paragraphs below; "A7: " ends its line over the answer. Both entries were paragraphs
    apart from their answers ("The program is broken. It probably says "extern int errno" ..." said not what broke)."""
    units = _parse(TESTS / "fixtures" / "heldout43" / "documents" / "libc6-README.Debian.txt")
    entries = [u for u in walk_units(units) if u.attributes["unit_type"] == "question"]
    assert [u.fulltext[:3] for u in entries] == [f"Q{n}:" for n in range(1, 8)]
    errno, static = entries[5], entries[6]
    assert errno.topic.startswith("I get this message when I run a program: ld.so: Incorrectly built binary")
    assert '"extern int errno"' in errno.fulltext and errno.fulltext.rstrip().endswith("network socket.")
    assert "During glibc 2.3.x development" in static.fulltext
    document = Document("faq.txt", "Q1: Does it work?\nA1:\n\nYes.\n\nQ2: A. J. Smith's tool: what is it?\n\nA2: A tool.\n")
    assert [u.topic for u in build_units(document, GenericUnitParser().parse_document(document), "generic")] == [
        "Does it work?", "A. J. Smith's tool: what is it?"]  # the answer's marker is no part of the question


def test_a_faq_without_markers_makes_each_question_line_and_its_answer_one_unit() -> None:
    """procps' FAQ (tests/fixtures/heldout15): each question is a line of its own over its tab-indented answer, with
    no ``Q:`` or ``A:``. Read as paragraphs, "You didn't enable it. ... Per-CPU stats are disabled by default" never
    said what it answered, and the document's title was its first question."""
    units = _parse(TESTS / "fixtures" / "heldout15" / "documents" / "procps-FAQ.txt")
    assert [u.attributes["unit_type"] for u in units] == ["question"] * 10
    assert units[0].attributes["document_title"] == "procps-FAQ.txt"
    per_cpu = units[1]
    assert per_cpu.topic == "Why don't I see SMP (per-CPU) stats in top?"
    assert per_cpu.fulltext.startswith(per_cpu.topic + "\n\n\tYou didn't enable it.")
    assert per_cpu.fulltext.endswith("Some Linux systems have hundreds of CPUs.")
    numbers = units[2]  # the answer's indented commands stay in its entry
    assert "ps -o pid,user:19,comm" in numbers.fulltext and "%CPU" not in numbers.fulltext


def test_entries_a_repeated_rule_separates_are_sections_named_by_their_first_sentence() -> None:
    """ncurses' FAQ (tests/fixtures/heldout18): entries between ``********`` lines, each a problem over its answer.
    Read as paragraphs, "The kernel maps that key to ^\\, which generates a SIGQUIT" never said which key."""
    units = _parse(TESTS / "fixtures" / "heldout18" / "documents" / "ncurses-base-FAQ.txt")
    assert [u.attributes["unit_type"] for u in units] == ["front_matter"] + ["section"] * 4
    print_screen = units[2]
    assert print_screen.topic == ('If you hit the "Print Screen" key while in a Linux console, your current application'
                                  " will likely …")  # cut at a word: at most MAX_HEADING characters
    assert print_screen.fulltext.startswith("********\n\nIf you hit")
    assert print_screen.fulltext.endswith("(although why that key was chosen is unclear).")
    assert units[3].topic == "Home/End keys don't work in some non-full-screen applications."


@pytest.mark.parametrize(("text", "topics"), [
    ("Intro.\n\n----\n\n2.2. When building, make fails: here.\n\nFix it.\n\n----\n\nOther. More.\n",
     ["Front matter", "2.2. When building, make fails:", "Other."]),
    # one rule may close a letter's body; a rule over a heading opens no entry; an underline is no rule
    ("Dear all.\n\n----\n\nSigned.\n", ["Dear all. ¶1", "Dear all. ¶2", "Dear all. ¶3"]),
    ("Intro.\n\n----\n\n# Usage\n\nRun.\n\n----\n\n# Notes\n\nNone.\n", ["Front matter", "Usage", "Notes"]),
    ("Text.\n\nMore\n----\n\nText.\n\n----\n\nEnd.\n", ["Front matter", "More"]),
])
def test_only_a_repeated_rule_between_blank_lines_opens_entries(text: str, topics: list[str]) -> None:
    document = Document("notes.txt", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    check_tree(document, units)
    assert [u.topic for u in units] == topics


@pytest.mark.parametrize(("text", "kinds", "first"), [
    ("Q. Does it work?\n\nA. Yes.\n\n    $ run it\n\nQ. Why?\n\nA. Because.\n", ["question", "question"],
     "Q. Does it work?\n\nA. Yes.\n\n    $ run it"),
    ("Question 1: Does it work?\n\nAnswer 1: Yes.\n", ["question"], "Question 1: Does it work?\n\nAnswer 1: Yes."),
    ("Q1: Does it work?\nA1:\n\nYes.\n\nQ2: Why?\n\nA2:\nBecause.\n", ["question", "question"],
     "Q1: Does it work?\nA1:\n\nYes."),
    ("A: an answer with no question.\n\nQ: a question with no answer\n\nSome text.\n", ["paragraph"] * 3,
     "A: an answer with no question."),
    ("Does it work?\n\nYes.\n\n    $ run it\n\nWhy?\n\nBecause.\n", ["question", "question"],
     "Does it work?\n\nYes.\n\n    $ run it"),
    # one question line over an answer is a paragraph (a rhetorical question), and so is a question without one
    ("Intro.\n\nWhy would anyone do this?\n\nBecause it works.\n", ["paragraph"] * 3, "Intro."),
    ("Does it work?\n\nYes.\n\nWhy?\n\nHow?\n\nBecause.\n", ["question", "paragraph", "question"],
     "Does it work?\n\nYes."),
    # a FAQ with markers is read by them: an answer that asks back, or a question inside an answer, ends nothing
    ("Q: Does it run on Windows?\n\nA: Have you tried WSL?\n\nIt works there.\n\nQ: Is it fast?\n\nA: Yes.\n\n"
     "Q: Is it free?\n\nA: Yes.\n", ["question"] * 3,
     "Q: Does it run on Windows?\n\nA: Have you tried WSL?\n\nIt works there."),
    ("Q: Is it fast?\n\nA: Mostly.\n\nWhy not always?\n\nThe cache is cold.\n\nQ: Is it free?\n\nA: Yes.\n",
     ["question"] * 2, "Q: Is it fast?\n\nA: Mostly.\n\nWhy not always?\n\nThe cache is cold."),
])
def test_questions_join_their_answers_only(text: str, kinds: list[str], first: str) -> None:
    document = Document("faq.txt", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    check_tree(document, units)
    assert [u.attributes["unit_type"] for u in units] == kinds
    assert units[0].fulltext == first


@pytest.mark.parametrize(("text", "comments"), [
    ("..\n    This file is part of lazr.uri.\n\n    lazr.uri is free software.\n\n", True),
    (".. a one-line comment\n.. and another\n", True),
    (".. note::\n\n   Read this first.\n\n", False),  # a directive: its text is read
    (".. include:: ../README.rst\n", False),
    ("Some prose.\n\n..\n   a comment\n", False),
    ("", False),
])
def test_restructuredtext_comments_hold_no_text(text: str, comments: bool) -> None:
    assert only_comments(text) is comments


def test_the_lines_a_table_of_contents_lists_are_headings_where_they_stand_alone() -> None:
    """An X specification rendered from DocBook (the Application Group extension) numbers and underlines nothing:
    its table of contents says which lines head sections, and its indentation how they nest. The contents are
    navigation (never chunked), and the date under the title block is no section 27."""
    units = _parse(TESTS / "fixtures" / "heldout24" / "documents" / "xext-appgrp.txt")
    paths = {tuple(u.attributes["hierarchy"]) for u in walk_units(units) if u.attributes["unit_type"] == "section"}
    assert {("Requests",), ("Requests", "AppGroupCreate"), ("Errors", "AppGroupCreate"),
            ("Changes to Existing Events", "MapRequest"), ("Overview of the protocol",)} <= paths
    assert not any(path[0].startswith("27 September") for path in paths)
    navigation = [u for u in walk_units(units) if u.attributes.get("role") == "navigation"]
    assert navigation and all(u.attributes["unit_type"] == "table_of_contents" for u in navigation)
    assert navigation[0].fulltext == "Table of Contents" and "MapWindow" in navigation[2].fulltext


@pytest.mark.parametrize(("text", "headings"), [
    # listed and standing alone: a heading; inside a paragraph: none, and a list of which fewer than three entries
    # stand alone later (a README's "Contents" listing its folders) is no table of contents; no contents line:
    # nothing is listed; a page number after dots is no part of a title, a step's number is
    ("Title\n\nContents\n\nIntro\nUsage\n  Options\n\nIntro\n\nSome text.\n\nUsage\n\nMore.\n\nOptions\n\nFlags.\n",
     ["Intro", "Usage", "Options"]),
    ("Title\n\nContents\n\nIntro\nUsage\nOptions\n\nIntro\n\nText about\nUsage\nin a paragraph.\n", []),
    ("Title\n\nContents\n\nsrc\ndocs\ntests\n\nsrc\n\nThe code.\n", []),
    ("Title\n\nIntro\nUsage\nOptions\n\nIntro\n\nSome text.\n\nUsage\n\nMore.\n", []),
    ("Guide\n\nContents\n\nStep 1 ..... 2\nStep 2 ..... 3\nStep 3 ..... 5\n\nStep 1\n\nDo.\n\nStep 2\n\nDo.\n\n"
     "Step 3\n\nDone.\n", ["Step 1", "Step 2", "Step 3"]),
    # a date under a title block is no section 27; "2. May I ...?" is a section, not a date
    ("Title\n\n27 September 1996\n\nText.\n", []),
    ("FAQ\n\n1. Who wrote it?\n\nMe.\n\n2. May I share it?\n\nYes.\n\n3. Can I sell it?\n\nNo.\n",
     ["1. Who wrote it?", "2. May I share it?", "3. Can I sell it?"]),
])
def test_contents_entries_head_sections(text: str, headings: list[str]) -> None:
    from right_rag_dagster.builtins.unit_parsers.generic import find_headings

    assert [h.title for h in find_headings(text)] == headings


def test_lines_in_a_code_fence_are_no_headings() -> None:
    """A ``# comment`` in a shell example is no ATX heading; the fence closes at the next fence of its kind, and an
    opening fence carries at most a language or a MyST directive (``fenced_spans``)."""
    text = ("# Install\n\nRun this:\n\n```sh\n# fetch the sources\ngit clone x\n```\n\n## Build\n\nText.\n\n"
            "~~~~{note}\n# not a heading\n~~~\n# still in the note\n~~~~\n\n## Test\n\nText.\n")
    document = Document("install.md", text)
    parser = GenericUnitParser()
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    check_tree(document, units)
    topics = [u.topic for u in walk_units(units)]
    assert "fetch the sources" not in topics and "not a heading" not in topics and "still in the note" not in topics
    assert {"Build", "Test"} <= set(topics)
    spans = fenced_spans(text)
    assert [text[s:e].split("\n")[0] for s, e in spans] == ["```sh", "~~~~{note}"]
    assert inside(spans, text.index("git clone")) and not inside(spans, text.index("## Build"))
    assert fenced_spans("**```\n-rgb\n```**\n") == [] and fenced_spans("```\nopen to the end\n") == [(0, 20)]


def test_a_paragraph_that_leads_in_to_a_list_holds_its_items() -> None:
    """SQLAlchemy's type migration rules: "1. the TypeEngine classes are used for:" over items "a." to "d."; each
    item was a paragraph of its own, read (and chunked) without the sentence it completes. "2." after them is the
    lead-in's sibling: items are one kind of marker, not the lead-in's own."""
    units = _parse(TESTS / "fixtures" / "heldout30" / "documents" / "sqlalchemy-type-migration-guidelines.txt")
    rules = units[0].subunits
    lead_in = rules[0]
    assert lead_in.fulltext.startswith("1. the TypeEngine classes are used for:")
    assert [u.fulltext[:2] for u in lead_in.subunits] == ["a.", "b.", "c.", "d."]
    assert lead_in.subunits[3].attributes["hierarchy"][-2] == lead_in.topic
    assert rules[1].fulltext.startswith("2. the TypeEngine classes are *no longer*")


def test_a_flush_left_line_over_an_indented_body_heads_a_section_where_the_listed_ones_do() -> None:
    """util-linux's howto-contribute (tests/fixtures/heldout32) lists its sections in a CONTENTS block and sets each
    flush left over tab-indented items, but leaves "Repositories & Branches" out of the list: a line standing so is a
    section too. Where the listed headings are not flush left over an indented body, an unlisted line is none."""
    units = _parse(TESTS / "fixtures" / "heldout32" / "documents" / "util-linux-howto-contribute.txt")
    assert [u.topic for u in units] == ["Front matter", "Sending Patches", "Repositories & Branches",
                                        "Patching Process", "Email Format", "Coding Style", "Options", "Various Notes",
                                        "Standards Compliance"]
    assert units[0].attributes["document_title"] == "util-linux-howto-contribute.txt"
    from right_rag_dagster.builtins.unit_parsers.generic import find_headings

    flush = "Guide\n\nContents\n\nIntro\nUsage\nOptions\n\nIntro\n\n\tText.\n\nUsage\n\n\tMore.\n\nSetup Notes\n\n\tX.\n\n" \
        "Options\n\n\tFlags.\n"
    assert [h.title for h in find_headings(flush)] == ["Intro", "Usage", "Setup Notes", "Options"]
    assert [h.title for h in find_headings(flush.replace("\t", ""))] == ["Intro", "Usage", "Options"]


def test_a_list_item_holds_the_paragraphs_indented_to_its_text() -> None:
    """An item's later paragraphs, indented to its text, are its own ("* add a Signed-off-by line." and its "Use
    your real name" three paragraphs on), so the item is read whole; the next item at the marker's column is not."""
    text = ("Email\n=====\n\n\t* add a Signed-off-by line.\n\t  Hint: use git commit -s\n\n"
            "\t  The sign-off certifies that:\n\n\t   (a) I wrote it\n\n\t   (b) I may send it\n\n"
            "\t  Use your real name.\n\n\t* Followed by the patch.\n\nPlain paragraph.\n")
    document = Document("guide.txt", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    check_tree(document, units)
    item, after, plain = units[0].subunits
    assert item.fulltext.startswith("* add a Signed-off-by line.") and item.fulltext.endswith("Use your real name.")
    assert [u.fulltext for u in item.subunits][-1] == "Use your real name."
    lead_in = item.subunits[0]  # "The sign-off certifies that:" holds (a) and (b), under the item
    assert lead_in.subunits[0].fulltext == "(a) I wrote it"
    assert lead_in.subunits[0].attributes["hierarchy"][:3] == ["Email", "* add a Signed-off-by line.", lead_in.topic]
    assert after.fulltext == "* Followed by the patch." and plain.fulltext == "Plain paragraph."


def test_a_code_fence_is_one_block_blank_lines_and_all() -> None:
    """A fenced example with blank lines in it (a ``<pre>`` block the loader made a fence: the W3C notice) is one
    block: its parts are not paragraphs of the section."""
    text = "# Setup\n\nRun the build.\n\n```\n# step one\nmake\n\n# step two\nmake install\n```\n\nDone.\n"
    document = Document("setup.md", text)
    units = build_units(document, GenericUnitParser().parse_document(document), "generic")
    check_tree(document, units)
    assert [u.fulltext for u in units[0].subunits] == [
        "Run the build.", "```\n# step one\nmake\n\n# step two\nmake install\n```", "Done."]


def test_numbered_items_that_fit_on_one_line_stay_items_of_their_list() -> None:
    """bash's COMPAT numbers 67 items under hanging indents; items 25 and 26 fit on one line and stand alone, and
    were read as the first numbered headings: items 27 to 67 became their children."""
    units = _parse(TESTS / "fixtures" / "heldout34" / "documents" / "bash-COMPAT.txt")
    (root, *others) = units
    items = [unit.fulltext.split(".")[0] for unit in root.subunits if unit.fulltext[:1].isdigit()]
    assert items == [str(n) for n in range(1, 68)]  # each item a unit of the list, in order, none nested
    assert [unit.topic for unit in others] == ["Shell Compatibility Level"]


@pytest.mark.parametrize(("text", "headings"), [
    ("Intro\n=====\n\n1. One item\n   runs on\n\n2. Two fits\n\n3. Three fits\n\n4. Four item\n   runs on\n",
     ["Intro"]),
    ("Title here\n\n1. Introduction\nThe text.\n\n2. Usage\n\nMore text.\n\n3. Options\n\nText.\n",
     ["2. Usage", "3. Options"]),  # "1." runs into its text without a hanging indent: a heading in another style
    ("Quick start:\n\n1. Download the tarball\n   and unpack it.\n\n2. Run make.\n\n1. Introduction\nText.\n\n"
     "2. Usage\n\nText.\n\n3. Options\n\nText.\n",
     ["Quick start", "2. Usage", "3. Options"]),  # the list's "2." is its item; the sections count from their own "1."
    ("Intro\n=====\n\n```\n1. first\n   more\n```\n\n2. Usage\n\nText.\n\n3. Options\n\nText.\n",
     ["Intro", "2. Usage", "3. Options"]),  # an item in a code fence is no list
])
def test_a_first_numbered_heading_is_no_item_of_a_list_above_it(text: str, headings: list[str]) -> None:
    from right_rag_dagster.builtins.unit_parsers.generic import find_headings

    assert [h.title for h in find_headings(text)] == headings


def test_one_word_capital_headings_where_the_document_heads_its_sections_in_capitals() -> None:
    units = _parse(TESTS / "fixtures" / "heldout34" / "documents" / "libjpeg-usage.txt")
    top = [unit.topic for unit in units[-1].subunits if "¶" not in unit.topic]
    assert top[:2] == ["INTRODUCTION", "GENERAL USAGE"] and "JPEGTRAN" in top
    jpegtran = next(unit for unit in units[-1].subunits if unit.topic == "JPEGTRAN")
    assert "jpegtran performs various useful transformations" in jpegtran.fulltext


@pytest.mark.parametrize(("text", "headings"), [
    ("GENERAL USAGE\n\nText.\n\nMORE DETAILS\n\nText.\n\nNOTE\n\nText.\n\nLAST WORDS HERE\n\nText.\n",
     ["GENERAL USAGE", "MORE DETAILS", "NOTE", "LAST WORDS HERE"]),
    ("Intro\n=====\n\nNOTE\n\nText.\n\nGENERAL USAGE\n\nText.\n", ["Intro", "GENERAL USAGE"]),
])
def test_a_one_word_capital_line_heads_a_section_only_among_capital_headings(text: str, headings: list[str]) -> None:
    from right_rag_dagster.builtins.unit_parsers.generic import find_headings

    assert [h.title for h in find_headings(text)] == headings


def test_troubleshooting_entries_opened_by_rules_and_by_a_heading() -> None:
    """groff's ``PROBLEMS`` opens each problem with a ``----`` rule and a bulleted sentence, but the first problem of a
    section follows the section's heading: it is an entry holding its answer like the others, and the numbered
    step "1. Set the GROFF_NO_SGR environment variable." standing alone is no title of the document (heldout37)."""
    units = _parse(TESTS / "fixtures" / "heldout37" / "documents" / "groff-PROBLEMS.txt")
    assert units[0].attributes["document_title"] == "groff-PROBLEMS.txt"
    generic = next(u for u in units if u.topic == "Generic Problems")
    entries = [u.topic for u in generic.subunits]
    assert entries[0] == ("* Displaying a man page on a terminal with/without my favourite pager only gives "
                          "garbage.")
    assert entries[1].startswith("* The UTF-8 output of grotty has strange characters")
    answer = next(u for u in walk_units(units) if u.fulltext.startswith("groff by default now uses SGR"))
    assert answer.attributes["hierarchy"][:2] == ["Generic Problems", entries[0]]


def test_restructuredtext_underlines_of_quotes_and_angles_from_four() -> None:
    """reStructuredText may underline with ``'``, ``"``, ``<`` or ``>`` (six's manual heads subsections with
    ``>>>>``); three of them under a short line are a Python prompt or a docstring's quotes, no underline."""
    from right_rag_dagster.builtins.unit_parsers.generic import find_headings

    text = ("Usage\n=====\n\nIntro text here.\n\nConstants\n>>>>>>>>>\n\nSome constants.\n\nQuoting\n''''''''\n\n"
            "More text.\n\nx = 1\n\"\"\"\n\n>>> f\n>>>\n")
    assert [h.title for h in find_headings(text)] == ["Usage", "Constants", "Quoting"]


def test_reuse_markers_are_no_headings_and_list_items_name_what_they_hold() -> None:
    """rustdoc's ``COPYRIGHT`` (heldout25) opens with ``# REUSE-IgnoreStart``, a comment for the REUSE licensing tool:
    it was the document's title and its one section, and each ``* normalize.css:`` item over its indented notice was
    "REUSE-IgnoreStart ¶8". An item that holds the blocks under it is named by its text."""
    units = _parse(TESTS / "fixtures" / "heldout25" / "documents" / "rustdoc-COPYRIGHT.txt")
    assert not any("REUSE" in u.attributes["document_title"] or "REUSE" in u.topic for u in walk_units(units))
    item = next(u for u in walk_units(units) if u.topic == "normalize.css")
    assert item.raw_text.startswith("* normalize.css:") and "Nicolas Gallagher" in item.subunits[0].raw_text
    assert item.subunits[0].attributes["hierarchy"][-2] == "normalize.css"


def test_an_items_name_is_its_first_line_with_spaces_joined() -> None:
    text = ("Options\n=======\n\nSome text comes first here.\n\n*\tWhat\thappens  if you\n\n        It is ignored.\n\n"
            "- - - - - -\n\n    Not an item's name.\n")
    parser = GenericUnitParser()
    document = Document("notes.txt", text)
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    topics = [u.topic for u in walk_units(units)]
    assert "What happens if you" in topics and not any("- -" in topic for topic in topics)



def test_a_line_of_tildes_under_a_title_is_an_underline_and_a_rule_opens_an_entry() -> None:
    """Valgrind's FAQ underlines its release line with ``~~~~``: read as a code fence left open, it made the whole
    FAQ one paragraph with no heading; reST's third-level underlines paired up as fences the same way. A line of
    ``~`` right under a line about as long underlines it; a fence under a short line of code still closes. The FAQ's
    chapters stand between rules of dashes and its entries open after one, their answers on the next line."""
    units = _parse((TESTS / "fixtures" / "heldout17" / "documents" / "valgrind-FAQ.txt").resolve())
    sections = {u.topic: u for u in walk_units(units) if u.attributes["unit_type"] == "section"}
    assert len(sections) == 25 and "2.2. When building Valgrind, 'make' fails with this:" in sections
    # an entry opened by a rule, its answer on the next line, is a heading too; so is a number between two rules
    stl = next(u for topic, u in sections.items() if topic.startswith("4.1. My program uses the C++ STL"))
    assert stl.attributes["hierarchy"] == ["4. Valgrind behaves unexpectedly", stl.topic]
    assert "GLIBCXX_FORCE_NEW" in stl.raw_text and "1.1. How do you pronounce \"Valgrind\"?" in sections
    assert not any(topic.startswith("Don't feel bad") for topic in sections)  # a sentence over the rule ending an entry
    text = "Guide\n=====\n\nSetup\n~~~~~\n\nFirst part.\n\nUsage\n~~~~~\n\nSecond part.\n\n~~~\n}\n~~~\n\nAfter.\n"
    document = Document("guide.txt", text)
    parsed = build_units(document, GenericUnitParser().parse_document(document), "generic")
    assert {"Setup", "Usage"} <= {u.topic for u in walk_units(parsed)}
    assert [text[a:b] for a, b in fences_of(text)] == ["~~~\n}\n~~~"]
    run = "Intro\n=====\n\nRun:\n~~~\nmake install\n~~~\n\nLater\n=====\n\nText.\n"  # a fence right under a line
    assert [run[a:b] for a, b in fences_of(run)] == ["~~~\nmake install\n~~~"]
    listed = "Installation\n" + "=" * 28 + "\n\n1. Download the tarball from\n   the website.\n2. Unpack it.\n"
    assert [h.title for h in find_headings(listed)] == ["Installation"]  # a rule drawn once opens no entry


def test_a_first_step_standing_alone_is_no_section_over_the_steps_after_it() -> None:
    """Valgrind's README_MISSING_SYSCALL_OR_IOCTL: "1.  Find out the name of the system call:" stands between blank
    lines, but "2.  Do 'man 2 mysyscallname' ..." runs on under a hanging indent, so the three steps are one list:
    step 1 made a section that held steps 2 and 3. A "1." whose "2." also stands alone still heads a section."""
    path = (TESTS / "fixtures" / "heldout41" / "documents" / "valgrind-README_MISSING_SYSCALL_OR_IOCTL.txt").resolve()
    units = _parse(path)
    steps = [u for u in walk_units(units) if u.topic.startswith(("2.  Do 'man 2", "3.  Add a case"))]
    assert len(steps) == 2
    assert all(u.attributes["hierarchy"][0].startswith("Writing your own syscall wrappers") for u in steps)
    assert not any("1.  Find out the name" in part for u in steps for part in u.attributes["hierarchy"])
    text = "Guide\n=====\n\n1. Install\n\nRun the installer.\n\n2. Configure\n\nEdit the file.\n"
    assert [h.title for h in find_headings(text)] == ["Guide", "1. Install", "2. Configure"]
    apart = ("Guide\n=====\n\n1. Overview\n\nText here.\n\nSee also the list:\n\n  1. one\n  2. two\n\n"
             "More prose here.\n\n2. Details\n   run on below\n")  # prose at the margin between: no list of steps
    assert "1. Overview" in [h.title for h in find_headings(apart)]


def test_rubrics_and_dropdowns_title_what_follows_them() -> None:
    """scikit-learn's description of the 20 newsgroups dataset has one underlined heading; its parts are
    ``.. dropdown:: Usage`` (folded sections) and ``.. rubric:: Recommendation`` (headings outside the contents), and
    all 10 KB were one section."""
    units = _parse(TESTS / "fixtures" / "heldout44" / "documents" / "sklearn-twenty_newsgroups.rst")
    dataset = next(u for u in units if u.topic == "The 20 newsgroups text dataset")
    assert [u.topic for u in dataset.subunits if u.attributes["unit_type"] == "section"] == [
        "Usage", "Converting text to vectors", "Filtering text for more realistic training", "Data Considerations",
        "Recommendation", "Examples"]
    usage = next(u for u in dataset.subunits if u.topic == "Usage")
    assert usage.raw_text.startswith(".. dropdown:: Usage") and "fetch_20newsgroups" in usage.raw_text
    assert [h.title for h in find_headings(".. note:: Mind this\n\nText.\n")] == []  # a note titles nothing
    # a directive before the first heading is front matter; one in a section never parents the next heading
    text = (".. topic:: Abstract\n\nWhat it is.\n\nGuide\n=====\n\nIntro.\n\n.. rubric:: Summary\n\nShort.\n\n"
            "Install\n-------\n\nRun it.\n\nUse\n---\n\nCall it.\n")
    units = build_units(Document("guide.rst", text), GenericUnitParser().parse_document(Document("guide.rst", text)),
                        "generic")
    assert units[0].topic == "Front matter" and units[0].raw_text.startswith(".. topic:: Abstract")
    guide = next(u for u in units if u.topic == "Guide")
    assert [u.topic for u in guide.subunits if u.attributes["unit_type"] == "section"] == ["Summary", "Install", "Use"]
