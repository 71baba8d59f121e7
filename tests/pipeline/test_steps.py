"""Pipeline steps as plain functions: load never raises, routing rejections, chunk provenance, coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from right_rag_dagster.builtins.chunk_parsers.default import DefaultChunkParser
from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader
from right_rag_dagster.builtins.unit_parsers.default import DefaultUnitParser
from right_rag_dagster.core.interfaces import ChunkParser, DocumentLoader, UnitParser
from right_rag_dagster.core.model import Chunk, Document, ParsedUnit, Unit
from right_rag_dagster.core.units import build_units, walk_units
from right_rag_dagster.errors import DocumentRejected, ParserOutputError
from right_rag_dagster.pipeline.steps import (
    chunk_units,
    document_coverage,
    load_document,
    parse_document,
    units_by_type,
)


class Loader(DocumentLoader):
    """A loader that returns ``text`` for ``*.suffix`` files, or raises ``error``."""

    def __init__(self, name: str, suffix: str, text: str = "text", error: Exception | None = None) -> None:
        self.name, self.suffix, self.text, self.error = name, suffix, text, error

    @property
    def loader_name(self) -> str:
        return self.name

    def can_load(self, path: Path) -> bool:
        return path.suffix == self.suffix

    def load_document(self, path: Path, document_id: str) -> Document:
        if self.error:
            raise self.error
        return Document(id=document_id, text=self.text)


class Parser(UnitParser):
    """Accepts every document and returns ``result`` (a list of ParsedUnit, or an exception to raise)."""

    def __init__(self, result) -> None:
        self.result = result

    @property
    def parser_name(self) -> str:
        return "fixture-parser"

    def parser_can_handle_document(self, document: Document) -> bool:
        return True

    def parse_document(self, document: Document):
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


class Chunker(ChunkParser):
    """One chunk per unit with the given text; optionally with fixed ids or a failure."""

    def __init__(self, text=lambda unit: unit.fulltext, fixed_id: str | None = None, fail_on: str = "") -> None:
        self.text, self.fixed_id, self.fail_on = text, fixed_id, fail_on

    @property
    def parser_name(self) -> str:
        return "fixture-chunker"

    def parse_unit(self, unit: Unit):
        if unit.topic == self.fail_on:
            raise RuntimeError("cannot split")
        yield Chunk(id=self.fixed_id or f"{unit.id}:1", document_id=unit.document_id, unit_id=unit.id,
                    topic=unit.topic, fulltext=self.text(unit))


# --- load_document ------------------------------------------------------------------------------------------

def test_load_uses_the_first_loader_that_accepts_the_file(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("x")
    outcome = load_document(path, "a.txt", [Loader("pdf", ".pdf"), Loader("one", ".txt", "1"), Loader("two", ".txt")])
    assert (outcome.loader, outcome.document.text, outcome.rejection) == ("one", "1", None)


@pytest.mark.parametrize("loader, status, reason", [
    (Loader("strict", ".txt", error=DocumentRejected("a.txt", "no title page", "unsupported")), "unsupported",
     "no title page"),
    (Loader("buggy", ".txt", error=ZeroDivisionError("division by zero")), "failed",
     "loader 'buggy' failed: ZeroDivisionError: division by zero"),
    (Loader("blank", ".txt", text=" \n "), "rejected", "no text could be extracted"),
])
def test_load_turns_every_problem_into_a_rejection_naming_the_loader(tmp_path, loader, status, reason):
    path = tmp_path / "a.txt"
    path.write_text("x")
    outcome = load_document(path, "docs/a.txt", [loader])
    assert outcome.document is None and outcome.loader == loader.loader_name
    assert outcome.rejection.document_id == "docs/a.txt"
    assert (outcome.rejection.status, outcome.rejection.reason) == (status, reason)
    assert outcome.rejection.parser_names == (loader.loader_name,)


def test_a_file_no_loader_accepts_is_unsupported(tmp_path):
    outcome = load_document(tmp_path / "a.xyz", "a.xyz", [Loader("pdf", ".pdf"), Loader("txt", ".txt")])
    assert (outcome.loader, outcome.rejection.status) == (None, "unsupported")
    assert "'a.xyz'" in outcome.rejection.reason and "pdf, txt" in outcome.rejection.reason
    assert "none selected" in load_document(tmp_path / "a.xyz", "a.xyz", []).rejection.reason


def test_a_loader_whose_can_load_raises_fails_the_document_instead_of_the_run(tmp_path):
    class Picky(Loader):
        def can_load(self, path: Path) -> bool:
            raise PermissionError("cannot stat")

    outcome = load_document(tmp_path / "a.txt", "a.txt", [Picky("picky", ".txt")])
    assert (outcome.loader, outcome.rejection.status) == ("picky", "failed")
    assert outcome.rejection.reason == "loader 'picky' failed: PermissionError: cannot stat"


def test_a_loader_returning_something_else_than_a_document_fails_the_document(tmp_path):
    class Sloppy(Loader):
        def load_document(self, path: Path, document_id: str):
            return None

    path = tmp_path / "a.txt"
    path.write_text("x")
    outcome = load_document(path, "a.txt", [Sloppy("sloppy", ".txt")])
    assert outcome.rejection.status == "failed" and "AttributeError" in outcome.rejection.reason


def test_load_never_raises_even_for_a_missing_file(tmp_path):
    outcome = load_document(tmp_path / "gone.txt", "gone.txt", [DefaultDocumentLoader()])
    assert outcome.document is None
    assert outcome.rejection.status == "failed" and "FileNotFoundError" in outcome.rejection.reason


# --- parse_document -----------------------------------------------------------------------------------------

DOC = Document(id="act.txt", text="Section 1 Scope.\nSection 2 Terms.\n", page_starts=(0, 17), page_labels=("i", "1"))


def test_parse_routes_and_builds_units():
    outcome = parse_document(DOC, [Parser([ParsedUnit(topic="Section 1", fulltext="Scope.", source_start=0,
                                                      source_end=16)])])
    assert outcome.parser == "fixture-parser" and outcome.rejection is None
    assert [u.raw_text for u in outcome.units] == ["Section 1 Scope."]


@pytest.mark.parametrize("result, status, fragment", [
    (RuntimeError("regex exploded"), "failed", "parser 'fixture-parser' raised RuntimeError: regex exploded"),
    ([ParsedUnit(topic="S", fulltext="a"), ParsedUnit(topic="S", fulltext="b")], "failed", "duplicate sibling keys"),
    ([ParsedUnit(topic="S", fulltext="a", source_start=0, source_end=999)], "failed", "outside act.txt"),
    ([], "failed", "accepted the document but returned no units"),
    (DocumentRejected("act.txt", "no Section markers found", "unsupported"), "unsupported", "no Section markers"),
])
def test_parse_failures_become_rejections_naming_the_parser(result, status, fragment):
    outcome = parse_document(DOC, [Parser(result)])
    assert outcome.units == []
    assert outcome.rejection.status == status and fragment in outcome.rejection.reason
    assert outcome.rejection.parser_names == ("fixture-parser",)


def test_parse_passes_routing_rejections_through():
    outcome = parse_document(DOC, [Parser([]), DefaultUnitParser()])
    assert (outcome.parser, outcome.rejection.status) == (None, "ambiguous")


# --- chunk_units --------------------------------------------------------------------------------------------

def units() -> list[Unit]:
    return build_units(DOC, [
        ParsedUnit(topic="Section 1", fulltext="Section 1 Scope.", source_start=0, source_end=16),
        ParsedUnit(topic="Section 2", fulltext="Section 2 Terms.", source_start=17, source_end=33,
                   subunits=[ParsedUnit(topic="Note", fulltext="  "), ParsedUnit(topic="Unplaced", fulltext="x")]),
    ], "p")


def test_chunk_spans_are_found_in_the_unit_text_else_the_unit_span_and_pages_follow():
    chunks = chunk_units(DOC, units(), Chunker(text=lambda u: "Terms." if u.topic == "Section 2" else u.fulltext))
    by_topic = {c.topic: c for c in chunks}
    assert list(by_topic) == ["Section 1", "Section 2", "Unplaced"]  # pre-order; blank units are skipped
    terms = by_topic["Section 2"]
    assert DOC.text[terms.source_start:terms.source_end] == "Terms."
    assert (terms.page_start, terms.page_end) == (2, 2)
    first = by_topic["Section 1"]
    assert (first.source_start, first.source_end, first.page_start, first.page_end) == (0, 16, 1, 1)
    unplaced = by_topic["Unplaced"]
    assert (unplaced.source_start, unplaced.page_start) == (None, None)


def test_a_chunk_not_found_in_its_unit_gets_the_unit_span_and_given_provenance_is_kept():
    [chunk] = chunk_units(DOC, units()[:1], Chunker(text=lambda u: f"{u.temporal_topic}\n\n{u.fulltext}"))
    assert (chunk.source_start, chunk.source_end) == (0, 16)

    class Explicit(Chunker):
        def parse_unit(self, unit):
            yield Chunk(id="c", document_id=unit.document_id, unit_id=unit.id, topic="t", fulltext="x",
                        source_start=3, source_end=20, page_start=9, page_end=None)

    [chunk] = chunk_units(DOC, units()[:1], Explicit())
    assert (chunk.source_start, chunk.source_end, chunk.page_start, chunk.page_end) == (3, 20, 9, 2)


def test_a_failing_chunker_names_itself_the_unit_and_the_document():
    with pytest.raises(ParserOutputError, match="chunk parser 'fixture-chunker' failed on unit 'Section 2' of "
                                                "act.txt: RuntimeError: cannot split"):
        chunk_units(DOC, units(), Chunker(fail_on="Section 2"))


def test_repeated_chunk_ids_are_a_parser_error():
    with pytest.raises(ParserOutputError, match="produced chunk id same twice in act.txt"):
        chunk_units(DOC, units(), Chunker(fixed_id="same"))


# --- the default plugins end to end on real documents ----------------------------------------------------------

@pytest.fixture(scope="module")
def policy(sample_documents) -> Document:
    path = sample_documents / "debian-policy.pdf"
    return load_document(path, "debian-policy.pdf", [DefaultDocumentLoader()]).document


def test_default_plugins_on_the_policy_manual_cite_printed_page_labels(policy):
    outcome = parse_document(policy, [DefaultUnitParser()])
    chunks = chunk_units(policy, outcome.units, DefaultChunkParser())
    assert len(chunks) > 100
    for chunk in chunks:
        assert policy.text[chunk.source_start:chunk.source_end] == chunk.fulltext
        assert chunk.page_start == policy.page_at(chunk.source_start)
        assert chunk.page_start <= chunk.page_end <= 193
    [heading] = [c for c in chunks if "4.9.1 debian/rules and DEB_BUILD_OPTIONS\nSupporting" in c.fulltext]
    assert heading.page_start == 36 and policy.page_label(heading.page_start) == "26"


def test_coverage_and_unit_types_of_the_default_parser(sample_documents):
    path = sample_documents / "GPL-3.0.txt"
    document = load_document(path, "GPL-3.0.txt", [DefaultDocumentLoader()]).document
    outcome = parse_document(document, [DefaultUnitParser()])
    coverage = document_coverage(document, outcome.units)
    lines = document.text.count("\n")
    assert coverage.units_total == -(-lines // 40)  # one unit per 40 lines
    assert coverage.covered_chars == len(document.text) and coverage.coverage_percent == 100.0
    assert units_by_type(outcome.units) == {"line_block": coverage.units_total}
    assert units_by_type(units()) == {"untyped": 4}
    assert len(list(walk_units(outcome.units))) == coverage.units_total
