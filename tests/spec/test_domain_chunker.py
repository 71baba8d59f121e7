"""The domain chunk parser on the units of real documents, and its text splitter on small texts."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from right_rag_dagster.core.units import own_span, walk_units
from right_rag_dagster.pipeline.steps import chunk_units

from .conftest import REPO_ROOT
from .invariants import find_unit

DOCUMENTS = REPO_ROOT / "data" / "documents"
CASES = [("licence", "GPL-3.0.txt"), ("licence", "Apache-2.0.txt"), ("manual", "debian-policy.pdf"),
         ("manual", "fhs-3.0.pdf"), ("policy-changelog", "upgrading-checklist.txt")]


def _load_chunker_module():
    path = REPO_ROOT / "spec" / "chunk_parsers" / "domain.py"
    spec = importlib.util.spec_from_file_location("domain_chunker_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


DOMAIN = _load_chunker_module()


@pytest.fixture(scope="module")
def chunked(spec_registry, parse):
    chunker = spec_registry.create("chunk_parsers", "domain")
    cache = {}

    def run(parser: str, name: str):
        if name not in cache:
            document, units = parse(parser, DOCUMENTS / name)
            cache[name] = (document, units, chunk_units(document, units, chunker))
        return cache[name]

    return run


@pytest.mark.parametrize(("parser", "name"), CASES)
def test_chunks_are_exact_focused_and_attributed(chunked, parser: str, name: str) -> None:
    document, units, chunks = chunked(parser, name)
    by_id = {u.id: u for u in walk_units(units)}
    assert chunks and len({c.id for c in chunks}) == len(chunks)
    for chunk in chunks:
        unit = by_id[chunk.unit_id]
        header, source = chunk.fulltext.split("\n\n", 1)
        assert source == document.text[chunk.source_start:chunk.source_end]
        start, end = own_span(unit)
        assert start <= chunk.source_start < chunk.source_end <= end
        assert 0 < chunk.source_end - chunk.source_start <= DOMAIN.MAX_CHARS
        assert header.splitlines()[0] == unit.attributes["document_label"]
        assert " > ".join(unit.attributes["hierarchy"]) in header
        assert chunk.attributes["parser_name"] == "domain"
        assert chunk.attributes["unit_type"] == unit.attributes["unit_type"]
        assert chunk.attributes["hierarchy"] == unit.attributes["hierarchy"] and "role" in chunk.attributes
        assert unit.attributes.get("role") != "navigation"
        assert "Debian Policy Manual, Release 4.6.2.0" not in source


@pytest.mark.parametrize(("parser", "name"), CASES)
def test_every_chunked_unit_is_covered_without_repeating_children(chunked, parser: str, name: str) -> None:
    document, units, chunks = chunked(parser, name)
    per_unit: dict[str, list] = {}
    for chunk in chunks:
        per_unit.setdefault(chunk.unit_id, []).append(chunk)
    for unit in walk_units(units):
        pieces = sorted(per_unit.get(unit.id, []), key=lambda c: c.source_start)
        if not pieces:
            continue
        start, end = own_span(unit)
        own = re.sub(r"\s+", "", document.text[start:end])
        assert "".join(re.sub(r"\s+", "", document.text[c.source_start:c.source_end]) for c in pieces) == own
        assert all(a.source_end <= b.source_start for a, b in zip(pieces, pieces[1:]))


def test_navigation_and_heading_only_units_are_not_chunked(chunked) -> None:
    _, units, chunks = chunked("licence", "GPL-3.0.txt")
    chunked_units = {c.unit_id for c in chunks}
    assert find_unit(units, "terms").id not in chunked_units  # its own text is the TERMS AND CONDITIONS line
    assert find_unit(units, "terms", "0").id not in chunked_units  # "0. Definitions." before its definitions
    assert find_unit(units, "terms", "8").id in chunked_units
    _, units, chunks = chunked("manual", "debian-policy.pdf")
    navigation = {u.id for u in walk_units(units) if u.attributes.get("role") == "navigation"}
    assert navigation and not navigation & {c.unit_id for c in chunks}


def test_clause_chunks_carry_their_lead_in_and_ids_are_stable(spec_registry, chunked) -> None:
    document, units, chunks = chunked("licence", "GPL-3.0.txt")
    offer = find_unit(units, "terms", "6", "(b)")
    [chunk] = [c for c in chunks if c.unit_id == offer.id]
    assert "(You may convey a covered work in object code form" in chunk.fulltext.split("\n\n", 1)[0]
    again = chunk_units(document, units, spec_registry.create("chunk_parsers", "domain"))
    assert [c.id for c in again] == [c.id for c in chunks]


def test_policy_nocheck_is_one_focused_chunk_on_page_26(chunked) -> None:
    document, units, chunks = chunked("manual", "debian-policy.pdf")
    quote = "This tag says to not run any build-time test suite provided by the package."
    position = document.text.index(quote)
    [chunk] = [c for c in chunks if c.source_start <= position and position + len(quote) <= c.source_end]
    assert chunk.page_start == 36 and document.page_label(chunk.page_start) == "26"
    assert "4.9.1 debian/rules and DEB_BUILD_OPTIONS" in chunk.fulltext.split("\n\n", 1)[0]


def test_checklist_chunk_header_names_the_release(chunked) -> None:
    _, units, chunks = chunked("policy-changelog", "upgrading-checklist.txt")
    series = find_unit(units, "4.5.1", "4.17")
    [chunk] = [c for c in chunks if c.unit_id == series.id]
    assert "4.5.1 (released November, 2020)" in chunk.fulltext.split("\n\n", 1)[0]
    assert chunk.attributes["policy_sections"] == ["4.17"] and chunk.attributes["role"] == "prohibition"


def test_split_text_prefers_blank_lines_then_sentences() -> None:
    paragraph = "This sentence is about forty characters. " * 12
    text = "\n\n".join([paragraph.strip()] * 4)
    pieces = DOMAIN.split_text(text)
    assert len(pieces) >= 2 and all(b - a <= DOMAIN.MAX_CHARS for a, b in pieces)
    assert all(a == 0 or text[a - 2:a] == "\n\n" for a, _ in pieces)
    long_line = "word " * 600
    pieces = DOMAIN.split_text(long_line)
    assert all(b - a <= DOMAIN.MAX_CHARS for a, b in pieces)
    assert "".join(long_line[a:b].replace(" ", "") for a, b in pieces) == long_line.replace(" ", "")
    assert DOMAIN.split_text("  short text \n") == [(2, 12)]
    assert DOMAIN.split_text(" \n ") == []
