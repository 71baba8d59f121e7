"""A binary's licence file that lists the components it bundles (NumPy's wheel: ``Name: OpenBLAS``, ``Files:``,
``License: BSD-3-Clause`` and the licence text indented under it): a unit per component, named by it."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage

from .conftest import REPO_ROOT
from .invariants import check_tree

NUMPY = REPO_ROOT / "tests" / "fixtures" / "heldout21" / "documents" / "numpy-LICENSE.txt"


def test_each_bundled_component_is_a_unit_with_its_licence(parse) -> None:
    document, units = parse("text-manual", NUMPY)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    front = units[0]
    assert front.attributes["unit_type"] == "front_matter"  # a list of licences has no table of contents
    components = front.subunits
    assert [(u.topic, u.attributes["licence"]) for u in components[:3]] == [
        ("OpenBLAS", "BSD-3-Clause"), ("LAPACK", "BSD-3-Clause-Open-MPI"),
        ("GCC runtime library", "GPL-3.0-or-later WITH GCC-exception-3.1")]
    lapack = components[1]
    assert lapack.raw_text.startswith("Name: LAPACK\nFiles:") and "provide no reassurances" in lapack.raw_text
    # the statement after the stanzas is the document's, not the last component's
    # what follows the list is the document's, a unit of its own (a parent's chunks are the text before its children)
    assert "Full text of license texts referred to above follows" not in components[2].raw_text
    after = components[3]
    assert after.raw_text.startswith("----") and "Full text of license texts referred to" in after.raw_text
