"""The evaluation store: a separate DuckDB file holding the project's indexed content plus baseline chunks.

Baselines never touch the project's own store (so nothing in production can search them): each evaluation
brings ``<store folder>/evaluation.duckdb`` (same schema) up to date with the project's documents, chosen
chunkers' chunks and, when searches read them, units, copying only the documents whose rows changed
(``store/evaluation_copy.py``), and cuts the baselines of those documents only (``baseline_cache``). Search indexes built in it
are updated incrementally by retrieval; ``compaction`` keeps the file bounded once they are.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from ..core.model import Document
from ..errors import ConfigError, StoreError
from ..project import Project
from ..store import Store
from ..store.chunk_reads import chunker_names
from ..store.content import read_documents
from ..store.evaluation_copy import copy_changes
from ..store.evaluation_tables import loaded_document_ids
from .baseline_cache import cut_baselines
from .baselines import BaselineChunker

EVALUATION_STORE_NAME = "evaluation.duckdb"


def evaluation_store_path(project: Project) -> Path:
    """``evaluation.duckdb`` beside the project's store (``.right-rag/`` by default, git-ignored)."""
    return project.store_path.parent / EVALUATION_STORE_NAME


@dataclass(frozen=True)
class Changes:
    """What bringing the evaluation store up to date did: documents copied (in all and per part: row, units,
    chunks of a chunker), documents removed, and documents cut again per baseline."""

    copied: int = 0
    parts: dict[str, int] = field(default_factory=dict)
    removed: int = 0
    recut: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"documents_copied": self.copied, "parts_copied": self.parts, "documents_removed": self.removed,
                "baseline_recut": self.recut}


@dataclass(frozen=True)
class Workspace:
    """The prepared evaluation store, its loaded documents and the chunkers whose chunks it holds; ``source`` is
    the project's store it copies."""

    store: Store
    document_ids: tuple[str, ...]
    chunkers: tuple[str, ...]
    changes: Changes = Changes()
    source: Store | None = None

    def read_documents(self, document_ids: Sequence[str]) -> dict[str, Document]:
        """The loaded documents among ``document_ids`` (only those: the corpus is never held in memory)."""
        with self.store.read() as con:
            return read_documents(con, list(document_ids))


def prepare_workspace(project: Project, chunkers: Sequence[str], baselines: Sequence[BaselineChunker], *,
                      units: bool = True) -> Workspace:
    """Bring the evaluation store's copy of ``chunkers`` (and, with ``units``, of the active units) up to date
    and cut the ``baselines`` it lacks."""
    names = [*chunkers, *(b.name for b in baselines)]
    if not names:
        raise ConfigError("no chunker to evaluate: name one with --chunker or add a chunk parser to spec/")
    source = Store(project.store_path)
    with source.read() as con:
        available = set(chunker_names(con))
        missing = [name for name in chunkers if name not in available]
        if missing:
            raise ConfigError(f"the index at {source.path} has no chunks of {missing}; chunkers indexed: "
                              f"{sorted(available) or 'none'} (run `right-rag index`, or pick another --chunker)")
    store = Store(evaluation_store_path(project))
    try:
        store.ensure()
    except (duckdb.Error, StoreError) as exc:  # a damaged cache (e.g. left by a crash): start it again
        store = _start_again(store, exc)
    copied = copy_changes(store, source.path, chunkers, units)
    recut = cut_baselines(store, baselines)
    with store.read() as con:
        ids = loaded_document_ids(con)
    if not ids:
        raise StoreError(f"the index at {source.path} holds no loaded documents: run `right-rag index` first")
    return Workspace(store, ids, tuple(names), Changes(copied.documents, copied.parts, copied.removed, recut), source)


def _start_again(store: Store, exc: BaseException) -> Store:
    """Delete a damaged evaluation store (it is only a cache) and return a new one at the same path."""
    for path in (store.path, store.path.with_name(store.path.name + ".wal")):
        path.unlink(missing_ok=True)
    print(f"note: rebuilt the damaged evaluation store {store.path} ({str(exc).splitlines()[0][:120]})",
          file=sys.stderr)
    return Store(store.path)

