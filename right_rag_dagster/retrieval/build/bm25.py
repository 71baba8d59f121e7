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

from ...store import Store
from ...store.bm25_tables import (
    bm25_totals,
    create_tables,
    delete_chunks,
    drop_tables,
    indexed_fingerprint,
    insert_slice,
    insert_stemmed,
    next_doc_key,
    prune_terms,
    rename_tables,
    write_stopword_table,
)
from ...store.chunk_reads import chunk_count, document_chunk_ids
from ...store.extensions import load_extension
from ...store.search_tables import (
    Connection,
    IndexState,
    IndexTables,
    delete_state,
    read_state,
    table_exists,
    write_state,
)
from ...store.staged_terms import has_staged_terms
from ..formats import BM25_FORMAT, K1, B
from ..indexed_text import bm25_text
from ..stopwords import ENGLISH_STOPWORDS
from .pending import ChunkText, PendingChunks
from .terms import text_terms

INSERT_SLICE = 2048
"""Chunks read, tokenized and inserted at a time: a build from empty holds one page of texts and tokens, not the
corpus (40k chunks at once set the index run's peak memory)."""
STAGE_CHUNKS = 2048
"""Chunks per transaction of a full rebuild (``stage_bm25``): 32k chunks in one transaction added 330 MB."""
STAGE_STEMMED_CHUNKS = 32768
"""Chunks per transaction of a full rebuild from the writers' stemmed postings (a DuckLake's), and the most it
writes in its one transaction without staging: no text to read or tokenize, and each transaction on a lake
commits Parquet files and a catalog snapshot (16 commits of 2,048 chunks took 7.4 s of an 8.2 s build of the
scale corpus's 31,688 chunks)."""
FTS_OPTIONS = r"stemmer = 'porter', stopwords = 'rr_stopwords', ignore = '\s+', strip_accents = 0, lower = 0"
"""The ``create_fts_index`` settings, over our space-joined tokens, whose ``match_bm25`` scores equal ours; the
stopword table is ours (``stopwords.ENGLISH_STOPWORDS``), made by ``create_stopword_table`` in that connection."""


def create_stopword_table(con: Connection) -> None:
    """The table ``FTS_OPTIONS`` names: BM25's stopwords, for an fts index that scores as ours does."""
    write_stopword_table(con, "rr_stopwords", ENGLISH_STOPWORDS)


@dataclass(frozen=True)
class Bm25Plan:
    """What to change in the BM25 tables: chunks to delete (ids) and chunks to (re)insert (ids; their texts are
    read and tokenized a page at a time while the plan is applied, so memory does not grow with the corpus)."""

    tables: IndexTables
    remove: tuple[str, ...]
    insert: tuple[tuple[str, str], ...]  # (chunk_id, text_hash) to tokenize; texts are read a page at a time
    full_rebuild: bool
    fingerprint: str = ""  # of the chunks this plan was made from (see store.chunk_reads.chunks_fingerprint)
    stale_fingerprint: bool = False  # only the stored fingerprint is out of date (no indexed text changed)
    stemmed: bool = False  # a DuckLake's writers stemmed chunks (store/staged_terms.py): their rows are used

    @property
    def staged(self) -> bool:
        """Whether a full rebuild is written by ``stage_bm25`` in several transactions, then swapped in."""
        return self.full_rebuild and len(self.insert) > (STAGE_STEMMED_CHUNKS if self.stemmed else STAGE_CHUNKS)

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
    """The chunks that are new or changed for the BM25 table (all of them when it must be rebuilt).

    The table holding exactly the chunks (``indexed_fingerprint`` equals ``fingerprint``: what the postings
    written with each document leave) needs no comparison chunk by chunk, which reads both tables whole."""
    tables = IndexTables(pending.chunker)
    full = needs_rebuild(con, pending.chunker)
    if not full and fingerprint and indexed_fingerprint(con, tables) == fingerprint:
        stale, remove = [], ()
    else:
        stale, remove = pending.stale_ids(con, None if full else tables.bm25)
    insert = tuple(stale)
    state = read_state(con, pending.chunker, "bm25")
    stale_fingerprint = state is not None and state.details.get("fingerprint") != fingerprint
    stemmed = bool(insert) and has_staged_terms(con, stems_table(pending.chunker))
    return Bm25Plan(tables, remove, insert, full, fingerprint, stale_fingerprint, stemmed)


def stems_table(chunker: str) -> str:
    """The table of postings the writers stemmed for ``chunker`` (``store/staged_terms.py``)."""
    return f"{IndexTables(chunker).bm25}_stems"


LEGACY_TOKENS_SUFFIX = "_tokens"
"""Where writers of earlier versions kept their unstemmed tokens: unused now, dropped by the next build."""


def _terms_row(row: ChunkText) -> tuple[str, str, str, int]:
    return (row.chunk_id, row.text_hash, *text_terms(bm25_text(row.heading, row.text)))


def prepare_live(con: Connection, chunker: str) -> bool:
    """Whether a chunker's BM25 index can take postings with each document write (``update_documents``): its
    tables are current, or it has none and no chunks yet (they are made now, empty). Otherwise the next index
    build rebuilds it from the chunks."""
    if not needs_rebuild(con, chunker):
        return True
    if chunk_count(con, chunker):
        return False
    t = IndexTables(chunker)
    drop_tables(con, t)
    create_tables(con, t)
    write_state(con, IndexState(chunker, "bm25", t.bm25, BM25_FORMAT, None, 0, 0, "live",
                                {"terms": 0, "k1": K1, "b": B, "fingerprint": ""}), 0.0)
    return True


def update_documents(con: Connection, chunker: str, document_ids: Sequence[str],
                     rows: Sequence[tuple[str, str, str, int]]) -> None:
    """In the transaction that replaces these documents' chunks (before their old rows are deleted): remove
    the old chunks' postings and add ``rows`` (chunk id, text hash, terms, token count) of the new ones. Terms
    no chunk uses any more stay in the dictionary until the next index build prunes them."""
    t = IndexTables(chunker)
    old = document_chunk_ids(con, chunker, document_ids) if document_ids else []
    if old:
        delete_chunks(con, t, old, prune=False)
    if rows:
        load_extension(con, "fts")  # for stem()
        for start in range(0, len(rows), INSERT_SLICE):
            insert_slice(con, t, rows[start:start + INSERT_SLICE])


def stage_bm25(store: Store, plan: Bm25Plan) -> None:
    """Write a full rebuild into staging tables, ``STAGE_CHUNKS`` chunks per transaction (DuckDB holds a
    transaction's new rows in memory until it commits; ``STAGE_STEMMED_CHUNKS`` from a lake's stemmed postings),
    for ``apply_bm25`` to swap in; until then searches use the index as it was."""
    staging = plan.tables.staging()
    with store.write() as con:
        drop_tables(con, staging)
        create_tables(con, staging)
    page = STAGE_STEMMED_CHUNKS if plan.stemmed else STAGE_CHUNKS
    for start in range(0, len(plan.insert), page):
        with store.write() as con:
            _insert_chunks(con, staging, plan.insert[start:start + page], plan.stemmed)


def apply_bm25(con: Connection, plan: Bm25Plan, build_id: str, seconds: float, staged: bool = False) -> dict[str, int]:
    """Apply the plan in ``con``'s transaction (a full rebuild written by ``stage_bm25`` is swapped in);
    returns the index's chunk, token and term counts."""
    t = plan.tables
    if plan.full_rebuild:
        drop_tables(con, t)
    if staged:
        staging = t.staging()
        rename_tables(con, staging, t)
    create_tables(con, t)
    gone = list(plan.remove) + [row[0] for row in plan.insert]
    if gone and not plan.full_rebuild:
        delete_chunks(con, t, gone)
    if plan.insert and not staged:
        _insert_chunks(con, t, plan.insert, plan.stemmed)
    if not plan.full_rebuild and not gone:  # documents written their postings, leaving terms unused: prune them
        prune_terms(con, t)
    rows, tokens, terms = bm25_totals(con, t)
    write_state(con, IndexState(t.chunker, "bm25", t.bm25, BM25_FORMAT, None, rows, tokens, build_id,
                                {"terms": terms, "k1": K1, "b": B, "fingerprint": plan.fingerprint}), seconds)
    return {"chunks": int(rows), "tokens": int(tokens), "terms": terms}


def _insert_chunks(con: Connection, t: IndexTables, stale: Sequence[tuple[str, str]], stemmed: bool) -> None:
    """Insert the stale chunks under the next doc keys, in order: those the writers of a DuckLake stemmed
    (``stemmed``: their table exists) from their rows, the others read and tokenized a page of ``INSERT_SLICE``
    at a time."""
    load_extension(con, "fts")  # for stem()
    first = next_doc_key(con, t)
    keyed = [(first + i, chunk_id, text_hash) for i, (chunk_id, text_hash) in enumerate(stale)]
    done = insert_stemmed(con, t, stems_table(t.chunker), keyed) if stemmed else set()
    rest = [row for row in keyed if row[1] not in done]
    pending = PendingChunks(t.chunker, 0)
    for start in range(0, len(rest), INSERT_SLICE):
        page = rest[start:start + INSERT_SLICE]
        texts = {row.chunk_id: row for row in pending.texts(con, [c for _, c, _ in page])}
        found = [(key, c) for key, c, _ in page if c in texts]
        insert_slice(con, t, [_terms_row(texts[c]) for _, c in found], [key for key, _ in found])


def drop_bm25(con: Connection, chunker: str) -> None:
    """Remove a chunker's BM25 index entirely (its tables and state row)."""
    drop_tables(con, IndexTables(chunker))
    delete_state(con, chunker, "bm25")
