"""Keep the evaluation store's file bounded: the store's own compaction (``store.compaction``), with its own
record and growth limit. Without it DuckDB alone grew this store by a third per evaluation round."""

from __future__ import annotations

from ..store import Store
from ..store.compaction import Space, compact_store

GROWTH_LIMIT = 1.2
COMPACT_STEP = "evaluation:compact-bytes"
"""``step_state`` row of the file's size after its last rewrite (a copy of the project's store carries the
store's own record too, which describes the other file)."""


def reclaim_space(store: Store, growth_limit: float = GROWTH_LIMIT) -> Space:
    """Fold the write-ahead log into the file; rewrite the file when it outgrew ``growth_limit`` times its compact
    size or half of it is free blocks (a store with no recorded size is rewritten once to learn it). Call it with
    no other connection to the store open (``run_evaluation`` holds the store's lock)."""
    space = compact_store(store, min_bytes=0, step=COMPACT_STEP, growth=growth_limit)
    return space or Space(0, 0, None, False)  # None only for a store with no file (never the evaluation store's)
