"""Which dense indexes ``right-rag index`` must build, rebuild or drop because the embedder setting changed.

Documents that change bring their chunkers' indexes up to date in the index run. The ``embedder`` setting can
change alone (set, switched to another model, removed) while no document does: ``dense_index_work`` compares
each chunker's stored vectors with the configured embedder, ``apply_dense_work`` does what it found, and
``sync_dense_indexes`` does both for the CLI, one line per index changed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ...store import Store
from ...store.chunk_reads import chunk_count
from ...store.search_tables import read_state
from ..embedders import Embedder
from ..formats import HASH_RULE
from .bm25 import needs_rebuild
from .dense import drop_dense
from .indexes import build_search_index

_DONE = {"build": "built", "rebuild": "rebuilt", "drop": "dropped"}


class ProgressSink(Protocol):
    """Where embedding progress goes (the CLI's progress bar): ``add(chunks just embedded)``, then ``close()``."""

    def add(self, count: int) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DenseWork:
    """One chunker's dense index to ``build`` (none stored), ``rebuild`` (another model or text rule) or ``drop``
    (no embedder configured any more), with the stored and the wanted model and the chunks to embed."""

    chunker: str
    action: str
    stored: str | None
    wanted: str | None
    chunks: int

    def describe(self, seconds: float) -> str:
        done = f"dense index of {self.chunker}: {_DONE[self.action]}"
        if self.action == "drop":
            return f"{done} ({self.stored}; no embedder configured) in {seconds:.1f}s"
        was = f", was {self.stored}" if self.action == "rebuild" else ""
        return f"{done} with {self.wanted}{was} ({self.chunks} chunks) in {seconds:.1f}s"


def dense_index_work(store: Store, chunkers: Sequence[str], embedder: Embedder | None) -> list[DenseWork]:
    """The dense indexes that disagree with ``embedder`` (None: no embedder configured, so vectors go).

    A chunker whose BM25 index must be rebuilt anyway (another format) is left to the index run, which
    rebuilds both with the configured embedder; a chunker without chunks has nothing to embed.
    """
    if not store.exists():
        return []
    work = []
    with store.read() as con:
        for chunker in chunkers:
            state = read_state(con, chunker, "dense")
            stored = state.model if state is not None else None
            if embedder is None:
                if state is not None:
                    work.append(DenseWork(chunker, "drop", stored, None, 0))
                continue
            count = chunk_count(con, chunker)
            if not count or needs_rebuild(con, chunker):
                continue
            if state is None:
                work.append(DenseWork(chunker, "build", None, embedder.identity, int(count)))
            elif stored != embedder.identity or state.details.get("hash") != HASH_RULE:
                work.append(DenseWork(chunker, "rebuild", stored, embedder.identity, int(count)))
    return work


def apply_dense_work(store: Store, work: Sequence[DenseWork], embedder: Embedder | None,
                     progress: Callable[[int], None] | None = None) -> list[str]:
    """Build, rebuild or drop each index of ``work``; one line per index saying what was done."""
    lines = []
    for item in work:
        started = time.perf_counter()
        if item.action == "drop":
            with store.write(checkpoint=True) as con:
                drop_dense(con, item.chunker)
        else:
            build_search_index(store, item.chunker, embedder, progress=progress)
        lines.append(item.describe(time.perf_counter() - started))
    return lines


def sync_dense_indexes(store: Store, chunkers: Sequence[str], embedder: Embedder | None,
                       progress: Callable[[int, str], ProgressSink] | None = None) -> list[str]:
    """``dense_index_work`` then ``apply_dense_work``; ``progress(total, label)`` makes a progress sink (the
    CLI's ``ProgressBar``) for the chunks to embed."""
    work = dense_index_work(store, chunkers, embedder)
    if not work:
        return []
    sink = progress(sum(item.chunks for item in work), "chunks embedded") if progress else None
    try:
        return apply_dense_work(store, work, embedder, sink.add if sink else None)
    finally:
        if sink:
            sink.close()
