"""Neighbouring passages join: a hit takes in the chunk just before or after it in the text when that chunk ranks
among the best ``WINDOW`` too.

An answer often runs across a chunk boundary: a heading or a rule in one chunk, its text or its exception in the
next. Both halves rank high, and as two hits neither holds the answer. Joined, they take the better one's place and
score, and the candidates behind them move up (docs/evaluation.md, twelfth round).

Neighbours are found by their spans, not by chunk ordinals: a chunker may number its chunks out of text order (9% of
the domain chunker's consecutive ordinals in one evaluation store were not consecutive in the text).
"""

from __future__ import annotations

from dataclasses import replace

from ..hits import Hit

WINDOW = 5
"""Only chunks among this many best candidates join (10 gained 2 more questions at rank 1 for 800 more context
characters, over 6,000 on one set)."""
MAX_GAP = 100
"""At most this many characters between two neighbours' spans: whitespace, a heading line that has no chunk of its
own, a page's running header. Any more and something else (another chunk) may lie between them."""


def join_neighbours(hits: list[Hit], window: int = WINDOW) -> list[Hit]:
    """``hits`` with each of the first ``window`` joined to at most one chunk of its document that is also among the
    first ``window`` and follows or precedes it in the text (the better ranked of the two), ranks renumbered.

    A joined hit keeps the better hit's chunk id, unit, section path, score and details; its text is both chunks'
    texts in document order, a blank line apart; its span and pages cover both (and what lies between), and
    ``joined`` holds each chunk's id, unit and span, the better ranked first (an answer reads them in that order)."""
    top = hits[:window]
    taken: set[int] = set()
    out: list[Hit] = []
    for i, hit in enumerate(hits):
        if i in taken:
            continue
        if i < window:
            mate = next((j for j, other in enumerate(top)
                         if j != i and j not in taken and _neighbours(hit, other)), None)
            if mate is not None:
                taken.update((i, mate))
                hit = _joined(hit, top[mate])
        out.append(hit)
    return [replace(hit, rank=rank) for rank, hit in enumerate(out, start=1)]


def _neighbours(a: Hit, b: Hit) -> bool:
    """Same document, spans known, one ending at most ``MAX_GAP`` characters before the other starts (never
    overlapping: chunkers with overlapping windows would repeat the shared text)."""
    if a.document_id != b.document_id or None in (a.source_start, a.source_end, b.source_start, b.source_end):
        return False
    first, second = (a, b) if a.source_start <= b.source_start else (b, a)  # type: ignore[operator]
    return 0 <= second.source_start - first.source_end <= MAX_GAP  # type: ignore[operator]


def _joined(hit: Hit, mate: Hit) -> Hit:
    """``hit`` with ``mate``'s text, span and pages added on the side where ``mate`` lies in the document."""
    first, second = sorted((hit, mate), key=lambda h: h.source_start)  # type: ignore[arg-type,return-value]
    pages = [p for p in (first.page_start, second.page_start) if p is not None]
    ends = [p for p in (first.page_end, second.page_end) if p is not None]
    return replace(
        hit, text=f"{first.text}\n\n{second.text}", source_start=first.source_start, source_end=second.source_end,
        page_start=min(pages) if pages else None, page_end=max(ends) if ends else None,
        page_label_start=first.page_label_start or second.page_label_start,
        page_label_end=second.page_label_end or first.page_label_end,
        joined=tuple((h.chunk_id, h.unit_id, h.source_start, h.source_end) for h in (hit, mate)),  # type: ignore[misc]
    )
