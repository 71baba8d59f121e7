"""Fixed-size baselines: character windows with overlap, word windows, and recursive separators."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.model import Document
from .base import PREFIX, BaselineChunker, Span
from .packing import pack, windows

_WORD = re.compile(r"\S+")


class FixedCharsChunker(BaselineChunker):
    """Windows of ``size`` characters, ``overlap`` characters shared with the previous window."""

    def __init__(self, size: int = 500, overlap: int = 50) -> None:
        windows(0, 0, size, overlap)  # validates the parameters
        self.size, self.overlap = size, overlap

    @property
    def name(self) -> str:
        return f"{PREFIX}fixed-chars-{self.size}{_overlap_suffix(self.overlap)}"

    def spans(self, document: Document) -> list[Span]:
        return windows(0, len(document.text), self.size, self.overlap)


class FixedWordsChunker(BaselineChunker):
    """Windows of ``size`` whitespace-separated words, ``overlap`` words shared with the previous window."""

    def __init__(self, size: int = 200, overlap: int = 20) -> None:
        windows(0, 0, size, overlap)
        self.size, self.overlap = size, overlap

    @property
    def name(self) -> str:
        return f"{PREFIX}fixed-words-{self.size}{_overlap_suffix(self.overlap)}"

    def spans(self, document: Document) -> list[Span]:
        words = [m.span() for m in _WORD.finditer(document.text)]
        return [(words[a][0], words[b - 1][1]) for a, b in windows(0, len(words), self.size, self.overlap)]


class RecursiveChunker(BaselineChunker):
    """LangChain-style recursive splitting: paragraphs, then lines, sentences, words, packed up to ``size``."""

    SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")

    def __init__(self, size: int = 1000) -> None:
        if size <= 0:
            raise ValueError(f"size must be positive, not {size}")
        self.size = size

    @property
    def name(self) -> str:
        return f"{PREFIX}recursive-{self.size}"

    def spans(self, document: Document) -> list[Span]:
        text = document.text
        return pack(text, _split(text, (0, len(text)), self.SEPARATORS, self.size), self.size)


def _overlap_suffix(overlap: int) -> str:
    return f"-overlap-{overlap}" if overlap else ""


def _split(text: str, span: Span, separators: Sequence[str], size: int) -> list[Span]:
    """Split ``span`` at the first separator present; recurse into parts still longer than ``size``."""
    start, end = span
    if end - start <= size or not separators:
        return [span]
    separator, rest = separators[0], separators[1:]
    cuts, position = [], text.find(separator, start, end)
    while position >= 0:
        cuts.append(position + len(separator))
        position = text.find(separator, position + len(separator), end)
    if not cuts:
        return _split(text, span, rest, size)
    parts = [(a, b) for a, b in zip([start, *cuts], [*cuts, end]) if b > a]
    return [piece for part in parts for piece in _split(text, part, rest, size)]
