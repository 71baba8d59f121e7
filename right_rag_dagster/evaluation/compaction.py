"""Keep the evaluation store's file bounded. DuckDB never shrinks a file, keeps deleted rows in their row
groups, and writes a changed row group anew at a checkpoint before freeing the old one: a table of up to
122,880 rows is one row group, so one changed document grew the 710-document store by more than a fifth, and
a tenth of them by half. So once the file outgrows ``GROWTH_LIMIT`` times its size after its last rewrite (or
half of it is free blocks), its live data is copied to a fresh file that replaces it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..store import Store
from ..store.content import get_step_state, set_step_state
from ..store.evaluation_tables import copy_and_swap, database_blocks

GROWTH_LIMIT = 1.2
MAX_FREE_SHARE = 0.5
COMPACT_STEP = "evaluation:compact-bytes"
"""``step_state`` row of the file's size after its last rewrite (its cache key; document id empty)."""


@dataclass(frozen=True)
class Space:
    """The store file (with its log) before and after, the size it is measured against, and whether it was
    rewritten."""

    bytes_before: int
    bytes_after: int
    compact_bytes: int
    rewritten: bool


def reclaim_space(store: Store, growth_limit: float = GROWTH_LIMIT, max_free_share: float = MAX_FREE_SHARE) -> Space:
    """Fold the write-ahead log into the file; rewrite the file when it outgrew ``growth_limit`` times its compact
    size or more than ``max_free_share`` of it is free blocks. A store with no recorded compact size (new, or
    made by an older right-rag) is rewritten once to learn it.

    Call it with no other connection to the store open (``run_evaluation`` holds the store's lock)."""
    store.checkpoint()
    before = file_bytes(store.path)
    with store.read() as con:
        total, free = database_blocks(con)
        row = get_step_state(con, COMPACT_STEP, "")
    compact = int(row[0]) if row else None
    bloated = (free / total if total else 0.0) > max_free_share
    if not bloated and compact is not None and before <= growth_limit * compact:
        return Space(before, before, compact, False)
    copy_and_swap(store.path)
    after = file_bytes(store.path)
    _record_compact(store, after)
    return Space(before, after, after, True)


def _record_compact(store: Store, size: int) -> None:
    with store.write(checkpoint=True) as con:
        set_step_state(con, COMPACT_STEP, "", str(size), None)


def file_bytes(path: Path) -> int:
    """The DuckDB file and its write-ahead log, in bytes."""
    wal = path.with_name(path.name + ".wal")
    return sum(p.stat().st_size for p in (path, wal) if p.exists())
