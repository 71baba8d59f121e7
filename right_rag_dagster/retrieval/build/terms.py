"""What BM25 keeps of a chunk: its indexed text's tokens without English stopwords, and the token count.

A pure function, so the worker processes that chunk documents can compute it (``pipeline.work``) and the main
process only writes postings; the index build uses the same function for chunks it must read back.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..indexed_text import bm25_text, heading_and_text
from ..stopwords import ENGLISH_STOPWORDS
from ..tokenize import tokenize


def chunk_terms(section_path: Sequence[str] | str | None, fulltext: str) -> tuple[str, int]:
    """(space-joined terms before stemming, number of tokens) of what BM25 reads of a chunk (``bm25_text``)."""
    return text_terms(bm25_text(*heading_and_text(section_path, fulltext)))


def text_terms(text: str) -> tuple[str, int]:
    tokens = tokenize(text)
    return " ".join(t for t in tokens if t not in ENGLISH_STOPWORDS), len(tokens)
