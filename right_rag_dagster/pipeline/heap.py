"""Give the C heap's free pages back to the operating system, and keep its arenas few.

glibc's allocator keeps the memory Python frees for reuse; after a large document a worker, and after a write
batch the main process, stayed at their peak for the rest of the run, and their peaks added up."""

from __future__ import annotations

import ctypes
import os
import sys
from functools import cache


@cache
def _glibc(name: str):  # noqa: ANN202 - a ctypes function, or None
    """glibc's function ``name`` (``malloc_trim``, ``mallopt``), or None off Linux and in C libraries without it
    (musl has neither)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # The running program's own symbols, the C library's among them: ctypes.util.find_library would cost
        # a no-change `right-rag index` ~15 ms of imports (subprocess, tempfile, shutil) to find the same library.
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None


ARENAS = 2
"""glibc's malloc arenas per process (``M_ARENA_MAX``; by default 8 per core). Memory a thread frees stays in that
thread's arena, which ``malloc_trim`` hands back only where whole pages are free: Dagster's and DuckDB's threads each
kept one, and a 10x full index's main process sat at ~384 MB between batches instead of ~339 MB with two arenas
(docs/performance.md, seventh round)."""
_M_ARENA_MAX = -8


def limit_arenas() -> bool:
    """Cap glibc's malloc arenas at ``ARENAS`` for this process (unless ``MALLOC_ARENA_MAX`` already says how many);
    called where our processes start, before their threads. False where there is no such call."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    mallopt = _glibc("mallopt")
    return bool(mallopt is not None and mallopt(_M_ARENA_MAX, ARENAS))


def trim_heap() -> bool:
    """Release the heap's free pages (glibc's ``malloc_trim``); False where there is no such call."""
    trim = _glibc("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True
