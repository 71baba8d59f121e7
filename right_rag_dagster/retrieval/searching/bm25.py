"""BM25 queries over a loaded index: the term dictionary and the postings, weighted once, as arrays in memory.

Loading computes every posting's BM25 weight from its term frequency, the term's document frequency and the
chunk's length (fts's ``match_bm25`` formula). A query's tokens are stemmed by fts's own ``stem()`` (the Porter
stemmer the index used), looked up in the dictionary, and the weights of those terms are summed: the same
scores as ``match_bm25``, in about a millisecond instead of a scan of every document. Each chunk's score is then
weighed by its document's size (``SIZE_PRIOR``) and by how well the whole document answers (``DOCUMENT_PRIOR``).
"""

from __future__ import annotations

from collections.abc import Container, Iterable

import numpy as np

from ...store.search_tables import (
    Connection,
    IndexTables,
    bm25_lengths,
    bm25_postings,
    bm25_vocabulary,
    read_state,
    table_exists,
)
from ..errors import IndexMissingError
from ..formats import BM25_FORMAT, K1, B
from ..settings import DOCUMENT_PRIOR
from ..stemmer import stems
from ..stopwords import ENGLISH_STOPWORDS
from ..tokenize import camel_parts, tokenize
from .chunk_table import Candidate, ChunkTable

SIZE_PRIOR = 0.08
"""A chunk's BM25 score is multiplied by its document's chunk count to the power ``-SIZE_PRIOR``: the best of a
large document's many passages for a question is the best of many draws, so a manual of 1,500 chunks put a passage
that shares the question's common words ("Debian", "package", "script") above the one small file that answers
(heldout17's dpkg removal schedule, a copyright file's stanza). A document's passages keep their order among
themselves. Measured on the 32 tuning sets (998 questions, bm25; rank 1 / top 5): none 700 / 849, 0.05 707 / 860,
0.08 709 / 863, 0.11 710 / 863; weighing only the first 50 candidates, 0.15 gave 703 / 861 and 0.30 689 / 855
(docs/evaluation.md, thirtieth round)."""


def stem_tokens(tokens: list[str]) -> list[str]:
    """Distinct Porter stems of ``tokens`` (fts's ``stem``, see ``retrieval.stemmer``), in first-seen order."""
    by_token = stems(tokens)
    return list(dict.fromkeys(by_token[t] for t in tokens))


def query_terms(query: str, held: Container[str] | None = None) -> list[str]:
    """The distinct stems a question is scored by: its tokens without English stopwords, then stemmed.

    The same rule as the index (``build.terms.text_terms``). fts's ``match_bm25`` stems the query without
    dropping its stopwords, so a stopword can meet the stem of another word that the index kept: ``in`` is
    the stem of ``ins`` (``plug-ins``), ``mean`` (a stopword) of ``means``, so every question with "in" or
    "mean" scored the chunks holding those words. Here a question's stopwords count as little as a chunk's.

    A camel-case word of the question is searched as written, and by its parts too when the index does not hold
    it whole (``held``: the indexed stems; "FakeInput" of a passage's ``XTestFakeInput``). Passages are indexed
    with their camel-case words' parts (``tokenize``), but a question's are not split otherwise: "GnuPG" asks for
    GnuPG, not for every passage that says "GNU".
    """
    terms = stem_tokens([token for token in tokenize(query, camel_case=False) if token not in ENGLISH_STOPWORDS])
    return terms if held is None else with_camel_parts(query, terms, held, ENGLISH_STOPWORDS)


def with_camel_parts(query: str, terms: list[str], held: Container[str], stopwords: Container[str]) -> list[str]:
    """``terms`` (``query``'s stems) and the stems of the words of each camel-case name of ``query`` that ``held``
    (the stems at hand) lacks whole; only names that are a word of their own, as the index splits them."""
    tokens = tokenize(query, camel_case=False)
    for whole, parts in camel_parts(query).items():
        if whole in tokens and stem_tokens([whole])[0] not in held:
            terms.extend(stem for stem in _part_stems(parts, stopwords) if stem not in terms)
    return terms


def camel_part_terms(query: str) -> list[str]:
    """The stems of the parts of ``query``'s camel-case words (what ``query_terms`` may add)."""
    return _part_stems([part for parts in camel_parts(query).values() for part in parts], ENGLISH_STOPWORDS)


def _part_stems(parts: Iterable[str], stopwords: Container[str]) -> list[str]:
    return stem_tokens([part for part in parts if part not in stopwords])


class Bm25Postings:
    """Weighted postings of one chunker in CSR form (term -> rows of the ``ChunkTable``)."""

    def __init__(self, vocab: dict[str, int], indptr: np.ndarray, rows: np.ndarray, weights: np.ndarray,
                 size: int, idf: np.ndarray | None = None, documents: DocumentTerms | None = None) -> None:
        self.vocab = vocab
        self.indptr = indptr
        self.rows = rows
        self.weights = weights
        self.size = size
        self.idf = idf if idf is not None else np.zeros(max(len(indptr) - 1, 0))
        self.documents = documents

    @classmethod
    def load(cls, con: Connection, chunks: ChunkTable) -> Bm25Postings:
        t = IndexTables(chunks.chunker)
        if not has_terms(con, chunks.chunker):
            return cls({}, np.zeros(1, dtype=np.int64), np.zeros(0, np.int64), np.zeros(0), len(chunks))
        vocab = bm25_vocabulary(con, t)
        keys = bm25_lengths(con, t)
        key_row = np.full(max(key for key, _, _ in keys) + 1, -1, dtype=np.int64)
        key_len = np.zeros(len(key_row), dtype=np.float64)
        for key, chunk_id, length in keys:
            key_row[key] = chunks.row_of.get(chunk_id, -1)  # -1: the chunk left the store since the build
            key_len[key] = length
        data = bm25_postings(con, t)
        termids = data["termid"].astype(np.int64)
        doc_keys = data["doc_key"].astype(np.int64)
        # Statistics over everything indexed (as match_bm25 sees it), before dropping rows that left the store.
        idf = term_idf(termids, num_docs=len(keys))
        weights = idf[termids] * tf_weights(data["tf"].astype(np.float64), key_len[doc_keys],
                                            avgdl=float(key_len.sum()) / len(keys))
        rows = key_row[doc_keys]
        live = rows >= 0
        termids = termids[live]
        # by term, then row (one posting per term and row): one document's postings of a term are one slice
        order = np.argsort(termids * np.int64(len(chunks) + 1) + rows[live])
        counts = np.bincount(termids, minlength=max(vocab.values(), default=-1) + 1)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        row_length = np.zeros(len(chunks), dtype=np.float64)
        row_length[key_row[key_row >= 0]] = key_len[key_row >= 0]
        documents = DocumentTerms.build(termids[order], rows[live][order], data["tf"][live][order].astype(np.float64),
                                        row_length, chunks, len(indptr) - 1)
        return cls(vocab, indptr, rows[live][order], weights[live][order], len(chunks),
                   np.pad(idf, (0, max(0, len(indptr) - 1 - len(idf)))), documents)

    def scores(self, query: str) -> tuple[np.ndarray, dict[str, int]]:
        """BM25 score of every row for ``query`` (0 where no term matches) and the matched term ids."""
        scores = np.zeros(self.size, dtype=np.float64)
        matched = self.term_ids(query)
        for termid in matched.values():
            start, end = self.indptr[termid], self.indptr[termid + 1]
            scores[self.rows[start:end]] += self.weights[start:end]
        return scores, matched

    def term_ids(self, query: str) -> dict[str, int]:
        """Stem -> term id of each of ``query``'s terms that the index holds."""
        ids = ((stem, self.vocab.get(stem)) for stem in query_terms(query, self.vocab))
        return {stem: i for stem, i in ids if i is not None and i + 1 < len(self.indptr)}

    def document_scores(self, term_ids: Iterable[int], start: int, end: int) -> np.ndarray:
        """BM25 of rows ``start:end`` (one document's chunks) for the terms ``term_ids`` with the document's own
        IDF: a term counts by how few of the document's chunks hold it (``idf``), its frequency as in
        BM25."""
        scores = np.zeros(end - start, dtype=np.float64)
        for termid in term_ids:
            a, b = self.indptr[termid], self.indptr[termid + 1]
            first, last = a + np.searchsorted(self.rows[a:b], (start, end))  # rows are sorted within a term
            if last > first:
                scores[self.rows[first:last] - start] += (idf(end - start, int(last - first))
                                                          * self.weights[first:last] / self.idf[termid])
        return scores

    def search(self, query: str, depth: int, allowed: np.ndarray | None, chunks: ChunkTable,
               elsewhere: tuple[str, np.ndarray] | None = None,
               document_prior: float = DOCUMENT_PRIOR, named: np.ndarray | None = None) -> list[Candidate]:
        """The ``depth`` best rows among ``allowed`` (all when None), best first, ties in document order.
        ``elsewhere = (other_query, rows)``: only ``rows`` are scored by ``query``, all others by ``other_query``.
        ``document_prior``: the power of each document's share of the best document's score (``DOCUMENT_PRIOR``),
        except for the ``named`` rows (the documents the question names), whose factor is 1."""
        scores = self._weighed(query, document_prior, named)
        if elsewhere is not None:
            other, rows = elsewhere
            scores = np.where(rows, scores, self._weighed(other, document_prior, named))
        scores = scores * size_weights(chunks)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        return top_candidates(scores, depth, chunks)

    def _weighed(self, query: str, document_prior: float, named: np.ndarray | None) -> np.ndarray:
        """Every row's BM25 score for ``query`` times its document's factor (``DocumentTerms.factors``)."""
        scores, matched = self.scores(query)
        if document_prior and self.documents is not None:
            scores = scores * self.documents.factors(matched.values(), document_prior, named)
        return scores


class DocumentTerms:
    """BM25 over whole documents (each document's chunks as one text: term frequencies and lengths summed, IDF over
    documents), in CSR form (term -> documents), to weigh each chunk by its document's score (``DOCUMENT_PRIOR``)."""

    def __init__(self, indptr: np.ndarray, documents: np.ndarray, weights: np.ndarray, row_document: np.ndarray,
                 count: int) -> None:
        self.indptr = indptr
        self.documents = documents
        self.weights = weights
        self.row_document = row_document
        self.count = count

    @classmethod
    def build(cls, termids: np.ndarray, rows: np.ndarray, tf: np.ndarray, row_length: np.ndarray,
              chunks: ChunkTable, terms: int) -> DocumentTerms:
        """From the chunks' postings sorted by term, then row (rows are in document order, so each term's
        postings of one document are consecutive) and each row's length in terms."""
        row_document = chunks.document_numbers()
        count = int(row_document.max()) + 1 if len(row_document) else 0
        document = row_document[rows]
        starts = np.flatnonzero(np.concatenate([[True], (termids[1:] != termids[:-1])
                                                | (document[1:] != document[:-1])])) if len(rows) else rows
        term_of = termids[starts]
        document_of = document[starts]
        summed = np.add.reduceat(tf, starts) if len(starts) else tf
        lengths = np.bincount(row_document, weights=row_length, minlength=count)
        held = np.bincount(term_of, minlength=terms).astype(np.float64)
        weights = idf(count, held[term_of]) * tf_weights(summed, lengths[document_of],
                                                         avgdl=float(lengths.mean()) if count else 1.0)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(term_of, minlength=terms))]).astype(np.int64)
        return cls(indptr, document_of, weights, row_document, count)

    def factors(self, term_ids: Iterable[int], power: float, named: np.ndarray | None = None) -> np.ndarray:
        """Each row's factor: its document's BM25 for the terms ``term_ids`` over the best document's, to ``power``
        (0 for a document with none of them, whose chunks score 0 anyway); 1 for the ``named`` rows: a document the
        question names is the one it asks about, however few of its other words that document holds."""
        scores = np.zeros(self.count, dtype=np.float64)
        for termid in term_ids:
            if termid + 1 < len(self.indptr):
                start, end = self.indptr[termid], self.indptr[termid + 1]
                scores[self.documents[start:end]] += self.weights[start:end]
        best = scores.max() if len(scores) else 0.0
        if best <= 0:
            return np.ones(len(self.row_document), dtype=np.float64)
        factors = (scores / best)[self.row_document] ** power
        return factors if named is None else np.where(named, 1.0, factors)


def size_weights(chunks: ChunkTable) -> np.ndarray:
    """Each row's factor for its document's size (``SIZE_PRIOR``); the first search of a process applies the same
    factor in SQL (``store.search_tables.bm25_best_rows``)."""
    return chunks.size_weights(SIZE_PRIOR)


def term_idf(termids: np.ndarray, num_docs: int) -> np.ndarray:
    """Each term id's BM25 IDF over ``num_docs`` chunks (``idf``)."""
    return idf(num_docs, np.bincount(termids).astype(np.float64))


def idf(chunks: int, held: int | np.ndarray) -> float | np.ndarray:
    """BM25's IDF of a term that ``held`` of ``chunks`` chunks hold, as fts's ``match_bm25`` computes it (DuckDB's
    ``log`` is base 10): over the corpus (``term_idf``) or over one document's chunks (``document_scores``)."""
    return np.log10(((chunks - held) + 0.5) / (held + 0.5) + 1)


def tf_weights(tf: np.ndarray, lengths: np.ndarray, avgdl: float) -> np.ndarray:
    """BM25's term-frequency part of each posting (its weight is this times the term's IDF)."""
    return (tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * (lengths / avgdl)))


def has_terms(con: Connection, chunker: str) -> bool:
    """Whether the chunker's BM25 index holds any term; ``IndexMissingError`` when there is no usable index."""
    t = IndexTables(chunker)
    state = read_state(con, chunker, "bm25")
    if state is None or not table_exists(con, t.bm25):
        raise IndexMissingError(f"no BM25 index for chunker {chunker!r}: build it with `right-rag index` "
                                f"(or build_search_index(store, {chunker!r}))")
    if state.model != BM25_FORMAT:
        raise IndexMissingError(f"the BM25 index of chunker {chunker!r} has format {state.model}, this right-rag "
                                f"reads {BM25_FORMAT}: run `right-rag index` to rebuild it")
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
