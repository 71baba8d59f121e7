"""The policy change-log parser on Debian's upgrading-checklist.txt."""

from __future__ import annotations

import re

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import walk_units

from .conftest import REPO_ROOT
from .invariants import check_tree, find_unit

CHECKLIST = REPO_ROOT / "data" / "documents" / "upgrading-checklist.txt"


def test_versions_and_changes(parse) -> None:
    document, units = parse("policy-changelog", CHECKLIST)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    printed = re.findall(r"(?m)^10\.\d+\. Version (\S+)\n=+$", document.text)
    versions = [u for u in units if u.attributes["unit_type"] == "version"]
    assert [u.attributes["version"] for u in versions] == printed and len(printed) == 67
    assert units[0].topic == "Upgrading checklist" and units[1].key == "10.1"
    latest = find_unit(units, "4.6.2")
    assert latest.attributes["released"] == "December, 2022"
    assert [u.key for u in latest.subunits] == ["3.8", "6.5 & 6.6", "11.8.4"]
    series = find_unit(units, "4.5.1", "4.17")
    assert series.attributes["policy_sections"] == ["4.17"] and series.attributes["role"] == "prohibition"
    assert series.raw_text.startswith("4.17\n   Packages must not contain a non-default series file.")
    assert "4.5.1" in series.temporal_topic and "November, 2020" in series.temporal_topic
    changes = [u for u in walk_units(units) if u.attributes["unit_type"] == "change"]
    assert len(changes) > 300 and all(not u.subunits for u in changes)


def test_repeated_references_get_unique_keys(parse) -> None:
    _, units = parse("policy-changelog", CHECKLIST)
    keys = [u.key for u in find_unit(units, "4.3.0").subunits]
    assert "10.1" in keys and "10.1 #2" in keys


def test_accepts_only_logs_with_version_headings(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    two = Document("news.txt", "Version 1.1\n===========\n\nfix\n\nVersion 1.0\n===========\n\nfirst\n",
                   metadata={"format": "text"})
    assert not parser.parser_can_handle_document(two)
    three = Document("news.txt", two.text + "\nVersion 0.9\n===========\n\n* beta\n", metadata={"format": "text"})
    assert parser.parser_can_handle_document(three)
    assert not parser.parser_can_handle_document(Document("pkg.copyright", three.text, metadata={"format": "text"}))
