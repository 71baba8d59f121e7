"""Evidence quotes back to character spans of the original document text, and span coverage arithmetic.

A quote is exact once runs of whitespace are collapsed to one space (PDF text has line breaks inside quotes), so
the search runs on a collapsed copy of the text that remembers where each of its characters came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")


def collapse_whitespace(text: str) -> str:
    """Runs of whitespace as one space, ends stripped: the form in which quotes are written."""
    return _WHITESPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class CollapsedText:
    """A document text with whitespace runs collapsed, and the original offset of each collapsed character."""

    text: str
    origin: tuple[int, ...]

    @classmethod
    def of(cls, original: str) -> CollapsedText:
        chars: list[str] = []
        origin: list[int] = []
        position = 0
        for match in _WHITESPACE.finditer(original):
            chars.append(original[position:match.start()])
            origin.extend(range(position, match.start()))
            chars.append(" ")
            origin.append(match.start())
            position = match.end()
        chars.append(original[position:])
        origin.extend(range(position, len(original)))
        return cls("".join(chars), tuple(origin))

    def find_all(self, quote: str) -> list[tuple[int, int]]:
        """Every span of ``original`` whose collapsed form is ``quote`` (collapsed too), in order."""
        needle = collapse_whitespace(quote)
        if not needle:
            return []
        spans = []
        found = self.text.find(needle)
        while found >= 0:
            last = found + len(needle) - 1
            spans.append((self.origin[found], self.origin[last] + 1))
            found = self.text.find(needle, found + 1)
        return spans


def overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Characters shared by two half-open spans."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def covered_chars(target: tuple[int, int], spans: Iterable[tuple[int, int]]) -> int:
    """Characters of ``target`` covered by the union of ``spans`` (overlapping chunks are not counted twice)."""
    clipped = sorted((max(s, target[0]), min(e, target[1])) for s, e in spans if min(e, target[1]) > max(s, target[0]))
    total, reach = 0, target[0]
    for start, end in clipped:
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def half_covered(target: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    """True when the union of ``spans`` covers at least half of ``target``'s characters."""
    length = target[1] - target[0]
    return length > 0 and 2 * covered_chars(target, spans) >= length
