"""Is a generated answer right? It must quote the evidence, and cite only what was retrieved.

``answered_rate`` counts answers that are not "not found", right or wrong. These two checks judge the answer
itself, for questions with evidence quotes:

- **quotes the evidence**: the answer text holds at least half of every evidence quote of the question (the
  longest common run of characters, whitespace collapsed and case ignored, is at least half the quote);
- **cites retrieved text**: every citation's quoted span lies inside the source span of a retrieved chunk of the
  same document (a citation without a span must at least point at a retrieved chunk).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from .judge import RetrievedChunk
from .spans import collapse_whitespace


@dataclass(frozen=True)
class CitedSpan:
    """One citation of an answer: the chunk it cites and the quoted span in that chunk's document, if known."""

    chunk_id: str
    document: str
    start: int | None
    end: int | None


def quotes_evidence(answer: str, quote: str) -> bool:
    """Whether ``answer`` holds at least half of ``quote`` as one run of characters."""
    needle = collapse_whitespace(quote).casefold()
    hay = collapse_whitespace(answer).casefold()
    if not needle or not hay:
        return False
    match = SequenceMatcher(None, hay, needle, autojunk=False).find_longest_match(0, len(hay), 0, len(needle))
    return 2 * match.size >= len(needle)


def citations_in_hits(citations: Sequence[CitedSpan], hits: Sequence[RetrievedChunk]) -> bool:
    """Whether every citation lies inside a retrieved chunk (see the module docstring); True with none."""
    for cited in citations:
        if cited.start is None or cited.end is None:
            if not any(hit.chunk_id == cited.chunk_id for hit in hits):
                return False
        elif not any(hit.document == cited.document and start <= cited.start and cited.end <= end
                     for hit in hits for start, end in hit.spans):
            return False
    return True
