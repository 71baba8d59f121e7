"""Markdown code fences, shared by the generic parser and ``spec/`` parsers: a ``#`` line inside a fence is a shell
or Python comment (pip's requirements example), not a heading."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

_FENCE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$", re.MULTILINE)
_INFO = re.compile(r"[ \t]*(?:[\w+#.-]+|\{[\w:-]+\}[^`\n]*)?[ \t]*")
"""What an opening fence may carry: a language (``python``) or a MyST directive (``{note}``); Docling's rendering
of bold inline code (``**```\n-rgb\n```**``) ends in a line "```**" that opens nothing."""


def fenced_spans(text: str, underline: Callable[[str, int], bool] | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced code block, fences included: from an opening fence of three or more
    backquotes or tildes (with at most a language or a directive after it) to the next closing fence of the same
    character, at least as long, with nothing after it; a fence left open runs to the end of the text (CommonMark's
    rule). With ``underline`` (text, a fence line's start -> whether it underlines the line above it), a fence that
    would open is skipped when it underlines and its block would never close or would close on another underline:
    a plain text's heading underlines, not a code block."""
    fences = list(_FENCE.finditer(text))
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(fences):
        opening = fences[index]
        index += 1
        if not opens_fence(opening.group("info")):
            continue
        closing = next((i for i in range(index, len(fences)) if _closes(opening, fences[i])), None)
        if underline is not None and underline(text, opening.start()) and (
                closing is None or underline(text, fences[closing].start())):
            continue
        spans.append((opening.start(), len(text) if closing is None else fences[closing].end()))
        if closing is None:
            break
        index = closing + 1
    return spans


def _closes(opening: re.Match[str], fence: re.Match[str]) -> bool:
    return (fence.group("fence")[0] == opening.group("fence")[0]
            and len(fence.group("fence")) >= len(opening.group("fence")) and not fence.group("info").strip())


def opens_fence(info: str) -> bool:
    """True when a fence followed by ``info`` opens a code block: nothing, a language or a MyST directive."""
    return bool(_INFO.fullmatch(info))


def inside(spans: list[tuple[int, int]], offset: int) -> bool:
    """True when ``offset`` falls in one of ``spans`` (sorted, disjoint, as ``fenced_spans`` gives them)."""
    index = bisect_right(spans, offset, key=lambda span: span[0]) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]
