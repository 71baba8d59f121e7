"""How much of a question a passage covers: the share of the question's content terms (stemmed) it contains.

Used by the extractive generator (which sentences answer), the rerank step and the adaptive flow's evidence
check. Content terms are the question's tokens minus stopwords and question words, stemmed like BM25's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Iterable, Sequence

from ..errors import StoreError
from ..retrieval.hits import Hit
from ..retrieval.searching.bm25 import query_terms, stem_tokens, with_camel_parts
from ..retrieval.tokenize import tokenize
from ..store import Store
from ..store.chunk_reads import span_texts
from ..store.search_tables import IndexTables, table_exists, term_document_counts

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most must my myself no nor not now of off
on once only or other our ours ourselves out over own same shall she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves s t
may might says say said tell explain describe mean means meaning according document documents give list
คือ อะไร อย่างไร ไหม หรือไม่ ที่ ของ และ ใน ได้ ให้ ว่า การ ความ เป็น มี ไม่ จะ กับ แก่ โดย ซึ่ง หรือ
""".split())


def content_terms(text: str, held: Container[str] | None = None) -> list[str]:
    """Distinct stems of the tokens of ``text`` that are not stopwords or question words; a camel-case name as
    written, and by its words too when ``held`` (the passages' stems) lacks it whole, as BM25 searches it
    (``query_terms``): a question's "FakeInput" is in a sentence on ``XTestFakeInput``, but its "PostgreSQL" asks
    for PostgreSQL, not for every sentence that says "SQL"."""
    terms = stem_tokens([t for t in tokenize(text, camel_case=False) if t not in STOPWORDS])
    return terms if held is None else with_camel_parts(text, terms, held, STOPWORDS)


def coverage(question_terms: Iterable[str], passage_terms: set[str]) -> float:
    """Share (0..1) of the question's content terms present in a passage's term set."""
    terms = list(question_terms)
    if not terms:
        return 0.0
    return sum(term in passage_terms for term in terms) / len(terms)


def weighted_coverage(weights: dict[str, float], passage_terms: set[str]) -> float:
    """Share (0..1) of the question's term weight (``term_weights``: BM25's IDF) present in a passage's term set: a
    passage that lacks the one rare word of a question ("SIGHUP") covers less of it than one that lacks "run"."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for term, w in weights.items() if term in passage_terms) / total


def document_passages(store: Store, hits: Sequence[Hit]) -> dict[str, tuple[str, int]]:
    """``chunk_id -> (document text under the hit's span, span start)`` for hits that have a span."""
    spans = [(h.chunk_id, h.document_id, h.source_start, h.source_end) for h in hits
             if h.source_start is not None and h.source_end is not None and h.source_end > h.source_start]
    if not spans:
        return {}
    with store.read() as con:
        rows = span_texts(con, spans)
    return {chunk_id: (text, start) for chunk_id, text, start in rows if text}


def term_weights(store: Store, chunker: str, terms: Sequence[str]) -> dict[str, float]:
    """BM25's inverse document frequency of each stemmed term over the chunker's indexed chunks (1.0 each when
    the chunker has no BM25 index): a word every passage has ("license") weighs little, a rare one much."""
    return term_statistics(store, chunker, terms)[0]


def term_statistics(store: Store, chunker: str, terms: Sequence[str]) -> tuple[dict[str, float], set[str]]:
    """``term_weights``, and the terms no indexed chunk holds (none known without a BM25 index)."""
    t = IndexTables(chunker)
    distinct = list(dict.fromkeys(terms))
    if not distinct:
        return {}, set()
    try:
        with store.read() as con:
            if not (table_exists(con, t.terms) and table_exists(con, t.postings) and table_exists(con, t.bm25)):
                return dict.fromkeys(distinct, 1.0), set()
            total, counts = term_document_counts(con, t, distinct)
    except StoreError:
        return dict.fromkeys(distinct, 1.0), set()
    weights = {term: math.log10((total - counts.get(term, 0) + 0.5) / (counts.get(term, 0) + 0.5) + 1)
               for term in distinct}
    return weights, {term for term in distinct if not counts.get(term)}


def gate_weights(weights: dict[str, float], question: str, unindexed: set[str]) -> dict[str, float]:
    """``weights`` (the question's ``term_weights``) with the terms that only BM25's stopwords make and that no
    indexed chunk holds ("without", "across") at 0: BM25 never indexes those words, so their document frequency
    of 0 is no sign of rarity ("means" makes the stem of the stopword "mean": that one keeps its weight). A
    question of stopwords alone keeps ``weights``."""
    indexed = set(query_terms(question))  # the stems BM25 scores the question by
    gated = {term: 0.0 if term in unindexed and term not in indexed else weight for term, weight in weights.items()}
    return gated if any(gated.values()) else weights


def passage_terms(text: str) -> set[str]:
    return set(stem_tokens(tokenize(text)))


_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'(\[]?[A-Z0-9\u0e00-\u0e7f])|\n\s*\n|\n(?=\s*(?:[-*•]|\(?\w{1,3}[.)])\s)")


def sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences (or list items, paragraphs) of ``text``, whitespace trimmed."""
    spans = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    out = []
    for a, b in spans:
        piece = text[a:b]
        lead = len(piece) - len(piece.lstrip())
        trimmed = piece.strip()
        if trimmed:
            out.append((a + lead, a + lead + len(trimmed)))
    return out
