"""Build one chunker's BM25 index incrementally: a term dictionary and (term, chunk, tf) postings in DuckDB.

Only chunks whose indexed text changed are tokenized; their old postings are deleted and new ones inserted in
one short write transaction, so editing one document costs milliseconds, not a rebuild. Terms are made as
DuckDB's fts extension makes them (English stopwords dropped, then the Porter ``stem``), and BM25 weights
(k1 = 1.2, b = 0.75, fts's ``match_bm25`` formula) are computed at query time from term frequencies,
document frequencies and chunk lengths, because every change moves the corpus statistics of all weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..store import Store
from ..store.extensions import load_extension
from ..store.sql import execute
from ..store.staged_terms import has_staged_terms, staged_terms
from .bm25_terms import text_terms
from .formats import BM25_FORMAT
from .pending import ChunkText, PendingChunks
from .tables import (
    Connection,
    IndexState,
    IndexTables,
    delete_state,
    literal,
    read_state,
    table_exists,
    write_state,
)

K1 = 1.2
B = 0.75
INSERT_SLICE = 2048
"""Chunks read, tokenized and inserted at a time: a build from empty holds one page of texts and tokens, not the
corpus (40k chunks at once set the index run's peak memory)."""
STAGE_CHUNKS = 2048
"""Chunks per transaction of a full rebuild (``stage_bm25``): 32k chunks in one transaction added 330 MB."""
FTS_OPTIONS = r"stemmer = 'porter', stopwords = 'english', ignore = '\s+', strip_accents = 0, lower = 0"
"""The ``create_fts_index`` settings, over our space-joined tokens, whose ``match_bm25`` scores equal ours."""


@dataclass(frozen=True)
class Bm25Plan:
    """What to change in the BM25 tables: chunks to delete (ids) and chunks to (re)insert (ids; their texts are
    read and tokenized a page at a time while the plan is applied, so memory does not grow with the corpus)."""

    tables: IndexTables
    remove: tuple[str, ...]
    insert: tuple[tuple[str, str], ...]  # (chunk_id, text_hash) to tokenize; texts are read a page at a time
    full_rebuild: bool
    fingerprint: str = ""  # of the chunks this plan was made from (see build.chunks_fingerprint)
    stale_fingerprint: bool = False  # only the stored fingerprint is out of date (no indexed text changed)

    @property
    def rows_changed(self) -> bool:
        return self.full_rebuild or bool(self.remove or self.insert)

    @property
    def changed(self) -> bool:
        return self.rows_changed or self.stale_fingerprint


def needs_rebuild(con: Connection, chunker: str) -> bool:
    """Whether the chunker's BM25 tables are missing or were made by another tokenizer or layout."""
    state = read_state(con, chunker, "bm25")
    t = IndexTables(chunker)
    return (state is None or state.model != BM25_FORMAT
            or not all(table_exists(con, name) for name in (t.bm25, t.terms, t.postings)))


def plan_bm25(pending: PendingChunks, con: Connection, fingerprint: str = "") -> Bm25Plan:
    """The chunks that are new or changed for the BM25 table (all of them when it must be rebuilt)."""
    tables = IndexTables(pending.chunker)
    full = needs_rebuild(con, pending.chunker)
    stale, remove = pending.stale_ids(con, None if full else tables.bm25)
    insert = tuple(stale)
    state = read_state(con, pending.chunker, "bm25")
    stale_fingerprint = state is not None and state.details.get("fingerprint") != fingerprint
    return Bm25Plan(tables, remove, insert, full, fingerprint, stale_fingerprint)


def tokens_table(chunker: str) -> str:
    """The table of terms the writers tokenized for ``chunker`` (``store/staged_terms.py``)."""
    return f"{IndexTables(chunker).bm25}_tokens"


def _terms_row(row: ChunkText) -> tuple[str, str, str, int]:
    return (row.chunk_id, row.text_hash, *text_terms(row.text))


def prepare_live(con: Connection, chunker: str) -> bool:
    """Whether a chunker's BM25 index can take postings with each document write (``update_documents``): its
    tables are current, or it has none and no chunks yet (they are made now, empty). Otherwise the next index
    build rebuilds it from the chunks."""
    if not needs_rebuild(con, chunker):
        return True
    chunks = con.execute(f"SELECT count(*) FROM chunks WHERE chunker = {literal(chunker)}").fetchone()[0]
    if chunks:
        return False
    t = IndexTables(chunker)
    _drop_tables(con, t)
    _create_tables(con, t)
    write_state(con, IndexState(chunker, "bm25", t.bm25, BM25_FORMAT, None, 0, 0, "live",
                                {"terms": 0, "k1": K1, "b": B, "fingerprint": ""}), 0.0)
    return True


def update_documents(con: Connection, chunker: str, document_ids: Sequence[str],
                     rows: Sequence[tuple[str, str, str, int]]) -> None:
    """In the transaction that replaces these documents' chunks (before their old rows are deleted): remove
    the old chunks' postings and add ``rows`` (chunk id, text hash, terms, token count) of the new ones. Terms
    no chunk uses any more stay in the dictionary until the next index build prunes them."""
    t = IndexTables(chunker)
    old = [r[0] for r in execute(con, "SELECT chunk_id FROM chunks WHERE chunker = ? AND "
                                      "list_contains(?::VARCHAR[], document_id)", [chunker, list(document_ids)]).fetchall()]
    if old:
        _delete_chunks(con, t, old, prune_terms=False)
    if rows:
        load_extension(con, "fts")  # for stem()
        for start in range(0, len(rows), INSERT_SLICE):
            _insert_slice(con, t, rows[start:start + INSERT_SLICE])


def stage_bm25(store: Store, plan: Bm25Plan) -> None:
    """Write a full rebuild into staging tables, ``STAGE_CHUNKS`` chunks per transaction (DuckDB holds a
    transaction's new rows in memory until it commits), for ``apply_bm25`` to swap in; until then searches use
    the index as it was."""
    staging = plan.tables.staging()
    with store.write() as con:
        _drop_tables(con, staging)
        _create_tables(con, staging)
    for start in range(0, len(plan.insert), STAGE_CHUNKS):
        with store.write() as con:
            _insert_chunks(con, staging, plan.insert[start:start + STAGE_CHUNKS])


def apply_bm25(con: Connection, plan: Bm25Plan, build_id: str, seconds: float, staged: bool = False) -> dict[str, int]:
    """Apply the plan in ``con``'s transaction (a full rebuild written by ``stage_bm25`` is swapped in);
    returns the index's chunk, token and term counts."""
    t = plan.tables
    if plan.full_rebuild:
        _drop_tables(con, t)
    if staged:
        staging = t.staging()
        for old, new in ((staging.bm25, t.bm25), (staging.terms, t.terms), (staging.postings, t.postings)):
            con.execute(f"ALTER TABLE {old} RENAME TO {new}")
    _create_tables(con, t)
    gone = list(plan.remove) + [row[0] for row in plan.insert]
    if gone and not plan.full_rebuild:
        _delete_chunks(con, t, gone)
    if plan.insert and not staged:
        _insert_chunks(con, t, plan.insert)
    if not plan.full_rebuild and not gone:  # documents written their postings, leaving terms unused: prune them
        con.execute(f"DELETE FROM {t.terms} WHERE termid NOT IN (SELECT DISTINCT termid FROM {t.postings})")
    rows, tokens = con.execute(f"SELECT count(*), coalesce(sum(token_count), 0) FROM {t.bm25}").fetchone()
    terms = int(con.execute(f"SELECT count(*) FROM {t.terms}").fetchone()[0])
    write_state(con, IndexState(t.chunker, "bm25", t.bm25, BM25_FORMAT, None, rows, tokens, build_id,
                                {"terms": terms, "k1": K1, "b": B, "fingerprint": plan.fingerprint}), seconds)
    return {"chunks": int(rows), "tokens": int(tokens), "terms": terms}


def _create_tables(con: Connection, t: IndexTables) -> None:
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.bm25} (doc_key INTEGER NOT NULL, chunk_id VARCHAR NOT NULL, "
                "text_hash VARCHAR NOT NULL, token_count INTEGER NOT NULL, len INTEGER NOT NULL)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.terms} (termid INTEGER NOT NULL, term VARCHAR NOT NULL)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {t.postings} (termid INTEGER NOT NULL, doc_key INTEGER NOT NULL, "
                "tf INTEGER NOT NULL)")


def _delete_chunks(con: Connection, t: IndexTables, chunk_ids: Sequence[str], prune_terms: bool = True) -> None:
    execute(con, f"CREATE OR REPLACE TEMP TABLE _bm25_gone AS SELECT doc_key FROM {t.bm25} "
            "WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))", [list(chunk_ids)])
    con.execute(f"DELETE FROM {t.postings} WHERE doc_key IN (SELECT doc_key FROM _bm25_gone)")
    con.execute(f"DELETE FROM {t.bm25} WHERE doc_key IN (SELECT doc_key FROM _bm25_gone)")
    if prune_terms:  # terms no chunk uses any more leave the dictionary: it stays the indexed vocabulary
        con.execute(f"DELETE FROM {t.terms} WHERE termid NOT IN (SELECT DISTINCT termid FROM {t.postings})")
    con.execute("DROP TABLE _bm25_gone")


def _insert_chunks(con: Connection, t: IndexTables, stale: Sequence[tuple[str, str]]) -> None:
    """Read, tokenize and insert the stale chunks a page of ``INSERT_SLICE`` at a time."""
    load_extension(con, "fts")  # for stem()
    pending = PendingChunks(t.chunker, 0)
    tokens = tokens_table(t.chunker)
    writers_tokenized = has_staged_terms(con, tokens)  # by the writers of a DuckLake (store/staged_terms.py)
    for start in range(0, len(stale), INSERT_SLICE):
        page = stale[start:start + INSERT_SLICE]
        staged = staged_terms(con, tokens, page) if writers_tokenized else {}
        texts = {row.chunk_id: row for row in pending.texts(con, [c for c, _ in page if c not in staged])}
        _insert_slice(con, t, [(c, h, *staged[c]) if c in staged else _terms_row(texts[c])
                               for c, h in page if c in staged or c in texts])


def _insert_slice(con: Connection, t: IndexTables, rows: Sequence[tuple[str, str, str, int]]) -> None:
    """Postings of ``rows``: each chunk's tokens are counted first and each (chunk, token) stemmed once, not each
    occurrence (the same terms and frequencies; ``stem`` was half the SQL time of a full build)."""
    first = con.execute(f"SELECT coalesce(max(doc_key), 0) + 1 FROM {t.bm25}").fetchone()[0]
    keys = list(range(first, first + len(rows)))
    chunk_ids, hashes, texts, token_counts = map(list, zip(*rows))
    execute(con, """
        CREATE OR REPLACE TEMP TABLE _bm25_new AS
        SELECT stem(token, 'porter') AS term, doc_key, sum(n)::INTEGER AS tf
        FROM (SELECT doc_key, token, count(*) AS n
              FROM (SELECT doc_key, unnest(string_split(terms, ' ')) AS token
                    FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS terms))
              WHERE token <> ''
              GROUP BY ALL)
        GROUP BY ALL""", [keys, texts])
    execute(con, f"""
        INSERT INTO {t.bm25}
        SELECT new.doc_key, new.chunk_id, new.text_hash, new.token_count, coalesce(lengths.len, 0)
        FROM (SELECT unnest(?::INTEGER[]) AS doc_key, unnest(?::VARCHAR[]) AS chunk_id,
                     unnest(?::VARCHAR[]) AS text_hash, unnest(?::INTEGER[]) AS token_count) AS new
        LEFT JOIN (SELECT doc_key, sum(tf)::INTEGER AS len FROM _bm25_new GROUP BY doc_key) AS lengths
               USING (doc_key)""", [keys, chunk_ids, hashes, token_counts])
    con.execute(f"""
        INSERT INTO {t.terms}
        SELECT (SELECT coalesce(max(termid), -1) FROM {t.terms}) + row_number() OVER (ORDER BY term), term
        FROM (SELECT DISTINCT term FROM _bm25_new) AS new
        WHERE NOT EXISTS (SELECT 1 FROM {t.terms} AS known WHERE known.term = new.term)""")
    con.execute(f"INSERT INTO {t.postings} SELECT d.termid, n.doc_key, n.tf FROM _bm25_new AS n "
                f"JOIN {t.terms} AS d USING (term) ORDER BY d.termid, n.doc_key")
    con.execute("DROP TABLE _bm25_new")


def _drop_tables(con: Connection, t: IndexTables) -> None:
    for name in (t.postings, t.terms, t.bm25):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    # Indexes of earlier versions kept their terms in a DuckDB fts index schema.
    con.execute(f"DROP SCHEMA IF EXISTS {t.legacy_fts_schema} CASCADE")


def drop_bm25(con: Connection, chunker: str) -> None:
    """Remove a chunker's BM25 index entirely (its tables and state row)."""
    _drop_tables(con, IndexTables(chunker))
    delete_state(con, chunker, "bm25")
