"""Neighbouring passages join: chunks that follow one another in a document's text and all rank among the best
``WINDOW`` become one hit.

An answer often runs across a chunk boundary: a heading or a rule in one chunk, its text or its exception in the
next. Both halves rank high, and as two hits neither holds the answer. Joined, they take the better one's place and
score, and the candidates behind them move up (docs/evaluation.md, twelfth round: +29 questions of 390 at rank 1 on
the tuning sets, none lower, for about 1,000 more context characters in the top five).

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
    """``hits`` with each run of chunks that follow one another in a document's text and all rank among the first
    ``window`` made one hit, at the place of the best ranked of them; ranks renumbered.

    The run grows from its best ranked chunk, taking the best ranked neighbour of its ends each time. A joined hit
    keeps that chunk's id, unit, section path, score and details; its text is the chunks' texts in document order, a
    blank line apart; its span and pages cover them all (and what lies between), and ``joined`` holds each chunk's
    id, unit and span in the order they joined, best ranked first (an answer reads them in that order)."""
    top = hits[:window]
    taken: set[int] = set()
    out: list[Hit] = []
    for i, hit in enumerate(hits):
        if i in taken:
            continue
        if i < window:
            run = [i]
            while (mate := next((j for j, other in enumerate(top) if j not in taken and j not in run
                                 and any(_neighbours(top[r], other) for r in run)), None)) is not None:
                run.append(mate)
            if len(run) > 1:
                taken.update(run)
                hit = _joined([top[r] for r in run])
        out.append(hit)
    return [replace(hit, rank=rank) for rank, hit in enumerate(out, start=1)]


def _neighbours(a: Hit, b: Hit) -> bool:
    """Same document, spans known, one ending at most ``MAX_GAP`` characters before the other starts (never
    overlapping: chunkers with overlapping windows would repeat the shared text)."""
    if a.document_id != b.document_id or None in (a.source_start, a.source_end, b.source_start, b.source_end):
        return False
    first, second = (a, b) if a.source_start <= b.source_start else (b, a)  # type: ignore[operator]
    return 0 <= second.source_start - first.source_end <= MAX_GAP  # type: ignore[operator]


def _joined(run: list[Hit]) -> Hit:
    """``run[0]`` with the texts, spans and pages of the whole run, in document order."""
    ordered = sorted(run, key=lambda h: h.source_start)  # type: ignore[arg-type,return-value]
    first, last = ordered[0], ordered[-1]
    pages = [h.page_start for h in ordered if h.page_start is not None]
    ends = [h.page_end for h in ordered if h.page_end is not None]
    return replace(
        run[0], text="\n\n".join(h.text for h in ordered), source_start=first.source_start,
        source_end=last.source_end, page_start=min(pages) if pages else None, page_end=max(ends) if ends else None,
        page_label_start=next((h.page_label_start for h in ordered if h.page_label_start), None),
        page_label_end=next((h.page_label_end for h in reversed(ordered) if h.page_label_end), None),
        joined=tuple((h.chunk_id, h.unit_id, h.source_start, h.source_end) for h in run),  # type: ignore[misc]
    )
