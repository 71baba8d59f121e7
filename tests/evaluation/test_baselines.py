"""Baseline chunkers: exact spans and pages, their size rules, and that no production config can select them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader
from right_rag_dagster.core.model import Document
from right_rag_dagster.errors import ConfigError
from right_rag_dagster.evaluation.baselines import (
    FixedCharsChunker,
    FixedWordsChunker,
    HeadingChunker,
    PageChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    baselines_by_name,
    default_baselines,
)
from right_rag_dagster.evaluation.baselines.packing import pack, windows
from right_rag_dagster.registry import build_registry


@pytest.fixture(scope="module")
def fhs(sample_documents: Path) -> Document:
    return DefaultDocumentLoader().load_document(sample_documents / "fhs-3.0.pdf", "fhs-3.0.pdf")


@pytest.fixture(scope="module")
def gpl(sample_documents: Path) -> Document:
    return DefaultDocumentLoader().load_document(sample_documents / "GPL-3.0.txt", "GPL-3.0.txt")


@pytest.mark.parametrize("baseline", default_baselines(), ids=lambda b: b.name)
def test_every_baseline_cuts_exact_spans_with_pages(baseline, fhs: Document) -> None:
    chunks = baseline.chunk_document(fhs)
    assert chunks and baseline.name.startswith("baseline:")
    assert len({c.id for c in chunks}) == len(chunks)
    for chunk in chunks:
        assert fhs.text[chunk.source_start:chunk.source_end] == chunk.fulltext == chunk.fulltext.strip()
        assert chunk.page_start == fhs.page_at(chunk.source_start)
        assert chunk.page_end == fhs.page_at(chunk.source_end - 1)
        assert chunk.document_id == fhs.id
    starts = [c.source_start for c in chunks]
    assert starts == sorted(starts)


def test_fixed_chars_windows_overlap(gpl: Document) -> None:
    assert windows(0, 1000, 500, 50) == [(0, 500), (450, 950), (900, 1000)]
    chunks = FixedCharsChunker(500, 50).chunk_document(gpl)
    assert max(len(c.fulltext) for c in chunks) == 500
    assert chunks[1].source_start < chunks[0].source_end


def test_fixed_words_counts_words(gpl: Document) -> None:
    chunks = FixedWordsChunker(100, 10).chunk_document(gpl)
    assert all(len(c.fulltext.split()) <= 100 for c in chunks)
    assert len(chunks[0].fulltext.split()) == 100
    assert chunks[0].fulltext.split()[-10:] == chunks[1].fulltext.split()[:10]


def test_recursive_prefers_paragraph_boundaries(gpl: Document) -> None:
    chunks = RecursiveChunker(1000).chunk_document(gpl)
    assert all(len(c.fulltext) <= 1000 for c in chunks)
    ends_at_blank_line = sum(gpl.text[c.source_end:c.source_end + 2].startswith("\n\n") for c in chunks)
    assert ends_at_blank_line > len(chunks) / 2


def test_sentence_chunks_end_at_sentence_ends(gpl: Document) -> None:
    chunks = SentenceChunker(600).chunk_document(gpl)
    assert all(len(c.fulltext) <= 600 for c in chunks)
    assert sum(c.fulltext[-1] in ".!?\"')" for c in chunks) > 0.8 * len(chunks)


def test_paragraph_chunks_end_at_blank_lines(gpl: Document) -> None:
    chunks = ParagraphChunker(600).chunk_document(gpl)
    at_break = [c for c in chunks[:-1] if re.match(r"[ \t]*\n[ \t]*\n", gpl.text[c.source_end:])]
    assert len(at_break) > 0.6 * len(chunks)


def test_heading_chunks_start_at_numbered_headings(gpl: Document) -> None:
    chunks = HeadingChunker(1500).chunk_document(gpl)
    section_8 = gpl.text.index("  8. Termination.")
    assert any(c.source_start == section_8 + 2 for c in chunks)


def test_page_chunks_never_cross_pages(fhs: Document) -> None:
    chunks = PageChunker(4000).chunk_document(fhs)
    assert all(c.page_start == c.page_end for c in chunks)
    assert {c.page_start for c in chunks} == {p for p in range(1, fhs.page_count + 1)
                                             if fhs.text[fhs.page_starts[p - 1]:(fhs.page_starts + (len(fhs.text),))[p]].strip()}


def test_pack_joins_whole_pieces_with_overlap() -> None:
    text = "aaaa bbbb cccc dddd"
    pieces = [(0, 5), (5, 10), (10, 15), (15, 19)]
    assert pack(text, pieces, 10) == [(0, 10), (10, 19)]
    assert pack(text, pieces, 10, overlap_pieces=1) == [(0, 10), (5, 15), (10, 19)]
    assert pack("x" * 25, [(0, 25)], 10) == [(0, 10), (10, 20), (20, 25)]


def test_baselines_are_never_registry_plugins(tmp_path: Path) -> None:
    registry = build_registry(tmp_path)
    names = set(registry.names("chunk_parsers"))
    assert names and not any(name.startswith("baseline") for name in names)


def test_baselines_by_name() -> None:
    assert [b.name for b in baselines_by_name(["baseline:page-4000"])] == ["baseline:page-4000"]
    with pytest.raises(ConfigError, match="available: .*baseline:fixed-chars-500"):
        baselines_by_name(["baseline:nope"])
    with pytest.raises(ValueError):
        FixedCharsChunker(100, 100)
