"""Baseline chunkers for evaluation only (never plugins: see ``base``), in rag-titan's two families."""

from __future__ import annotations

from ...errors import ConfigError
from .base import PREFIX, BaselineChunker, code_version, make_chunks
from .fixed_size import FixedCharsChunker, FixedWordsChunker, RecursiveChunker
from .structure import (
    HeadingChunker,
    PageChunker,
    ParagraphChunker,
    PieceChunker,
    SentenceChunker,
)


def default_baselines() -> list[BaselineChunker]:
    """The baselines ``--compare`` measures: fixed-size and structure-only, sized near the 6,000-character
    context budget for five chunks, plus plain 500-character windows (a common default and a published reference)."""
    return [
        FixedCharsChunker(500, 0),
        FixedCharsChunker(1000, 200),
        FixedWordsChunker(200, 20),
        RecursiveChunker(1000),
        SentenceChunker(1000),
        ParagraphChunker(1000),
        HeadingChunker(1500),
        PageChunker(4000),
    ]


def baselines_by_name(names: list[str] | None = None) -> list[BaselineChunker]:
    """The default baselines, or those named (``ConfigError`` listing the valid names otherwise)."""
    available = {b.name: b for b in default_baselines()}
    if names is None:
        return list(available.values())
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ConfigError(f"unknown baseline chunker(s) {unknown}; available: {sorted(available)}")
    return [available[n] for n in names]


__all__ = ["PREFIX", "BaselineChunker", "FixedCharsChunker", "FixedWordsChunker", "HeadingChunker", "PageChunker",
           "ParagraphChunker", "PieceChunker", "RecursiveChunker", "SentenceChunker", "baselines_by_name",
           "code_version", "default_baselines", "make_chunks"]
