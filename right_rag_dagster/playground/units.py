"""A citation in context: the cited text inside its unit with the chunk's and the quote's spans marked, and the
unit's place in its document tree (each ancestor level with its siblings). Baseline chunks have no unit: their
context is the document text around the chunk."""

from __future__ import annotations

import json
from typing import Any

from ..errors import RightRagError
from ..store import Store
from ..store.chunk_reads import chunk_place, document_pages, unit_tree

MAX_CHARS = 6000  # a longer unit is shown as a window around the cited span
AROUND = 400  # characters of document shown around a chunk that has no unit
SIBLINGS = 7  # siblings shown on each side of the path at every tree level


def citation_context(store: Store, chunker: str, chunk_id: str) -> dict[str, Any]:
    """The cited chunk's unit text (or a window of it around the chunk), the chunk's span in it, and the unit's
    tree path. ``mark_quote`` adds the quote's span."""
    with store.read() as con:
        chunk = chunk_place(con, chunker, chunk_id)
        if chunk is None:
            raise RightRagError(f"no chunk {chunk_id} of {chunker} in {store.path}: the index changed since this "
                                "answer; ask again")
        document_id, unit_id, start, end, section = chunk
        text, labels, starts = document_pages(con, document_id)
        units = unit_tree(con, document_id)
    by_id = {row.unit_id: row for row in units}
    unit = by_id.get(unit_id)
    if unit and unit.source_start is not None:
        lo, hi = unit.source_start, unit.source_end
    else:  # a baseline chunk (no unit): the document around it
        lo, hi = max(0, (start or 0) - AROUND), min(len(text), (end or 0) + AROUND)
    lo, hi = _window(lo, hi, start, end)
    marks = ([{"kind": "chunk", "start": max(start, lo) - lo, "end": min(end, hi) - lo}]
             if start is not None and end is not None else [])
    return {
        "document": document_id, "chunk_id": chunk_id, "chunker": chunker,
        "unit": {"unit_id": unit_id if unit else None, "topic": unit.topic if unit else document_id,
                 "unit_type": unit.unit_type if unit else None, "section_path": json.loads(section or "[]"),
                 "span": [unit.source_start, unit.source_end] if unit else None},
        "window": {"start": lo, "end": hi, "clipped": bool(unit) and (lo, hi) != (unit.source_start, unit.source_end),
                   "pages": _page_labels(labels, starts, lo, hi)},
        "text": text[lo:hi], "marks": marks,
        "tree": tree_path(by_id, unit_id) if unit else [],
    }


def mark_quote(context: dict[str, Any], start: int | None, end: int | None) -> dict[str, Any]:
    """The context with the quote's document span marked too (when it falls inside the text shown)."""
    window = context["window"]
    if start is None or end is None or end <= window["start"] or start >= window["end"]:
        return context
    mark = {"kind": "quote", "start": max(start, window["start"]) - window["start"],
            "end": min(end, window["end"]) - window["start"]}
    return {**context, "marks": [*context["marks"], mark]}


def _window(lo: int, hi: int, start: int | None, end: int | None) -> tuple[int, int]:
    """The unit's span, or a window of ``MAX_CHARS`` centred on the chunk when the unit is longer."""
    if hi - lo <= MAX_CHARS or start is None or end is None:
        return lo, hi
    middle = (start + end) // 2
    a = max(lo, min(middle - MAX_CHARS // 2, hi - MAX_CHARS))
    return a, min(hi, a + MAX_CHARS)


def _page_labels(labels: list[str] | None, starts: list[int] | None, lo: int, hi: int) -> str:
    if not labels or not starts:
        return ""
    index = [i for i, s in enumerate(starts) if s <= hi]
    first = max((i for i in index if starts[i] <= lo), default=0)
    last = max(index, default=first)
    return labels[first] if first == last else f"{labels[first]}-{labels[last]}"


def tree_path(by_id: dict[str, tuple], unit_id: str) -> list[dict[str, Any]]:
    """From the root down to the unit: at each level the units under the same parent, the path's one marked
    (siblings far from it are elided), with ``more`` counting what was left out."""
    path = []
    current: str | None = unit_id
    while current is not None and current in by_id:
        path.append(current)
        current = by_id[current][1]
    children: dict[str | None, list[tuple]] = {}
    for row in by_id.values():
        children.setdefault(row[1], []).append(row)
    levels = []
    for node in reversed(path):
        siblings = children.get(by_id[node][1], [])
        at = next(i for i, row in enumerate(siblings) if row[0] == node)
        shown = siblings[max(0, at - SIBLINGS): at + SIBLINGS + 1]
        levels.append({"units": [{"unit_id": row[0], "topic": row[2], "unit_type": row[3], "on_path": row[0] == node}
                                 for row in shown],
                       "more_before": max(0, at - SIBLINGS), "more_after": max(0, len(siblings) - at - SIBLINGS - 1)})
    below = children.get(unit_id, [])
    if below:
        levels.append({"units": [{"unit_id": row[0], "topic": row[2], "unit_type": row[3], "on_path": False}
                                 for row in below[:SIBLINGS * 2]],
                       "more_before": 0, "more_after": max(0, len(below) - SIBLINGS * 2), "children": True})
    return levels
