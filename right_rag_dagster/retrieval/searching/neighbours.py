"""Neighbouring passages join: a hit takes in the chunk just before or after it when that chunk ranks among the
best ``WINDOW`` too.

An answer often runs across a chunk boundary: a heading or a rule in one chunk, its text or its exception in the
next. Both halves rank high, and as two hits neither holds the answer. Joined, they take the better one's place and
score, and the candidates behind them move up (docs/evaluation.md, twelfth round: +20 questions at rank 1 of 390
on the tuning sets, no answer metric lost net of 2, about 750 more context characters in the top five).
"""

from __future__ import annotations

from dataclasses import replace

from ..hits import Hit

WINDOW = 5
"""Only chunks among this many best candidates join (10 gained 2 more questions at rank 1 for 800 more context
characters, over 6,000 on one set; a cap of 1,800 characters a joined hit with 10 gained less than 5 for as much)."""


def join_neighbours(hits: list[Hit], window: int = WINDOW) -> list[Hit]:
    """``hits`` with each of the first ``window`` joined to at most one adjacent chunk of its document that is also
    among the first ``window`` (the better ranked of the two neighbours), ranks renumbered.

    A joined hit keeps the better hit's chunk id, unit, section path, score and details; its text is both chunks'
    texts in document order, a blank line apart; its span and pages cover both (and what lies between), and
    ``joined`` holds each chunk's id and span, the better ranked first (an answer reads them in that order)."""
    top = hits[:window]
    place = {(hit.document_id, hit.ordinal): i for i, hit in enumerate(top) if hit.ordinal is not None}
    taken: set[int] = set()
    out: list[Hit] = []
    for i, hit in enumerate(hits):
        if i in taken:
            continue
        if i < window and hit.ordinal is not None:
            mates = [j for j in (place.get((hit.document_id, hit.ordinal - 1)),
                                 place.get((hit.document_id, hit.ordinal + 1)))
                     if j is not None and j not in taken and _apart(hit, top[j])]
            if mates:
                mate = min(mates)
                taken.update((i, mate))
                hit = _joined(hit, top[mate])
        out.append(hit)
    return [replace(hit, rank=rank) for rank, hit in enumerate(out, start=1)]


def _apart(a: Hit, b: Hit) -> bool:
    """Both spans known and not overlapping (chunkers with overlapping windows would repeat the shared text)."""
    if None in (a.source_start, a.source_end, b.source_start, b.source_end):
        return False
    return a.source_end <= b.source_start or b.source_end <= a.source_start  # type: ignore[operator]


def _joined(hit: Hit, mate: Hit) -> Hit:
    first, second = sorted((hit, mate), key=lambda h: h.source_start)  # type: ignore[arg-type,return-value]
    pages = [p for p in (first.page_start, second.page_start) if p is not None]
    ends = [p for p in (first.page_end, second.page_end) if p is not None]
    return replace(
        hit, text=f"{first.text}\n\n{second.text}", source_start=first.source_start, source_end=second.source_end,
        page_start=min(pages) if pages else None, page_end=max(ends) if ends else None,
        page_label_start=first.page_label_start or second.page_label_start,
        page_label_end=second.page_label_end or first.page_label_end,
        joined=tuple((h.chunk_id, h.source_start, h.source_end) for h in (hit, mate)),  # type: ignore[misc]
    )
