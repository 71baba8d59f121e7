"""Versions of what the search indexes store, and which stored indexes another version of the library made.

Kept apart from the builders so ``right-rag index`` can check formats without importing numpy or embedders.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..store import Store
from ..store.search_tables import read_state
from .indexed_text import HEADING_VERSION, INDEXED_TEXT_VERSION
from .tokenize import TOKENIZER_VERSION

STOPWORDS_VERSION = "3"
"""fts's English list less ``stopwords.KEPT`` (its content words); 2 kept "name" alone, 1 was fts's list."""

BM25_FORMAT = (f"{TOKENIZER_VERSION}+text-{INDEXED_TEXT_VERSION}+stop-{STOPWORDS_VERSION}+tf-postings-1"
               f"+heading-{HEADING_VERSION}")
"""Stored as a BM25 index's model: a different tokenizer, stopword list, indexed-text rule or table layout makes
the next build start over (``right-rag index`` finds the index outdated and rebuilds it; no migration step)."""

K1 = 1.2
B = 0.75
"""BM25's parameters (fts's ``match_bm25`` defaults), the same at build and at search."""

HASH_RULE = f"md5-1+text-{INDEXED_TEXT_VERSION}"
"""How the ``text_hash`` stored with vectors is made (``store.content.CHUNK_TEXT_HASH_SQL``) and which
indexed-text rule the vectors embed; vectors stored under another rule are made again."""


def outdated_indexes(store: Store, chunkers: Sequence[str], dense: bool = False) -> list[str]:
    """Chunkers whose stored indexes another version of this library made (the next build remakes them), so
    ``right-rag index`` refreshes them even when no document changed. Vectors count only with ``dense`` (the
    project names an embedder): a build without one leaves them as they are."""
    if not store.exists():
        return []
    outdated = []
    with store.read() as con:
        for chunker in chunkers:
            bm25 = read_state(con, chunker, "bm25")
            vectors = read_state(con, chunker, "dense") if dense else None
            if (bm25 is not None and bm25.model != BM25_FORMAT) or (
                    vectors is not None and vectors.details.get("hash") != HASH_RULE):
                outdated.append(chunker)
    return outdated


def stored_dense_indexes(store: Store, chunkers: Sequence[str]) -> list[str]:
    """Chunkers with stored vectors: without an embedder configured, only they can have dense work (a drop)."""
    if not store.exists():
        return []
    with store.read() as con:
        return [chunker for chunker in chunkers if read_state(con, chunker, "dense") is not None]
