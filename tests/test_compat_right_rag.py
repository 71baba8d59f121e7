"""right-rag compatibility: the plugins of right-rag's README run with only the import prefix changed.

The fixture spec/ holds the README's ThaiOrganicActParser, ThaiOrderParser, EnglishActParser, MyUnitParser and
MyChunkParser; they are discovered, route, parse and chunk through ``build_registry``, the pipeline steps and
right-rag's ``pipeline(PipelineConfig(...))`` entry point.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from right_rag_dagster.core.units import walk_units
from right_rag_dagster.model import Document
from right_rag_dagster.pipeline import PipelineConfig, pipeline
from right_rag_dagster.pipeline.steps import chunk_units, load_document, parse_document
from right_rag_dagster.pipeline_state import stable_hash
from right_rag_dagster.registry import build_registry

FIXTURE = Path(__file__).parent / "fixtures" / "right_rag_readme"
SPEC = FIXTURE / "spec"
PRODUCTION = ["thai-organic-act", "thai-order", "english-act"]  # the README's production selection


@pytest.fixture(scope="module")
def registry():
    return build_registry(SPEC)


@pytest.fixture(scope="module")
def documents(registry) -> dict[str, Document]:
    loaders = registry.resolve("document_loaders", ["default"])
    return {path.stem: load_document(path, path.name, loaders).document
            for path in sorted((FIXTURE / "documents").iterdir())}


def test_the_fixture_plugins_are_the_readme_code_with_only_the_import_prefix_changed():
    readme = (FIXTURE / "right-rag-README.txt").read_text(encoding="utf-8")
    files = sorted(SPEC.rglob("*.py"))
    assert [p.name for p in files] == ["my_chunk_parser.py", "my_unit_parser.py", "readme_examples.py"]
    for path in files:
        header, code = path.read_text(encoding="utf-8").split("\n", 1)
        assert header.startswith("# Copied from right-rag's README")
        assert code.replace("from right_rag_dagster.", "from right_rag.") in readme, path.name
        assert "right_rag." not in code.replace("right_rag_dagster.", "")


def test_the_readme_plugins_are_discovered_with_their_names(registry):
    assert registry.errors == []
    assert registry.names("unit_parsers") == ["default", "english-act", "generic", "my-parser", "thai-order",
                                              "thai-organic-act"]  # generic: the built-in fallback
    assert registry.names("chunk_parsers") == ["default", "my-chunker"]
    # right-rag's README check: r.document_loaders, r.unit_parsers, ... map names to plugin instances
    assert registry.unit_parsers["thai-order"].parser_name == "thai-order"
    assert sorted(registry.chunk_parsers) == ["default", "my-chunker"]
    assert sorted(registry.document_loaders) == sorted(registry.unit_savers) == sorted(registry.chunk_savers) == [
        "default"]


def test_the_non_overlapping_parsers_route_each_family_to_its_own_parser(registry, documents):
    parsers = registry.resolve("unit_parsers", PRODUCTION)
    owners = {name: parse_document(doc, parsers) for name, doc in documents.items()}
    assert {name: o.parser for name, o in owners.items()} == {
        "english_act": "english-act", "meeting_notes": None, "thai_order": "thai-order",
        "thai_organic_act": "thai-organic-act"}
    rejection = owners["meeting_notes"].rejection
    assert rejection.status == "unsupported" and rejection.parser_names == tuple(PRODUCTION)


def test_the_catch_all_example_parser_makes_every_document_ambiguous(registry, documents):
    # None selects every registered parser; the README's MyUnitParser accepts any text (its anti-pattern).
    parsers = registry.resolve("unit_parsers", None)
    assert [p.parser_name for p in parsers] == ["english-act", "my-parser", "thai-order", "thai-organic-act"]
    outcome = parse_document(documents["thai_order"], parsers)
    assert outcome.rejection.status == "ambiguous"
    assert outcome.rejection.parser_names == ("my-parser", "thai-order")


@pytest.mark.parametrize("name, topics, unit_type, role", [
    ("thai_organic_act", ["Section 1", "Section 2", "Section 3", "Section 4"], "section", "rule"),
    ("thai_order", ["Clause ๑", "Clause ๒", "Clause ๓"], "clause", "order"),
    ("english_act", ["Section 1", "Section 2", "Section 3"], "section", "rule"),
])
def test_each_readme_parser_gives_units_with_exact_source_spans(registry, documents, name, topics, unit_type, role):
    document = documents[name]
    outcome = parse_document(document, registry.resolve("unit_parsers", PRODUCTION))
    assert [u.topic for u in outcome.units] == topics
    for unit in outcome.units:
        assert unit.raw_text == document.text[unit.source_start:unit.source_end]
        assert unit.fulltext == unit.raw_text.strip()
        assert unit.attributes == {"unit_type": unit_type, "role": role}
    assert outcome.units[-1].source_end == len(document.text)  # the README's regexes run to the end of the text


def test_my_chunk_parser_chunks_every_unit_and_the_pipeline_adds_provenance(registry, documents):
    document = documents["english_act"]
    units = parse_document(document, registry.resolve("unit_parsers", ["english-act"])).units
    chunks = chunk_units(document, units, registry.create("chunk_parsers", "my-chunker"))
    assert len(chunks) == len(units) == 3
    for unit, chunk in zip(units, chunks):
        assert chunk.id == stable_hash({"unit_id": unit.id, "parser": "my-chunker", "index": 1})
        assert chunk.fulltext == f"{unit.temporal_topic}\n\n{unit.fulltext}"
        assert chunk.attributes["parser_name"] == "my-chunker"
        assert chunk.attributes["unit_type"] == "section" and chunk.attributes["source_unit"] == unit.topic
        # The README chunker sets no span; the step falls back to the unit's span so the chunk can be cited.
        assert (chunk.source_start, chunk.source_end) == (unit.source_start, unit.source_end)


def test_my_unit_parser_builds_a_tree_with_an_inherited_temporal_topic(registry, documents):
    document = documents["thai_organic_act"]  # long enough for the README's fixed span 120..260
    outcome = parse_document(document, registry.resolve("unit_parsers", ["my-parser"]))
    [unit] = outcome.units
    assert unit.raw_text == document.text[120:260]
    assert unit.temporal_topic == "Example Act 2024 Section 1"
    [sub] = unit.subunits
    assert (sub.topic, sub.parent_id, sub.source_start) == ("Subsection 1", unit.id, None)
    assert sub.temporal_topic == "Example Act 2024 Section 1 Subsection 1"
    assert [c.change_type for c in unit.changes] == ["AddUnit", "AddSubUnit"]
    chunks = chunk_units(document, outcome.units, registry.create("chunk_parsers", "my-chunker"))
    assert [c.unit_id for c in chunks] == [u.id for u in walk_units(outcome.units)]


def test_a_too_short_document_for_my_unit_parser_is_a_clear_parser_error(registry, documents):
    outcome = parse_document(documents["meeting_notes"], registry.resolve("unit_parsers", ["my-parser"]))
    assert outcome.rejection.status == "failed"
    assert "'my-parser'" in outcome.rejection.reason and "span (120, 260)" in outcome.rejection.reason


@pytest.fixture
def readme_project(tmp_path, monkeypatch) -> Path:
    """A project laid out as right-rag expects (spec/, data/documents/), and the working directory."""
    shutil.copytree(SPEC, tmp_path / "spec")
    shutil.copytree(FIXTURE / "documents", tmp_path / "data" / "documents")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RIGHT_RAG_PROJECT", raising=False)
    return tmp_path


def saved(project: Path, kind: str) -> dict[str, dict]:
    return {json.loads(p.read_text())["document_id"]: json.loads(p.read_text())
            for p in (project / "output" / kind).rglob("*.json")}


def test_the_readme_production_pipeline_call_runs_and_saves(readme_project):
    counts = pipeline(PipelineConfig(unit_parser_names=PRODUCTION, chunk_parser_names=["my-chunker"]))
    assert counts["units:materialized"] == 3 and counts["document:unsupported"] == 1
    units = saved(readme_project, "units")
    assert sorted(units) == ["english_act.txt", "thai_order.txt", "thai_organic_act.txt"]
    assert [u["topic"] for u in units["thai_order.txt"]["units"]] == ["Clause ๑", "Clause ๒", "Clause ๓"]
    chunks = saved(readme_project, "chunks")
    assert {c["chunker"] for c in chunks.values()} == {"my-chunker"}
    assert len(chunks["english_act.txt"]["chunks"]) == 3
    again = pipeline(PipelineConfig(unit_parser_names=PRODUCTION, chunk_parser_names=["my-chunker"]))
    assert again["unchanged"] == 4 and "units:materialized" not in again


def test_the_readme_smoke_test_pipeline_call_uses_the_default_plugins(readme_project):
    counts = pipeline(PipelineConfig(
        document_loader_names=["default"],
        unit_parser_names=["default"],
        chunk_parser_names=["default"],
        unit_saver_names=["default"],
        chunk_saver_names=["default"],
    ))
    assert counts["units:materialized"] == 4
    assert set(saved(readme_project, "units")) == {p.name for p in (readme_project / "data" / "documents").iterdir()}


def test_the_readme_discovery_check_uses_spec_in_the_working_directory(readme_project):
    registry = build_registry()
    assert set(registry.unit_parsers) == {"default", "english-act", "generic", "my-parser", "thai-order",
                                          "thai-organic-act"}
