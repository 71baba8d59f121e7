"""In-memory snapshots of one chunker's chunks and indexes, reused while the DuckDB file is unchanged.

Opening a DuckDB file costs ~15 ms and a reader blocks writers in other processes, so a search loads what it
needs once, closes the file, and later searches only compare the file's stamp (size and mtime of the database
and its WAL): any committed write changes it, and the snapshot is loaded again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ...store import Store
from ...store.db import file_stamp  # noqa: F401 (the playground keys its caches by it)
from .bm25 import Bm25Postings
from .chunk_table import ChunkTable
from .dense import DenseVectors

CACHE_SIZE = 8

Stamp = tuple[tuple[int, int, int] | None, ...]


class SearchIndex:
    """What searches of one chunker read: its chunk rows, then BM25 postings and dense vectors on first use.

    Parts loaded later map their rows to these chunks by chunk id, so they stay consistent with them.
    """

    def __init__(self, store: Store, chunker: str, stamp: Stamp, chunks: ChunkTable) -> None:
        self.store = store
        self.chunker = chunker
        self.stamp = stamp
        self.chunks = chunks
        self._bm25: Bm25Postings | None = None
        self._dense: DenseVectors | None = None
        self._lock = threading.Lock()

    def postings(self) -> Bm25Postings:
        with self._lock:
            if self._bm25 is None:
                with self.store.read() as con:
                    self._bm25 = Bm25Postings.load(con, self.chunks)
            return self._bm25

    def vectors(self) -> DenseVectors:
        with self._lock:
            if self._dense is None:
                with self.store.read() as con:
                    self._dense = DenseVectors.load(con, self.chunks)
            return self._dense


_cache: OrderedDict[tuple[str, str], SearchIndex] = OrderedDict()
_seen: set[tuple[str, str]] = set()
_lock = threading.Lock()


def first_search(store: Store, chunker: str) -> bool:
    """True the first time a process searches this chunker (no snapshot yet): a one-shot query may skip it."""
    key = (store.cache_key(), chunker)
    with _lock:
        if key in _seen or key in _cache:
            return False
        _seen.add(key)
        return True


def open_index(store: Store, chunker: str) -> SearchIndex:
    """The snapshot of ``chunker``, from the cache while the database file has not changed."""
    key = (store.cache_key(), chunker)
    with _lock:
        index = _cache.get(key)
        stamp = store.stamp()
        if index is None or index.stamp != stamp:
            with store.read() as con:  # no writer can commit while this read-only connection is open
                index = SearchIndex(store, chunker, stamp, ChunkTable.load(con, chunker))
        _cache[key] = index
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return index


def clear_cache() -> None:
    """Forget every snapshot (tests; or to free memory in a long-running process)."""
    with _lock:
        _cache.clear()
        _seen.clear()
