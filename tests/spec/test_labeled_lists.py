"""AsciiDoc sources read as text manuals (git's manuals: git-subtree(1)) list commands and options as labeled lists
(``split [<local-commit>]::`` over its description): each item is a unit of its section, named by its terms."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, walk_units

from .conftest import REPO_ROOT
from .invariants import check_tree

SUBTREE = REPO_ROOT / "tests" / "fixtures" / "heldout31" / "documents" / "git-subtree.txt"


def test_each_command_and_option_of_a_labeled_list_is_a_unit(parse) -> None:
    document, units = parse("text-manual", SUBTREE)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    commands = next(u for u in units if u.topic == "COMMANDS")
    assert [u.topic for u in commands.subunits] == [
        "add <local-commit>, add <repository> <remote-ref>", "merge <local-commit> [<repository>]",
        "split [<local-commit>] [<repository>]", "pull <repository> <remote-ref>",
        "push <repository> [+][<local-commit>:]<remote-ref>"]
    split = commands.subunits[2]
    assert split.attributes["unit_type"] == "entry" and "Repeated splits of exactly the same history" in " ".join(
        split.raw_text.split())
    options = {u.topic: u for u in walk_units(units) if u.attributes["unit_type"] == "option"}
    assert {"-q, --quiet", "-b <branch>, --branch=<branch>", "--squash", "--rejoin"} <= set(options)
    assert "future splits can search only the part" in " ".join(options["--rejoin"].raw_text.split())


def test_a_restructuredtext_literal_block_is_no_labeled_list(spec_registry) -> None:
    """A paragraph that ends in ``::`` has a blank line before its literal block: no item is made of it."""
    text = ("Tool manual\n***********\n\nUsage\n=====\n\nRun it like this::\n\n    tool --flag\n\n"
            "Or with a file::\n\n    tool f\n\nOptions\n=======\n\n-v::\n\tVerbose.\n--quiet::\n\tQuiet.\n\n"
            "Notes\n=====\n\nNone.\n")
    document = Document("tool.txt", text, metadata={"format": "text"})
    parser = spec_registry.create("unit_parsers", "text-manual")
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    usage, options = (next(u for u in units if u.topic == topic) for topic in ("Usage", "Options"))
    assert usage.subunits == [] and [u.topic for u in options.subunits] == ["-v", "--quiet"]
