"""Terms the writers tokenized on a DuckLake are what the BM25 build after them uses: matched on chunk id and text
hash (a row of an older text is ignored), emptied after the build, and the index and query results are the same as
when the build tokenizes every text itself (and as the embedded default's)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from right_rag_dagster.retrieval.searching.snapshot import clear_cache

from right_rag_dagster.pipeline.shards import index_shard
from right_rag_dagster.project import Project
from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.build.bm25 import tokens_table
from right_rag_dagster.store import Store
from right_rag_dagster.store.staged_terms import (
    clear_staged_terms,
    has_staged_terms,
    stage_terms,
    staged_terms,
)

from ..orchestration.conftest import make_project
from .test_backends import lake_section

QUERY = "Corresponding Source conveying object code"


def test_staged_terms_match_on_chunk_and_text_hash() -> None:
    con = duckdb.connect()
    assert not has_staged_terms(con, "t_tokens")
    stage_terms(con, "t_tokens", [("c1", "h1", "alpha beta", 3), ("c2", "old", "gamma", 1)])
    assert staged_terms(con, "t_tokens", [("c1", "h1"), ("c2", "new"), ("c3", "h3")]) == {"c1": ("alpha beta", 3)}
    clear_staged_terms(con, "t_tokens")
    assert has_staged_terms(con, "t_tokens") and staged_terms(con, "t_tokens", [("c1", "h1")]) == {}


def ranked(store: Store) -> list[tuple[str, float]]:
    clear_cache()
    return [(h.chunk_id, round(h.score, 6)) for h in search(store, QUERY, chunker="default", k=5)]


@pytest.mark.slow
def test_the_build_after_lake_writers_uses_their_terms_and_answers_as_the_embedded_file(
        tmp_path: Path, local_postgres) -> None:
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
        staged, chunks = (con.execute(f"SELECT count(*) FROM {tokens_table('default')}").fetchone()[0],
                          con.execute("SELECT count(*) FROM chunks").fetchone()[0])
    assert staged == chunks > 0  # every chunk's terms, from the writers' workers
    stats = build_search_index(store, "default")
    assert stats["chunks_indexed"] == chunks
    with store.read() as con:
        assert con.execute(f"SELECT count(*) FROM {tokens_table('default')}").fetchone()[0] == 0
    assert ranked(store) == ranked(Store.for_project(embedded))
    assert postings(store) == postings(Store.for_project(embedded))


def postings(store: Store) -> set[tuple[str, str, int, int]]:
    """Every (term, chunk, tf, chunk length) of the default chunker's BM25 index, whatever the numbering."""
    from right_rag_dagster.store.search_tables import IndexTables

    t = IndexTables("default")
    with store.read() as con:
        return set(con.execute(f"SELECT d.term, b.chunk_id, p.tf, b.len FROM {t.postings} AS p "
                               f"JOIN {t.terms} AS d USING (termid) JOIN {t.bm25} AS b USING (doc_key)").fetchall())
