"""Span arithmetic shared by the baselines: fixed windows and packing whole pieces up to a size."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .base import Span

_SPACE = re.compile(r"\s")


def windows(start: int, end: int, size: int, overlap: int = 0) -> list[Span]:
    """Fixed windows of ``size`` characters over ``[start, end)``, each starting ``size - overlap`` after the last."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"window size {size} must be positive and overlap {overlap} in [0, size)")
    spans = []
    position = start
    while position < end:
        spans.append((position, min(position + size, end)))
        if position + size >= end:
            break
        position += size - overlap
    return spans


def split_long(text: str, span: Span, size: int) -> list[Span]:
    """Cut a span longer than ``size`` at the last whitespace before each limit (hard cut when there is none)."""
    start, end = span
    pieces = []
    while end - start > size:
        cut = start + size
        space = max((m.start() for m in _SPACE.finditer(text, start + size // 2, cut)), default=-1)
        cut = space if space > start else cut
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def pack(text: str, pieces: Sequence[Span], size: int, overlap_pieces: int = 0) -> list[Span]:
    """Join consecutive whole pieces while the joined span stays within ``size`` characters.

    A piece longer than ``size`` is cut with ``split_long`` first. ``overlap_pieces`` repeats the last pieces of a
    chunk at the start of the next one (whole pieces, as rag-titan's ``pack()`` does).
    """
    units = [part for piece in pieces for part in split_long(text, piece, size)]
    chunks: list[Span] = []
    current: list[Span] = []
    for piece in units:
        if current and piece[1] - current[0][0] > size:
            chunks.append((current[0][0], current[-1][1]))
            keep = current[-overlap_pieces:] if overlap_pieces else []
            while keep and piece[1] - keep[0][0] > size:
                keep = keep[1:]
            current = keep
        current.append(piece)
    if current:
        chunks.append((current[0][0], current[-1][1]))
    return chunks


def pieces_between(text: str, boundaries: Sequence[int]) -> list[Span]:
    """The spans between sorted cut offsets (0 and ``len(text)`` are added), empty ones dropped."""
    cuts = sorted({0, len(text), *(b for b in boundaries if 0 < b < len(text))})
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()]
