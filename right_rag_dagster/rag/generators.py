"""Generators turn a question and its hits into a cited answer.

``extractive`` (the default) needs no model: it quotes the evidence from the best-ranked passage that answers,
sentence-aware and never a table, followed by its [n], and says "Not found in the documents." when no
sentence covers enough of the question. ``LLMGenerator`` prompts any chat model to answer only from the hits.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..retrieval.embedders import Embedder
from ..retrieval.hits import Hit
from ..retrieval.searching.definitions import asks_for_definition
from ..retrieval.searching.identity import document_names_of
from ..retrieval.settings import DEFAULT_MIN_COVERAGE
from ..retrieval.tokenize import rejoin_broken_words
from ..store import Store
from .evidence import (
    content_terms,
    document_passages,
    gate_weights,
    passage_terms,
    term_statistics,
    weighted_coverage,
)
from .extractive import (
    Quote,
    Sentence,
    answer_cue,
    choose_quote,
    continuation,
    ends_on_lead_in,
    focus_weights,
    name_terms,
    score_passages,
    second_quote,
    without_underline,
)
from .llm import LLM, make_llm
from .model import NOT_FOUND, Citation, Generated
from .prompts import build_messages, cited_numbers, says_not_found
from .semantic import sentence_meanings


class Generator(ABC):
    """Answers ``question`` from ``hits`` only; excerpt ``[n]`` is ``hits[n - 1]``."""

    @property
    @abstractmethod
    def generator_name(self) -> str: ...

    @abstractmethod
    def generate(self, question: str, hits: Sequence[Hit]) -> Generated: ...


class ExtractiveGenerator(Generator):
    """Quotes the evidence with its citation; no model needed (the rules are in ``rag/extractive.py``).

    Reads the top ``passages`` hits best rank first and quotes one run of at most ``max_sentences`` sentences
    (``max_chars`` characters) from the first that answers, and one from a second passage that answers as well; says
    "Not found in the documents." when that passage (with its section path) holds less than ``min_coverage`` of the
    question's content terms, each weighing its BM25 IDF (``weighted_coverage``; ``gate_weights``: not the words BM25
    never indexes). With a ``store`` the sentences are cut from the document text under each hit's span (not from a
    chunk header), and the citation carries the quote's exact character span in the document.
    """

    def __init__(self, store: Store | None = None, passages: int = 3, max_sentences: int = 5,
                 max_chars: int = 600, min_coverage: float = DEFAULT_MIN_COVERAGE,
                 embedder: Embedder | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.passages = passages
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.min_coverage = min_coverage

    @property
    def generator_name(self) -> str:
        return "extractive"

    def reading_meaning(self, embedder: Embedder) -> ExtractiveGenerator:
        """A copy of this generator that also weighs each sentence's closeness in meaning to the question
        (``embedder``'s cosines, ``MEANING_WEIGHT``) when it picks a passage's best sentence; one that was given a
        model keeps it."""
        reading = copy.copy(self)
        reading.embedder = self.embedder or embedder
        return reading

    def _context(self, hit: Hit) -> str:
        """What a passage is about beyond its sentences: its section path, and its document's title and names
        (so "Under MPL 2.0, ..." is answered by a passage of MPL-2.0.txt that never says so)."""
        names = document_names_of(self.store, hit.document_id) if self.store is not None else hit.document_id
        return " ".join(hit.section_path) + " " + names

    def generate(self, question: str, hits: Sequence[Hit]) -> Generated:
        cited = list(hits[: self.passages])
        # a joined hit is read as its chunks, best ranked first: as one passage, a sentence of a neighbour that
        # shares more words would win over the chunk that ranked first (the citation stays [n])
        sources = (document_passages(self.store, [part for hit in cited for part in _parts(hit)])
                   if self.store is not None else {})
        numbered = [(n, part) for n, hit in enumerate(cited, start=1) for part in _parts(hit, sources)]
        top = [part for _, part in numbered]
        texts = [sources.get(hit.chunk_id, (hit.text, None)) for hit in top]
        terms = content_terms(question, set().union(*(passage_terms(text) for text, _ in texts)))
        rarity, unindexed = (term_statistics(self.store, top[0].chunker, terms) if self.store is not None and top
                             else (dict.fromkeys(terms, 1.0), set()))
        weights = focus_weights(question, rarity)
        context = [self._context(hit) for hit in top]
        # every passage of a document is about its names: they say which document, not which sentence, answers
        named = name_terms(self.store) if self.store is not None and top else {}
        scored = score_passages(weights, [(text, where) for (text, _), where in zip(texts, context)],
                                definition=asks_for_definition(question), cue=answer_cue(question),
                                known=[named.get(hit.document_id, set()) for hit in top])
        if self.embedder is not None:
            scored = sentence_meanings(question, [text for text, _ in texts], scored, self.embedder)
        quote = choose_quote(scored, self.max_chars, self.max_sentences, weights)
        text, base = texts[quote.number - 1] if quote else ("", None)
        # a sentence is picked by every word it shares (BM25's stopwords such as "without" included: 8
        # answers fewer on the tuning sets without them), the gate by the words BM25 weighs
        quoted = passage_terms(text + " " + context[quote.number - 1]) if quote else set()
        covered = weighted_coverage(gate_weights(rarity, question, unindexed), quoted) if quote else 0.0
        details = {"best_coverage": round(covered, 3), "terms": terms,
                   **({"meaning": self.embedder.identity} if self.embedder is not None else {})}
        if quote is None or covered < self.min_coverage:
            return Generated(NOT_FOUND, False, details=details)
        following = self._continuation(scored, texts, quote, numbered)
        second = second_quote(scored, quote, self.max_chars, self.max_sentences, weights)
        if second is not None and following is not None and second.number == following.number \
                and second.start < following.end and following.start < second.end:
            second = None
        quotes = [without_underline(texts[q.number - 1][0], q)
                  for q in (quote, *([following] if following else []), *([second] if second else []))]
        citations = tuple(self._cite(q, numbered, cited, texts) for q in quotes)
        return Generated(" ".join(f"{c.quote} [{c.number}]" for c in citations), True, citations, details)

    def _continuation(self, scored: Sequence[list[Sentence]], texts: Sequence[tuple[str, int | None]], quote: Quote,
                      numbered: Sequence[tuple[int, Hit]]) -> Quote | None:
        """What ``quote``'s lead-in announces, from the next part of its joined hit (``extractive.continuation``),
        with the document's text between the two parts read from the store."""
        following = _next_part(numbered, quote.number)
        if following is None or self.store is None or not ends_on_lead_in(scored, quote):
            return None  # no store read for the text between when nothing would be quoted
        part, after = numbered[quote.number - 1][1], numbered[following - 1][1]
        gap = replace(part, chunk_id="", source_start=part.source_end, source_end=after.source_start)
        between = document_passages(self.store, [gap]).get("", ("", None))[0]
        return continuation(scored, [text for text, _ in texts], quote, following, between, self.max_chars,
                            self.max_sentences)

    @staticmethod
    def _cite(quote: Quote, numbered: Sequence[tuple[int, Hit]], cited: Sequence[Hit],
              texts: Sequence[tuple[str, int | None]]) -> Citation:
        """The citation of ``quote``: the hit it came from, its text, whitespace folded and the words ``man``
        hyphenated at line ends whole, and its span in the document when known."""
        text, base = texts[quote.number - 1]
        number = numbered[quote.number - 1][0]
        span = (base + quote.start, base + quote.end) if base is not None else (None, None)
        return Citation(number, cited[number - 1], " ".join(rejoin_broken_words(text[quote.start:quote.end]).split()),
                        *span)


def _next_part(numbered: Sequence[tuple[int, Hit]], number: int) -> int | None:
    """The passage (from 1) that follows passage ``number`` in its document among the parts of the same joined hit
    (parts are read best ranked first, not in document order), if any."""
    cited, part = numbered[number - 1]
    if part.source_end is None:
        return None
    after = [(other.source_start, n) for n, (c, other) in enumerate(numbered, start=1)
             if c == cited and n != number and other.source_start is not None and other.source_start >= part.source_end]
    return min(after)[1] if after else None


def _parts(hit: Hit, sources: dict[str, tuple[str, int]] | None = None) -> list[Hit]:
    """Each chunk of a joined hit as a hit of its own (unit, span; the text is read under the span), or ``[hit]``;
    with ``sources`` (``document_passages``), only when the text of every chunk was read."""
    parts = [replace(hit, chunk_id=chunk_id, unit_id=unit_id, source_start=start, source_end=end, joined=())
             for chunk_id, unit_id, start, end in hit.joined]
    if not parts or (sources is not None and not all(part.chunk_id in sources for part in parts)):
        return [hit]
    return parts


class LLMGenerator(Generator):
    """A chat model prompted to answer only from the numbered hits and cite them as [n]."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    @property
    def generator_name(self) -> str:
        return f"llm:{self.llm.model}"

    def generate(self, question: str, hits: Sequence[Hit]) -> Generated:
        if not hits:
            return Generated(NOT_FOUND, False, details={"model": self.llm.model, "reason": "no hits"})
        messages = build_messages(question, hits)
        reply = self.llm.chat(messages).strip()
        found = bool(reply) and not says_not_found(reply)
        citations = tuple(Citation(n, hits[n - 1]) for n in cited_numbers(reply, len(hits))) if found else ()
        return Generated(reply or NOT_FOUND, found, citations,
                         {"model": self.llm.model, "prompt_chars": sum(len(m["content"]) for m in messages)})


def make_generator(spec: str | Generator | LLM | Callable[..., str] | None, *, url: str | None = None,
                   store: Store | None = None, min_coverage: float = DEFAULT_MIN_COVERAGE) -> Generator:
    """``extractive`` (default; quoting from ``store``'s documents, "Not found" below ``min_coverage``),
    ``ollama:<model>``, ``openai:<model>``, a ``Generator``, an ``LLM`` or a function ``messages -> text``."""
    if spec is None or spec == "extractive":
        return ExtractiveGenerator(store, min_coverage=min_coverage)
    if isinstance(spec, Generator):
        return spec
    return LLMGenerator(make_llm(spec, url=url))
