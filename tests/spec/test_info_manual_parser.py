"""The Info-manual parser: GNU Info files (makeinfo's text rendering of a Texinfo manual) become one unit per node,
nested by chapter, section and subsection, titled by the Top node and labelled with the version they document."""

from __future__ import annotations

from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, walk_units

from .conftest import FIXTURES

HELDOUT = FIXTURES.parents[1] / "fixtures"


def test_nodes_nest_by_their_titles_underline(parse) -> None:
    _, units = parse("info-manual", HELDOUT / "heldout11" / "documents" / "sed.info")
    assert units[0].attributes["document_label"] == "GNU ‘sed’, version 4.9"  # not makeinfo's version 6.8dev
    by_topic = {u.topic: u for u in walk_units(units)}
    works = by_topic["6.1 How ‘sed’ Works"]
    assert works.attributes["hierarchy"] == ["6 Advanced ‘sed’: cycles and buffers", "6.1 How ‘sed’ Works"]
    assert works.attributes["unit_type"] == "section" and works.attributes["node"] == "Execution Cycle"
    assert works.raw_text.startswith("File: sed.info,  Node: Execution Cycle")
    assert by_topic["6 Advanced ‘sed’: cycles and buffers"].attributes["unit_type"] == "chapter"
    assert by_topic["Concept Index"].attributes["role"] == "navigation"  # never chunked
    assert len(units) > 10 and sum(1 for _ in walk_units(units)) == 83  # 65 nodes, 18 units of option lists


def test_an_option_list_is_an_entry_per_option(parse) -> None:
    """A node's Texinfo table of options (sed's "Command-Line Options": ``‘-n’`` over ``‘--quiet’`` over ``‘--silent’``,
    then a body five columns in) is an ``option`` per item, titled by its terms, with the text around them as
    paragraphs; a table of commands (sed's command summary) or of addresses (ed's) stays whole: split, its items
    were too short to answer a question about the table (ed's address 0 fell from rank 1 to 6)."""
    _, units = parse("info-manual", HELDOUT / "heldout11" / "documents" / "sed.info")
    by_topic = {u.topic: u for u in walk_units(units)}
    options = by_topic["2.2 Command-Line Options"]
    kinds = [u.attributes["unit_type"] for u in options.subunits]
    assert kinds[0] == "paragraph" and kinds.count("option") == 16
    quiet = by_topic["-n, --quiet, --silent"]
    assert quiet.attributes["hierarchy"][-2:] == ["2.2 Command-Line Options", "-n, --quiet, --silent"]
    assert quiet.raw_text.startswith("‘-n’") and "By default, ‘sed’ prints out the pattern space" in quiet.raw_text
    assert by_topic["3.2 ‘sed’ commands summary"].subunits == []


def test_subsections_and_a_version_in_parentheses(parse) -> None:
    _, units = parse("info-manual", HELDOUT / "heldout10" / "documents" / "rluserman.info")
    assert units[0].attributes["document_label"] == "GNU Readline Library, version 8.2"
    topics = {u.topic: u for u in walk_units(units)}
    bare = topics["1.2.1 Readline Bare Essentials"]
    assert bare.attributes["unit_type"] == "subsection"
    assert bare.attributes["hierarchy"][:2] == ["1 Command Line Editing", "1.2 Readline Interaction"]


def test_only_info_files_are_accepted_and_the_text_manual_parser_leaves_them(spec_registry, load_document) -> None:
    info = spec_registry.create("unit_parsers", "info-manual")
    text_manual = spec_registry.create("unit_parsers", "text-manual")
    grep = load_document(HELDOUT / "heldout10" / "documents" / "grep.info")
    assert info.parser_can_handle_document(grep) and not text_manual.parser_can_handle_document(grep)
    two_nodes = "File: x.info,  Node: Top,  Next: A\n\nX\n*\n\nFile: x.info,  Node: A,  Up: Top\n\n1 A\n===\n"
    assert not info.parser_can_handle_document(Document("x.info", two_nodes))
    policy = load_document(FIXTURES / "families" / "policy.txt")
    assert not info.parser_can_handle_document(policy)


def test_a_line_of_prose_over_an_example_is_no_option_term(spec_registry) -> None:
    """A short paragraph right over an indented example ("To run it quietly, use, the following command:") is no
    table item, even in a node of options; grep's ``‘--’`` is an option."""
    parser = spec_registry.create("unit_parsers", "info-manual")
    node = "\x1f\nFile: x.info,  Node: {name},  Next: b,  Up: Top\n\n"
    text = ("This is x.info.\n" + node.format(name="Top") + "X\n*\n\nThe manual.\n"
            + node.format(name="Options") + "1 Options\n=========\n\n‘-q’\n‘--quiet’\n     Say nothing.\n\n"
            "‘--’\n     End of options.\n\nTo run it quietly, use\nthe following command:\n     x -q file\n\n"
            + node.format(name="End") + "2 End\n=====\n\nDone.\n")
    document = Document("x.info", text)
    units = {u.topic: u for u in walk_units(build_units(document, parser.parse_document(document), "info-manual"))}
    assert units["-q, --quiet"].attributes["unit_type"] == "option"
    assert units["--"].attributes["unit_type"] == "option"
    assert not any(topic.startswith("To run it quietly") for topic in units)
