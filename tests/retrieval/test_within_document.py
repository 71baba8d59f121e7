"""One document's passages ordered by BM25 with the document's own IDF (``retrieval.searching.within_document``)."""

from __future__ import annotations

import shutil

import pytest

from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.formats import K1, B
from right_rag_dagster.retrieval.searching.bm25 import query_terms
from right_rag_dagster.retrieval.searching.chunk_table import Candidate
from right_rag_dagster.retrieval.searching.snapshot import clear_cache, first_search, open_index
from right_rag_dagster.retrieval.searching.within_document import order_within_documents
from right_rag_dagster.store import Store
from right_rag_dagster.store.search_tables import IndexTables, bm25_document_scores, bm25_term_ids
from tests.retrieval.store_builder import REPO_ROOT, index_documents

SHM_QUESTION = ("How does a program using the MIT-SHM extension know when it is safe to modify the shared memory "
                "segment again after calling XShmPutImage?")
SHM_EVIDENCE = 'the server will generate a "completion" event when the image write is complete'


def _placed(candidate: Candidate, score: float, local: float) -> Candidate:
    return Candidate(candidate.chunk_id, score, {"local": local})


def test_a_documents_passages_trade_places_and_keep_the_rankings_scores() -> None:
    items = [Candidate("a1", 10.0), Candidate("b1", 9.0), Candidate("a2", 8.0), Candidate("b2", 7.0)]
    ordered = order_within_documents(items, [0.0, 1.0, 5.0, 0.5], lambda c: c.chunk_id[0], lambda c: c.score,
                                     _placed)
    assert [c.chunk_id for c in ordered] == ["a2", "b1", "a1", "b2"]  # a2 (8 + 5) takes a's first place
    assert [c.score for c in ordered] == [10.0, 9.0, 8.0, 7.0]  # the places' scores: still falling
    assert ordered[0].details == {"local": 5.0}
    same = order_within_documents(items, [0.0, 0.0, 1.0, 0.0], lambda c: c.chunk_id[0], lambda c: c.score, _placed)
    assert [c.chunk_id for c in same] == ["a1", "b1", "a2", "b2"]  # 10 + 0 still beats 8 + 1


@pytest.fixture(scope="module")
def x_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The MIT-SHM specification among three other X protocol specifications (heldout8's and heldout13's files)."""
    folder = tmp_path_factory.mktemp("x-specs")
    documents = folder / "documents"
    documents.mkdir()
    for name in ("xext-shm.txt", "recordproto.txt", "bigreq.txt", "presentproto.txt"):
        shutil.copy((REPO_ROOT / "tests" / "fixtures" / "heldout13" / "documents" / name).resolve(), documents / name)
    store = Store(folder / "right_rag.duckdb")
    index_documents(documents, store)
    build_search_index(store, "default")
    return store


def _evidence_rank(store: Store, within_document: bool) -> tuple[int | None, int | None]:
    """The evidence's rank in the first search of a process (from SQL) and in the next (from the snapshot)."""
    ranks = []
    clear_cache()
    for _ in range(2):
        hits = search(store, SHM_QUESTION, chunker="default", k=10, options={"within_document": within_document})
        ranks.append(next((h.rank for h in hits if SHM_EVIDENCE in " ".join(h.text.split())), None))
    return ranks[0], ranks[1]


def test_the_passage_with_the_documents_rarer_words_moves_up(x_store: Store) -> None:
    """"MIT-SHM", "shared memory" and "XShmPutImage" fill the SHM specification's passages; the one that answers
    holds "modify", "safe" and "completion" too. With the corpus's IDF alone it ranks 8th (10th while BM25 dropped
    the content words of fts's stopword list)."""
    on, off = _evidence_rank(x_store, True), _evidence_rank(x_store, False)
    assert on[0] == on[1] and off[0] == off[1]  # the first search ranks as the snapshot does
    assert off[0] == 8 and on[0] is not None and on[0] < off[0]


def test_the_first_search_scores_a_document_as_the_snapshot_does(x_store: Store) -> None:
    clear_cache()
    assert first_search(x_store, "default")
    t = IndexTables("default")
    with x_store.read() as con:
        termids = list(bm25_term_ids(con, t, query_terms(SHM_QUESTION)).values())
        from_sql = bm25_document_scores(con, t, termids, ["xext-shm.txt", "bigreq.txt"], (K1, B))
    index = open_index(x_store, "default")
    chunks, postings = index.chunks, index.postings()
    for document in ("xext-shm.txt", "bigreq.txt"):
        start, end = chunks.document_rows(document)
        scores = postings.document_scores(postings.term_ids(SHM_QUESTION).values(), start, end)
        for offset, score in enumerate(scores):
            assert from_sql.get(chunks.rows[start + offset][0], 0.0) == pytest.approx(score, rel=1e-9, abs=1e-12)
    assert any(score > 0 for score in from_sql.values())


def test_an_unknown_document_has_no_rows(x_store: Store) -> None:
    assert open_index(x_store, "default").chunks.document_rows("missing.txt") == (0, 0)
