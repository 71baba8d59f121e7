"""Build one chunker's BM25 index: pre-tokenized rows, DuckDB fts over them, and per-posting BM25 weights.

Plan with a read connection (tokenizing only chunks whose indexed text changed), then apply in one short
write transaction. fts makes the dictionary, document frequencies and lengths (with Porter stemming and
English stopwords on our tokens); the postings table stores each (term, chunk) weight exactly as fts's
``match_bm25`` computes it (k1 = 1.2, b = 0.75), so a query only adds up the weights of its terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .extensions import load_extension
from .tables import Connection, IndexState, IndexTables, delete_state, read_state, table_exists, write_state
from .tokenize import TOKENIZER_VERSION, tokenize

K1 = 1.2
B = 0.75
FTS_OPTIONS = r"stemmer = 'porter', stopwords = 'english', ignore = '\s+', strip_accents = 0, lower = 0"
"""fts settings over our tokens: stem and drop English stopwords, but never split or strip what we made."""


@dataclass(frozen=True)
class Bm25Plan:
    """What to change in the BM25 table: rows to delete (chunk ids) and rows to (re)insert."""

    tables: IndexTables
    remove: tuple[str, ...]
    insert: tuple[tuple[str, str, str, int], ...]  # chunk_id, text_hash, tokens, token count
    full_rebuild: bool
    total_chunks: int
    indexed: bool  # an fts index exists for the current table
    fingerprint: str = ""  # of the chunks this plan was made from (see build.chunks_fingerprint)
    stale_fingerprint: bool = False  # only the stored fingerprint is out of date (no indexed text changed)

    @property
    def rows_changed(self) -> bool:
        return self.full_rebuild or bool(self.remove or self.insert) or not self.indexed

    @property
    def changed(self) -> bool:
        return self.rows_changed or self.stale_fingerprint


def plan_bm25(con: Connection, chunker: str, texts: Sequence[tuple[str, str, str]],
              fingerprint: str = "") -> Bm25Plan:
    """Compare ``(chunk_id, text_hash, indexed_text)`` rows with the stored index; tokenize what changed."""
    tables = IndexTables(chunker)
    state = read_state(con, chunker, "bm25")
    full = state is None or state.model != TOKENIZER_VERSION or not table_exists(con, tables.bm25)
    stored = {} if full else dict(con.execute(f"SELECT chunk_id, text_hash FROM {tables.bm25}").fetchall())
    current = {chunk_id for chunk_id, _, _ in texts}
    insert = tuple((chunk_id, digest, " ".join(tokens), len(tokens))
                   for chunk_id, digest, text in texts if stored.get(chunk_id) != digest
                   for tokens in [tokenize(text)])
    remove = tuple(chunk_id for chunk_id in stored if chunk_id not in current)
    indexed = not full and table_exists(con, "docs", tables.fts_schema)
    stale = state is not None and state.details.get("fingerprint") != fingerprint
    return Bm25Plan(tables, remove, insert, full, len(texts), indexed, fingerprint, stale)


def apply_bm25(con: Connection, plan: Bm25Plan, build_id: str, seconds: float) -> dict[str, int]:
    """Apply the plan, rebuild the fts index and the weighted postings; returns token and term counts."""
    t = plan.tables
    load_extension(con, "fts")
    con.execute("SET enable_progress_bar = false")
    if plan.full_rebuild:
        con.execute(f"DROP TABLE IF EXISTS {t.bm25}")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.bm25} (doc_key INTEGER NOT NULL, chunk_id VARCHAR NOT NULL, "
                "text_hash VARCHAR NOT NULL, tokens VARCHAR NOT NULL, token_count INTEGER NOT NULL)")
    gone = list(plan.remove) + [row[0] for row in plan.insert]
    if gone:
        con.execute(f"DELETE FROM {t.bm25} WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [gone])
    if plan.insert:
        first = con.execute(f"SELECT coalesce(max(doc_key), 0) + 1 FROM {t.bm25}").fetchone()[0]
        columns = list(zip(*plan.insert))
        con.execute(f"INSERT INTO {t.bm25} SELECT unnest(?::INTEGER[]), unnest(?::VARCHAR[]), "
                    "unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[])",
                    [list(range(first, first + len(plan.insert))), *map(list, columns)])
    rows, tokens = con.execute(f"SELECT count(*), coalesce(sum(token_count), 0) FROM {t.bm25}").fetchone()
    if not plan.rows_changed:
        terms = int(con.execute(f"SELECT count(*) FROM {t.fts_schema}.dict").fetchone()[0])
    else:
        terms = _rebuild_fts(con, t) if rows else _drop_fts(con, t)
    write_state(con, IndexState(t.chunker, "bm25", t.bm25, TOKENIZER_VERSION, None, rows, tokens, build_id,
                                {"terms": terms, "k1": K1, "b": B, "fingerprint": plan.fingerprint}), seconds)
    return {"chunks": int(rows), "tokens": int(tokens), "terms": int(terms)}


def _rebuild_fts(con: Connection, t: IndexTables) -> int:
    con.execute(f"PRAGMA create_fts_index('{t.bm25}', 'doc_key', 'tokens', {FTS_OPTIONS}, overwrite = 1)")
    # Materialized steps with explicit joins: inside the build's transaction the fresh fts tables have no
    # statistics, and the optimizer once joined dict x docs first (a 2.8-billion-row product, 150 s).
    con.execute(f"""
        CREATE OR REPLACE TABLE {t.postings} AS
        WITH stats AS (SELECT num_docs::DOUBLE AS n, avgdl::DOUBLE AS avgdl FROM {t.fts_schema}.stats),
             tf AS MATERIALIZED (SELECT termid, docid, count(*)::DOUBLE AS tf
                                 FROM {t.fts_schema}.terms GROUP BY termid, docid),
             per_doc AS MATERIALIZED (SELECT tf.termid, tf.tf, docs.name AS doc_key, docs.len
                                      FROM tf JOIN {t.fts_schema}.docs AS docs ON docs.docid = tf.docid)
        SELECT p.termid, p.doc_key,
               log(((stats.n - dict.df) + 0.5) / (dict.df + 0.5) + 1)
               * ((p.tf * ({K1} + 1)) / (p.tf + {K1} * ((1 - {B}) + {B} * (p.len / stats.avgdl)))) AS weight
        FROM per_doc AS p JOIN {t.fts_schema}.dict AS dict ON dict.termid = p.termid CROSS JOIN stats
        ORDER BY p.termid, p.doc_key""")
    return int(con.execute(f"SELECT count(*) FROM {t.fts_schema}.dict").fetchone()[0])


def _drop_fts(con: Connection, t: IndexTables) -> int:
    if table_exists(con, "docs", t.fts_schema):
        con.execute(f"PRAGMA drop_fts_index('{t.bm25}')")
    con.execute(f"DROP TABLE IF EXISTS {t.postings}")
    return 0


def drop_bm25(con: Connection, chunker: str) -> None:
    """Remove a chunker's BM25 index entirely (its tables, fts schema and state row)."""
    t = IndexTables(chunker)
    if table_exists(con, t.bm25):
        load_extension(con, "fts")
        _drop_fts(con, t)
        con.execute(f"DROP TABLE {t.bm25}")
    delete_state(con, chunker, "bm25")
