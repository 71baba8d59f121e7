"""Keep the store file near the size of its live data, without a memory peak.

DuckDB never shrinks a file, keeps deleted rows inside their row groups until a row group is rewritten, and
writes a changed row group anew at a checkpoint before freeing the old one. Free blocks are reused by later
writes; deleted rows are not. So the store's size after a run is compared with its size when it was last
compact (recorded in ``step_state``), and once it outgrew it the live data is copied into a fresh file that
replaces it. Measured on the sample project over the 710-file scale corpus (17 MB of text): a full index leaves
85 MB (66 MB once copied), re-indexing a tenth of the files grows it to 117 MB and the copy brings it to 82 MB.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from .content import get_step_state, set_step_state

if TYPE_CHECKING:
    from .db import Store

logger = logging.getLogger("right_rag_dagster")

COMPACT_STEP = "store:compact-bytes"
"""``step_state`` row (document id empty) whose cache key is the file's size when it was last compact."""
LARGE_RUN_SHARE = 0.1
"""A run that wrote or removed at least this share of the documents is large."""
GROWTH_LARGE_RUN = 1.2
GROWTH_SMALL_RUN = 2.0
"""The file is copied when it outgrew its compact size this many times: after a large run, or after any run. One
changed file rewrites a 50,000-chunk table whole (one row group) and frees a quarter of a 1x store, which the next
run reuses: copying the store for it tripled the time of a one-file index."""
MAX_FREE_SHARE = 0.5
"""Whatever the growth, a file that is more than half free blocks is copied."""
MIN_BYTES = 16 * 2**20
"""Smaller files are left alone."""
MEMORY_BUDGETS_MB = (64, 128, 256)
"""DuckDB's budgets for the copy, tried in turn while it runs out of memory: 64 MB copied the 1x store at 157 MB peak
RSS (192 MB: 268 MB); a 7,100-file store (605 MB) needed 128 MB, copied at 371 MB peak RSS in a process of its own.
Both measured when a document's text was one row (a row group of 2,048 documents' text); with the texts in
1,024-character pieces (migration 8) a 10x copy peaked at ~413 MB in the main process (``docs/performance.md``,
sixth round); which budget it took was not recorded."""


@dataclass(frozen=True)
class Space:
    """The store file before and after, the compact size it is measured against, and whether it was rewritten."""

    bytes_before: int
    bytes_after: int
    compact_bytes: int | None
    rewritten: bool
    due: bool = False  # outgrew its compact size, or mostly free blocks (``due``)


def due(store: Store, rewritten_share: float = 1.0, min_bytes: int = MIN_BYTES, step: str = COMPACT_STEP,
        growth: float | None = None) -> Space | None:
    """Fold the log into the file and measure it: a copy is due when the file outgrew its compact size (see
    ``GROWTH_LARGE_RUN``) or is mostly free blocks. A store with no recorded compact size (new, or made by an older
    right-rag) is due once, to learn it: a first full index leaves a fifth of the file free and deleted rows in it.
    None for a file too small to consider, or a DuckLake. Unlike the copy, this runs inside a session too."""
    if store.lake or not store.exists() or store.path.stat().st_size < min_bytes:
        return None
    with store.write(checkpoint=True) as con:
        total, free = con.execute("SELECT total_blocks, free_blocks FROM pragma_database_size() "
                                  "WHERE database_name = current_database()").fetchone()
        row = get_step_state(con, step, "")
    before = store.path.stat().st_size
    compact = int(row[0]) if row else None
    if growth is None:
        growth = GROWTH_LARGE_RUN if rewritten_share >= LARGE_RUN_SHARE else GROWTH_SMALL_RUN
    mostly_free = total > 0 and free > MAX_FREE_SHARE * total
    return Space(before, before, compact, False, due=mostly_free or compact is None or before > growth * compact)


def compact_store(store: Store, rewritten_share: float = 1.0, min_bytes: int = MIN_BYTES, step: str = COMPACT_STEP,
                  growth: float | None = None) -> Space | None:
    """Fold the log into the file; copy the store into a fresh file and swap it in when it is due (``due``).
    Returns None for a file too small to consider (or a DuckLake), else the ``Space`` before and after. A copy that
    fails only warns: the store as it was stays in place. ``step`` names the record (the evaluation store keeps
    its own), ``growth`` overrides the growth allowed."""
    space = due(store, rewritten_share, min_bytes, step, growth)
    if space is None or not space.due:
        return space
    before, compact = space.bytes_before, space.compact_bytes
    failure: duckdb.Error | None = None
    for budget in MEMORY_BUDGETS_MB:
        try:
            store.copy_and_swap(budget)
            failure = None
            break
        except duckdb.OutOfMemoryException as exc:
            failure = exc
        except duckdb.Error as exc:
            failure = exc
            break
    if failure is not None:
        logger.warning(f"store not compacted ({type(failure).__name__}: {str(failure).splitlines()[0]}); it stays "
                       "as it was and later writes reuse its free blocks. Raise RIGHT_RAG_DUCKDB_MEMORY_LIMIT to let "
                       "it compact.")
        return Space(before, before, compact, False)
    after = store.path.stat().st_size
    _record(store, step, after)
    return Space(before, after, after, True)


def _record(store: Store, step: str, size: int) -> None:
    with store.write(checkpoint=True) as con:
        set_step_state(con, step, "", str(size), None)
