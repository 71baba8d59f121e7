"""Structure-only baselines: whole sentences, paragraphs, heading sections or pages, packed up to a size.

They see the layout of plain text (punctuation, blank lines, heading-like lines, page breaks) but nothing of
the document family: the control group for domain parsers.
"""

from __future__ import annotations

import re

from ...core.model import Document
from .base import PREFIX, BaselineChunker, Span
from .packing import pack, pieces_between, split_long

_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A heading-like line: Markdown heading, numbered title ("4.9.1 debian/rules", "1. Definitions."), or SHORT CAPS.
_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+\S[^\n]*"
    r"|(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVXLC]+\.)[ \t]+[A-Z][^\n]{0,80}"
    r"|[A-Z][A-Z0-9 ,'&/()\-]{3,60})[ \t]*$",
    re.M,
)


class PieceChunker(BaselineChunker):
    """Cut the text at every match of ``boundary`` (after it, or before it with ``cut_before``), then pack
    whole pieces up to ``size`` characters."""

    family = ""
    boundary: re.Pattern[str] | None = None
    cut_before = False

    def __init__(self, size: int = 1000, overlap_pieces: int = 0) -> None:
        if size <= 0 or overlap_pieces < 0:
            raise ValueError(f"size must be positive ({size}) and overlap_pieces non-negative ({overlap_pieces})")
        self.size, self.overlap_pieces = size, overlap_pieces

    @property
    def name(self) -> str:
        return f"{PREFIX}{self.family}-{self.size}"

    def cuts(self, document: Document) -> list[int]:
        if self.boundary is None:
            raise NotImplementedError(f"{type(self).__name__} needs a boundary pattern or its own cuts()")
        return [m.start() if self.cut_before else m.end() for m in self.boundary.finditer(document.text)]

    def spans(self, document: Document) -> list[Span]:
        pieces = pieces_between(document.text, self.cuts(document))
        return pack(document.text, pieces, self.size, self.overlap_pieces)


class SentenceChunker(PieceChunker):
    """Whole sentences (split after ``.``, ``!`` or ``?`` and whitespace)."""

    family, boundary = "sentence", _SENTENCE_END


class ParagraphChunker(PieceChunker):
    """Whole paragraphs (split at blank lines)."""

    family, boundary = "paragraph", _PARAGRAPH_BREAK


class HeadingChunker(PieceChunker):
    """Sections from one heading-like line to the next; long sections are cut at whitespace."""

    family, boundary, cut_before = "heading", _HEADING, True


class PageChunker(PieceChunker):
    """Whole pages (the loader's page map, else form feeds); a document without pages is cut by size."""

    family = "page"

    def cuts(self, document: Document) -> list[int]:
        if document.page_starts:
            return list(document.page_starts)
        return [m.end() for m in re.finditer("\f", document.text)]

    def spans(self, document: Document) -> list[Span]:
        """One chunk per page, never two pages in one; a page longer than ``size`` is cut at whitespace."""
        pieces = pieces_between(document.text, self.cuts(document))
        return [part for page in pieces for part in split_long(document.text, page, self.size)]
