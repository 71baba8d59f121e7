"""Keep the evaluation store's file bounded: the store's own compaction (``store.compaction``), with its own
record and growth limit. Without it DuckDB alone grew this store by a third per evaluation round."""

from __future__ import annotations

from dataclasses import dataclass

from ..store import Store
from ..store.compaction import compact_size, compact_store

GROWTH_LIMIT = 1.2
COMPACT_STEP = "evaluation:compact-bytes"
"""``step_state`` row of the file's size after its last rewrite (a copy of the project's store carries the
store's own record too, which describes the other file)."""


@dataclass(frozen=True)
class Space:
    """The store file before and after, the size it is measured against, and whether it was rewritten."""

    bytes_before: int
    bytes_after: int
    compact_bytes: int
    rewritten: bool


def reclaim_space(store: Store, growth_limit: float = GROWTH_LIMIT) -> Space:
    """Fold the write-ahead log into the file; rewrite the file when it outgrew ``growth_limit`` times its compact
    size or half of it is free blocks (a store with no recorded size is rewritten once to learn it). Call it with
    no other connection to the store open (``run_evaluation`` holds the store's lock)."""
    copied = compact_store(store, min_bytes=0, step=COMPACT_STEP, growth=growth_limit)
    size = store.path.stat().st_size
    return Space(copied[0] if copied else size, size, compact_size(store, COMPACT_STEP) or size, copied is not None)
