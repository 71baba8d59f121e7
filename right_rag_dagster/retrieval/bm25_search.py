"""BM25 queries over a loaded index: the fts dictionary and the weighted postings, as arrays in memory.

A query's tokens are stemmed by fts's own ``stem()`` (the Porter stemmer the index used), looked up in the
fts dictionary, and the stored per-posting weights of those terms are summed: the same scores as fts's
``match_bm25``, in about a millisecond instead of a scan of every document.
"""

from __future__ import annotations

import threading

import duckdb
import numpy as np

from .chunk_table import Candidate, ChunkTable
from .errors import IndexMissingError
from .extensions import load_extension
from .tables import Connection, IndexTables, literal, read_state, table_exists
from .tokenize import TOKENIZER_VERSION, tokenize

_stemmer: duckdb.DuckDBPyConnection | None = None
_stems: dict[str, str] = {}
_stemmer_lock = threading.Lock()
_STEM_CACHE_SIZE = 200_000


def stem_tokens(tokens: list[str]) -> list[str]:
    """Distinct Porter stems of ``tokens`` (fts's ``stem`` in a private in-memory DuckDB), in first-seen order."""
    global _stemmer
    with _stemmer_lock:
        missing = list(dict.fromkeys(t for t in tokens if t not in _stems))
        if missing:
            if _stemmer is None:
                _stemmer = duckdb.connect()
                load_extension(_stemmer, "fts")
            stems = _stemmer.execute(f"SELECT list(stem(t, 'porter')) FROM unnest({literal(missing)}::VARCHAR[]) "
                                     "AS u(t)").fetchone()[0]
            if len(_stems) > _STEM_CACHE_SIZE:
                _stems.clear()
            _stems.update(zip(missing, stems))
        return list(dict.fromkeys(_stems[t] for t in tokens))


class Bm25Postings:
    """Weighted postings of one chunker in CSR form (term -> rows of the ``ChunkTable``)."""

    def __init__(self, vocab: dict[str, int], indptr: np.ndarray, rows: np.ndarray, weights: np.ndarray,
                 size: int) -> None:
        self.vocab = vocab
        self.indptr = indptr
        self.rows = rows
        self.weights = weights
        self.size = size

    @classmethod
    def load(cls, con: Connection, chunks: ChunkTable) -> Bm25Postings:
        t = IndexTables(chunks.chunker)
        if not has_terms(con, chunks.chunker):
            return cls({}, np.zeros(1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0), len(chunks))
        vocab = dict(con.execute(f"SELECT term, termid FROM {t.fts_schema}.dict").fetchall())
        keys = con.execute(f"SELECT doc_key, chunk_id FROM {t.bm25}").fetchall()
        key_row = np.full(max(key for key, _ in keys) + 1, -1, dtype=np.int64)
        for key, chunk_id in keys:
            key_row[key] = chunks.row_of.get(chunk_id, -1)  # -1: the chunk left the store since the build
        data = con.execute(f"SELECT termid, doc_key, weight FROM {t.postings}").fetchnumpy()
        rows = key_row[data["doc_key"].astype(np.int64)]
        live = rows >= 0
        termids = data["termid"].astype(np.int64)[live]
        order = slice(None) if np.all(termids[1:] >= termids[:-1]) else np.argsort(termids, kind="stable")
        counts = np.bincount(termids, minlength=max(vocab.values(), default=-1) + 1)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return cls(vocab, indptr, rows[live][order], data["weight"].astype(np.float64)[live][order], len(chunks))

    def scores(self, query: str) -> tuple[np.ndarray, dict[str, int]]:
        """BM25 score of every row for ``query`` (0 where no term matches) and the matched term ids."""
        scores = np.zeros(self.size, dtype=np.float64)
        matched = {}
        for stem in stem_tokens(tokenize(query)):
            termid = self.vocab.get(stem)
            if termid is None or termid + 1 >= len(self.indptr):
                continue
            matched[stem] = termid
            start, end = self.indptr[termid], self.indptr[termid + 1]
            scores[self.rows[start:end]] += self.weights[start:end]
        return scores, matched

    def search(self, query: str, depth: int, allowed: np.ndarray | None, chunks: ChunkTable) -> list[Candidate]:
        """The ``depth`` best rows among ``allowed`` (all when None), best first, ties in document order."""
        scores, _ = self.scores(query)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        return top_candidates(scores, depth, chunks)


def has_terms(con: Connection, chunker: str) -> bool:
    """Whether the chunker's BM25 index holds any term; ``IndexMissingError`` when there is no usable index."""
    t = IndexTables(chunker)
    state = read_state(con, chunker, "bm25")
    if state is None or not table_exists(con, t.bm25):
        raise IndexMissingError(f"no BM25 index for chunker {chunker!r}: build it with "
                                f"build_search_index(store, {chunker!r}) or `right-rag index`")
    if state.model != TOKENIZER_VERSION:
        raise IndexMissingError(f"the BM25 index of chunker {chunker!r} was made by tokenizer {state.model}, "
                                f"this right-rag uses {TOKENIZER_VERSION}: rebuild it with build_search_index")
    return bool(state.chunks) and table_exists(con, t.postings)


def top_candidates(scores: np.ndarray, depth: int, chunks: ChunkTable, floor: float = 0.0) -> list[Candidate]:
    """Rows scoring above ``floor``, best first (equal scores keep document order), at most ``depth``."""
    positive = np.flatnonzero(scores > floor)
    if positive.size > depth:
        cut = np.argpartition(-scores[positive], depth - 1)[:depth]
        threshold = scores[positive[cut]].min()
        positive = positive[scores[positive] >= threshold]
    order = positive[np.lexsort((positive, -scores[positive]))][:depth]
    return [Candidate(chunks.rows[i][0], float(scores[i])) for i in order]
