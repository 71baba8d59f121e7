"""The search index tables: their names per chunker, their ``search_indexes`` state rows, and the reads of
BM25 terms, postings and dense vectors that search makes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from ..core.hashing import stable_hash
from .db import utcnow
from .sql import execute, literal

Connection = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class IndexTables:
    """Tables of one chunker's indexes. Names are hashed from the chunker so any chunker name is safe in SQL."""

    chunker: str
    suffix: str = ""  # "_staging": where a full rebuild is written before it replaces the index

    @property
    def slug(self) -> str:
        return stable_hash(["search-index", self.chunker])[:12]

    @property
    def bm25(self) -> str:
        return f"bm25_{self.slug}{self.suffix}"

    @property
    def terms(self) -> str:
        return f"bm25_{self.slug}_terms{self.suffix}"

    @property
    def postings(self) -> str:
        return f"bm25_{self.slug}_postings{self.suffix}"

    def staging(self) -> IndexTables:
        return IndexTables(self.chunker, "_staging")

    @property
    def legacy_fts_schema(self) -> str:
        return f"fts_main_{self.bm25}"

    @property
    def dense(self) -> str:
        return f"dense_{self.slug}"

    @property
    def hnsw(self) -> str:
        return f"dense_{self.slug}_hnsw"


@dataclass(frozen=True)
class IndexState:
    """A row of ``search_indexes``: what was built for one chunker and kind, with which model."""

    chunker: str
    kind: str
    table_name: str
    model: str
    dimensions: int | None
    chunks: int
    tokens: int | None
    build_id: str
    details: dict[str, Any]


def table_exists(con: Connection, name: str, schema: str = "main") -> bool:
    row = con.execute("SELECT count(*) FROM information_schema.tables "
                      f"WHERE table_schema = {literal(schema)} AND table_name = {literal(name)}").fetchone()
    return bool(row and row[0])


def read_state(con: Connection, chunker: str, kind: str) -> IndexState | None:
    row = con.execute("SELECT chunker, kind, table_name, model, dimensions, chunks, tokens, build_id, details "
                      f"FROM search_indexes WHERE chunker = {literal(chunker)} AND kind = {literal(kind)}").fetchone()
    if row is None:
        return None
    return IndexState(*row[:8], details=json.loads(row[8] or "{}"))


def write_state(con: Connection, state: IndexState, seconds: float) -> None:
    execute(con, "DELETE FROM search_indexes WHERE chunker = ? AND kind = ?", [state.chunker, state.kind])
    execute(con, "INSERT INTO search_indexes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [state.chunker, state.kind, state.table_name, state.model, state.dimensions, state.chunks,
                 state.tokens, state.build_id, utcnow(), seconds, json.dumps(state.details, sort_keys=True)])


def delete_state(con: Connection, chunker: str, kind: str) -> None:
    execute(con, "DELETE FROM search_indexes WHERE chunker = ? AND kind = ?", [chunker, kind])


def index_models(con: Connection) -> list[tuple[str, str, str]]:
    """(chunker, kind, model) of every built index."""
    return con.execute("SELECT chunker, kind, model FROM search_indexes").fetchall()


def term_document_counts(con: Connection, t: IndexTables, terms: list[str]) -> tuple[int, dict[str, int]]:
    """Chunks in ``t``'s BM25 index, and how many of them hold each of ``terms`` (absent terms left out)."""
    total = con.execute(f"SELECT count(*) FROM {t.bm25}").fetchone()[0]
    counts = dict(con.execute(
        f"SELECT d.term, count(*) FROM {t.terms} AS d JOIN {t.postings} AS p USING (termid) "
        f"WHERE d.term IN ({literal(terms)[1:-1]}) GROUP BY d.term").fetchall())
    return total, counts


def bm25_vocabulary(con: Connection, t: IndexTables) -> dict[str, int]:
    return dict(con.execute(f"SELECT term, termid FROM {t.terms}").fetchall())


def bm25_lengths(con: Connection, t: IndexTables) -> list[tuple[int, str, int]]:
    """(doc_key, chunk_id, length in terms) of every indexed chunk."""
    return con.execute(f"SELECT doc_key, chunk_id, len FROM {t.bm25}").fetchall()


def bm25_postings(con: Connection, t: IndexTables) -> dict:
    """Every posting as numpy columns ``termid``, ``doc_key``, ``tf``."""
    return con.execute(f"SELECT termid, doc_key, tf FROM {t.postings}").fetchnumpy()


def bm25_term_ids(con: Connection, t: IndexTables, stems: list[str]) -> dict[str, int]:
    """Stem -> term id of each of ``stems`` the index holds."""
    if not stems:
        return {}
    return dict(con.execute(f"SELECT term, termid FROM {t.terms} WHERE term IN ({literal(stems)[1:-1]})").fetchall())


def dense_vectors(con: Connection, t: IndexTables) -> dict:
    """Every stored vector as numpy columns ``chunk_id``, ``vector`` (the vss extension loaded)."""
    return con.execute(f"SELECT chunk_id, vector FROM {t.dense}").fetchnumpy()


def dense_nearest(con: Connection, t: IndexTables, vector_sql: str, fetch: int) -> list[tuple[str, float]]:
    """(chunk_id, cosine similarity) of the ``fetch`` vectors nearest ``vector_sql`` (an array literal)."""
    return con.execute(f"SELECT chunk_id, array_cosine_similarity(vector, {vector_sql}) FROM {t.dense} "
                       f"ORDER BY array_cosine_distance(vector, {vector_sql}) LIMIT {int(fetch)}").fetchall()


def _bm25_weight(n: str, df: str, tf: str, length: str, params: tuple[float, float],
                 avgdl: str = "stats.avgdl") -> str:
    """One term's BM25 weight in one chunk as SQL over the named columns (``params``: k1, b, as doubles like the
    snapshot's, not DECIMAL literals): fts's IDF ``log((n - df + 0.5) / (df + 0.5) + 1)`` times the saturated,
    length-normalized term frequency (``avgdl``: the average length, of a chunk unless told)."""
    k1, b = f"{params[0]}::DOUBLE", f"{params[1]}::DOUBLE"
    return (f"log((({n} - {df}) + 0.5) / ({df} + 0.5) + 1) "
            f"* (({tf} * ({k1} + 1)) / ({tf} + {k1} * ((1 - {b}) + {b} * ({length} / {avgdl}))))")


def bm25_document_scores(con: Connection, t: IndexTables, termids: Sequence[int], documents: Sequence[str],
                         params: tuple[float, float]) -> dict[str, float]:
    """chunk_id -> BM25 (``params``: k1, b) on ``termids`` of each chunk of ``documents``, with each term's IDF
    counted over the chunks of the chunk's own document (``retrieval.searching.within_document``)."""
    if not termids or not documents:
        return {}
    terms = ", ".join(str(int(i)) for i in termids)
    chunker, names = literal(t.chunker), literal(list(documents))[1:-1]
    return dict(con.execute(f"""
        WITH stats AS (SELECT avg(len) AS avgdl FROM {t.bm25}),
             sizes AS (SELECT document_id, count(*) AS n FROM chunks
                       WHERE chunker = {chunker} AND document_id IN ({names}) GROUP BY document_id),
             own AS (SELECT b.doc_key, b.chunk_id, b.len, c.document_id FROM chunks AS c
                     JOIN {t.bm25} AS b ON b.chunk_id = c.chunk_id
                     WHERE c.chunker = {chunker} AND c.document_id IN ({names})),
             hits AS (SELECT p.termid, p.tf, own.* FROM {t.postings} AS p JOIN own USING (doc_key)
                      WHERE p.termid IN ({terms})),
             held AS (SELECT document_id, termid, count(*) AS held FROM hits GROUP BY document_id, termid)
        SELECT hits.chunk_id, sum({_bm25_weight("sizes.n", "held.held", "hits.tf", "hits.len", params)})
        FROM hits JOIN held USING (document_id, termid) JOIN sizes USING (document_id) CROSS JOIN stats
        GROUP BY hits.chunk_id""").fetchall())


def _document_prior_sql(t: IndexTables, params: tuple[float, float], power: float, named: Sequence[str]) -> str:
    """The ``prior (document_id, factor)`` common table of ``bm25_best_rows`` over its ``hits``: each document's
    BM25 over whole documents (term frequencies and lengths summed over its chunks, IDF over documents) divided by
    the best document's, to ``power``; 1 for the ``named`` documents, and for every document when ``power`` is 0."""
    chunker = literal(t.chunker)
    if not power:
        return f"prior AS (SELECT DISTINCT document_id, 1.0::DOUBLE AS factor FROM chunks WHERE chunker = {chunker})"
    weight = _bm25_weight("whole.n", "held.df", "counted.tf", "lengths.len", params, avgdl="whole.avgdl")
    return f"""lengths AS (SELECT c.document_id, coalesce(sum(b.len), 0)::DOUBLE AS len FROM chunks AS c
                         LEFT JOIN {t.bm25} AS b ON b.chunk_id = c.chunk_id
                         WHERE c.chunker = {chunker} GROUP BY c.document_id),
             whole AS (SELECT count(*) AS n, avg(len) AS avgdl FROM lengths),
             counted AS (SELECT hits.termid, c.document_id, sum(hits.tf)::DOUBLE AS tf FROM hits
                         JOIN {t.bm25} AS b USING (doc_key)
                         JOIN chunks AS c ON c.chunker = {chunker} AND c.chunk_id = b.chunk_id
                         GROUP BY hits.termid, c.document_id),
             held AS (SELECT termid, count(*) AS df FROM counted GROUP BY termid),
             whole_scores AS (SELECT counted.document_id, sum({weight}) AS score
                              FROM counted JOIN held USING (termid) JOIN lengths USING (document_id) CROSS JOIN whole
                              GROUP BY counted.document_id),
             prior AS (SELECT document_id, CASE WHEN document_id IN ({literal(list(named))[1:-1] if named else "NULL"})
                               THEN 1.0 ELSE pow(score / max(score) OVER (), {power!r}) END AS factor
                       FROM whole_scores)"""


def bm25_best_rows(con: Connection, t: IndexTables, termids: Sequence[int], k: int, columns: Sequence[str],
                   params: tuple[float, float], size_prior: float = 0.0, document_prior: float = 0.0,
                   named: Sequence[str] = ()) -> list[tuple]:
    """``columns`` of the ``k`` chunks scoring best by BM25 (``params``: k1, b) on ``termids``, with the score
    last, scored in a temporary table (in memory: the store stays read-only) instead of loading the index. Each
    score is multiplied by its document's number of chunks to the power ``-size_prior`` and by its document's BM25
    over whole documents, over the best document's, to the power ``document_prior`` (``DocumentTerms`` of
    ``retrieval.searching.bm25``), except the ``named`` documents'."""
    terms = ", ".join(str(int(i)) for i in termids)
    chunker = literal(t.chunker)
    scores = f"""
        WITH stats AS (SELECT count(*) AS n, avg(len) AS avgdl FROM {t.bm25}),
             hits AS (SELECT termid, doc_key, tf FROM {t.postings} WHERE termid IN ({terms})),
             df AS (SELECT termid, count(*) AS df FROM hits GROUP BY termid),
             sizes AS (SELECT document_id, count(*) AS n FROM chunks WHERE chunker = {chunker}
                       GROUP BY document_id),
             summed AS (SELECT hits.doc_key, any_value(c.chunk_id) AS chunk_id,
                               sum({_bm25_weight("stats.n", "df.df", "hits.tf", "c.len", params)}) AS score
                        FROM hits JOIN df USING (termid) JOIN {t.bm25} AS c USING (doc_key) CROSS JOIN stats
                        GROUP BY hits.doc_key),
             {_document_prior_sql(t, params, float(document_prior), named)}
        SELECT summed.doc_key, summed.score * pow(sizes.n::DOUBLE, -{float(size_prior)!r}) * prior.factor AS score
        FROM summed JOIN chunks AS own ON own.chunker = {chunker} AND own.chunk_id = summed.chunk_id
             JOIN sizes USING (document_id) JOIN prior USING (document_id)"""
    con.execute(f"CREATE TEMP TABLE _scores AS {scores}")  # in memory: the store stays read-only
    total = con.execute("SELECT count(*) FROM _scores").fetchone()[0]
    depth = k
    while True:  # join only the best rows (ties included); look deeper when some of them left the store
        rows = con.execute(f"""
            WITH best AS (SELECT * FROM _scores WHERE score >= (SELECT min(score) FROM
                          (SELECT score FROM _scores ORDER BY score DESC LIMIT {depth})))
            SELECT {', '.join('c.' + column for column in columns)}, best.score
            FROM best JOIN {t.bm25} AS b USING (doc_key)
                 JOIN chunks AS c ON c.chunker = {literal(t.chunker)} AND c.chunk_id = b.chunk_id
            ORDER BY best.score DESC, c.document_id, c.ordinal LIMIT {int(k)}""").fetchall()
        if len(rows) >= k or depth >= total:
            break
        depth *= 4
    return rows
