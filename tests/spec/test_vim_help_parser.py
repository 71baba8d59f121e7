"""Vim's help files: sections between ``====`` lines, a unit per tagged topic (what ``:help`` jumps to)."""

from __future__ import annotations

from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, walk_units

from .conftest import FIXTURES, REPO_ROOT

FAMILIES = FIXTURES / "families"


def test_sections_and_the_topics_their_tags_start(parse) -> None:
    _, units = parse("vim-help", FAMILIES / "vim-fold.txt")
    assert units[0].attributes["document_title"] == "Vim: Folding"
    assert units[0].attributes["document_label"] == "Vim: Folding (fold.txt, Vim 9.0)"
    assert [u.topic for u in units][:3] == ["Front matter", "1. Fold methods", "2. Fold commands"]
    methods = units[1]
    assert [u.topic for u in methods.subunits][:3] == ["MANUAL", "INDENT", "EXPR"]
    assert methods.subunits[0].attributes["tags"] == "fold-manual"
    commands = {u.topic: u for u in units[2].subunits}
    assert commands["zo"].raw_text.startswith("*zo*\nzo\t\tOpen one fold under the cursor.")
    assert commands[":{range}fo[ld]"].attributes["tags"] == ":fold :fo"  # the text before its tags names it
    assert "zO" in commands and not commands["zo"].raw_text.count("*zO*")  # each tag line starts its own topic


def test_a_tag_inside_a_sentence_starts_no_topic(spec_registry) -> None:
    """Two spaces after a sentence then a tag ("cannot be "*".  *E1155*") refer inside a topic; a tab or a run of
    spaces before tags at the line's end start one."""
    text = ("*x.txt*\tFor Vim version 9.0.  Last change: 2023 Jan 01\n\n\t\tVIM REFERENCE MANUAL\n\nX things\t\t*x*\n\n"
            + "=" * 78 + "\n1. Commands\t\t\t\t*x-commands*\n\n\t\t\t\t*:xa*\n:xa\t\tDoes a.  Not with \"*\".  *E9*\n"
            "\t\tMore on a.\n\nZB                         *x-zb*\nDoes b.\n\n vim:tw=78:ts=8:noet:ft=help:norl:\n")
    parser = spec_registry.create("unit_parsers", "vim-help")
    document = Document("x.txt", text, metadata={"format": "text"})
    assert parser.parser_can_handle_document(document)
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    section = next(u for u in units if u.topic == "1. Commands")
    assert [(u.topic, u.attributes["tags"]) for u in section.subunits] == [(":xa", ":xa"), ("ZB", "x-zb")]
    assert "More on a." in section.subunits[0].raw_text


def test_a_user_manual_chapter_and_a_file_without_separators(parse) -> None:
    _, units = parse("vim-help", FAMILIES / "vim-usr_03.txt")
    assert units[0].attributes["document_title"] == "Vim: Moving around"
    assert [u.topic for u in units][1:3] == ["03.1 Word movement", "03.2 Moving to the start or end of a line"]
    _, units = parse("vim-help", FAMILIES / "vim-ft_ps1.txt")
    assert units[0].attributes["document_title"] == "A Windows PowerShell syntax plugin for Vim"
    assert [(u.topic, u.attributes["unit_type"]) for u in units][1:3] == [
        ("INTRODUCTION", "section"), ("ABOUT", "section")]


def test_the_licence_before_the_first_section_is_under_its_tags(parse) -> None:
    """uganda.txt (Vim's licence, tests/fixtures/heldout31) tells its licence before its first ``====``: the front
    matter's own tagged topics hold it, and the file is titled by its tags ("copying", "license")."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout31" / "documents" / "vim-uganda.txt"
    _, units = parse("vim-help", path)
    assert units[0].attributes["document_title"] == "Vim: uganda, copying, copyright, license"
    topics = [u.topic for u in walk_units(units[:1])]
    assert "iccf ICCF" in topics
    licence = next(u for u in walk_units(units[:1]) if u.topic == "iccf ICCF")
    assert "There are no restrictions on distributing unmodified copies of Vim" in " ".join(licence.raw_text.split())


def test_a_header_line_at_the_margin_starts_a_topic(parse) -> None:
    """recover.txt (tests/fixtures/heldout42) heads its prose on when the swap file is written "Updating the
    swapfile ~" (no tag): a topic of its own, not the end of ``:noswapfile``'s; fold.txt's "OPENING AND CLOSING FOLDS
    ~" heads the commands after it. An indented line ending in ``~`` is an example's output (usr_03.txt), no topic."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout42" / "documents" / "vim-recover.txt"
    _, units = parse("vim-help", path)
    topics = {u.topic: u for u in walk_units(units)}
    updating = topics["Updating the swapfile"]
    assert "The swap file is updated after typing 200 characters" in " ".join(updating.raw_text.split())
    assert "typing 200" not in topics[":nos[wapfile] {command}"].raw_text
    assert "Links and symbolic links" in topics and updating.attributes["tags"] == ""
    _, units = parse("vim-help", FAMILIES / "vim-fold.txt")
    assert "OPENING AND CLOSING FOLDS" in [u.topic for u in units[2].subunits]
    _, units = parse("vim-help", FAMILIES / "vim-usr_03.txt")
    assert not [u for u in walk_units(units) if "example text" in u.topic or "To err is human" in u.topic]


def test_a_headline_in_capitals_starts_a_topic(parse) -> None:
    """The user manual heads its prose with capitals and no ``~`` ("FROM A PACKAGE", "FROM SOURCES", "COMPILING" in
    usr_90.txt, heldout46): 90.1's six of them were one 2,500-character topic of the ``*install-home*`` tag, and
    the rest of the section was the section's own text."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout46" / "documents" / "vim-usr_90.txt"
    _, units = parse("vim-help", path)
    unix = next(u for u in units if u.topic == "90.1 Unix")
    assert [u.topic for u in unix.subunits] == ["FROM A PACKAGE", "FROM SOURCES", "COMPILING", "TESTING",
                                                "INSTALLING", "SELECTING FEATURES"]
    package = unix.subunits[0]
    assert "the \"vi\" program is probably a minimal" in " ".join(package.raw_text.split())
    assert unix.subunits[4].attributes["tags"] == "install-home"  # the headline right over the tag line names it
    upgrading = next(u for u in units if u.topic == "90.3 Upgrading")
    assert [u.topic for u in upgrading.subunits] == ["UNIX", "MS-WINDOWS"]


def test_a_header_over_a_tag_line_names_that_topic(spec_registry) -> None:
    """eval.txt's "1.1 Variable types ~" stands over ``*E712*``: one topic, named by the header and tagged; a header
    may touch its ``~`` (ft_rust.txt's ``g:rustc_path~``); a line with tabs is a table's column headings, and the
    front matter's "Contributors: ~" is no topic."""
    text = ("*x.txt*\tFor Vim version 9.0.  Last change: 2023 Jan 01\n\n\t\tVIM REFERENCE MANUAL\n\nContributors: ~\n"
            "A. Person\n\n" + "=" * 78 + "\n1. Variables\t\t\t\t*x-variables*\n\n1.1 Variable types ~\n"
            "\t\t\t\t\t\t*E712* *E896*\nThere are ten types of variables.\n\ng:x_path~\n\tThe path of x.\n\n"
            "magic\tnomagic\t  action    ~\n  a\t  b\t  c\n\n vim:tw=78:ts=8:noet:ft=help:norl:\n")
    parser = spec_registry.create("unit_parsers", "vim-help")
    document = Document("x.txt", text, metadata={"format": "text"})
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    section = next(u for u in units if u.topic == "1. Variables")
    assert [(u.topic, u.attributes["tags"]) for u in section.subunits] == [
        ("1.1 Variable types", "E712 E896"), ("g:x_path", "")]
    assert "There are ten types of variables." in section.subunits[0].raw_text
    assert "Contributors" not in [u.topic for u in walk_units(units[:1])]


def test_declines_text_that_is_no_vim_help(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "vim-help")
    assert not parser.parser_can_handle_document(Document("a.txt", "*a.txt*  Some notes\n\n" + "=" * 78 + "\nX\n"))
    assert not parser.parser_can_handle_document(Document("a.txt", "Notes for Vim version 9.0\n\n" + "=" * 78 + "\n"))


def test_a_chapters_closing_links_are_navigation_not_a_section(parse) -> None:
    """A user manual chapter ends with "Next chapter: |usr_04.txt| ..." and "Copyright: see |manual-copyright|" after
    its last ``====`` line: navigation (never chunked), not a section titled "Section 11"; a reference file's lone
    mode line after its last ``====`` is too."""
    _, units = parse("vim-help", FAMILIES / "vim-usr_03.txt")
    assert [(u.topic, u.attributes["unit_type"], u.attributes["role"]) for u in units[-1:]] == [
        ("Next chapter", "navigation", "navigation")]
    assert not [u for u in units if u.topic.startswith("Section ")]
    _, units = parse("vim-help", FAMILIES / "vim-fold.txt")
    assert (units[-1].topic, units[-1].attributes["role"]) == ("Mode line", "navigation")


def test_a_sections_heading_without_its_header_mark_and_a_sentence_is_no_heading(spec_registry) -> None:
    """A heading after blank lines is still the heading, read without the ``~`` a header ends in (userfunc.txt's
    "1. Defining a function ~"); a sentence there (version8.txt's "Patch 8.2.0001 and later can be found at
    |patches-after-8.2|.") titles nothing; closing links name their region by their label."""
    rule = "=" * 78
    text = (f"*x.txt*\tFor Vim version 9.0.  Last change: 2023 Jan 01\n\n\t\tVIM REFERENCE MANUAL\n\nX things\t\t*x*\n\n"
            f"{rule}\n\n1. Defining a function ~\t\t\t\t*x-define*\n\nText one.\n\n"
            f"{rule}\nMore can be found at |x-more|.\n\n"
            f"{rule}\n\nTable of contents: |usr_toc.txt|\n\nCopyright: see |manual-copyright|  vim:tw=78:ts=8:ft=help:norl:\n")
    parser = spec_registry.create("unit_parsers", "vim-help")
    document = Document("x.txt", text, metadata={"format": "text"})
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    assert [(u.topic, u.attributes["unit_type"]) for u in units] == [
        ("Front matter", "front_matter"), ("1. Defining a function", "section"), ("Section 2", "section"),
        ("Table of contents", "navigation")]
