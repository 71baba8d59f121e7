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


def _kept_text(document, units, start: int, end: int) -> str:
    """Text of the units' own spans inside ``[start, end)``, whitespace removed: what a chunk there may show."""
    spans = sorted(own_span(u) for u in walk_units(units) if u.source_start is not None)
    return "".join(re.sub(r"\s+", "", document.text[max(a, start):min(b, end)]) for a, b in spans if a < end and b > start)


@pytest.mark.parametrize(("parser", "name"), CASES)
def test_chunks_are_exact_focused_and_attributed(chunked, parser: str, name: str) -> None:
    document, units, chunks = chunked(parser, name)
    by_id = {u.id: u for u in walk_units(units)}
    assert chunks and len({c.id for c in chunks}) == len(chunks)
    for chunk in chunks:
        unit = by_id[chunk.unit_id]
        header, source = chunk.fulltext.split("\n\n", 1)
        edge = min(20, chunk.source_end - chunk.source_start)
        assert source.startswith(document.text[chunk.source_start:chunk.source_start + edge])
        assert source.endswith(document.text[chunk.source_end - edge:chunk.source_end])
        assert re.sub(r"\s+", "", source) == _kept_text(document, units, chunk.source_start, chunk.source_end)
        assert unit.source_start <= chunk.source_start < chunk.source_end <= unit.source_end
        assert 0 < len(source) <= max(DOMAIN.MAX_CHARS, DOMAIN.WHOLE_CHARS)
        assert header.splitlines()[0] == unit.attributes["document_label"]
        assert " > ".join(unit.attributes["hierarchy"]) in header
        assert chunk.attributes["parser_name"] == "domain"
        assert chunk.attributes["unit_type"] == unit.attributes["unit_type"]
        assert chunk.attributes["hierarchy"] == unit.attributes["hierarchy"] and "role" in chunk.attributes
        assert unit.attributes.get("role") != "navigation"
        assert "Debian Policy Manual, Release 4.6.2.0" not in source


@pytest.mark.parametrize(("parser", "name"), CASES)
def test_chunks_never_overlap_and_cover_every_leaf(chunked, parser: str, name: str) -> None:
    document, units, chunks = chunked(parser, name)
    spans = sorted((c.source_start, c.source_end) for c in chunks)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    inside = bytearray(len(document.text))
    for a, b in spans:
        inside[a:b] = b"\x01" * (b - a)
    for unit in walk_units(units):
        if unit.subunits or unit.attributes.get("role") in ("navigation", "furniture") or not unit.raw_text.strip():
            continue
        start, end = own_span(unit)
        missed = [i for i in range(start, end) if not inside[i] and not document.text[i].isspace()]
        assert not missed, unit.topic


def test_a_section_that_fits_is_one_chunk_and_records_stay_apart(chunked) -> None:
    document, units, chunks = chunked("licence", "GPL-3.0.txt")
    termination = find_unit(units, "terms", "8")
    assert termination.source_end - termination.source_start <= DOMAIN.WHOLE_CHARS
    [chunk] = [c for c in chunks if c.source_start < termination.source_end and c.source_end > termination.source_start]
    assert chunk.unit_id == termination.id and chunk.fulltext.endswith(termination.raw_text.strip()[-40:])
    document, units, chunks = chunked("manual", "debian-policy.pdf")  # a subsection cut by a page break
    standards = next(u for u in walk_units(units) if u.topic == "5.6.11 Standards-Version")
    [chunk] = [c for c in chunks if c.source_start < standards.source_end and c.source_end > standards.source_start]
    assert chunk.unit_id == standards.id and len(standards.subunits) == 2
    assert "Thus only the first three components" in chunk.fulltext and chunk.page_end == chunk.page_start + 1
    _, units, chunks = chunked("policy-changelog", "upgrading-checklist.txt")
    version = find_unit(units, "4.5.1")
    assert version.source_end - version.source_start <= DOMAIN.WHOLE_CHARS
    assert {c.unit_id for c in chunks if version.source_start <= c.source_start < version.source_end} == {
        u.id for u in version.subunits}


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


def test_a_sections_paragraphs_are_packed_the_way_its_own_text_is_cut(spec_registry, parse, chunked) -> None:
    """make's ``Explanations`` through the generic parser, whose paragraphs are units with no heading of their own:
    paragraphs that follow each other share chunks of about ``TARGET`` characters under their section's header (not
    one chunk of 90-300 characters each), and a chunk never reaches past a paragraph into a named sibling."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout42" / "documents" / "make-Explanations.txt"
    document, units = parse("generic", path)
    chunks = chunk_units(document, units, spec_registry.create("chunk_parsers", "domain"))
    by_id = {u.id: u for u in walk_units(units)}
    packed = [c for c in chunks if c.metadata.get("packed")]
    assert len(packed) >= 5
    for chunk in packed:
        parent = by_id[chunk.unit_id]
        inside = [u for u in parent.subunits if u.source_start < chunk.source_end and u.source_end > chunk.source_start]
        assert len(inside) == chunk.metadata["units"] and all(u.attributes["unit_type"] == "paragraph" for u in inside)
        header, source = chunk.fulltext.split("\n\n", 1)
        assert len(source) <= DOMAIN.MAX_CHARS and "¶" not in header.splitlines()[1]
    [chunk] = [c for c in chunks if "That's because of the way make processes" in c.fulltext]
    assert chunk in packed and chunk.fulltext.splitlines()[1] == "Front matter"
    document_paragraphs = [u for u in walk_units(units) if u.attributes.get("unit_type") == "paragraph"]
    assert len(chunks) < len(document_paragraphs) / 2
    _, units, chunks = chunked("licence", "GPL-3.0.txt")  # its paragraphs carry roles (permission, duty, ...)
    by_id = {u.id: u for u in walk_units(units)}
    packed = [c for c in chunks if c.metadata.get("packed")]
    roles = set()
    for chunk in packed:
        inside = [u for u in by_id[chunk.unit_id].subunits
                  if u.source_start < chunk.source_end and u.source_end > chunk.source_start]
        assert {u.attributes.get("role") for u in inside} == {chunk.attributes["role"]}
        roles.add(chunk.attributes["role"])
    assert packed and roles - {None}
