"""The one change planner: which files are new, changed, unchanged or gone, read from the store without writing.

``plan_changes`` classifies; ``plan_index`` (the runner, by plugin versions) and ``folder_changes`` (the sensor,
by content and Dagster's partitions) are its two readings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import duckdb

from ..core.hashing import stable_hash
from ..core.steps import REFRESH
from ..store import Store, content
from ..store.catalog import done_marks, scanned_files, stored_documents
from .scan import DocumentFile, Skipped, scan_folder

if TYPE_CHECKING:
    from .indexer import Indexer

Mark = TypeVar("Mark")


@dataclass(frozen=True)
class Changes:
    """Files new (never done), changed (done, not current) and unchanged; (document id, partition key) gone."""

    new: tuple[DocumentFile, ...]
    changed: tuple[DocumentFile, ...]
    unchanged: tuple[DocumentFile, ...]
    removed: tuple[tuple[str, str], ...]


def plan_changes(files: Sequence[DocumentFile], done: Mapping[str, Mark], is_current: Callable[[DocumentFile, Mark], bool],
                 stored: Mapping[str, str]) -> Changes:
    """Classify ``files`` against ``done`` (document id -> what was last done) and ``stored`` (document id ->
    partition key of every document the store knows): those no longer in the folder are removed."""
    new, changed, unchanged = [], [], []
    for file in files:
        if file.document_id not in done:
            new.append(file)
        elif not is_current(file, done[file.document_id]):
            changed.append(file)
        else:
            unchanged.append(file)
    return Changes(tuple(new), tuple(changed), tuple(unchanged), gone_documents(files, stored))


def gone_documents(files: Sequence[DocumentFile], stored: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """(document id, partition key) of the stored documents whose file is no longer in ``files``, sorted."""
    present = {f.document_id for f in files}
    return tuple(sorted((d, k) for d, k in stored.items() if d not in present))


@dataclass(frozen=True)
class IndexPlan:
    """What an index run must do: files new or changed (by content or plugin versions), unchanged, removed."""

    new: tuple[DocumentFile, ...]
    changed: tuple[DocumentFile, ...]
    unchanged: tuple[DocumentFile, ...]
    removed: tuple[tuple[str, str], ...]  # (document_id, partition_key)
    refresh_pending: bool = False  # an earlier run left the search indexes behind the documents
    skipped: tuple[Skipped, ...] = ()  # files not indexed (links leaving the folder), with the reason
    outside: tuple[str, ...] = ()  # files indexed through links leaving the folder (allowed in right_rag.toml)

    @property
    def todo(self) -> tuple[DocumentFile, ...]:
        return self.new + self.changed

    @property
    def is_empty(self) -> bool:
        return not self.new and not self.changed and not self.removed


def known_files(store: Store) -> dict[str, tuple[float, int, str]]:
    """(mtime, size, hash) per document id as last indexed, so unchanged files are not re-hashed."""
    if not store.exists():
        return {}
    with store.read(scan=True) as con:
        return scanned_files(con)


def plan_index(indexer: Indexer, store: Store, files: Sequence[DocumentFile]) -> IndexPlan:
    """Compare the folder with the store without writing anything."""
    if not store.exists():
        return IndexPlan(tuple(files), (), (), ())
    with store.read(scan=True) as con:
        return _plan(indexer, con, files)


def scan_and_plan(indexer: Indexer, store: Store, documents_dir: Path | None = None
                  ) -> tuple[list[DocumentFile], IndexPlan]:
    """Scan the folder and plan the work with a single read of the store (each open of a large store costs
    tens of milliseconds, and ``right-rag index`` after a one-file edit has about a second to spare)."""
    project = indexer.project
    folder = documents_dir or project.documents_dir
    if not store.exists():
        scan = scan_folder(folder, {}, project.allow_outside_links)
        return scan.files, IndexPlan(tuple(scan.files), (), (), (), skipped=tuple(scan.skipped),
                                     outside=tuple(scan.outside))
    with store.read(scan=True) as con:
        scan = scan_folder(folder, scanned_files(con), project.allow_outside_links)
        plan = _plan(indexer, con, scan.files)
    return scan.files, replace(plan, skipped=tuple(scan.skipped), outside=tuple(scan.outside))


def _plan(indexer: Indexer, con: duckdb.DuckDBPyConnection, files: Sequence[DocumentFile]) -> IndexPlan:
    done = {doc: (key, version, None) for doc, (key, version) in done_marks(con).items()}
    changes = plan_changes(files, done, indexer.is_current, stored_documents(con))
    return IndexPlan(changes.new, changes.changed, changes.unchanged, changes.removed, _refresh_pending(con))


def refresh_pending(store: Store) -> bool:
    """Whether documents changed since the search indexes and audit report were last refreshed in full."""
    if not store.exists():
        return False
    with store.read(scan=True) as con:
        return _refresh_pending(con)


def _refresh_pending(con: duckdb.DuckDBPyConnection) -> bool:
    state = content.get_step_state(con, REFRESH, "*")
    return state is not None and state[0] == "pending"


@dataclass(frozen=True)
class FolderChanges:
    """Partitions to add and delete, documents to (re)index, and the partition range that covers them."""

    add_keys: tuple[str, ...]
    delete: tuple[tuple[str, str], ...]  # (document_id, partition_key) of files that disappeared
    to_index: tuple[DocumentFile, ...]
    range_start: str | None
    range_end: str | None

    @property
    def run_key(self) -> str:
        """Identifies this exact set of contents: a changed file gives a new key, so it re-runs."""
        return "docs-" + stable_hash(sorted((f.document_id, f.content_hash) for f in self.to_index))[:20]


def folder_changes(files: Sequence[DocumentFile], existing_keys: Sequence[str],
                   indexed: Mapping[str, tuple[str, str]]) -> FolderChanges:
    """The sensor's reading: compare the folder with Dagster's partitions and the store, by content only.

    ``existing_keys`` are the current partition keys in order; ``indexed`` maps document id to (partition key,
    content hash) as last indexed. New or content-changed files are to be indexed; files gone are deleted.
    """
    changes = plan_changes(files, indexed, lambda f, seen: seen[1] == f.content_hash,
                           {doc: key for doc, (key, _) in indexed.items()})
    current = {f.partition_key for f in files}
    existing = set(existing_keys)
    add = tuple(f.partition_key for f in files if f.partition_key not in existing)
    gone = {k for _, k in changes.removed}
    delete = changes.removed + tuple(("", key) for key in existing_keys if key not in current and key not in gone)
    todo = {f.document_id for f in changes.new + changes.changed}
    to_index = tuple(f for f in files if f.document_id in todo)
    order = {key: i for i, key in enumerate([*[k for k in existing_keys if k in current], *add])}
    positions = sorted(order[f.partition_key] for f in to_index)
    ordered = sorted(order, key=order.__getitem__)
    start = ordered[positions[0]] if positions else None
    end = ordered[positions[-1]] if positions else None
    return FolderChanges(add, delete, to_index, start, end)
