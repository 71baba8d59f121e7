"""Generators turn a question and its hits into a cited answer.

``extractive`` (the default) needs no model: it quotes the sentences of the top hits that cover most of the
question's content terms, each followed by its [n], and says "Not found in the documents." when no hit
covers enough of the question. ``LLMGenerator`` prompts any chat model to answer only from the hits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from ..retrieval.hits import Hit
from ..store import Store
from .evidence import content_terms, coverage, document_passages, passage_terms, sentences
from .llm import LLM, make_llm
from .model import NOT_FOUND, Citation, Generated
from .prompts import build_messages, cited_numbers, says_not_found


class Generator(ABC):
    """Answers ``question`` from ``hits`` only; excerpt ``[n]`` is ``hits[n - 1]``."""

    @property
    @abstractmethod
    def generator_name(self) -> str: ...

    @abstractmethod
    def generate(self, question: str, hits: Sequence[Hit]) -> Generated: ...


class ExtractiveGenerator(Generator):
    """Best evidence sentences from the top ``passages`` hits, quoted with citations; no model needed.

    With a ``store`` the sentences are cut from the document text under each hit's span (not from a chunk
    header), and each citation carries the quote's exact character span in the document.
    """

    def __init__(self, store: Store | None = None, passages: int = 3, max_sentences: int = 2,
                 max_chars: int = 600, min_coverage: float = 0.34) -> None:
        self.store = store
        self.passages = passages
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.min_coverage = min_coverage

    @property
    def generator_name(self) -> str:
        return "extractive"

    def generate(self, question: str, hits: Sequence[Hit]) -> Generated:
        terms = content_terms(question)
        top = list(hits[: self.passages])
        sources = document_passages(self.store, top) if self.store is not None else {}
        scored = []  # (coverage, -hit number, -sentence start, number, sentence start, sentence end)
        texts = []
        for number, hit in enumerate(top, start=1):
            text, base = sources.get(hit.chunk_id, (hit.text, None))
            texts.append((text, base))
            for start, end in sentences(text):
                share = coverage(terms, passage_terms(text[start:end]))
                scored.append((share, -number, -start, number, start, end))
        scored.sort(reverse=True)
        best = scored[0][0] if scored else 0.0
        details = {"best_coverage": round(best, 3), "terms": terms}
        if best < self.min_coverage:
            return Generated(NOT_FOUND, False, details=details)
        chosen: dict[int, tuple[int, int]] = {}  # excerpt number -> covering span of its chosen sentences
        taken = length = 0
        for share, _, _, number, start, end in scored:
            if taken == self.max_sentences or share < best * 0.5:
                break
            if taken and length + end - start > self.max_chars:
                continue
            a, b = chosen.get(number, (start, end))
            chosen[number] = (min(a, start), max(b, end))
            taken, length = taken + 1, length + end - start
        citations = []
        for number in sorted(chosen):
            (text, base), (start, end) = texts[number - 1], chosen[number]
            span = (base + start, base + end) if base is not None else (None, None)
            citations.append(Citation(number, top[number - 1], " ".join(text[start:end].split()), *span))
        answer = " ".join(f"{c.quote} [{c.number}]" for c in citations)
        return Generated(answer, True, tuple(citations), details)


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
                   store: Store | None = None) -> Generator:
    """``extractive`` (default; quoting from ``store``'s documents), ``ollama:<model>``, ``openai:<model>``,
    a ``Generator``, an ``LLM`` or a function ``messages -> text``."""
    if spec is None or spec == "extractive":
        return ExtractiveGenerator(store)
    if isinstance(spec, Generator):
        return spec
    return LLMGenerator(make_llm(spec, url=url))
