"""Give the C heap's free pages back to the operating system.

glibc's allocator keeps the memory Python frees for reuse; after a large document a worker, and after a write
batch the main process, stayed at their peak for the rest of the run, and their peaks added up."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache


@cache
def _malloc_trim():  # noqa: ANN202 - a ctypes function, or None
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # musl and other C libraries have no malloc_trim
        return None


def trim_heap() -> bool:
    """Release the heap's free pages (glibc's ``malloc_trim``); False where there is no such call."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
