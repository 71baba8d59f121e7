"""Context expansion: when several retrieved chunks come from one unit, return that whole unit once.

The unit hit takes the place (and score) of its best chunk; the others are dropped and ranks renumbered.
Its ``details`` list the chunks it replaces, so evaluation and citations can still see them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

from ...store import Store
from ...store.chunk_reads import unit_texts
from ..hits import Hit

MIN_CHUNKS = 2


def expand_to_units(store: Store, hits: list[Hit], min_chunks: int = MIN_CHUNKS) -> list[Hit]:
    """Hits with every unit that has at least ``min_chunks`` chunks among them merged into one unit hit."""
    counts = Counter(hit.unit_id for hit in hits)
    merge = [unit_id for unit_id, count in counts.items() if count >= min_chunks]
    if not merge:
        return hits
    units = _read_units(store, merge)
    out: list[Hit] = []
    done: set[str] = set()
    for hit in hits:
        unit = units.get(hit.unit_id)
        if unit is None:
            out.append(hit)
            continue
        if hit.unit_id in done:
            continue
        done.add(hit.unit_id)
        merged = [h.chunk_id for h in hits if h.unit_id == hit.unit_id]
        out.append(replace(hit, **unit, details={**hit.details, "expanded_to_unit": hit.unit_id,
                                                 "chunks": merged}))
    return [replace(hit, rank=rank) for rank, hit in enumerate(out, start=1)]


def _read_units(store: Store, unit_ids: list[str]) -> dict[str, dict]:
    with store.read() as con:
        rows = unit_texts(con, unit_ids)
    units = {}
    for uid, text, start, end, page_start, page_end, label_start, label_end, path in rows:
        units[uid] = {
            "text": text, "source_start": start, "source_end": end, "page_start": page_start, "page_end": page_end,
            "page_label_start": label_start or (str(page_start) if page_start else None),
            "page_label_end": label_end or (str(page_end) if page_end else None),
            "section_path": tuple(json.loads(path or "[]")),
        }
    return units
