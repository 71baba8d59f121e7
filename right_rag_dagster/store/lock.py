"""One ``right-rag index`` at a time per store: an advisory file lock the operating system releases when the
process dies (even by ``kill -9``), so a crash never leaves the next run waiting."""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class IndexLock:
    """``<store>.lock`` held for the duration of an index; the holder's pid and start time are written in it."""

    def __init__(self, store_path: Path) -> None:
        self.path = store_path.with_name(store_path.name + ".lock")
        self._handle: IO[str] | None = None

    def holder(self) -> dict[str, Any]:
        """Who holds the lock (pid, started), as written by the holder; empty when unknown."""
        try:
            return json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            return {}

    def acquire(self, wait: bool = True, on_wait: Callable[[dict[str, Any]], None] | None = None) -> bool:
        """Take the lock; when another process holds it, call ``on_wait`` with its holder, then wait for it
        (or return False at once without ``wait``)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(self.holder())
            if not wait:
                handle.close()
                return False
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}))
        handle.flush()
        self._handle = handle
        return True

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing releases the lock
            self._handle = None

    def __enter__(self) -> IndexLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
