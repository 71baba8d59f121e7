"""Process start-up: load large libraries with the garbage collector paused, then freeze what they made.

Importing Dagster (and its storage: SQLAlchemy, Alembic) creates about a million objects that live as long as
the process. While they loaded, the collector ran its full collection over all of them again and again: 0.26-0.39 s
of CPU in a 2.6 s ``right-rag index`` of one changed file (docs/performance.md, tenth round). Frozen, they are
also skipped by every later full collection."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_freezing = False


def freeze_after_imports() -> None:
    """Let ``bulk_imports`` freeze what it loaded, in this process: for processes that end with their command
    (the ``right-rag`` executable, a writer process). In a long-lived one (a test session, a server), freezing
    would also keep whatever garbage was waiting for collection at that moment."""
    global _freezing
    _freezing = True


@contextmanager
def bulk_imports() -> Iterator[None]:
    """Run the block with the collector paused (unless it already is), then resume collecting, after moving
    every object alive to the permanent generation (``gc.freeze``) where ``freeze_after_imports`` was called.
    For imports and one-time setup, not for work that makes garbage."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _freezing:
            gc.freeze()
        gc.enable()
