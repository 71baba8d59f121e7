"""reStructuredText manuals that describe objects with Sphinx directives (``.. variable::``, ``.. function::``,
``.. autoclass::``): each object is a unit of its section, titled by its signature."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, walk_units

from .conftest import REPO_ROOT
from .invariants import check_tree

FIXTURES = REPO_ROOT / "tests" / "fixtures"


def test_each_variable_a_generator_reference_describes_is_a_unit(parse) -> None:
    """CPack's External generator (heldout46): its four variables were one 2,900-character section, and a question
    on the order of requested versions ranked that section's two chunks, not the variable's text."""
    document, units = parse("text-manual", FIXTURES / "heldout46" / "documents" / "cpack-external-generator.rst")
    check_tree(document, units)
    variables = next(u for u in units if u.topic == "Variables specific to CPack External generator")
    assert [u.topic for u in variables.subunits] == [
        "CPACK_EXTERNAL_REQUESTED_VERSIONS", "CPACK_EXTERNAL_ENABLE_STAGING", "CPACK_EXTERNAL_PACKAGE_SCRIPT",
        "CPACK_EXTERNAL_BUILT_PACKAGES"]
    requested = variables.subunits[0]
    assert requested.attributes["unit_type"] == "entry" and requested.attributes["directive"] == "variable"
    assert "in order of descending preference" in " ".join(requested.raw_text.split())
    assert requested.attributes["hierarchy"][-1] == "CPACK_EXTERNAL_REQUESTED_VERSIONS"


def test_functions_and_classes_are_units_and_text_after_them_a_paragraph_of_the_section(parse) -> None:
    """six's reference (heldout37) and cachetools' (heldout36): ``.. function::``, ``.. data::``, ``.. decorator::``
    and autodoc's ``.. autoclass::`` with their indented bodies; a paragraph at the margin after one is the section's,
    not the function's; ``.. doctest::`` over its ``:hide:`` option is no AsciiDoc labeled list's term."""
    document, units = parse("text-manual", FIXTURES / "heldout37" / "documents" / "six-index.rst")
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    model = next(u for u in walk_units(units) if u.topic == "Object model compatibility")
    assert [u.topic for u in model.subunits][:3] == [
        "get_unbound_function(meth)", "get_method_function(meth)", "get_method_self(meth)"]
    constants = next(u for u in walk_units(units) if u.topic == "Constants")
    assert constants.subunits[-1].topic == "Paragraph" and "MAXSIZE" in constants.subunits[-2].topic

    document, units = parse("text-manual", FIXTURES / "heldout36" / "documents" / "cachetools-index.rst")
    check_tree(document, units)
    topics = [u.topic for u in walk_units(units)]
    assert "LRUCache(maxsize, getsizeof=None)" in topics and "lru_cache(user_function)" in topics
    assert "cachetools.keys --- Key functions for memoizing decorators" in topics  # the :mod: role as it renders
    assert not any(topic.startswith(".. ") for topic in topics)
    # objects before a chapter's first section are units too; a link target at the margin is its object's
    decorators = next(u for u in units if u.topic == "Memoizing decorators")
    assert [u.topic for u in decorators.subunits][:2] == [
        "cached(cache, key=cachetools.keys.hashkey, lock=None, info=False)",
        "cachedmethod(cache, key=cachetools.keys.methodkey, lock=None)"]
    ttl = next(u for u in walk_units(units) if u.topic == "ttl_cache(user_function)")
    assert ttl.raw_text.rstrip().endswith(".. _mutable: http://docs.python.org/dev/glossary.html#term-mutable")


def test_a_note_at_the_margin_after_an_object_is_its_own(spec_registry) -> None:
    """CMake's RPM generator notes a variable's meaning in a ``.. note::`` at the margin after it: the note stays
    with the variable; prose at the margin after it is a paragraph of the section."""
    text = ("Generator\n=========\n\nIntro.\n\nVariables\n---------\n\n.. variable:: CPACK_RPM_PACKAGE_RELEASE\n\n"
            "  The release.\n\n.. note::\n\n  This is the string that goes into the RPM Release: field.\n\n"
            ".. variable:: CPACK_RPM_PACKAGE_ARCH\n\n  The architecture.\n\nSee the RPM manual.\n\n"
            "Notes\n-----\n\nNone.\n\nMore\n----\n\nNone.\n")
    parser = spec_registry.create("unit_parsers", "text-manual")
    document = Document("rpm.rst", text, metadata={"format": "text"})
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    variables = next(u for u in walk_units(units) if u.topic == "Variables")
    assert [u.topic for u in variables.subunits] == ["CPACK_RPM_PACKAGE_RELEASE", "CPACK_RPM_PACKAGE_ARCH",
                                                     "Paragraph"]
    assert "goes into the RPM Release: field" in variables.subunits[0].raw_text
    assert variables.subunits[2].raw_text == "See the RPM manual."
