"""The one rule for the text that BM25 tokenizes and embedders embed: the section path, then the chunk text.

The heading path carries what a passage is about (``4.9.1 debian/rules and DEB_BUILD_OPTIONS``), so it is
searchable even when the chunk body never repeats it. A chunk whose text already opens with its heading (a
domain chunker's header) is indexed as it is, so heading words are not counted twice. Kept out on purpose:
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


def indexed_text(section_path: Sequence[str] | str | None, fulltext: str) -> str:
    """Section path (``a > b > c``) on the first line, then the chunk's full text (see the module docstring)."""
    path = json.loads(section_path) if isinstance(section_path, str) else list(section_path or ())
    parts = [str(part).strip() for part in path if str(part).strip()]
    if not parts or parts[-1] in fulltext[:HEADER_WINDOW]:
        return fulltext
    return " > ".join(parts) + "\n" + fulltext

