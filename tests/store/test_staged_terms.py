"""Postings the writers stemmed on a DuckLake are what the BM25 build after them uses: matched on chunk id and text
hash (a row of an older text is ignored), emptied after the build, and the index and query results are the same as
when the build tokenizes every text itself (and as the embedded default's)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from right_rag_dagster.pipeline.shards import index_shard
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.build import bm25 as bm25_index
from right_rag_dagster.retrieval.build.bm25 import stems_table
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store
from right_rag_dagster.store.bm25_tables import create_tables, insert_slice, insert_stemmed
from right_rag_dagster.store.extensions import load_extension
from right_rag_dagster.store.search_tables import IndexTables
from right_rag_dagster.store.staged_terms import clear_staged_terms, has_staged_terms, stage_postings

from ..orchestration.conftest import make_project
from .test_backends import lake_section

QUERY = "Corresponding Source conveying object code"


ROWS = [("c1", "h1", "running runs the runner running", 6), ("c2", "h2", "gamma", 1), ("c3", "h3", "", 2)]


def test_staged_postings_are_stemmed_and_counted_per_chunk() -> None:
    con = duckdb.connect()
    load_extension(con, "fts")
    assert not has_staged_terms(con, "t_stems")
    stage_postings(con, "t_stems", ROWS)
    rows = con.execute("SELECT chunk_id, text_hash, token_count, len, terms, tfs FROM t_stems ORDER BY chunk_id").fetchall()
    assert rows == [("c1", "h1", 6, 5, ["run", "runner", "the"], [3, 1, 1]), ("c2", "h2", 1, 1, ["gamma"], [1]),
                    ("c3", "h3", 2, 0, [], [])]
    clear_staged_terms(con, "t_stems")
    assert has_staged_terms(con, "t_stems") and con.execute("SELECT count(*) FROM t_stems").fetchone()[0] == 0


def test_stemmed_rows_give_the_postings_of_the_texts_and_match_on_text_hash() -> None:
    """The same chunk lengths, terms and frequencies as tokenizing and stemming in the build (``insert_slice``);
    a staged row of another text hash is not used, and the chunk is left for the build to tokenize."""
    con = duckdb.connect()
    load_extension(con, "fts")
    stage_postings(con, "t_stems", [*ROWS[:2], ("c4", "old", "stale words", 2)])
    from_texts, from_stems = IndexTables("texts"), IndexTables("stems")
    create_tables(con, from_texts), create_tables(con, from_stems)
    insert_slice(con, from_texts, ROWS[:2], [1, 2])
    assert insert_stemmed(con, from_stems, "t_stems", [(1, "c1", "h1"), (2, "c2", "h2"), (3, "c4", "new")]) == {"c1", "c2"}
    assert table_postings(con, from_stems) == table_postings(con, from_texts)


def table_postings(con: duckdb.DuckDBPyConnection, t: IndexTables) -> set[tuple]:
    return set(con.execute(f"SELECT b.doc_key, b.chunk_id, b.token_count, b.len, d.term, p.tf FROM {t.postings} AS p "
                           f"JOIN {t.terms} AS d USING (termid) JOIN {t.bm25} AS b USING (doc_key)").fetchall())


def ranked(store: Store) -> list[tuple[str, float]]:
    clear_cache()
    return [(h.chunk_id, round(h.score, 6)) for h in search(store, QUERY, chunker="default", k=5)]


@pytest.mark.slow
@pytest.mark.parametrize("page", [None, 7], ids=["one-transaction", "staged-in-pages"])
def test_the_build_after_lake_writers_uses_their_terms_and_answers_as_the_embedded_file(
        tmp_path: Path, local_postgres, monkeypatch: pytest.MonkeyPatch, page: int | None) -> None:
    """A full rebuild from the writers' rows, in the build's one transaction or staged a few chunks at a time."""
    if page is not None:
        monkeypatch.setattr(bm25_index, "STAGE_STEMMED_CHUNKS", page)
    embedded = Project.load(make_project(tmp_path / "embedded"))
    index_shard(embedded.root, 0, 1)
    build_search_index(Store.for_project(embedded), "default")
    root = make_project(tmp_path / "lake")
    with open(root / "right_rag.toml", "a", encoding="utf-8") as config:
        config.write(lake_section(local_postgres, tmp_path / "lake-data"))
    lake = Project.load(root)
    store = Store.for_project(lake)
    assert index_shard(root, 0, 2)["documents"] + index_shard(root, 1, 2)["documents"] == 3
    with store.read() as con:
        staged, chunks = (con.execute(f"SELECT count(*) FROM {stems_table('default')}").fetchone()[0],
                          con.execute("SELECT count(*) FROM chunks").fetchone()[0])
    assert staged == chunks > 0  # every chunk's postings, stemmed by the writers
    stats = build_search_index(store, "default")
    assert stats["chunks_indexed"] == chunks
    with store.read() as con:
        assert con.execute(f"SELECT count(*) FROM {stems_table('default')}").fetchone()[0] == 0
    assert ranked(store) == ranked(Store.for_project(embedded))
    assert postings(store) == postings(Store.for_project(embedded))


def postings(store: Store) -> set[tuple[str, str, int, int]]:
    """Every (term, chunk, tf, chunk length) of the default chunker's BM25 index, whatever the numbering."""
    from right_rag_dagster.store.search_tables import IndexTables

    t = IndexTables("default")
    with store.read() as con:
        return set(con.execute(f"SELECT d.term, b.chunk_id, p.tf, b.len FROM {t.postings} AS p "
                               f"JOIN {t.terms} AS d USING (termid) JOIN {t.bm25} AS b USING (doc_key)").fetchall())


def test_asking_for_staged_terms_imports_no_pandas() -> None:
    """A query parameter makes DuckDB's client import pandas (0.6 CPU s in every process that refreshes)."""
    import subprocess
    import sys

    code = ("import sys, duckdb\n"
            "from right_rag_dagster.store.staged_terms import has_staged_terms\n"
            "con = duckdb.connect(); con.execute('CREATE TABLE t_stems (x INTEGER)')\n"
            "assert has_staged_terms(con, 't_stems') and not has_staged_terms(con, 'other')\n"
            "print('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.strip() == "False"
