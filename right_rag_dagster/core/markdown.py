"""Markdown code fences, shared by the generic parser and ``spec/`` parsers: a ``#`` line inside a fence is a shell
or Python comment (pip's requirements example), not a heading."""

from __future__ import annotations

import re
from bisect import bisect_right

_FENCE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$", re.MULTILINE)
_INFO = re.compile(r"[ \t]*(?:[\w+#.-]+|\{[\w:-]+\}[^`\n]*)?[ \t]*")
"""What an opening fence may carry: a language (``python``) or a MyST directive (``{note}``); Docling's rendering
of bold inline code (``**```\n-rgb\n```**``) ends in a line "```**" that opens nothing."""


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced code block, fences included: from an opening fence of three or more
    backquotes or tildes (with at most a language or a directive after it) to the next closing fence of the same
    character, at least as long, with nothing after it; a fence left open runs to the end of the text (CommonMark's
    rule)."""
    spans: list[tuple[int, int]] = []
    opening: re.Match[str] | None = None
    for fence in _FENCE.finditer(text):
        if opening is None:
            if opens_fence(fence.group("info")):
                opening = fence
        elif (fence.group("fence")[0] == opening.group("fence")[0]
              and len(fence.group("fence")) >= len(opening.group("fence")) and not fence.group("info").strip()):
            spans.append((opening.start(), fence.end()))
            opening = None
    if opening is not None:
        spans.append((opening.start(), len(text)))
    return spans


def opens_fence(info: str) -> bool:
    """True when a fence followed by ``info`` opens a code block: nothing, a language or a MyST directive."""
    return bool(_INFO.fullmatch(info))


def inside(spans: list[tuple[int, int]], offset: int) -> bool:
    """True when ``offset`` falls in one of ``spans`` (sorted, disjoint, as ``fenced_spans`` gives them)."""
    index = bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]
