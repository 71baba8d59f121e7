"""The grounded-answer prompt: numbered excerpts with their provenance, answer only from them, cite [n]."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..retrieval.hits import Hit
from .model import NOT_FOUND

SYSTEM = (
    "You answer questions using only the numbered document excerpts you are given. Do not use any other "
    "knowledge. Cite the excerpts that support each statement with their numbers in square brackets, "
    "like [1] or [2][3]. If the excerpts do not contain the answer, reply exactly: " + NOT_FOUND
)

_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def source_line(hit: Hit) -> str:
    """``file, p. 26, section > path`` for an excerpt header (and the CLI's citation list)."""
    parts = [hit.document_id]
    if hit.pages:
        parts.append(f"p. {hit.pages}")
    if hit.section_path:
        parts.append(" > ".join(hit.section_path))
    return ", ".join(parts)


def build_messages(question: str, hits: Sequence[Hit]) -> list[dict[str, str]]:
    """System and user messages; excerpt ``[n]`` is ``hits[n - 1]``."""
    excerpts = "\n\n".join(f"[{n}] ({source_line(hit)})\n{hit.text.strip()}" for n, hit in enumerate(hits, start=1))
    user = f"Excerpts:\n\n{excerpts or '(none)'}\n\nQuestion: {question}\nAnswer with [n] citations:"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def cited_numbers(reply: str, count: int) -> list[int]:
    """Excerpt numbers cited in ``reply`` (``[2]``, ``[1, 3]``), in first-cited order, within 1..count."""
    numbers: list[int] = []
    for match in _CITATION.finditer(reply):
        for part in match.group(1).split(","):
            n = int(part)
            if 1 <= n <= count and n not in numbers:
                numbers.append(n)
    return numbers


def says_not_found(reply: str) -> bool:
    return NOT_FOUND.lower().rstrip(".") in reply.lower()
