"""BM25 over a real store: identifiers and section numbers of debian-policy.pdf, exact fts scores, spans,
incremental builds, and no stale results after documents leave the store."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.retrieval import IndexMissingError, build_search_index, search
from right_rag_dagster.retrieval.build import bm25 as bm25_index
from right_rag_dagster.retrieval.build.bm25 import FTS_OPTIONS, create_stopword_table, drop_bm25
from right_rag_dagster.retrieval.build.pending import PendingChunks
from right_rag_dagster.retrieval.build.terms import chunk_terms
from right_rag_dagster.retrieval.formats import K1, B
from right_rag_dagster.retrieval.indexed_text import bm25_text, heading_and_text, indexed_text
from right_rag_dagster.retrieval.searching.bm25 import SIZE_PRIOR, query_terms, size_weights
from right_rag_dagster.retrieval.searching.chunk_table import ChunkTable
from right_rag_dagster.retrieval.searching.cold import cold_bm25
from right_rag_dagster.retrieval.searching.identity import identify, store_names
from right_rag_dagster.retrieval.searching.snapshot import clear_cache, first_search, open_index
from right_rag_dagster.retrieval.stopwords import ENGLISH_STOPWORDS, FTS_ENGLISH_STOPWORDS, KEPT
from right_rag_dagster.retrieval.tokenize import token_text
from right_rag_dagster.store import Store, content
from right_rag_dagster.store.extensions import load_extension
from right_rag_dagster.store.search_tables import IndexTables, bm25_best_rows
from right_rag_dagster.store.texts import read_texts
from tests.retrieval.store_builder import copy_store, index_documents


def _normalized(text: str) -> str:
    return " ".join(text.split())


def test_finds_deb_build_options_in_debian_policy(built_store: Store) -> None:
    hits = search(built_store, "DEB_BUILD_OPTIONS", chunker="default", k=5)
    assert len(hits) == 5
    assert all("DEB_BUILD_OPTIONS" in h.text for h in hits)
    assert hits[0].document_id == "debian-policy.pdf" and hits[0].page_label_start in {"26", "27"}
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_finds_section_4_9_1_on_its_printed_page(built_store: Store) -> None:
    hits = search(built_store, "4.9.1 debian/rules and DEB_BUILD_OPTIONS", chunker="default", k=5)
    heading = [h for h in hits if "4.9.1 debian/rules and DEB_BUILD_OPTIONS" in _normalized(h.text)
               and h.document_id == "debian-policy.pdf"]
    assert heading, [h.text[:80] for h in hits]
    assert {h.page_label_start for h in heading} & {"26"}  # the label printed on physical page 36
    only_number = search(built_store, "4.9.1", chunker="default", k=3)
    assert all("4.9.1" in h.text for h in only_number)


def test_scores_equal_fts_match_bm25(built_store: Store) -> None:
    """Our incremental postings score exactly as DuckDB's fts index built over the same tokens, times the document
    size prior (``SIZE_PRIOR``: each document's chunk count to the power ``-SIZE_PRIOR``)."""
    with built_store.read() as con:
        rows = con.execute("SELECT chunk_id, section_path, fulltext FROM chunks WHERE chunker = 'default'").fetchall()
        factor = dict(con.execute(
            "SELECT c.chunk_id, pow(n.n::DOUBLE, -?) FROM chunks AS c JOIN (SELECT document_id, count(*) AS n "
            "FROM chunks WHERE chunker = 'default' GROUP BY document_id) AS n USING (document_id) "
            "WHERE c.chunker = 'default'", [SIZE_PRIOR]).fetchall())
    reference = duckdb.connect()
    load_extension(reference, "fts")
    reference.execute("CREATE TABLE docs (chunk_id VARCHAR, tokens VARCHAR)")
    reference.executemany("INSERT INTO docs VALUES (?, ?)",
                          [(chunk_id, token_text(bm25_text(*heading_and_text(path, text))))
                           for chunk_id, path, text in rows])
    create_stopword_table(reference)
    reference.execute(f"PRAGMA create_fts_index('docs', 'chunk_id', 'tokens', {FTS_OPTIONS})")
    for question in ("What must debian/rules do with DEB_BUILD_OPTIONS?", "conveying object code",
                     "มาตรา ๒ ใช้บังคับ", "abouts the licensing"):
        scored = reference.execute(
            "SELECT chunk_id, score FROM (SELECT chunk_id, fts_main_docs.match_bm25(chunk_id, ?) AS score FROM docs) "
            "WHERE score IS NOT NULL", [token_text(question)]).fetchall()
        expected = sorted(((chunk_id, score * factor[chunk_id]) for chunk_id, score in scored),
                          key=lambda row: (-row[1], row[0]))[:8]
        got = search(built_store, question, chunker="default", k=8, neighbours=False, options={"document_prior": 0})
        assert expected and [h.score for h in got] == pytest.approx([row[1] for row in expected], rel=1e-9)
        assert {h.chunk_id for h in got if h.score > expected[-1][1] * (1 + 1e-9)} == \
            {chunk_id for chunk_id, score in expected if score > expected[-1][1] * (1 + 1e-9)}


@pytest.mark.parametrize("power", [0.5, 1.0])
def test_the_document_prior_is_fts_match_bm25_over_whole_documents(built_store: Store, power: float) -> None:
    """Each chunk's fts score (times the size prior) times its document's ``match_bm25`` over an fts index of whole
    documents (each document's chunks' tokens as one text) over the best document's, to ``power``
    (``DOCUMENT_PRIOR``): in the snapshot's postings and in the first search's SQL alike."""
    with built_store.read() as con:
        rows = con.execute("SELECT chunk_id, document_id, section_path, fulltext FROM chunks "
                           "WHERE chunker = 'default'").fetchall()
    size = {document: n ** -SIZE_PRIOR for document, n in Counter(row[1] for row in rows).items()}
    reference = duckdb.connect()
    load_extension(reference, "fts")
    create_stopword_table(reference)
    tokens = [(chunk_id, document, token_text(bm25_text(*heading_and_text(path, text))))
              for chunk_id, document, path, text in rows]
    reference.execute("CREATE TABLE docs (chunk_id VARCHAR, tokens VARCHAR)")
    reference.executemany("INSERT INTO docs VALUES (?, ?)", [(c, t) for c, _, t in tokens])
    reference.execute(f"PRAGMA create_fts_index('docs', 'chunk_id', 'tokens', {FTS_OPTIONS})")
    wholes: dict[str, list[str]] = {}
    for _, document, text in tokens:
        wholes.setdefault(document, []).append(text)
    reference.execute("CREATE TABLE wholes (document_id VARCHAR, tokens VARCHAR)")
    reference.executemany("INSERT INTO wholes VALUES (?, ?)", [(d, " ".join(t)) for d, t in wholes.items()])
    reference.execute(f"PRAGMA create_fts_index('wholes', 'document_id', 'tokens', {FTS_OPTIONS})")
    index = open_index(built_store, "default")
    t = IndexTables("default")
    for question in ("What must debian/rules do with DEB_BUILD_OPTIONS?", "conveying object code"):
        match = "SELECT * FROM (SELECT {0}, fts_main_{1}.match_bm25({0}, ?) AS score FROM {1}) WHERE score IS NOT NULL"
        whole = dict(reference.execute(match.format("document_id", "wholes"), [token_text(question)]).fetchall())
        assert len(whole) > 1  # the question's words are in several documents: the factor orders them
        best = max(whole.values())
        document_of = {c: d for c, d, _ in tokens}
        expected = sorted(((c, score * size[document_of[c]] * (whole[document_of[c]] / best) ** power)
                           for c, score in reference.execute(match.format("chunk_id", "docs"),
                                                             [token_text(question)]).fetchall()),
                          key=lambda row: (-row[1], row[0]))[:8]
        warm = index.postings().search(question, 8, None, index.chunks, document_prior=power)
        with built_store.read() as con:
            termids = list(index.postings().term_ids(question).values())
            cold = bm25_best_rows(con, t, termids, 8, ["chunk_id"], (K1, B), SIZE_PRIOR, power)
        for got in ([(c.chunk_id, c.score) for c in warm], cold):
            assert [score for _, score in got] == pytest.approx([score for _, score in expected], rel=1e-9)
            assert [chunk for chunk, _ in got] == [chunk for chunk, _ in expected]


def test_a_named_document_is_not_weighed_by_its_whole_text(built_store: Store) -> None:
    """The rows of the documents a question names keep their BM25 score (a factor of 1); every other row is weighed
    by its document's share of the best document's score, which moves the ranking."""
    index = open_index(built_store, "default")
    chunks, postings = index.chunks, index.postings()
    question = "What must debian/rules do with DEB_BUILD_OPTIONS?"
    plain = {c.chunk_id: c.score for c in postings.search(question, len(chunks), None, chunks, document_prior=0)}
    weighed = {c.chunk_id: c.score for c in postings.search(question, len(chunks), None, chunks)}
    documents = {row[0]: row[1] for row in chunks.rows}
    lowered = {documents[c] for c in plain if weighed[c] < plain[c] * (1 - 1e-9)}
    assert lowered and len(lowered) < len({documents[c] for c in plain})  # the best document keeps its scores
    named_document = sorted(lowered)[0]
    named = np.array([row[1] == named_document for row in chunks.rows])
    kept = {c.chunk_id: c.score for c in postings.search(question, len(chunks), None, chunks, named=named)}
    assert all(kept[c] == pytest.approx(plain[c], rel=1e-12) for c in plain if documents[c] == named_document)
    assert all(kept[c] == pytest.approx(weighed[c], rel=1e-12) for c in plain if documents[c] != named_document)
    assert sorted(plain, key=plain.get) != sorted(weighed, key=weighed.get)


def test_question_stopwords_never_score(built_store: Store) -> None:
    """The index drops stopwords before stemming, so a question must too: ``in`` is the Porter stem of ``ins``
    (debian-policy.pdf's "plug-ins" footnote) and ``mean`` of ``means``, which the index keeps; fts's
    ``match_bm25`` stems the question's stopwords into those terms and ranked that footnote first for any
    question with "in" in it."""
    for question in ("in", "mean", "What does it mean to be in it?"):
        clear_cache()
        assert cold_bm25(built_store, question, "default", 5) == []  # the first search of a process
        assert search(built_store, question, chunker="default", k=5) == []  # the in-memory snapshot
    with built_store.read() as con:
        plug_ins = con.execute("SELECT chunk_id FROM chunks WHERE chunker = 'default' "
                               "AND fulltext LIKE '%plug-ins%'").fetchall()
    assert plug_ins  # the chunk that "in" used to find is there
    plain = search(built_store, "programs that use dlopen", chunker="default", k=10)
    worded = search(built_store, "programs that use dlopen in it", chunker="default", k=10)
    assert [(h.chunk_id, h.score) for h in worded] == [(h.chunk_id, h.score) for h in plain]


def test_stopwords_are_the_fts_extension_list() -> None:
    con = duckdb.connect()
    load_extension(con, "fts")
    con.execute("CREATE TABLE t (k INTEGER, s VARCHAR)")
    con.execute("PRAGMA create_fts_index('t', 'k', 's', stopwords = 'english')")
    assert {row[0] for row in con.execute("SELECT sw FROM fts_main_t.stopwords").fetchall()} == FTS_ENGLISH_STOPWORDS
    assert ENGLISH_STOPWORDS == FTS_ENGLISH_STOPWORDS - KEPT and "names" not in FTS_ENGLISH_STOPWORDS


def test_content_words_of_the_fts_list_are_searched() -> None:
    """fts's list (SMART's) drops numbers, nouns and verbs that name things in technical documents: "six" (a
    library), "zero", "none", "value", "new"; they are searched, and the verbs a question asks with are not."""
    assert query_terms("The six documentation: where does the library's name come from?") == [
        "six", "document", "librari", "name"]
    assert query_terms("What does a zero value mean? I want to try none of the new ones") == [
        "zero", "valu", "none", "new"]
    assert {"six", "zero", "none", "value", "new", "first", "use"} <= KEPT
    assert not {"mean", "want", "try", "what", "does", "the"} & KEPT


def test_hit_spans_slice_back_to_the_chunk_text(built_store: Store) -> None:
    hits = search(built_store, "written offer valid for three years", chunker="default", k=5, neighbours=False)
    with built_store.read() as con:
        for hit in hits:
            text = read_texts(con, [hit.document_id])[hit.document_id]
            assert text[hit.source_start:hit.source_end] == hit.text
            assert hit.section_path and hit.chunker == "default" and hit.unit_id


def test_thai_question_finds_the_thai_act(built_store: Store) -> None:
    hits = search(built_store, "พระราชบัญญัตินี้ใช้บังคับเมื่อใด", chunker="default", k=3)
    assert hits and hits[0].document_id == "thai-act.txt"


def test_filters_restrict_results(built_store: Store) -> None:
    only_gpl = search(built_store, "license", chunker="default", k=5, filters={"document": "GPL-*"})
    assert only_gpl and {h.document_id for h in only_gpl} == {"GPL-3.0.txt"}
    typed = search(built_store, "license", chunker="default", k=5, filters={"unit_type": "line_block"})
    assert len(typed) == 5
    assert search(built_store, "license", chunker="default", k=5, filters={"unit_type": "section"}) == []
    both = search(built_store, "license", chunker="default", k=10,
                  filters={"document": ["GPL-3.0.txt", "upgrading-checklist.txt"]})
    assert {h.document_id for h in both} <= {"GPL-3.0.txt", "upgrading-checklist.txt"}


def test_no_match_and_bad_arguments(built_store: Store) -> None:
    assert search(built_store, "zzyzx qqqq", chunker="default") == []
    assert search(built_store, "the of and", chunker="default") == []  # stopwords only
    with pytest.raises(ConfigError):
        search(built_store, "license", chunker="default", k=0)
    with pytest.raises(ConfigError, match="no retriever named 'nope'"):
        search(built_store, "license", chunker="default", retriever="nope")


def test_a_chunker_without_an_index_is_a_clear_error(store_copy: Store) -> None:
    with store_copy.write() as con:
        con.execute("UPDATE chunks SET chunker = 'other' WHERE document_id = 'GPL-3.0.txt'")
    with pytest.raises(IndexMissingError, match="no BM25 index for chunker 'other'"):
        search(store_copy, "license", chunker="other")


def test_deleted_documents_are_never_returned(store_copy: Store) -> None:
    assert any(h.document_id == "GPL-3.0.txt" for h in search(store_copy, "license", chunker="default", k=10))
    with store_copy.write() as con:
        content.delete_document(con, "GPL-3.0.txt")
    before_rebuild = search(store_copy, "license", chunker="default", k=50)
    assert before_rebuild and all(h.document_id != "GPL-3.0.txt" for h in before_rebuild)
    stats = build_search_index(store_copy, "default")
    assert stats["chunks_removed"] > 0 and stats["chunks_tokenized"] == 0
    assert all(h.document_id != "GPL-3.0.txt" for h in search(store_copy, "license", chunker="default", k=50))


def test_builds_are_incremental(store_copy: Store) -> None:
    unchanged = build_search_index(store_copy, "default")
    assert unchanged["changed"] is False and unchanged["chunks_tokenized"] == 0
    assert unchanged["chunks_indexed"] == unchanged["chunks"] > 0 and unchanged["tokens"] > 0
    with store_copy.write() as con:
        chunk_id = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'GPL-3.0.txt' "
                               "ORDER BY ordinal LIMIT 1").fetchone()[0]
        con.execute("UPDATE chunks SET fulltext = 'a brand new quokka clause' WHERE chunk_id = ?", [chunk_id])
        con.execute(f"UPDATE chunks SET text_hash = {content.CHUNK_TEXT_HASH_SQL} WHERE chunk_id = ?", [chunk_id])
    changed = build_search_index(store_copy, "default")
    assert changed["changed"] is True and changed["chunks_tokenized"] == 1 and changed["chunks_removed"] == 0
    hits = search(store_copy, "quokka", chunker="default")
    assert [h.chunk_id for h in hits] == [chunk_id]


@pytest.mark.parametrize("question", ["DEB_BUILD_OPTIONS nostrip", "license", "มาตรา ใช้บังคับ", "zzyzx"])
def test_the_first_search_reads_duckdb_directly_and_ranks_like_the_snapshot(built_store: Store,
                                                                           question: str) -> None:
    clear_cache()
    assert first_search(built_store, "default")  # the next call will load the snapshot
    cold = cold_bm25(built_store, question, "default", 7)
    warm = search(built_store, question, chunker="default", k=7, neighbours=False)
    assert [h.chunk_id for h in cold] == [h.chunk_id for h in warm]
    assert [h.score for h in cold] == pytest.approx([h.score for h in warm], rel=1e-9)
    assert cold == [replace(h, score=c.score) for h, c in zip(warm, cold)]


def test_the_first_search_leaves_named_documents_unweighed_like_the_snapshot(built_store: Store) -> None:
    """A question that names two documents is scored whole (no name is blanked out), so the first search of a process
    answers it from SQL: the named documents keep a factor of 1 there as in the snapshot."""
    question = "Does the Debian Policy ask for what the GPL-3.0 says about copyright notices?"
    clear_cache()
    assert first_search(built_store, "default")
    cold = search(built_store, question, chunker="default", k=7, neighbours=False)
    warm = search(built_store, question, chunker="default", k=7, neighbours=False)
    names = identify(question, store_names(built_store))
    assert len(names.named) == 2 and names.lexical == question, names
    assert [h.chunk_id for h in cold] == [h.chunk_id for h in warm]
    assert [h.score for h in cold] == pytest.approx([h.score for h in warm], rel=1e-9)
    plain = search(built_store, question, chunker="default", k=7, neighbours=False, options={"document_prior": 0})
    assert [h.score for h in plain] == pytest.approx([h.score for h in warm], rel=1e-9)  # both documents named


def test_the_first_search_skips_chunks_that_left_the_store(store_copy: Store) -> None:
    top = search(store_copy, "license", chunker="default", k=3)  # cold path (first search of this copy)
    with store_copy.write() as con:
        content.delete_document(con, top[0].document_id)
    clear_cache()
    again = search(store_copy, "license", chunker="default", k=3)
    assert len(again) == 3 and all(h.document_id != top[0].document_id for h in again)


def _index_rows(store: Store) -> tuple[dict[str, int], dict[str, list[tuple[str, int]]]]:
    """Each indexed chunk's length, and its (term, tf) postings, independent of the internal keys."""
    t = IndexTables("default")
    with store.read() as con:
        lengths = dict(con.execute(f"SELECT chunk_id, len FROM {t.bm25}").fetchall())
        postings: dict[str, list[tuple[str, int]]] = {}
        for chunk_id, term, tf in con.execute(
                f"SELECT b.chunk_id, d.term, p.tf FROM {t.postings} AS p JOIN {t.terms} AS d USING (termid) "
                f"JOIN {t.bm25} AS b USING (doc_key) ORDER BY 1, 2").fetchall():
            postings.setdefault(chunk_id, []).append((term, tf))
        dead = con.execute(f"SELECT count(*) FROM {t.terms} WHERE termid NOT IN "
                           f"(SELECT termid FROM {t.postings})").fetchone()[0]
    assert dead == 0  # the dictionary holds only terms some chunk uses
    return lengths, postings


def test_an_incrementally_updated_index_equals_a_rebuild(store_copy: Store, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with store_copy.write() as con:
        content.delete_document(con, "upgrading-checklist.txt")
        chunk_id = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'GPL-3.0.txt' "
                               "ORDER BY ordinal LIMIT 1").fetchone()[0]
        con.execute("UPDATE chunks SET fulltext = 'a quokka and a numbat clause' WHERE chunk_id = ?", [chunk_id])
        con.execute(f"UPDATE chunks SET text_hash = {content.CHUNK_TEXT_HASH_SQL} WHERE chunk_id = ?", [chunk_id])
    stats = build_search_index(store_copy, "default")
    assert stats["chunks_removed"] > 0 and stats["chunks_tokenized"] == 1
    (tmp_path / "rebuilt").mkdir()
    rebuilt = copy_store(store_copy, tmp_path / "rebuilt")
    with rebuilt.write() as con:
        drop_bm25(con, "default")
    monkeypatch.setattr(bm25_index, "INSERT_SLICE", 97)  # the rebuild inserts its chunks in many slices
    assert build_search_index(rebuilt, "default")["chunks_tokenized"] == stats["chunks"]
    assert _index_rows(store_copy) == _index_rows(rebuilt)
    clear_cache()
    for question in ("quokka numbat", "license conveying", "DEB_BUILD_OPTIONS"):
        incremental = search(store_copy, question, chunker="default", k=6)
        fresh = search(rebuilt, question, chunker="default", k=6)
        assert [(h.chunk_id, h.score) for h in incremental] == [(h.chunk_id, pytest.approx(h.score, rel=1e-12))
                                                                 for h in fresh]


def test_a_build_after_postings_written_with_the_documents_compares_no_chunk(
        store_copy: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index run writes each document's postings in the transaction that replaces its chunks; the build after
    it finds the index holding exactly the chunks and only records that (and prunes unused terms), without the
    chunk-by-chunk comparison that reads both tables whole. Every document's postings written that way equal those
    of a build from the chunks."""
    with store_copy.write() as con:
        first = con.execute("SELECT chunk_id FROM chunks WHERE document_id = 'GPL-3.0.txt' AND chunker = 'default' "
                            "ORDER BY ordinal LIMIT 1").fetchone()[0]
        con.execute("UPDATE chunks SET fulltext = 'a quokka and a numbat clause' WHERE chunk_id = ?", [first])
        con.execute(f"UPDATE chunks SET text_hash = {content.CHUNK_TEXT_HASH_SQL} WHERE chunk_id = ?", [first])
        documents = [row[0] for row in con.execute("SELECT DISTINCT document_id FROM chunks ORDER BY 1").fetchall()]
        assert "thai-act.txt" in documents and "debian-policy.pdf" in documents
        for document in documents:
            rows = [(chunk_id, digest, *chunk_terms(section_path, fulltext)) for chunk_id, digest, section_path,
                    fulltext in con.execute("SELECT chunk_id, text_hash, section_path, fulltext FROM chunks WHERE "
                                            "document_id = ? AND chunker = 'default' ORDER BY ordinal",
                                            [document]).fetchall()]
            bm25_index.update_documents(con, "default", [document], rows)

    def compared(*args: object) -> None:
        raise AssertionError("the build compared the chunks one by one")

    monkeypatch.setattr(PendingChunks, "stale_ids", compared)
    stats = build_search_index(store_copy, "default")
    assert stats["changed"] is True and stats["chunks_tokenized"] == 0 and stats["chunks_removed"] == 0
    assert build_search_index(store_copy, "default")["changed"] is False  # its fingerprint was recorded
    monkeypatch.undo()
    (tmp_path / "rebuilt").mkdir()
    rebuilt = copy_store(store_copy, tmp_path / "rebuilt")
    with rebuilt.write() as con:
        drop_bm25(con, "default")
    build_search_index(rebuilt, "default")
    assert _index_rows(store_copy) == _index_rows(rebuilt)  # the same terms and frequencies; none left unused
    clear_cache()
    assert [h.chunk_id for h in search(store_copy, "quokka numbat", chunker="default", k=3)][:1] == [first]


def test_an_index_in_an_older_layout_is_rebuilt_by_the_next_build(store_copy: Store) -> None:
    t = IndexTables("default")
    with store_copy.write() as con:  # what an fts-based index of an earlier version left behind
        con.execute(f"CREATE SCHEMA {t.legacy_fts_schema}")
        con.execute(f"CREATE TABLE {t.legacy_fts_schema}.dict (termid BIGINT, term VARCHAR, df BIGINT)")
        con.execute("UPDATE search_indexes SET model = 'rr-tok-1' WHERE kind = 'bm25'")
    with pytest.raises(IndexMissingError, match="run `right-rag index` to rebuild it"):
        search(store_copy, "license", chunker="default")
    stats = build_search_index(store_copy, "default")
    assert stats["changed"] and stats["chunks_tokenized"] == stats["chunks"]
    with store_copy.read() as con:
        assert not con.execute("SELECT count(*) FROM information_schema.schemata "
                               f"WHERE schema_name = '{t.legacy_fts_schema}'").fetchone()[0]
    assert search(store_copy, "license", chunker="default")


def test_bm25_counts_a_chunks_own_heading_once_more() -> None:
    """What BM25 reads of a chunk: its heading (the section path's last part), then the indexed text, which already
    holds the heading once (the domain chunker's header, or the path put first); the embedders read the indexed
    text alone."""
    from right_rag_dagster.retrieval.build.terms import chunk_terms

    path = ["3 The Root Filesystem", "3.13 /opt", "3.13.1 Purpose"]
    body = "3.13.1. Purpose\n/opt is reserved for the installation of add-on application software packages."
    heading, text = heading_and_text(path, body)
    assert (heading, text) == heading_and_text('["3 The Root Filesystem", "3.13 /opt", "3.13.1 Purpose"]', body)
    assert heading == "3.13.1 Purpose" and text == indexed_text(path, body)
    assert bm25_text(heading, text).startswith("3.13.1 Purpose\n3 The Root Filesystem")
    terms, _ = chunk_terms(path, body)
    assert terms.split().count("purpose") == 3  # the heading, the path, the body's own heading line
    assert bm25_text("", "text") == "text" and heading_and_text([], "text") == ("", "text")


def test_a_large_documents_passages_weigh_less_by_its_size() -> None:
    """``SIZE_PRIOR``: each row's factor is its document's chunk count to the power ``-SIZE_PRIOR`` (rows in
    document order), so of two passages with one BM25 score, the one of a three-chunk document ranks first."""
    rows = [(f"{doc}:{i}", doc, *[None] * 12) for doc, n in (("big", 3), ("small", 1)) for i in range(n)]
    table = ChunkTable("default", rows)
    assert table.document_sizes().tolist() == [3.0, 3.0, 3.0, 1.0]
    weights = size_weights(table)
    assert weights[0] == pytest.approx(3 ** -SIZE_PRIOR) and weights[3] == 1.0 and 0 < SIZE_PRIOR < 0.5


@pytest.fixture(scope="module")
def camel_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    documents = tmp_path_factory.mktemp("camel-case")
    (documents / "xtest.txt").write_text(
        "XTestFakeInput\n\nThe request sends one synthetic event to the server, as if a device had.\n",
        encoding="utf-8")
    (documents / "gnupg.txt").write_text("GnuPG signs and encrypts mail and files.\n", encoding="utf-8")
    (documents / "gnu.txt").write_text("GNU make builds programs and GNU tar packs their files: the GNU tools.\n",
                                       encoding="utf-8")
    (documents / "strings.txt").write_text("The toString method returns text; int32ToString returns digits.\n",
                                           encoding="utf-8")
    (documents / "colours.txt").write_text("Call setColour before drawing.\n", encoding="utf-8")
    store = Store(tmp_path_factory.mktemp("store") / "right_rag.duckdb")
    index_documents(documents, store)
    build_search_index(store, "default")
    return store


@pytest.mark.parametrize(("question", "documents"), [
    ("How do I fake input?", {"xtest.txt"}),  # the passage's name, by its words
    ("What is FakeInput for?", {"xtest.txt"}),  # a name the index holds only inside a longer one: its parts
    ("Does GnuPG encrypt?", {"gnupg.txt"}),  # a name the index holds whole: not "GNU"'s passages too
    ("What does int32ToString return?", {"strings.txt"}),  # one word with a number: no camel-case name of its own
    ("How do I set the color?", {"colours.txt"}),  # a name's words spelt as the question spells them
])
def test_camel_case_names_are_found_by_their_words(camel_store: Store, question: str, documents: set[str]) -> None:
    """Passages are indexed with the words of their camel-case names; a question's camel-case name is split only
    when no passage holds it whole. The first search (straight from DuckDB) and the snapshot's agree."""
    clear_cache()
    assert first_search(camel_store, "default")
    cold = cold_bm25(camel_store, question, "default", 5)
    warm = search(camel_store, question, chunker="default", k=5, neighbours=False)
    assert {h.document_id for h in warm} == documents
    assert [h.chunk_id for h in cold] == [h.chunk_id for h in warm]
    assert [h.score for h in cold] == pytest.approx([h.score for h in warm], rel=1e-9)
    assert query_terms("What does FakeInput send?", {"fakeinput"}) == ["fakeinput", "send"]
