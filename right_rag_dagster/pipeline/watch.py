"""What changed in the documents folder since the store was last updated: the sensor's plain logic."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.hashing import stable_hash
from .scan import DocumentFile


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
    """Compare the folder with Dagster's partitions and the store.

    ``existing_keys`` are the current partition keys in order; ``indexed`` maps document id to (partition key,
    content hash) as last indexed. New or content-changed files are to be indexed; files gone are deleted.
    """
    current = {f.partition_key for f in files}
    existing = set(existing_keys)
    add = tuple(f.partition_key for f in files if f.partition_key not in existing)
    delete = tuple(sorted((doc, key) for doc, (key, _) in indexed.items() if key not in current))
    delete += tuple(("", key) for key in existing_keys if key not in current and
                    key not in {k for _, k in delete})
    to_index = tuple(f for f in files if indexed.get(f.document_id, ("", ""))[1] != f.content_hash)
    order = {key: i for i, key in enumerate([*[k for k in existing_keys if k in current], *add])}
    positions = sorted(order[f.partition_key] for f in to_index)
    ordered = sorted(order, key=order.__getitem__)
    start = ordered[positions[0]] if positions else None
    end = ordered[positions[-1]] if positions else None
    return FolderChanges(add, delete, to_index, start, end)
