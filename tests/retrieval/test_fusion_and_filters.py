"""Reciprocal rank fusion on hand-checked rankings, and metadata filters on a small chunk table."""

from __future__ import annotations

import json

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.retrieval.searching.chunk_table import Candidate, ChunkTable
from right_rag_dagster.retrieval.searching.filters import filter_mask, parse_filters
from right_rag_dagster.retrieval.searching.fusion import reciprocal_rank_fusion, within_documents


def _ranking(*ids: str) -> list[Candidate]:
    return [Candidate(chunk_id, 10.0 - i) for i, chunk_id in enumerate(ids)]


def test_rrf_uses_k_60_and_ranks_from_one() -> None:
    fused = reciprocal_rank_fusion({"bm25": _ranking("a", "b", "c"), "dense": _ranking("b", "d")})
    scores = {c.chunk_id: c.score for c in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63)
    assert [c.chunk_id for c in fused] == ["b", "a", "d", "c"]  # a and d tie-break: a was seen first
    assert fused[0].details == {"bm25": {"rank": 2, "score": 9.0}, "dense": {"rank": 1, "score": 10.0}}


def test_rrf_weights_scale_each_ranking() -> None:
    fused = reciprocal_rank_fusion({"bm25": _ranking("a", "b"), "dense": _ranking("b", "a")},
                                   {"bm25": 3.0, "dense": 1.0})
    assert [c.chunk_id for c in fused] == ["a", "b"]
    assert fused[0].score == pytest.approx(3 / 61 + 1 / 62)


def test_within_documents_keeps_a_clear_lexical_leader_first() -> None:
    """Rank fusion keeps no margins: the dense favourite ``a2`` overtakes ``a1`` in document A whatever BM25's
    lead. With ``margin``, ``a1`` keeps A's first place when it scores at least ``margin`` x ``a2``'s BM25 score;
    places, documents and scores stay BM25's either way."""
    def document(chunk_id: str) -> str:
        return chunk_id[0]

    fused = _ranking("a2", "b1", "a1", "a3")
    for lead, margin, first in ((12.0, None, "a2"), (12.0, 1.25, "a1"), (5.5, 1.25, "a2")):
        lexical = [Candidate("a1", lead), Candidate("a2", 5.0), Candidate("b1", 4.0), Candidate("a3", 3.0)]
        placed = within_documents(lexical, fused, document, margin=margin)
        assert [c.score for c in placed] == [lead, 5.0, 4.0, 3.0]
        assert [c.chunk_id for c in placed][0] == first, (lead, margin)
        assert {c.chunk_id for c in placed if c.chunk_id != "b1"} == {"a1", "a2", "a3"}
        assert placed[2].chunk_id == "b1"


def _table() -> ChunkTable:
    def row(chunk_id: str, document: str, unit_type: str | None, role: str | None, path: list[str],
            attributes: dict) -> tuple:
        return (chunk_id, document, f"u-{chunk_id}", "text", 0, 4, None, None, None, None, json.dumps(path),
                unit_type, role, json.dumps(attributes))

    return ChunkTable("test", [
        row("c1", "GPL-3.0.txt", "section", "duty", ["Terms", "8. Termination"], {"number": 8, "tags": ["x", "y"]}),
        row("c2", "GPL-3.0.txt", "definition", "definition", ["Terms", "0. Definitions"], {"term": "Licensee"}),
        row("c3", "docs/fhs-3.0.pdf", "section", None, ["3 The Root Filesystem", "3.17 /srv"], {"flag": True}),
    ])


@pytest.mark.parametrize("filters, expected", [
    ({"document": "GPL-3.0.txt"}, [True, True, False]),
    ({"document": "docs/*.pdf"}, [False, False, True]),
    ({"unit_type": "section"}, [True, False, True]),
    ({"unit_type": ["definition", "section"], "role": "duty"}, [True, False, False]),
    ({"role": "definition"}, [False, True, False]),
    ({"number": "8"}, [True, False, False]),
    ({"tags": "y"}, [True, False, False]),
    ({"flag": "true"}, [False, False, True]),
    ({"section": "/SRV"}, [False, False, True]),
    ({"term": "Nobody"}, [False, False, False]),
])
def test_filter_mask(filters: dict, expected: list[bool]) -> None:
    assert filter_mask(_table(), filters).tolist() == expected


def test_no_filter_means_no_mask() -> None:
    assert filter_mask(_table(), None) is None and filter_mask(_table(), {}) is None


def test_parse_filters_from_the_command_line() -> None:
    assert parse_filters(["document=GPL-3.0.txt", "unit_type=section", "unit_type=clause", "note=a=b"]) == {
        "document": "GPL-3.0.txt", "unit_type": ["section", "clause"], "note": "a=b"}
    with pytest.raises(ConfigError, match="not key=value"):
        parse_filters(["document"])
