"""A hit and the chunk next to it join when both rank among the best (``retrieval/searching/neighbours.py``)."""

from __future__ import annotations

import tomllib

import pytest

from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.hits import Hit
from right_rag_dagster.retrieval.searching.neighbours import join_neighbours
from right_rag_dagster.retrieval.searching.snapshot import clear_cache, first_search
from right_rag_dagster.store import Store
from right_rag_dagster.store.texts import read_texts


def _hit(rank: int, document: str, number: int, start: int, end: int, page: int | None = None) -> Hit:
    return Hit(rank=rank, chunk_id=f"{document}#{number}", chunker="t", document_id=document, unit_id=f"u{number}",
               text=f"text {number}", score=10.0 - rank, source_start=start, source_end=end, page_start=page,
               page_end=page, page_label_start=str(page) if page else None,
               page_label_end=str(page) if page else None, section_path=(f"s{number}",))


def test_a_run_of_neighbours_among_the_best_becomes_one_hit_and_the_rest_move_up() -> None:
    hits = [_hit(1, "a", 5, 500, 600, 3), _hit(2, "b", 1, 100, 200), _hit(3, "a", 4, 400, 498, 2),
            _hit(4, "a", 6, 602, 700, 3), _hit(5, "b", 9, 900, 1000), _hit(6, "a", 7, 702, 800)]
    joined = join_neighbours(hits)
    assert [h.rank for h in joined] == [1, 2, 3, 4]
    first = joined[0]
    # the previous chunk (3rd) joins before the next one (4th); the 6th, next to them, is outside the window
    assert first.joined == (("a#5", "u5", 500, 600), ("a#4", "u4", 400, 498), ("a#6", "u6", 602, 700))
    assert first.spans == [(500, 600), (400, 498), (602, 700)]  # the text's spans: not the characters between
    assert (first.chunk_id, first.unit_id, first.section_path, first.score) == ("a#5", "u5", ("s5",), 9.0)
    assert (first.text, first.source_start, first.source_end) == ("text 4\n\ntext 5\n\ntext 6", 400, 700)
    assert (first.page_start, first.page_end, first.pages) == (2, 3, "2-3")
    assert [h.chunk_id for h in joined[1:]] == ["b#1", "b#9", "a#7"]
    assert not any(h.joined for h in joined[1:])


def test_chunks_join_only_when_next_to_each_other_in_the_text_and_both_in_the_window() -> None:
    apart = [_hit(1, "a", 1, 0, 100), _hit(2, "a", 3, 201, 400), _hit(3, "b", 2, 100, 300)]
    assert join_neighbours(apart) == apart  # 101 characters apart (room for another chunk), another document's
    overlapping = [_hit(1, "a", 1, 0, 100), _hit(2, "a", 2, 80, 180)]  # a sliding window's chunks
    assert join_neighbours(overlapping) == overlapping
    heading = [_hit(1, "a", 1, 0, 100), _hit(2, "a", 2, 200, 300)]  # a 100-character heading line between
    assert join_neighbours(heading)[0].joined == (("a#1", "u1", 0, 100), ("a#2", "u2", 200, 300))
    deep = [_hit(r, "z", r, 1000 * r, 1000 * r + 5) for r in range(2, 12)] + [_hit(12, "a", 2, 100, 300)]
    late = [_hit(1, "a", 1, 0, 100), *deep]
    assert not join_neighbours(late, window=10)[0].joined  # its neighbour ranks 12th: outside the window
    assert join_neighbours(late, window=12)[0].joined


@pytest.mark.parametrize("question", ["DEB_BUILD_OPTIONS nostrip", "written offer valid for three years", "license"])
def test_the_first_search_and_the_snapshot_join_the_same_chunks(built_store: Store, question: str) -> None:
    clear_cache()
    assert first_search(built_store, "default")
    cold = search(built_store, question, chunker="default", k=6)  # straight from DuckDB
    assert not first_search(built_store, "default")
    warm = search(built_store, question, chunker="default", k=6)  # from the loaded snapshot
    assert [(h.chunk_id, h.joined, h.text) for h in cold] == [(h.chunk_id, h.joined, h.text) for h in warm]
    assert [h.score for h in cold] == pytest.approx([h.score for h in warm], rel=1e-9)


def test_a_joined_hit_spans_its_chunks_in_the_document(built_store: Store) -> None:
    hits = search(built_store, "written offer valid for three years", chunker="default", k=10)
    alone = search(built_store, "written offer valid for three years", chunker="default", k=12, neighbours=False)
    joined = [h for h in hits if h.joined]
    assert joined, "no two neighbouring chunks ranked among the five best"
    assert len(hits) == 10 and [h.rank for h in hits] == list(range(1, 11))
    with built_store.read() as con:
        for hit in joined:
            text = read_texts(con, [hit.document_id])[hit.document_id]
            parts = sorted(hit.joined, key=lambda part: part[2])
            assert (hit.source_start, hit.source_end) == (parts[0][2], parts[1][3])
            assert hit.text == "\n\n".join(text[start:end] for _, _, start, end in parts)
            assert hit.chunk_id == hit.joined[0][0]
    # the order of what stays is the order without joining
    kept = [h.chunk_id for h in hits]
    assert kept == [h.chunk_id for h in alone if h.chunk_id in kept]


def test_the_first_hit_is_the_same_whatever_k_is(built_store: Store) -> None:
    """A join looks at the five best candidates even when fewer hits are asked for."""
    for question in ("written offer valid for three years", "DEB_BUILD_OPTIONS nostrip", "license"):
        one = search(built_store, question, chunker="default", k=1)
        ten = search(built_store, question, chunker="default", k=10)
        assert (one[0].chunk_id, one[0].joined) == (ten[0].chunk_id, ten[0].joined)


@pytest.mark.parametrize("value", ['"false"', "0"])
def test_the_setting_must_be_true_or_false(value: str) -> None:
    from right_rag_dagster.errors import ConfigError
    from right_rag_dagster.retrieval.settings import RetrievalSettings

    assert RetrievalSettings.from_dict({"neighbours": False}).neighbours is False
    with pytest.raises(ConfigError, match="neighbours must be true or false"):
        RetrievalSettings.from_dict({"neighbours": tomllib.loads(f"v = {value}")["v"]})
