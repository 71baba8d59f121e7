"""What BM25 keeps of a chunk: its indexed text's tokens without English stopwords, and the token count.

Pure functions, so the worker processes that chunk documents compute them (``pipeline.work``, stemmed there too)
and the main process only writes postings; the index build uses the same rule for chunks it must read back, and
stems them in the store's SQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..indexed_text import indexed_text
from ..stemmer import stems
from ..stopwords import ENGLISH_STOPWORDS
from ..tokenize import tokenize


def chunk_terms(section_path: Sequence[str] | str | None, fulltext: str) -> tuple[str, int]:
    """(space-joined terms before stemming, number of tokens) of a chunk's indexed text."""
    return text_terms(indexed_text(section_path, fulltext))


def stemmed_chunk_terms(chunks: Sequence[tuple[Sequence[str] | str | None, str]]) -> tuple[tuple[str, int], ...]:
    """(space-joined terms, stemmed, number of tokens) of each (section path, full text) chunk: its postings'
    terms. One stemming call for all of them (a document's chunks), not one per chunk."""
    terms = [chunk_terms(section_path, fulltext) for section_path, fulltext in chunks]
    by_word = stems(word for joined, _ in terms for word in joined.split())
    return tuple((" ".join(by_word[word] for word in joined.split()), count) for joined, count in terms)


def text_terms(text: str) -> tuple[str, int]:
    tokens = tokenize(text)
    return " ".join(t for t in tokens if t not in ENGLISH_STOPWORDS), len(tokens)
