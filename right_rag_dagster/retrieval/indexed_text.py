"""The one rule for the text that BM25 tokenizes and embedders embed: the section path, then the chunk text.

The heading path carries what a passage is about (``4.9.1 debian/rules and DEB_BUILD_OPTIONS``), so it is
searchable even when the chunk body never repeats it. A chunk whose text already opens with its heading (a
domain chunker's header) is indexed as it is, so heading words are not counted twice. BM25 then counts the chunk's
own heading (the path's last part) once more (``bm25_text``): a field weight, as BM25F gives a title, so of a
document's passages the one under the heading the question names ranks first. Kept out on purpose:
ids, spans, page numbers, attributes and metadata, which help to filter and cite but are noise to a ranking
(docling-core does the same).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

INDEXED_TEXT_VERSION = "1"
"""Part of every index's format (``formats.py``): change it with this rule, so every index is rebuilt."""

HEADER_WINDOW = 400
"""A chunk showing its own heading within this many leading characters gets no second copy of the path."""

KEPT_OUT = ("chunk_id", "unit_id", "document_id", "source_start", "source_end", "page_start", "page_end",
            "attributes", "metadata")
"""Chunk fields never indexed (listed so the rule is explicit and testable)."""


HEADING_VERSION = "1"
"""Part of the BM25 format (``formats.py``): change it with ``bm25_text``'s rule. Measured when it was added
(docs/evaluation.md, tenth round): the heading counted once more gained 3 questions at rank 1 of 328 on the tuning
sets and lost none; twice more lost 3 on dev, ``heldout/`` and ``heldout3/``; not repeating a chunk's opening heading
in its body lost 11."""


def section_parts(section_path: Sequence[str] | str | None) -> list[str]:
    """The non-empty parts of a chunk's section path (a list, or its JSON text as stored)."""
    path = json.loads(section_path) if isinstance(section_path, str) else list(section_path or ())
    return [str(part).strip() for part in path if str(part).strip()]


def heading_and_text(section_path: Sequence[str] | str | None, fulltext: str) -> tuple[str, str]:
    """The heading a chunk sits under (its section path's last part, "" when it has none) and its indexed text, the
    path parsed once (a stored path is JSON text)."""
    parts = section_parts(section_path)
    return (parts[-1] if parts else ""), indexed_text(parts, fulltext)


def bm25_text(heading: str, text: str) -> str:
    """What BM25 tokenizes: the chunk's own ``heading`` once more, then its indexed ``text`` (the embedders read
    ``text`` alone)."""
    return f"{heading}\n{text}" if heading else text


def indexed_text(section_path: Sequence[str] | str | None, fulltext: str) -> str:
    """Section path (``a > b > c``) on the first line, then the chunk's full text (see the module docstring)."""
    parts = section_parts(section_path)
    if not parts or parts[-1] in fulltext[:HEADER_WINDOW]:
        return fulltext
    return " > ".join(parts) + "\n" + fulltext

